/**
 * URLs handed to the platform may carry secrets: the trigger's token is a path segment and n8n's
 * resume URLs carry a signature in the query. Output shows where a URL points, never those parts:
 * the query is dropped and every long token-like path segment becomes "***".
 */
export function redactUrl(value: string): string {
	try {
		const url = new URL(value);
		const path = url.pathname
			.split('/')
			.map((segment) => (/^[A-Za-z0-9_-]{16,}$/.test(segment) ? '***' : segment))
			.join('/');
		return `${url.protocol}//${url.host}${path}${url.search ? '?***' : ''}`;
	} catch {
		return '***';
	}
}
