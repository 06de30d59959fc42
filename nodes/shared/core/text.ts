import { MB } from './constants';

/** A text parameter, trimmed; numbers are accepted as text, null/undefined as empty. */
export function readText(value: unknown): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' ? value.trim() : '';
}

/** Splits a comma-separated list (or takes an array from an expression), trimming and dropping empties. */
export function splitList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return parts.map((part) => readText(part)).filter((part) => part !== '');
}

/** A size in MB as the size options count it: "16 MB", "1.5 MB". */
export function formatMb(bytes: number): string {
	const mb = bytes / MB;
	return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
