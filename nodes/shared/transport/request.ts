import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { DEFAULT_TIMEOUT_MS, N8N_API_CREDENTIAL, PORTAL_CREDENTIAL, READ_RETRIES, RETRY_AFTER_MAX_MS } from '../core/constants';
import type { Received, SizeLimit } from './answer';
import { AnswerTooLargeError, answerLimit, exchangeSignal, receive } from './answer';
import { readBody, secretsOf } from './body';
import type { CredentialName, RequestContext } from './endpoint';
import { CREDENTIAL_LABEL, endpointFor, portalBaseUrl } from './endpoint';
import { describeError, hintOf, n8nApiError, platformApiError, transportError } from './errors';
import { backoffMs, networkFailure, retryAfterMs } from './networkErrors';
import { nodeRequestSettings } from './settings';
import { redirectError, targetUrl, withQuery } from './url';

export interface RequestPolicy {
	/** Reads may be retried on 429, 5xx, resets, timeouts and malformed answers. Writes never are. */
	retry: boolean;
	itemIndex?: number;
	/** Status codes returned to the caller instead of thrown (e.g. 404 while a call record is pending). */
	passStatuses?: number[];
	/** A tighter bound than Max Response Size for this answer (what a list walk may still read). */
	sizeLimit?: SizeLimit;
}

export interface PlatformResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
	/** Bytes of the answer as read, after decompression. */
	bytes?: number;
}

type WireRequest = IHttpRequestOptions & { maxResponseBytes?: number };

/** What every attempt of one request shares: resolved and checked once, before anything is sent. */
interface Exchange {
	node: INode;
	credential: CredentialName;
	policy: RequestPolicy;
	/** The checked URL the request goes to (targetUrl). */
	url: string;
	timeout: number;
	sizeLimit: SizeLimit;
	/** Redacted from the answer before anything reads it. */
	secrets: string[];
	request: WireRequest;
	cancel: AbortSignal | undefined;
}

/** One attempt of a request: its index from 0, and whether it is the last one the policy allows. */
interface Attempt {
	index: number;
	last: boolean;
}

/** How an attempt that did not throw ended: the response, or the wait before the next attempt. */
type Verdict = { response: PlatformResponse } | { retryIn: number };

/** What one attempt brought back: the answer as read, or why there is none. */
type Sent = { response: IN8nHttpFullResponse; received: Received } | { error: unknown; timedOut: boolean; cancelled: boolean };

/**
 * The one place every request of the package goes through. The credential's headers are applied here
 * to a URL checked to be on the credential's host; redirects are never followed; Timeout is a deadline
 * for the whole exchange (headers and body); every configured secret is redacted from the answer before
 * anything reads it; platform errors become NodeApiError; reads are retried with bounded backoff.
 */
export async function platformRequest(
	ctx: RequestContext,
	credential: CredentialName,
	options: WireRequest,
	policy: RequestPolicy,
): Promise<PlatformResponse> {
	const exchange = await prepareExchange(ctx, credential, options, policy);
	const maxAttempts = policy.retry ? READ_RETRIES + 1 : 1;
	for (let index = 0; ; index++) {
		const attempt: Attempt = { index, last: index + 1 >= maxAttempts };
		const sent = await send(ctx, exchange);
		const verdict = 'error' in sent ? failedAttempt(exchange, sent, attempt) : answeredAttempt(exchange, sent, attempt);
		if ('response' in verdict) return verdict.response;
		await sleep(verdict.retryIn);
	}
}

