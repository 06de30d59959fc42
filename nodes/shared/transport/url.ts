import type { IDataObject, IHttpRequestOptions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { destinationProblem } from '../../../credentials/checks';
import { invalid } from '../core/validation';

/*
 * Where a request goes: the exact URL, checked to stay on the credential's host before anything is sent,
 * its query written by the transport, and a redirect refused rather than followed.
 */

/** The credential's side of a URL: its base URL and the origin every request must stay on. */
export interface UrlBase {
	baseURL: string;
	origin: string;
	/** The only paths below the base URL (and what is under them) a request may go to; any path when unset. */
	paths?: string[];
}

export function trimSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

/** axios' rule: a URL with a scheme or starting with // ignores the base URL. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * The exact URL a request goes to, checked before anything is sent: on the credential's origin, below the
 * credential's paths where it has some (the Data Tables API credential: {baseUrl}/data-tables), and without "." or
 * ".." segments that would make it address another resource than the one built.
 */
export function targetUrl(node: INode, endpoint: UrlBase, options: IHttpRequestOptions, itemIndex?: number): string {
	const url = String(options.url ?? '');
	const joined = ABSOLUTE_URL.test(url)
		? url.startsWith('//')
			? `${new URL(endpoint.origin).protocol}${url}`
			: url
		: `${trimSlash(String(options.baseURL ?? endpoint.baseURL))}/${url.replace(/^\/+/, '')}`;
	let parsed: URL;
	try {
		parsed = new URL(joined);
	} catch {
		throw invalid(node, 'URL', 'must be a path under the base URL of the credential', itemIndex);
	}
	if (parsed.origin !== endpoint.origin) {
		throw invalid(
			node,
			'URL',
			`must stay on the credential's host ${endpoint.origin} (got ${parsed.origin}): keys are never sent to another host`,
			itemIndex,
		);
	}
	const rawPath = joined.slice(parsed.origin.length).split(/[?#]/)[0] || '/';
	const dotSegment = (segment: string) => ['.', '..'].includes(segment.replace(/%2e/gi, '.'));
	if (rawPath.split('/').some(dotSegment)) {
		throw invalid(node, 'URL', `must not contain "." or ".." path segments (got "${rawPath}")`, itemIndex);
	}
	const elsewhere = endpoint.paths ? destinationProblem(endpoint.baseURL, parsed, endpoint.paths) : undefined;
	if (elsewhere) {
		throw invalid(node, 'URL', `must stay where the credential's key may go: it goes ${elsewhere}`, itemIndex);
	}
	return joined;
}

export function redirectError(node: INode, statusCode: number, headers: IDataObject, from: string, itemIndex?: number): NodeApiError {
	let target = 'an unknown location';
	try {
		const location = new URL(String(headers.location ?? ''), from);
		target = location.origin === new URL(from).origin ? `${location.origin} (the same host)` : location.origin;
	} catch {
		// A Location that is not a URL: named as unknown.
	}
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message: `The platform answered ${statusCode}, a redirect to ${target}, which is not followed`,
		description:
			'The platform API does not redirect. A redirect could carry the key or the request to another host, so it is treated as an error: check the base URL in the credential (e.g. https:// instead of http://, or a proxy in front of the platform).',
		httpCode: String(statusCode),
		itemIndex,
	});
}

/** axios' encoding of a query value: encodeURIComponent with ":", "$", ",", "[", "]" kept and spaces as "+". */
function encodeQuery(text: string): string {
	return encodeURIComponent(text)
		.replace(/%3A/gi, ':')
		.replace(/%24/g, '$')
		.replace(/%2C/gi, ',')
		.replace(/%20/g, '+')
		.replace(/%5B/gi, '[')
		.replace(/%5D/gi, ']');
}

/**
 * `url` with the query written as n8n's client (axios) writes it, but by the transport: axios merges
 * its parameters into a new object and drops the names "__proto__", "constructor" and "prototype",
 * which are parameters like any other here. Undefined and null values are left out (as axios does);
 * a list repeats its name with "[]".
 */
export function withQuery(url: string, qs: IDataObject | undefined): string {
	if (!qs) return url;
	const pairs: string[] = [];
	for (const [name, value] of Object.entries(qs)) {
		if (value === undefined || value === null) continue;
		const values = Array.isArray(value) ? value : [value];
		const key = encodeQuery(Array.isArray(value) ? `${name}[]` : name);
		for (const entry of values) {
			const text = typeof entry === 'object' && entry !== null ? JSON.stringify(entry) : String(entry);
			pairs.push(`${key}=${encodeQuery(text)}`);
		}
	}
	if (pairs.length === 0) return url;
	const [base, hash] = url.split('#', 2);
	return `${base}${base.includes('?') ? '&' : '?'}${pairs.join('&')}${hash === undefined ? '' : `#${hash}`}`;
}
