import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IExecuteSingleFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { AssistantPlatformN8nApi } from '../../../credentials/AssistantPlatformN8nApi.credentials';
import { AssistantPlatformOutboundApi } from '../../../credentials/AssistantPlatformOutboundApi.credentials';
import { AssistantPlatformPortalApi } from '../../../credentials/AssistantPlatformPortalApi.credentials';

import {
	DEFAULT_MAX_RESPONSE_MB,
	DEFAULT_TIMEOUT_MS,
	MB,
	N8N_API_CREDENTIAL,
	OUTBOUND_CREDENTIAL,
	PORTAL_CREDENTIAL,
	READ_BACKOFF_BASE_MS,
	READ_BACKOFF_MAX_MS,
	READ_RETRIES,
	RETRY_AFTER_MAX_MS,
} from '../core/constants';
import type { Hint } from './errors';
import { describeError, hintOf, OR_TRY_AGAIN_LATER, platformApiError, TRY_AGAIN_LATER, transportError } from './errors';
import { MAX_JSON_DEPTH, redactSecrets, URL_FIELDS, urlSecrets } from '../core/redact';
import { formatMb } from '../core/text';
import { invalid, kindOf, numberField, textField } from '../core/validation';

export type RequestContext =
	| IExecuteFunctions
	| IExecuteSingleFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export type CredentialName = typeof PORTAL_CREDENTIAL | typeof OUTBOUND_CREDENTIAL | typeof N8N_API_CREDENTIAL;

const CREDENTIAL_LABEL: Record<CredentialName, string> = {
	[PORTAL_CREDENTIAL]: 'Assistant Platform Portal API',
	[OUTBOUND_CREDENTIAL]: 'Assistant Platform Outbound API',
	[N8N_API_CREDENTIAL]: 'Assistant Platform Data Tables API',
};

export interface RequestPolicy {
	/** Reads may be retried on 429, 5xx, resets, timeouts and malformed answers. Writes never are. */
	retry: boolean;
	itemIndex?: number;
	/** Status codes returned to the caller instead of thrown (e.g. 404 while a call record is pending). */
	passStatuses?: number[];
	/** A tighter bound than Max Response Size for this answer (what a list walk may still read). */
	sizeLimit?: SizeLimit;
}

/** How many bytes (after decompression) an answer may have, and the setting that raises the bound. */
export interface SizeLimit {
	bytes: number;
	/** Where the user raises it, e.g. "Settings > Request Options > Max Response Size". */
	setting: string;
}

export interface PlatformResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
	/** Bytes of the answer as read, after decompression. */
	bytes?: number;
}

const MAX_RESPONSE_SETTING = 'Settings > Request Options > Max Response Size';

/** An answer that passed its size bound: the exchange was aborted and the answer not used. */
export class AnswerTooLargeError extends NodeApiError {
	constructor(
		node: INode,
		readonly limit: SizeLimit,
		itemIndex?: number,
	) {
		const reason = `The platform answered more than ${formatMb(limit.bytes)} (${limit.setting})`;
		super(node, { message: reason } as JsonObject, {
			message: reason,
			description: `Answers are read up to this size after decompression, so that one answer cannot exhaust n8n's memory; this one was stopped there and not used. If the platform really sends answers this large (e.g. to a Custom API Request), raise ${limit.setting} (MB); otherwise check the base URL in the credential (a proxy or another host may be answering).`,
			httpCode: 'none',
			itemIndex,
		});
	}
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

function describeNetworkError(error: unknown, timeout: number): { reason: string; hint: Hint } {
	const code = errorCode(error);
	const message = (error as Error)?.message ?? '';
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(message)) {
		return {
			reason: `The platform did not answer within ${timeout} ms (timeout)`,
			hint: ['The request timed out. Raise the Timeout request option', OR_TRY_AGAIN_LATER],
		};
	}
	if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || /socket hang up/i.test(message)) {
		return {
			reason: 'The connection to the platform was reset before it answered',
			hint: [`Network error ${code ?? 'socket hang up'}: a network problem or a platform restart.`, TRY_AGAIN_LATER],
		};
	}
	if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return {
			reason: 'Could not connect to the platform',
			hint: [`Network error ${code}: check the base URL in the credential and that the host is reachable from n8n.`],
		};
	}
	return {
		reason: 'The request to the platform failed',
		hint: [`${code ? `Network error ${code}: ` : ''}check the base URL in the credential and your network.`],
	};
}

