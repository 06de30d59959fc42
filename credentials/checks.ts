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
