import { MB } from './constants';

/** A text parameter, trimmed; numbers are accepted as text, null/undefined as empty. */
export function readText(value: unknown): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' ? value.trim() : '';
}

export interface ListOptions {
	/**
	 * A list of words, entries that cannot hold a space (number prefixes, IP ranges): spaces, new lines and
	 * semicolons separate entries too. Otherwise only commas do, so that an entry keeps its spaces ("in
	 * progress", "Other Status").
	 */
	words?: boolean;
}

/** The pieces of a list's text as typed: cut at its separators, in order, empty pieces kept. */
export function listPieces(text: string, options: ListOptions = {}): string[] {
	return text.split(options.words ? /[\s,;]+/ : ',');
}

/**
 * Splits a list: text at its separators (listPieces), or an array from an expression, one entry per
 * element. Entries are trimmed (a number as its text, anything else that is not text is empty) and empty
 * ones dropped.
 */
export function splitList(value: unknown, options: ListOptions = {}): string[] {
	const parts = Array.isArray(value) ? value : typeof value === 'string' ? listPieces(value, options) : [];
	return parts.map((part) => readText(part)).filter((part) => part !== '');
}

/** A size in MB as the size options count it: "16 MB", "1.5 MB". */
export function formatMb(bytes: number): string {
	const mb = bytes / MB;
	return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
