import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { assertUsable, baseUrlProblem, destinationProblem, keyProblem, requestTarget, withHeaders } from './checks';

/*
 * What each credential's `authenticate` does, as one plain function per credential: refuse a credential
 * that would send its key where nobody meant (checks.ts), then set the header that carries the key. n8n
 * applies it through the credential class, whose `authenticate` calls it, to every request it sends with
 * the credential (the Test button's included); the package transport calls the same function for every
 * request of the package. A function, not a generic block: it sets the header directly, where a `={{ }}`
 * value would go through n8n's expression engine on every request (measured: docs/performance.md). The
 * other headers and options of the request are kept, and the input is not changed.
 *
 * The class's `authenticate` also checks where the request goes (the `…Request` functions below): n8n calls it
 * with each request it sends with the credential, whichever node sends it, and a key goes only to its credential's
 * host; the Data Tables API's only to n8n's data tables. The transport checks the URL of each request of the
 * package itself, before anything is sent (nodes/shared/transport/url.ts).
 */

/** The display name of each credential: its name in the editor and in what refuses it. */
export const PORTAL_API_DISPLAY_NAME = 'Assistant Platform Portal API';
export const OUTBOUND_API_DISPLAY_NAME = 'Assistant Platform Outbound API';
export const N8N_API_DISPLAY_NAME = 'Assistant Platform Data Tables API';

/** Portal API: `Authorization: Bearer <portalApiKey>`. */
export function authenticatePortalApi(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): IHttpRequestOptions {
	assertUsable(PORTAL_API_DISPLAY_NAME, [
		['Management Base URL', baseUrlProblem(credentials.baseUrl)],
		['Portal API Key', keyProblem(credentials.portalApiKey)],
	]);
	return withHeaders(requestOptions, { Authorization: `Bearer ${String(credentials.portalApiKey)}` });
}

/** Outbound API: `X-APIKEY-SECRET-SERVICE: <outboundApiKey>`. */
export function authenticateOutboundApi(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): IHttpRequestOptions {
	assertUsable(OUTBOUND_API_DISPLAY_NAME, [
		['Outbound Base URL', baseUrlProblem(credentials.outboundUrl)],
		['Outbound API Key', keyProblem(credentials.outboundApiKey)],
	]);
	return withHeaders(requestOptions, { 'X-APIKEY-SECRET-SERVICE': String(credentials.outboundApiKey) });
}

/** n8n's public API (Data Tables): `X-N8N-API-KEY: <apiKey>`. */
export function authenticateN8nApi(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): IHttpRequestOptions {
	assertUsable(N8N_API_DISPLAY_NAME, [
		['n8n API URL', baseUrlProblem(credentials.baseUrl)],
		['API Key', keyProblem(credentials.apiKey)],
	]);
	return withHeaders(requestOptions, { 'X-N8N-API-KEY': String(credentials.apiKey) });
}

/**
 * Below the Data Tables API credential's n8n API URL, where its key goes: n8n's data tables. The key is an n8n API
 * key, which on most plans opens all of n8n's public API (workflows, credentials, users, executions) with its
 * owner's rights; the package needs only the data tables.
 */
export const N8N_API_PATHS = ['/data-tables'];

type Authenticate = (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions) => IHttpRequestOptions;

/**
 * A credential class's `authenticate`: `authenticate`, for a request to the credential's own host (the URL in
 * `baseField`) only, and below one of `paths` when given; anywhere else it throws before anything is sent.
 */
function toItsOwnHost(authenticate: Authenticate, credential: string, baseField: string, paths?: string[]): Authenticate {
	return (credentials, requestOptions) => {
		const authenticated = authenticate(credentials, requestOptions);
		const problem = destinationProblem(String(credentials[baseField]), requestTarget(requestOptions), paths);
		if (problem) throw new Error(`The ${credential} credential sends its key ${problem}. Nothing was sent.`);
		return authenticated;
	};
}

/** The Portal API credential class's `authenticate`: authenticatePortalApi, for a request to its own host only. */
export const authenticatePortalApiRequest = toItsOwnHost(authenticatePortalApi, PORTAL_API_DISPLAY_NAME, 'baseUrl');

/** The Outbound API credential class's `authenticate`: authenticateOutboundApi, for a request to its own host only. */
export const authenticateOutboundApiRequest = toItsOwnHost(authenticateOutboundApi, OUTBOUND_API_DISPLAY_NAME, 'outboundUrl');

/**
 * The Data Tables API credential class's `authenticate`: authenticateN8nApi, for a request to {baseUrl}/data-tables
 * and below only. n8n lets only this package's nodes use the credential (restrictToSupportedNodes); an n8n that
 * does not know that flag (n8n 1.x) lets its HTTP Request node use it, and this is what keeps the key there to the
 * data tables.
 */
export const authenticateN8nApiRequest = toItsOwnHost(authenticateN8nApi, N8N_API_DISPLAY_NAME, 'baseUrl', N8N_API_PATHS);
