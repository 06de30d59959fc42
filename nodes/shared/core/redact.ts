/**
 * URLs handed to the platform may carry secrets: the trigger's token is a path segment and n8n's
 * resume URLs carry a signature in the query. Output shows where a URL points, never those parts:
 * the query is dropped and every token-like path segment (16+ letters, digits, - or _, with a digit)
 * becomes "***"; words such as "conversation-end" stay readable.
 */
export const REDACTED = '***';

const isToken = (segment: string) => /^[A-Za-z0-9_-]{16,}$/.test(segment) && /\d/.test(segment);

export function redactUrl(value: string): string {
	try {
		const url = new URL(value);
		const path = url.pathname
			.split('/')
			.map((segment) => (isToken(segment) ? REDACTED : segment))
			.join('/');
		return `${url.protocol}//${url.host}${path}${url.search ? `?${REDACTED}` : ''}`;
	} catch {
		return REDACTED;
	}
}

/** The token-like parts of a URL (path segments, query values): secrets of a request that carries it. */
export function urlSecrets(value: unknown): string[] {
	if (typeof value !== 'string' || value === '') return [];
	try {
		const url = new URL(value);
		return [
			...url.pathname.split('/').filter(isToken),
			...[...url.searchParams.values()].filter(isToken),
		];
	} catch {
		return [];
	}
}

/** Fields that hold a URL handed to the platform (a trigger URL with its token, a resume URL). */
export const URL_FIELDS = new Set(['url', 'hangupUrl', 'callResultUrl', 'url_esito_chiamata', 'webhookUrl']);

/** One rule for every output: a URL field shows where it points (redactUrl), never its token or query. */
export function redactUrlFields<T>(value: T, depth = 0): T {
	if (value === null || typeof value !== 'object' || depth >= MAX_JSON_DEPTH) return value;
	if (Array.isArray(value)) return value.map((entry) => redactUrlFields(entry, depth + 1)) as T;
	const result: Record<string, unknown> = {};
	for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
		result[key] =
			URL_FIELDS.has(key) && typeof child === 'string' && child !== '' ? redactUrl(child) : redactUrlFields(child, depth + 1);
	}
	return result as T;
}

/** JSON from the platform nested deeper than this is refused (a hostile answer or callback, not data). */
export const MAX_JSON_DEPTH = 64;

/** Secrets shorter than this are not searched for: replacing a few common characters would mangle data. */
const MIN_SECRET_LENGTH = 6;

export class JsonTooDeepError extends Error {
	constructor() {
		super(`The platform answered JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
	}
}

function redactText(text: string, secrets: readonly string[]): string {
	let result = text;
	for (const secret of secrets) {
		if (result.length >= secret.length && result.includes(secret)) result = result.split(secret).join(REDACTED);
	}
	return result;
}

/**
 * `value` with every occurrence of every secret replaced by "***", in strings and keys at any depth.
 * Objects without a secret are returned as they are (a 500-item page is not copied); nesting beyond
 * MAX_JSON_DEPTH throws JsonTooDeepError.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
	const wanted = [...new Set(secrets.filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))].sort(
		(a, b) => b.length - a.length,
	);
	const walk = (node: unknown, depth: number): unknown => {
		if (typeof node === 'string') return redactText(node, wanted);
		if (node === null || typeof node !== 'object') return node;
		if (depth >= MAX_JSON_DEPTH) throw new JsonTooDeepError();
		if (Buffer.isBuffer(node)) return node;
		if (Array.isArray(node)) {
			let copy: unknown[] | undefined;
			for (let i = 0; i < node.length; i++) {
				const next = walk(node[i], depth + 1);
				if (next !== node[i]) {
					copy ??= node.slice();
					copy[i] = next;
				}
			}
			return copy ?? node;
		}
		// The copy starts at the first changed entry: the entries before it are taken as they are.
		let copy: Record<string, unknown> | undefined;
		const entries = Object.entries(node as Record<string, unknown>);
		for (let i = 0; i < entries.length; i++) {
			const [key, child] = entries[i];
			const nextKey = redactText(key, wanted);
			const next = walk(child, depth + 1);
			if (!copy && (next !== child || nextKey !== key)) copy = Object.fromEntries(entries.slice(0, i));
			if (copy) copy[nextKey] = next;
		}
		return copy ?? node;
	};
	return walk(value, 0) as T;
}
