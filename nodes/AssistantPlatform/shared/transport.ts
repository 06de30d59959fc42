import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
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

/**
 * Settings > Request Options > Timeout of the node, for requests made by code (programmatic
 * operations, list search and load options). n8n applies it by itself only to declarative requests.
 */
function nodeTimeout(ctx: RequestContext, itemIndex?: number): number | undefined {
	let value: unknown;
	try {
		if ('getItemIndex' in ctx) {
			value = (ctx as IExecuteSingleFunctions).getNodeParameter('requestOptions.timeout', undefined);
		} else if ('getInputData' in ctx) {
			value = (ctx as IExecuteFunctions).getNodeParameter('requestOptions.timeout', itemIndex ?? 0, undefined);
		} else if ('getCurrentNodeParameter' in ctx) {
			value = (ctx as ILoadOptionsFunctions).getCurrentNodeParameter('requestOptions.timeout');
		}
	} catch {
		return undefined;
	}
	const timeout = typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN;
	return Number.isFinite(timeout) && timeout > 0 ? timeout : undefined;
}

function trimSlash(url: string): string {
	return url.replace(/\/+$/, '');
}

/** Management API request under {baseUrl}/api/v1. */
export async function portalRequest(
	ctx: RequestContext,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { qs?: IDataObject; body?: unknown; headers?: IDataObject; timeout?: number } & RequestPolicy,
): Promise<PlatformResponse> {
	const credentials = await ctx.getCredentials(PORTAL_CREDENTIAL);
	const { retry, itemIndex, passStatuses, ...rest } = options;
	return await platformRequest(
		ctx,
		PORTAL_CREDENTIAL,
		{
			method,
			baseURL: `${trimSlash(String(credentials.baseUrl ?? ''))}/api/v1`,
			url: path,
			timeout: nodeTimeout(ctx, itemIndex),
			...(rest as Partial<IHttpRequestOptions>),
		} as IHttpRequestOptions,
		{ retry, itemIndex, passStatuses },
	);
}

/** Outbound API request under {outboundUrl}. */
export async function outboundRequest(
	ctx: RequestContext,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { qs?: IDataObject; body?: unknown; timeout?: number } & RequestPolicy,
): Promise<PlatformResponse> {
	const credentials = await ctx.getCredentials(OUTBOUND_CREDENTIAL);
	const { retry, itemIndex, passStatuses, ...rest } = options;
	return await platformRequest(
		ctx,
		OUTBOUND_CREDENTIAL,
		{
			method,
			baseURL: trimSlash(String(credentials.outboundUrl ?? '')),
			url: path,
			timeout: nodeTimeout(ctx, itemIndex),
			...(rest as Partial<IHttpRequestOptions>),
		} as IHttpRequestOptions,
		{ retry, itemIndex, passStatuses },
	);
}
