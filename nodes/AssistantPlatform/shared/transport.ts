import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	DEFAULT_TIMEOUT_MS,
	OUTBOUND_CREDENTIAL,
	PORTAL_CREDENTIAL,
	READ_BACKOFF_BASE_MS,
	READ_BACKOFF_MAX_MS,
	READ_RETRIES,
	RETRY_AFTER_MAX_MS,
} from './constants';
import { platformApiError, transportError } from './errors';
import { invalid } from './validation';

export type RequestContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export type CredentialName = typeof PORTAL_CREDENTIAL | typeof OUTBOUND_CREDENTIAL;

const CREDENTIAL_LABEL: Record<CredentialName, string> = {
	[PORTAL_CREDENTIAL]: 'Assistant Platform Portal API',
	[OUTBOUND_CREDENTIAL]: 'Assistant Platform Outbound API',
};

export interface RequestPolicy {
	/** Reads may be retried on 429, 5xx, resets, timeouts and malformed answers. Writes never are. */
	retry: boolean;
	itemIndex?: number;
	/** Status codes returned to the caller instead of thrown (e.g. 404 while a call record is pending). */
	passStatuses?: number[];
}

export interface PlatformResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}

const TRANSIENT_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ETIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'UND_ERR_SOCKET',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

function errorCode(error: unknown): string | undefined {
	const e = error as { code?: unknown; cause?: { code?: unknown } };
	if (typeof e?.code === 'string') return e.code;
	if (typeof e?.cause?.code === 'string') return e.cause.code;
	return undefined;
}

function describeNetworkError(error: unknown, timeout: number): { reason: string; hint: string } {
	const code = errorCode(error);
	const message = (error as Error)?.message ?? '';
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(message)) {
		return {
			reason: `The platform did not answer within ${timeout} ms (timeout)`,
			hint: 'The request timed out. Raise the Timeout request option, or try again later.',
		};
	}
	if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || /socket hang up/i.test(message)) {
		return {
			reason: 'The connection to the platform was reset before it answered',
			hint: `Network error ${code ?? 'socket hang up'}: a network problem or a platform restart. Try again later.`,
		};
	}
	if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return {
			reason: 'Could not connect to the platform',
			hint: `Network error ${code}: check the base URL in the credential and that the host is reachable from n8n.`,
		};
	}
	return {
		reason: 'The request to the platform failed',
		hint: `${code ? `Network error ${code}: ` : ''}check the base URL in the credential and your network.`,
	};
}

function retryAfterMs(headers: IDataObject): number | undefined {
	const raw = headers?.['retry-after'] ?? headers?.['Retry-After'];
	if (raw === undefined || raw === null) return undefined;
	const text = String(raw).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
	return undefined;
}

function backoffMs(attempt: number): number {
	return Math.min(READ_BACKOFF_MAX_MS, READ_BACKOFF_BASE_MS * 2 ** attempt);
}

function isJsonContent(headers: IDataObject): boolean {
	const type = headers?.['content-type'];
	return typeof type === 'string' && type.toLowerCase().includes('json');
}

/**
 * The one place every request of the package goes through: credential authentication by n8n,
 * status codes read here (never thrown by the HTTP client), platform errors mapped to NodeApiError,
 * bounded retries for reads only, and no request details (headers, keys) in any error.
 */
export async function platformRequest(
	ctx: RequestContext,
	credential: CredentialName,
	options: IHttpRequestOptions,
	policy: RequestPolicy,
): Promise<PlatformResponse> {
	const node = ctx.getNode();
	const timeout =
		!options.timeout || options.timeout === 300_000 ? DEFAULT_TIMEOUT_MS : options.timeout;
	const request: IHttpRequestOptions = {
		...options,
		timeout,
		json: options.json ?? true,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
	};
	const maxAttempts = policy.retry ? READ_RETRIES + 1 : 1;

	for (let attempt = 0; ; attempt++) {
		const last = attempt + 1 >= maxAttempts;
		let response: IN8nHttpFullResponse;
		try {
			response = (await (
				ctx.helpers as IExecuteFunctions['helpers']
			).httpRequestWithAuthentication.call(ctx, credential, request)) as IN8nHttpFullResponse;
		} catch (error) {
			const code = errorCode(error);
			const transient =
				TRANSIENT_NETWORK_CODES.has(code ?? '') ||
				/timeout|socket hang up/i.test((error as Error)?.message ?? '');
			if (policy.retry && transient && !last) {
				await sleep(backoffMs(attempt));
				continue;
			}
			const { reason, hint } = describeNetworkError(error, timeout);
			throw transportError(
				node,
				reason,
				policy.retry && attempt > 0 ? `${hint} (Gave up after ${attempt + 1} attempts.)` : hint,
				policy.itemIndex,
			);
		}

		const statusCode = Number(response.statusCode);
		const headers = (response.headers ?? {}) as IDataObject;
		let body: unknown = response.body;
		if (typeof body === 'string' && isJsonContent(headers)) {
			try {
				body = body.trim() === '' ? {} : JSON.parse(body);
			} catch {
				if (policy.retry && !last) {
					await sleep(backoffMs(attempt));
					continue;
				}
				throw transportError(
					node,
					'The platform answered with malformed JSON',
					`Status ${statusCode}; the body could not be parsed.${policy.retry ? ` (Gave up after ${attempt + 1} attempts.)` : ''}`,
					policy.itemIndex,
				);
			}
		}

		if (statusCode >= 200 && statusCode < 300) {
			return { statusCode, headers, body };
		}
		if (policy.passStatuses?.includes(statusCode)) {
			return { statusCode, headers, body };
		}
		const retryable = statusCode === 429 || statusCode >= 500;
		const wait = statusCode === 429 ? retryAfterMs(headers) : undefined;
		const waitTooLong = wait !== undefined && wait > RETRY_AFTER_MAX_MS;
		if (policy.retry && !last && retryable && !waitTooLong) {
			await sleep(wait ?? backoffMs(attempt));
			continue;
		}
		const error = platformApiError(node, statusCode, body, CREDENTIAL_LABEL[credential], policy.itemIndex);
		if (policy.retry && retryable) {
			// Say how the read ended: after the bound of attempts, or at once for a Retry-After beyond the bound.
			const note = waitTooLong
				? `The platform asked to retry after ${Math.ceil(wait / 1000)} s (Retry-After), longer than the ${RETRY_AFTER_MAX_MS / 1000} s a read waits: try again later.`
				: `(Gave up after ${attempt + 1} attempts.)`;
			error.description = `${error.description ?? ''} ${note}`.trim();
		}
		throw error;
	}
}