/** A Retry-After header (seconds or an HTTP date) in ms, or undefined. */
export function retryAfterMs(headers: IDataObject): number | undefined {
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

/** A credential as this package uses it: where requests go, the headers that authenticate them, its secrets. */
interface Endpoint {
	/** {baseUrl}/api/v1 (Portal) or {outboundUrl} (Outbound), without a trailing slash. */
	baseURL: string;
	origin: string;
	auth: IDataObject;
	/** Values redacted from everything the platform sends back. */
	secrets: string[];
}

const CREDENTIAL_CLASSES: Record<CredentialName, ICredentialType> = {
	[PORTAL_CREDENTIAL]: new AssistantPlatformPortalApi(),
	[OUTBOUND_CREDENTIAL]: new AssistantPlatformOutboundApi(),
	[N8N_API_CREDENTIAL]: new AssistantPlatformN8nApi(),
};

/** Where each credential's requests go, below its base URL field, and the fields that hold its secrets. */
const CREDENTIAL_FIELDS: Record<CredentialName, { base: (credentials: ICredentialDataDecryptedObject) => string; secrets: string[] }> = {
	[PORTAL_CREDENTIAL]: { base: (c) => `${trimSlash(String(c.baseUrl ?? ''))}/api/v1`, secrets: ['portalApiKey'] },
	[OUTBOUND_CREDENTIAL]: { base: (c) => trimSlash(String(c.outboundUrl ?? '')), secrets: ['outboundApiKey', 'assistantApiKey'] },
	[N8N_API_CREDENTIAL]: { base: (c) => trimSlash(String(c.baseUrl ?? '')), secrets: ['apiKey'] },
};

/** Body fields that carry a secret of the request itself (an assistant key given as an override). */
const SECRET_BODY_FIELDS = ['assistantApiKey', 'apiKey_assistente'];

// One load per node run and credential: n8n decrypts the credential on every getCredentials.
const endpoints = new WeakMap<object, Map<CredentialName, Promise<Endpoint>>>();

async function loadEndpoint(ctx: RequestContext, credential: CredentialName): Promise<Endpoint> {
	const credentials = await ctx.getCredentials(credential);
	const fields = CREDENTIAL_FIELDS[credential];
	const base = fields.base(credentials);
	// The credential's own `authenticate` (the one n8n applies to its credential test) sets the headers,
	// and refuses a base URL with a query, a fragment or user info and an empty key (credentials/checks.ts).
	const authenticate = CREDENTIAL_CLASSES[credential].authenticate as (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	) => Promise<IHttpRequestOptions>;
	let authenticated: IHttpRequestOptions;
	try {
		authenticated = await authenticate(credentials, { url: '', headers: {} });
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
		auth: (authenticated.headers ?? {}) as IDataObject,
		secrets: fields.secrets.map((field) => String(credentials[field] ?? '').trim()),
	};
}

function endpointFor(ctx: RequestContext, credential: CredentialName): Promise<Endpoint> {
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

/** axios' rule: a URL with a scheme or starting with // ignores the base URL. */
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;

/**
 * The exact URL a request goes to, checked before anything is sent: on the credential's origin,
 * and without "." or ".." segments that would make it address another resource than the one built.
 */
function targetUrl(node: INode, endpoint: Endpoint, options: IHttpRequestOptions, itemIndex?: number): string {
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
	return joined;
}

function redirectError(node: INode, statusCode: number, headers: IDataObject, from: string, itemIndex?: number): NodeApiError {
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

/**
 * The one place every request of the package goes through. The credential's headers are applied here
 * to a URL checked to be on the credential's host; redirects are never followed; Timeout is a deadline
 * for the whole exchange (headers and body); every configured secret is redacted from the answer before
 * anything reads it; platform errors become NodeApiError; reads are retried with bounded backoff.
 */
export async function platformRequest(
	ctx: RequestContext,
	credential: CredentialName,
	options: IHttpRequestOptions & { maxResponseBytes?: number },
	policy: RequestPolicy,
): Promise<PlatformResponse> {
	const node = ctx.getNode();
	const endpoint = await endpointFor(ctx, credential);
	const timeout = options.timeout && options.timeout > 0 ? options.timeout : DEFAULT_TIMEOUT_MS;
	const url = targetUrl(node, endpoint, options, policy.itemIndex);
	const secrets = secretsOf(endpoint, options.body);
	const sizeLimit = answerLimit(options.maxResponseBytes, policy.sizeLimit);
	// What the transport resolved itself is unset, not deleted (a deleted key slows the object down).
	const request: IHttpRequestOptions & { maxResponseBytes?: number } = {
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
	const maxAttempts = policy.retry ? READ_RETRIES + 1 : 1;

	for (let attempt = 0; ; attempt++) {
		const last = attempt + 1 >= maxAttempts;
		// A deadline for the whole exchange: the client's own timeout only bounds the wait between two
		// chunks, which a platform sending one byte at a time never reaches.
		const deadline = AbortSignal.timeout(timeout);
		const signal = exchangeSignal(deadline, cancel);
		request.abortSignal = signal.signal;
		let response: IN8nHttpFullResponse;
		let received: Received;
		try {
			response = (await ctx.helpers.httpRequest(request)) as IN8nHttpFullResponse;
			received = await receive(response.body, sizeLimit.bytes);
		} catch (error) {
			signal.release();
			if (cancel?.aborted && !deadline.aborted) {
				throw transportError(node, 'The request was stopped with the execution', 'The execution was cancelled.', policy.itemIndex);
			}
			const code = errorCode(error);
			const undecodable = code !== undefined && /^Z_/.test(code);
			const transient =
				deadline.aborted ||
				undecodable ||
				TRANSIENT_NETWORK_CODES.has(code ?? '') ||
				/timeout|socket hang up|aborted/i.test((error as Error)?.message ?? '');
			if (policy.retry && transient && !last) {
				await sleep(backoffMs(attempt));
				continue;
			}
			const { reason, hint } = deadline.aborted
				? {
						reason: `The platform did not answer within ${timeout} ms (timeout)`,
						hint: ['The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option', OR_TRY_AGAIN_LATER],
					}
				: undecodable
					? {
							reason: 'The platform answered a compressed body that could not be decompressed',
							hint: [`Content-Encoding ${code}: the answer was not used.`],
						}
					: describeNetworkError(error, timeout);
			throw transportError(
				node,
				reason,
				policy.retry && attempt > 0 ? [...hint, ` (Gave up after ${attempt + 1} attempts.)`] : hint,
				policy.itemIndex,
			);
		}

		signal.release();
		const statusCode = Number(response.statusCode);
		const headers = (response.headers ?? {}) as IDataObject;
		if (statusCode >= 300 && statusCode < 400) {
			throw redirectError(node, statusCode, headers, url, policy.itemIndex);
		}
		// Reading it again would read the same: an answer past its bound is not retried.
		if (received.overflow) throw new AnswerTooLargeError(node, sizeLimit, policy.itemIndex);
		const read = readBody(received.data, headers, secrets);
		if (!read.ok) {
			if (policy.retry && !last) {
				await sleep(backoffMs(attempt));
				continue;
			}
			throw transportError(
				node,
				read.reason,
				`Status ${statusCode}; the answer was not used.${policy.retry ? ` (Gave up after ${attempt + 1} attempts.)` : ''}`,
				policy.itemIndex,
			);
		}

		const body = read.body;
		if (statusCode >= 200 && statusCode < 300) {
			return { statusCode, headers, body, bytes: received.bytes };
		}
		if (policy.passStatuses?.includes(statusCode)) {
			return { statusCode, headers, body, bytes: received.bytes };
		}
		const retryable = statusCode === 429 || statusCode >= 500;
		const wait = statusCode === 429 ? retryAfterMs(headers) : undefined;
		const waitTooLong = wait !== undefined && wait > RETRY_AFTER_MAX_MS;
		if (policy.retry && !last && retryable && !waitTooLong) {
			await sleep(wait ?? backoffMs(attempt));
			continue;
		}
		const error = platformApiError(node, statusCode, body, CREDENTIAL_LABEL[credential], policy.itemIndex, credential === N8N_API_CREDENTIAL ? "n8n's API" : undefined);
		if (policy.retry && retryable) {
			// Say how the read ended: after the bound of attempts, or at once for a Retry-After beyond the bound.
			const note = waitTooLong
				? { advice: ` The platform asked to retry after ${Math.ceil(wait / 1000)} s (Retry-After), longer than the ${RETRY_AFTER_MAX_MS / 1000} s a read waits: try again later.`, instead: '' }
				: ` (Gave up after ${attempt + 1} attempts.)`;
			describeError(error, [...hintOf(error), note]);
		}
		throw error;
	}
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
function withQuery(url: string, qs: IDataObject | undefined): string {
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

/**
 * The signal of one exchange: aborted by its deadline or by the execution's cancel signal. Listeners
 * rather than AbortSignal.any, which costs a weak reference and a finalizer per request; `release`
 * detaches them once the exchange is over.
 */
function exchangeSignal(deadline: AbortSignal, cancel: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
	if (!cancel) return { signal: deadline, release: () => {} };
	const either = new AbortController();
	const abort = () => either.abort();
	if (cancel.aborted) abort();
	deadline.addEventListener('abort', abort, { once: true });
	cancel.addEventListener('abort', abort, { once: true });
	return {
		signal: either.signal,
		release: () => {
			deadline.removeEventListener('abort', abort);
			cancel.removeEventListener('abort', abort);
		},
	};
}

/** The bound of one answer: Max Response Size (or its default), or the caller's tighter one. */
function answerLimit(maxResponseBytes: number | undefined, tighter: SizeLimit | undefined): SizeLimit {
	const bytes = maxResponseBytes && maxResponseBytes > 0 ? maxResponseBytes : DEFAULT_MAX_RESPONSE_MB * MB;
	if (tighter && tighter.bytes < bytes) return tighter;
	return { bytes, setting: MAX_RESPONSE_SETTING };
}

type Received = { overflow: false; data: unknown; bytes: number } | { overflow: true; bytes: number };

/** The parts of a readable stream (n8n's client hands the answer over as one) that reading it needs. */
interface BodyStream {
	on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
	on(event: 'end' | 'close', listener: () => void): unknown;
	on(event: 'error', listener: (error: Error) => void): unknown;
	destroy(): unknown;
}

function isStream(value: unknown): value is BodyStream {
	return (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { on?: unknown }).on === 'function' &&
		typeof (value as { destroy?: unknown }).destroy === 'function'
	);
}

/**
 * The answer's body, read as it arrives and counted after decompression: past `maxBytes` the stream is
 * destroyed (which ends the exchange and closes its connection) and nothing read is kept. A stream that
 * fails (the deadline's abort, a reset, a body that does not decompress) rejects. A body that is not a
 * stream (a helper that does not stream) is taken as it is.
 */
async function receive(body: unknown, maxBytes: number): Promise<Received> {
	if (!isStream(body)) {
		const bytes = typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : 0;
		return bytes > maxBytes ? { overflow: true, bytes } : { overflow: false, data: body, bytes };
	}
	return await new Promise<Received>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		let settled = false;
		const settle = (result: Received | Error) => {
			if (settled) return;
			settled = true;
			if (result instanceof Error) reject(result);
			else resolve(result);
		};
		body.on('data', (piece) => {
			if (settled) return;
			const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
			bytes += chunk.length;
			if (bytes > maxBytes) {
				settle({ overflow: true, bytes });
				body.destroy();
				return;
			}
			chunks.push(chunk);
		});
		body.on('end', () => settle({ overflow: false, data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes), bytes }));
		body.on('error', (error) => settle(error));
		// Closed without an end or an error (destroyed from outside): what came is not a whole answer.
		body.on('close', () => {
			if (!settled) settle(Object.assign(new Error('The answer ended before it was complete'), { code: 'ECONNRESET' }));
		});
	});
}

function secretsOf(endpoint: Endpoint, body: unknown): string[] {
	const secrets = [...endpoint.secrets];
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		for (const field of SECRET_BODY_FIELDS) {
			const value = (body as IDataObject)[field];
			if (typeof value === 'string') secrets.push(value);
		}
		// A URL handed to the platform (a trigger URL, a resume URL) carries a token: never echoed back.
		for (const field of URL_FIELDS) secrets.push(...urlSecrets((body as IDataObject)[field]));
	}
	return secrets;
}

/**
 * The answer's body as the node may use it: JSON parsed whatever the content type, as n8n's client
 * did (an empty body is none), every secret redacted at any depth. Refused: malformed JSON, a body
 * that is not JSON, nesting deeper than MAX_JSON_DEPTH.
 */
function readBody(
	raw: unknown,
	headers: IDataObject,
	secrets: string[],
): { ok: true; body: unknown } | { ok: false; reason: string } {
	let body = raw;
	if (typeof body === 'string' || Buffer.isBuffer(body)) {
		const text = body.toString().replace(/^\uFEFF/, '');
		if (text.trim() === '') return { ok: true, body: undefined };
		try {
			body = JSON.parse(text);
		} catch {
			return {
				ok: false,
				reason: isJsonContent(headers)
					? 'The platform answered with malformed JSON'
					: `The platform answered ${contentTypeOf(headers)} instead of JSON`,
			};
		}
	}
	try {
		return { ok: true, body: redactSecrets(body, secrets) };
	} catch {
		return { ok: false, reason: `The platform answered JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
	}
}

function contentTypeOf(headers: IDataObject): string {
	const type = String(headers?.['content-type'] ?? '').split(';')[0].trim();
	return type === '' ? 'a body without a content type' : type.replace(/[^\w./+-]/g, '').slice(0, 80);
}

export interface RequestSettings {
	timeout?: number;
	proxy?: IHttpRequestOptions['proxy'];
	skipSslCertificateValidation?: boolean;
	/** Max Response Size in bytes (after decompression). */
	maxResponseBytes?: number;
}

/**
 * Reads Request Options > Timeout / Proxy / Ignore SSL Issues (names and rules as n8n's own nodes have
 * them) and Max Response Size.
 */
export function readRequestSettings(node: INode, raw: unknown, itemIndex?: number): RequestSettings {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const settings: RequestSettings = {};
	const timeout = numberField(node, 'Timeout', options.timeout, 0, itemIndex);
	if (timeout > 0) settings.timeout = timeout;
	const size = options.maxResponseSize;
	if (size !== undefined && size !== null && size !== '') {
		if (typeof size !== 'number' || !Number.isFinite(size) || size <= 0) {
			throw invalid(node, 'Max Response Size (MB)', `must be a number above 0 (got ${typeof size === 'number' ? size : kindOf(size)})`, itemIndex);
		}
		settings.maxResponseBytes = Math.floor(size * MB);
	}
	if (options.allowUnauthorizedCerts === true) settings.skipSslCertificateValidation = true;
	const proxy = textField(node, 'Proxy', options.proxy, itemIndex, { numbers: false });
	if (proxy !== '') {
		let url: URL;
		try {
			url = new URL(proxy);
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

/** Settings > Request Options of the node (operations, list search and load options alike). */
export function nodeRequestSettings(ctx: RequestContext, itemIndex?: number): RequestSettings {
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
 * as `baseURL`; the credential itself is loaded once per node run (see endpointFor).
 */
export async function portalBaseUrl(ctx: RequestContext): Promise<string> {
	return (await endpointFor(ctx, PORTAL_CREDENTIAL)).baseURL;
}

/** {outboundUrl} of the Outbound API credential (see portalBaseUrl). */
export async function outboundBaseUrl(ctx: RequestContext): Promise<string> {
	return (await endpointFor(ctx, OUTBOUND_CREDENTIAL)).baseURL;
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
