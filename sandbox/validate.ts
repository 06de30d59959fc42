import { invalid } from './errors';

export const E164 = /^\+[1-9]\d{1,14}$/;
export const RAG_ID = /^rag_[A-Za-z0-9]+$/;
export const ACCEPTED_EXTENSIONS = ['.pdf', '.txt', '.doc', '.docx', '.csv', '.xls', '.xlsx'];
export const CHUNK_MIN = 500;
export const CHUNK_MAX = 10_000;
export const CHUNK_DEFAULT = 5_000;

export function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObjectBody(body: unknown): Record<string, unknown> {
	if (!isObject(body)) throw invalid('body', 'must be a JSON object');
	return body;
}

export function isHttpUrl(value: unknown): value is string {
	if (typeof value !== 'string') return false;
	try {
		const url = new URL(value);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

export function requireNonEmptyString(body: Record<string, unknown>, field: string, path = field): string {
	const value = body[field];
	if (typeof value !== 'string' || value.trim() === '') throw invalid(path, 'must be a non-empty string');
	return value;
}

export function optionalString(body: Record<string, unknown>, field: string, path = field): string | undefined {
	const value = body[field];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') throw invalid(path, 'must be a string');
	return value;
}

export function requireBoolean(body: Record<string, unknown>, field: string, path = field): boolean {
	const value = body[field];
	if (typeof value !== 'boolean') throw invalid(path, 'must be a boolean');
	return value;
}

export function fileExtension(fileName: string): string {
	const dot = fileName.lastIndexOf('.');
	return dot < 0 ? '' : fileName.slice(dot).toLowerCase();
}

export function isAcceptedFile(fileName: string): boolean {
	return ACCEPTED_EXTENSIONS.includes(fileExtension(fileName));
}

/** IPv4, IPv6 or a DNS host name. */
export function isIpOrHostname(value: string): boolean {
	const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
	if (ipv4.test(value)) return true;
	if (value.includes(':')) {
		try {
			return new URL(`http://[${value}]/`).hostname !== '';
		} catch {
			return false;
		}
	}
	if (value.length === 0 || value.length > 253) return false;
	const label = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
	const labels = value.split('.');
	return labels.every((part) => label.test(part)) && !/^\d+$/.test(labels[labels.length - 1]);
}

/** Lower-cased, IPv6 brackets removed. */
export function normalizePbx(value: string): string {
	return value.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
