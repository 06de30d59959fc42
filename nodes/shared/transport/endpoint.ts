import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	authenticateN8nApi,
	authenticateOutboundApi,
	authenticatePortalApi,
	N8N_API_DISPLAY_NAME,
	N8N_API_PATHS,
	OUTBOUND_API_DISPLAY_NAME,
	PORTAL_API_DISPLAY_NAME,
} from '../../../credentials/authentication';

import { N8N_API_CREDENTIAL, OUTBOUND_CREDENTIAL, PORTAL_CREDENTIAL } from '../core/constants';
import { trimSlash } from './url';

/*
 * The credentials as the transport uses them: loaded once per node run, authenticated by the same function
 * n8n applies through the credential class (credentials/authentication.ts), turned into where requests go,
 * the headers that authenticate them and the secrets redacted from every answer.
 */

export type RequestContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export type CredentialName = typeof PORTAL_CREDENTIAL | typeof OUTBOUND_CREDENTIAL | typeof N8N_API_CREDENTIAL;

/** Each credential's display name: how errors name it. */
export const CREDENTIAL_LABEL: Record<CredentialName, string> = {
	[PORTAL_CREDENTIAL]: PORTAL_API_DISPLAY_NAME,
	[OUTBOUND_CREDENTIAL]: OUTBOUND_API_DISPLAY_NAME,
	[N8N_API_CREDENTIAL]: N8N_API_DISPLAY_NAME,
};

/** A credential as this package uses it: where requests go, the headers that authenticate them, its secrets. */
export interface Endpoint {
	/** {baseUrl}/api/v1 (Portal) or {outboundUrl} (Outbound), without a trailing slash. */
	baseURL: string;
	origin: string;
	/** The only paths below baseURL a request may go to (the Data Tables API credential's); any when unset. */
	paths?: string[];
	auth: IDataObject;
	/** Values redacted from everything the platform sends back. */
	secrets: string[];
}

/** What each credential's `authenticate` does: the functions its class calls for n8n. */
const CREDENTIAL_AUTHENTICATION: Record<
	CredentialName,
	(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions) => IHttpRequestOptions
> = {
	[PORTAL_CREDENTIAL]: authenticatePortalApi,
	[OUTBOUND_CREDENTIAL]: authenticateOutboundApi,
	[N8N_API_CREDENTIAL]: authenticateN8nApi,
};

/**
 * Where each credential's requests go, below its base URL field (and, for the n8n API key, only to n8n's data
 * tables), and the fields that hold its secrets.
 */
const CREDENTIAL_FIELDS: Record<
	CredentialName,
	{ base: (credentials: ICredentialDataDecryptedObject) => string; paths?: string[]; secrets: string[] }
> = {
	[PORTAL_CREDENTIAL]: { base: (c) => `${trimSlash(String(c.baseUrl ?? ''))}/api/v1`, secrets: ['portalApiKey'] },
	[OUTBOUND_CREDENTIAL]: { base: (c) => trimSlash(String(c.outboundUrl ?? '')), secrets: ['outboundApiKey', 'assistantApiKey'] },
	[N8N_API_CREDENTIAL]: { base: (c) => trimSlash(String(c.baseUrl ?? '')), paths: N8N_API_PATHS, secrets: ['apiKey'] },
};

// One load per node run and credential: n8n decrypts the credential on every getCredentials.
const endpoints = new WeakMap<object, Map<CredentialName, Promise<Endpoint>>>();

async function loadEndpoint(ctx: RequestContext, credential: CredentialName): Promise<Endpoint> {
	const credentials = await ctx.getCredentials(credential);
	const fields = CREDENTIAL_FIELDS[credential];
	const base = fields.base(credentials);
	// The credential's `authenticate` (the one n8n applies to its credential test) sets the headers, and
	// refuses a base URL with a query, a fragment or user info and an empty key (credentials/checks.ts).
	let authenticated: IHttpRequestOptions;
	try {
		authenticated = CREDENTIAL_AUTHENTICATION[credential](credentials, { url: '', headers: {} });
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			description: `Fix it in the ${CREDENTIAL_LABEL[credential]} credential. Nothing was sent.`,
		});
	}
	// `authenticate` refused a base URL that is not an http(s) URL above: this parses.
	const origin = new URL(base).origin;
	return {
		baseURL: base,
		origin,
		paths: fields.paths,
		auth: (authenticated.headers ?? {}) as IDataObject,
		secrets: fields.secrets.map((field) => String(credentials[field] ?? '').trim()),
	};
}

/** The credential's endpoint, loaded once per node run (a failed load is tried again by the next request). */
export function endpointFor(ctx: RequestContext, credential: CredentialName): Promise<Endpoint> {
	let byCredential = endpoints.get(ctx);
	if (!byCredential) {
		byCredential = new Map();
		endpoints.set(ctx, byCredential);
	}
	let endpoint = byCredential.get(credential);
	if (!endpoint) {
		const map = byCredential;
		endpoint = loadEndpoint(ctx, credential);
		endpoint.catch(() => map.delete(credential));
		map.set(credential, endpoint);
	}
	return endpoint;
}

/**
 * {baseUrl}/api/v1 of the Portal API credential. Loops that send many requests read it once and pass it
 * as `baseURL`; the credential itself is loaded once per node run (see endpointFor).
 */
export async function portalBaseUrl(ctx: RequestContext): Promise<string> {
	return (await endpointFor(ctx, PORTAL_CREDENTIAL)).baseURL;
}

/** {outboundUrl} of the Outbound API credential (see portalBaseUrl). */
export async function outboundBaseUrl(ctx: RequestContext): Promise<string> {
	return (await endpointFor(ctx, OUTBOUND_CREDENTIAL)).baseURL;
}
