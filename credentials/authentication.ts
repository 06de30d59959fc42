import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { assertUsable, baseUrlProblem, keyProblem, withHeaders } from './checks';

/*
 * What each credential's `authenticate` does, as one plain function per credential: refuse a credential
 * that would send its key where nobody meant (checks.ts), then set the header that carries the key. n8n
 * applies it through the credential class, whose `authenticate` calls it, to every request it sends with
 * the credential (the Test button's included); the package transport calls the same function for every
 * request of the package. A function, not a generic block: it sets the header directly, where a `={{ }}`
 * value would go through n8n's expression engine on every request (measured: docs/performance.md). The
 * other headers and options of the request are kept, and the input is not changed.
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
