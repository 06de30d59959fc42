import type { IHttpRequestOptions } from 'n8n-workflow';

/*
 * What makes a credential of this package unusable, checked before anything is sent: by each
 * credential's authenticate function (authentication.ts), which n8n applies through the credential
 * class to every request it sends with the credential (the Test button's included) and the package
 * transport to every request of the package.
 */

/** Why a base URL cannot be used, or undefined: it must be http(s), without user info, query or fragment. */
export function baseUrlProblem(value: unknown): string | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return 'must not be empty';
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return 'must be an http:// or https:// URL';
	}
	if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
		return 'must be an http:// or https:// URL';
	}
	if (url.username !== '' || url.password !== '' || /^[a-z][a-z\d+.-]*:\/\/[^/?#]*@/i.test(text)) {
		return 'must not contain a user name or password ("user:password@"): they would be sent as an Authorization header with every request';
	}
	if (text.includes('?')) return 'must not contain a query ("?"): the key would be sent to another path';
	if (text.includes('#')) return 'must not contain a fragment ("#"): the key would be sent to another path';
	return undefined;
}

/** Why a key cannot be used, or undefined: it must be non-blank text. */
export function keyProblem(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? undefined : 'must not be empty';
}

/** `requestOptions` with `headers` set, its other headers and options kept (the input is not changed). */
export function withHeaders(requestOptions: IHttpRequestOptions, headers: Record<string, string>): IHttpRequestOptions {
	return { ...requestOptions, headers: { ...(requestOptions.headers ?? {}), ...headers } };
}

/** Throws the first problem of the credential's fields, naming the field and the credential. */
export function assertUsable(credential: string, fields: Array<[label: string, problem: string | undefined]>): void {
	for (const [label, problem] of fields) {
		if (problem) throw new Error(`Invalid "${label}" in the ${credential} credential: ${problem}`);
	}
}

/** axios' rule, which n8n's HTTP client follows: a URL with a scheme or starting with // ignores the base URL. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * Where a request n8n sends with a credential goes: its `url` (or `uri`, the older request form the HTTP Request node
 * uses), joined to its `baseURL` unless it is absolute, as n8n's HTTP client joins them. Undefined when that is not
 * an http(s) URL (a request without one, or one starting with "//").
 */
export function requestTarget(requestOptions: IHttpRequestOptions): URL | undefined {
	const options = requestOptions as IHttpRequestOptions & { uri?: unknown };
	const raw: unknown = options.url ?? options.uri;
	const url = typeof raw === 'string' ? raw : raw instanceof URL ? raw.href : '';
	const base = typeof options.baseURL === 'string' ? options.baseURL : '';
	let joined: string;
	if (ABSOLUTE_URL.test(url)) joined = url;
	else if (base !== '') joined = url === '' ? base : `${base.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
	else return undefined;
	try {
		const target = new URL(joined);
		return target.protocol === 'http:' || target.protocol === 'https:' ? target : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Why a key whose credential has the base URL `base` must not go to `target` ("only to …, not to …"), or undefined.
 * A key goes only to its credential's host (the origin of `base`) and, when `paths` are given, only to those paths
 * below `base` and what is under them. `target` is compared as it is sent: "." and ".." segments (also written %2e)
 * resolved, so none leads out of an allowed path.
 */
export function destinationProblem(base: string, target: URL | undefined, paths?: string[]): string | undefined {
	if (!target) return 'only with a request whose http(s) URL can be checked, and this one has none';
	const home = new URL(base.trim());
	if (target.origin !== home.origin) return `only to ${home.origin}, not to ${target.origin}`;
	if (!paths) return undefined;
	const root = home.pathname.replace(/\/+$/, '');
	const allowed = paths.map((path) => `${root}${path}`);
	if (allowed.some((path) => target.pathname === path || target.pathname.startsWith(`${path}/`))) return undefined;
	return `only to ${allowed.map((path) => `${home.origin}${path}`).join(', ')} and below, not to ${target.origin}${target.pathname}`;
}