export interface RequestSettings {
	timeout?: number;
	proxy?: IHttpRequestOptions['proxy'];
	skipSslCertificateValidation?: boolean;
}

/** Reads Request Options > Timeout / Proxy / Ignore SSL Issues the way n8n's declarative engine does. */
export function readRequestSettings(node: INode, raw: unknown, itemIndex?: number): RequestSettings {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const settings: RequestSettings = {};
	const timeout = Number(options.timeout);
	if (options.timeout !== undefined && options.timeout !== '' && Number.isFinite(timeout) && timeout > 0) {
		settings.timeout = timeout;
	}
	if (options.allowUnauthorizedCerts === true) settings.skipSslCertificateValidation = true;
	if (typeof options.proxy === 'string' && options.proxy.trim() !== '') {
		let url: URL;
		try {
			url = new URL(options.proxy.trim());
		} catch {
			throw invalid(node, 'Proxy', 'must be a URL such as http://myproxy:3128', itemIndex);
		}
		if (!url.hostname || !url.port) {
			throw invalid(node, 'Proxy', 'must name a host and a port, e.g. http://myproxy:3128', itemIndex);
		}
		settings.proxy = {
			host: url.hostname,
			port: Number(url.port),
			protocol: url.protocol.replace(/:$/, ''),
			...(url.username
				? {
						auth: {
							username: decodeURIComponent(url.username),
							password: decodeURIComponent(url.password),
						},
					}
				: {}),
		};
	}
	return settings;
}

/**
 * Settings > Request Options of the node for requests made by code (custom operations, list search
 * and load options): n8n applies them by itself only to declarative requests.
 */
function nodeRequestSettings(ctx: RequestContext, itemIndex?: number): RequestSettings {
	let value: unknown;
	try {
		if ('getItemIndex' in ctx) {
			value = (ctx as IExecuteSingleFunctions).getNodeParameter('requestOptions', {});
		} else if ('getInputData' in ctx) {
			value = (ctx as IExecuteFunctions).getNodeParameter('requestOptions', itemIndex ?? 0, {});
		} else if ('getCurrentNodeParameter' in ctx) {
			value = (ctx as ILoadOptionsFunctions).getCurrentNodeParameter('requestOptions');
		}
	} catch {
		return {};
	}
	return readRequestSettings(ctx.getNode(), value, itemIndex);
}

function trimSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

/**
 * {baseUrl}/api/v1 of the Portal API credential. Loops that send many requests read it once and pass it
 * as `baseURL` (a real n8n loads and decrypts the credential on every getCredentials).
 */
export async function portalBaseUrl(ctx: RequestContext): Promise<string> {
	const credentials = await ctx.getCredentials(PORTAL_CREDENTIAL);
	return `${trimSlash(String(credentials.baseUrl ?? ''))}/api/v1`;
}

/** {outboundUrl} of the Outbound API credential (see portalBaseUrl). */
export async function outboundBaseUrl(ctx: RequestContext): Promise<string> {
	const credentials = await ctx.getCredentials(OUTBOUND_CREDENTIAL);
	return trimSlash(String(credentials.outboundUrl ?? ''));
}

/** Management API request under {baseUrl}/api/v1 (`baseURL`: portalBaseUrl read once by the caller). */
export async function portalRequest(
	ctx: RequestContext,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { qs?: IDataObject; body?: unknown; headers?: IDataObject; timeout?: number; baseURL?: string } & RequestPolicy,
): Promise<PlatformResponse> {
	const { retry, itemIndex, passStatuses, baseURL, ...rest } = options;
	return await platformRequest(
		ctx,
		PORTAL_CREDENTIAL,
		{
			method,
			baseURL: baseURL ?? (await portalBaseUrl(ctx)),
			url: path,
			...nodeRequestSettings(ctx, itemIndex),
			...(rest as Partial<IHttpRequestOptions>),
		} as IHttpRequestOptions,
		{ retry, itemIndex, passStatuses },
	);
}

/** Outbound API request under {outboundUrl} (`baseURL`: outboundBaseUrl read once by the caller). */
export async function outboundRequest(
	ctx: RequestContext,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { qs?: IDataObject; body?: unknown; timeout?: number; baseURL?: string } & RequestPolicy,
): Promise<PlatformResponse> {
	const { retry, itemIndex, passStatuses, baseURL, ...rest } = options;
	return await platformRequest(
		ctx,
		OUTBOUND_CREDENTIAL,
		{
			method,
			baseURL: baseURL ?? (await outboundBaseUrl(ctx)),
			url: path,
			...nodeRequestSettings(ctx, itemIndex),
			...(rest as Partial<IHttpRequestOptions>),
		} as IHttpRequestOptions,
		{ retry, itemIndex, passStatuses },
	);
}