/** The credential loaded, the URL checked, the bounds set and the request built, as every attempt sends it. */
async function prepareExchange(
	ctx: RequestContext,
	credential: CredentialName,
	options: WireRequest,
	policy: RequestPolicy,
): Promise<Exchange> {
	const node = ctx.getNode();
	const endpoint = await endpointFor(ctx, credential);
	const timeout = options.timeout && options.timeout > 0 ? options.timeout : DEFAULT_TIMEOUT_MS;
	const url = targetUrl(node, endpoint, options, policy.itemIndex);
	const secrets = secretsOf(endpoint, options.body);
	const sizeLimit = answerLimit(options.maxResponseBytes, policy.sizeLimit);
	// What the transport resolved itself is unset, not deleted (a deleted key slows the object down).
	const request: WireRequest = {
		...options,
		baseURL: undefined,
		qs: undefined,
		maxResponseBytes: undefined,
		url: withQuery(url, options.qs),
		headers: { ...(options.headers ?? {}), ...endpoint.auth },
		timeout,
		json: options.json ?? true,
		// The answer as a stream, already decompressed by n8n's client: counted as it arrives (receive).
		encoding: 'stream',
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	const cancel =
		'getExecutionCancelSignal' in ctx ? (ctx as IExecuteFunctions).getExecutionCancelSignal?.() : undefined;
	return { node, credential, policy, url, timeout, sizeLimit, secrets, request, cancel };
}

/** One attempt on the wire: the request sent and its answer read within the deadline and the size bound. */
async function send(ctx: RequestContext, exchange: Exchange): Promise<Sent> {
	// A deadline for the whole exchange: the client's own timeout only bounds the wait between two
	// chunks, which a platform sending one byte at a time never reaches.
	const deadline = AbortSignal.timeout(exchange.timeout);
	const signal = exchangeSignal(deadline, exchange.cancel);
	exchange.request.abortSignal = signal.signal;
	try {
		const response = (await ctx.helpers.httpRequest(exchange.request)) as IN8nHttpFullResponse;
		const received = await receive(response.body, exchange.sizeLimit.bytes);
		return { response, received };
	} catch (error) {
		const cancelled = exchange.cancel?.aborted === true && !deadline.aborted;
		return { error, timedOut: deadline.aborted, cancelled };
	} finally {
		signal.release();
	}
}

/** An attempt without an answer: stopped with the execution, retried when transient, or an error. */
function failedAttempt(
	{ node, policy, timeout }: Exchange,
	sent: { error: unknown; timedOut: boolean; cancelled: boolean },
	attempt: Attempt,
): Verdict {
	if (sent.cancelled) {
		throw transportError(node, 'The request was stopped with the execution', 'The execution was cancelled.', policy.itemIndex);
	}
	const failure = networkFailure(sent.error, sent.timedOut, timeout);
	if (policy.retry && failure.transient && !attempt.last) return { retryIn: backoffMs(attempt.index) };
	throw transportError(
		node,
		failure.reason,
		policy.retry && attempt.index > 0 ? [...failure.hint, ` (Gave up after ${attempt.index + 1} attempts.)`] : failure.hint,
		policy.itemIndex,
	);
}

/** An attempt with an answer: a redirect, an answer past its bound or one that does not read is an error. */
function answeredAttempt(
	exchange: Exchange,
	{ response, received }: { response: IN8nHttpFullResponse; received: Received },
	attempt: Attempt,
): Verdict {
	const { node, policy } = exchange;
	const statusCode = Number(response.statusCode);
	const headers = (response.headers ?? {}) as IDataObject;
	if (statusCode >= 300 && statusCode < 400) {
		throw redirectError(node, statusCode, headers, exchange.url, policy.itemIndex);
	}
	// Reading it again would read the same: an answer past its bound is not retried.
	if (received.overflow) throw new AnswerTooLargeError(node, exchange.sizeLimit, policy.itemIndex);
	let read = readBody(received.data, headers, exchange.secrets);
	// n8n's error answers are read by their status even when their body is not JSON: its 404 for a path it does not
	// serve is Express's HTML page (n8n 1.x with its public API off, an n8n API URL without /api/v1).
	if (!read.ok && exchange.credential === N8N_API_CREDENTIAL && statusCode >= 400) read = { ok: true, body: undefined };
	if (!read.ok) {
		if (policy.retry && !attempt.last) return { retryIn: backoffMs(attempt.index) };
		throw transportError(
			node,
			read.reason,
			`Status ${statusCode}; the answer was not used.${policy.retry ? ` (Gave up after ${attempt.index + 1} attempts.)` : ''}`,
			policy.itemIndex,
		);
	}
	if ((statusCode >= 200 && statusCode < 300) || policy.passStatuses?.includes(statusCode)) {
		return { response: { statusCode, headers, body: read.body, bytes: received.bytes } };
	}
	return refusedAnswer(exchange, statusCode, headers, read.body, attempt);
}

/** An error status: a read retries 429 (after Retry-After, within its bound) and 5xx; otherwise an error. */
function refusedAnswer(
	{ node, credential, policy, url, request }: Exchange,
	statusCode: number,
	headers: IDataObject,
	body: unknown,
	attempt: Attempt,
): Verdict {
	const retryable = statusCode === 429 || statusCode >= 500;
	const wait = statusCode === 429 ? retryAfterMs(headers) : undefined;
	const waitTooLong = wait !== undefined && wait > RETRY_AFTER_MAX_MS;
	if (policy.retry && !attempt.last && retryable && !waitTooLong) {
		return { retryIn: wait ?? backoffMs(attempt.index) };
	}
	const error =
		credential === N8N_API_CREDENTIAL
			? n8nApiError(node, statusCode, body, CREDENTIAL_LABEL[credential], { method: String(request.method ?? 'GET').toUpperCase(), path: new URL(url).pathname }, policy.itemIndex)
			: platformApiError(node, statusCode, body, CREDENTIAL_LABEL[credential], policy.itemIndex);
	if (policy.retry && retryable) {
		// Say how the read ended: after the bound of attempts, or at once for a Retry-After beyond the bound.
		const note = waitTooLong
			? {
					advice: ` The platform asked to retry after ${Math.ceil(wait / 1000)} s (Retry-After), longer than the ${RETRY_AFTER_MAX_MS / 1000} s a read waits: try again later.`,
					instead: '',
				}
			: ` (Gave up after ${attempt.index + 1} attempts.)`;
		describeError(error, [...hintOf(error), note]);
	}
	throw error;
}

/** Management API request under {baseUrl}/api/v1 (`baseURL`: portalBaseUrl read once by the caller). */
export async function portalRequest(
	ctx: RequestContext,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { qs?: IDataObject; body?: unknown; headers?: IDataObject; timeout?: number; baseURL?: string } & RequestPolicy,
): Promise<PlatformResponse> {
	const { retry, itemIndex, passStatuses, sizeLimit, baseURL, ...rest } = options;
	return await platformRequest(
		ctx,
		PORTAL_CREDENTIAL,
		{
			method,
			baseURL: baseURL ?? (await portalBaseUrl(ctx)),
			url: path,
			// A caller's timeout is its default (uploads); the user's Request Options win over it.
			...(rest as Partial<IHttpRequestOptions>),
			...nodeRequestSettings(ctx, itemIndex),
		} as IHttpRequestOptions,
		{ retry, itemIndex, passStatuses, sizeLimit },
	);
}
