import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export interface PlatformErrorBody {
	code?: string;
	message?: string;
	details?: IDataObject;
}

/** Platform text that reaches an error is cut to this many characters. */
export const MAX_PLATFORM_TEXT = 500;

function capText(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	return value.length > MAX_PLATFORM_TEXT ? `${value.slice(0, MAX_PLATFORM_TEXT)}… (${value.length - MAX_PLATFORM_TEXT} more characters)` : value;
}

/** Reads the platform's error body (`{error: {code, message, details}}`), tolerating a flat `{code, message}`. */
export function readPlatformError(body: unknown): PlatformErrorBody {
	const read = readPlatformErrorUncapped(body);
	const field = read.details?.field;
	return {
		code: read.code?.slice(0, 100),
		message: capText(read.message),
		details: typeof field === 'string' ? { field: field.slice(0, 100) } : undefined,
	};
}

function readPlatformErrorUncapped(body: unknown): PlatformErrorBody {
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const record = body as IDataObject;
		const nested = record.error;
		if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
			const e = nested as IDataObject;
			return {
				code: typeof e.code === 'string' ? e.code : undefined,
				message: typeof e.message === 'string' ? e.message : undefined,
				details: (e.details as IDataObject) ?? undefined,
			};
		}
		return {
			code: typeof record.code === 'string' ? record.code : undefined,
			message:
				typeof record.message === 'string'
					? record.message
					: typeof nested === 'string'
						? nested
						: undefined,
		};
	}
	return {};
}

const HINTS: Record<string, { message: string; hint: string }> = {
	RAG_COLLECTION_IN_USE: {
		message: 'The RAG collection is attached to an assistant and must be detached first',
		hint: 'Detach it (Runtime → Detach RAG Collection, or attach another collection to that assistant), then delete it again.',
	},
	CALLER_ID_NOT_ASSIGNED: {
		message: 'The caller ID is not a number assigned to this assistant',
		hint: 'On the trunk route, Caller ID must be a demo or purchased number of the platform assigned to the assistant whose key is used. Assign the number in the portal or use another caller ID.',
	},
	PBX_NOT_AUTHORIZED: {
		message: 'The PBX address is not authorized for this account',
		hint: 'Authorize the PBX IP or hostname for your account in the portal, or check the PBX Address field.',
	},
	INVALID_ASSISTANT_KEY: {
		message: 'The assistant API key was rejected',
		hint: 'Check the Assistant API Key in the Outbound API credential (or the override field). The key is the one returned when the assistant was created.',
	},
	STORAGE_ALLOWANCE_EXCEEDED: {
		message: 'The upload would exceed the 200 MB document storage allowance',
		hint: 'Delete documents or collections you no longer need, or upload fewer or smaller files.',
	},
	UNSUPPORTED_FILE_TYPE: {
		message: 'The platform does not accept this file type',
		hint: 'Accepted types: .pdf .txt .doc .docx .csv .xls .xlsx',
	},
	INVALID_CURSOR: {
		message: 'The platform rejected the pagination cursor',
		hint: 'Cursors are opaque and expire; run the list again from the first page.',
	},
	CALL_RECORD_NOT_FOUND: {
		message: 'The call record is not persisted yet',
		hint: 'The platform answers 404 until the call record is written, usually shortly after the call ends. Enable "Wait for Call Record" to poll until it is there.',
	},
};

/**
 * Advice to try again, inside a hint: `advice` where it is given, `instead` where it is left out. It suits a
 * request that may be sent again; after a call whose outcome is unknown it does not (calls/messages.ts), and that
 * call's description is composed from the hint without it.
 */
interface RetryAdvice {
	advice: string;
	instead: string;
}

/** An error's hint: text, and advice to try again kept apart from it. */
export type Hint = Array<string | RetryAdvice>;

/** "Try again later." after a hint that ends with its own sentence. */
export const TRY_AGAIN_LATER: RetryAdvice = { advice: ' Try again later.', instead: '' };

/** ", or try again later." closing a hint's last sentence. */
export const OR_TRY_AGAIN_LATER: RetryAdvice = { advice: ', or try again later.', instead: '.' };

function parts(hint: string | Hint): Hint {
	return typeof hint === 'string' ? [hint] : hint;
}

/** What a description says with `hint`, its advice to try again included. */
function hintText(hint: string | Hint): string {
	return parts(hint)
		.map((part) => (typeof part === 'string' ? part : part.advice))
		.join('');
}

/** The hint each error of the transport was described with: beside the error, not on it (n8n saves its fields). */
const DESCRIBED_WITH = new WeakMap<Error, Hint>();

/** An error as a node throws it (NodeApiError, NodeOperationError): a message, a description, an HTTP code. */
export type NodeFailure = Error & { description?: string | null; httpCode?: string | null };

/** Keeps the hint `error` was described with (its description is the hint's text). */
function keepHint<E extends NodeFailure>(error: E, hint: string | Hint): E {
	DESCRIBED_WITH.set(error, parts(hint));
	return error;
}

/** Describes `error` with `hint`. */
export function describeError(error: NodeFailure, hint: string | Hint): void {
	error.description = hintText(hint);
	keepHint(error, hint);
}

/** The hint `error` was described with; its description as it is when no hint says it. */
export function hintOf(error: NodeFailure): Hint {
	const hint = DESCRIBED_WITH.get(error);
	return hint && hintText(hint) === error.description ? hint : [error.description ?? ''];
}

/** What `error`'s description says without advice to try again. */
export function descriptionWithoutRetry(error: NodeFailure): string {
	return hintOf(error)
		.map((part) => (typeof part === 'string' ? part : part.instead))
		.join('');
}

/** Who answered, in an error's message: the platform, unless a request went elsewhere (N8N_PUBLIC_API). */
export const PLATFORM = 'The platform';

function statusHint(status: number, credentialName: string, service: string): { message: string; hint: string | Hint } {
	if (status === 401) {
		return {
			message: `${service} rejected the credentials (401 Unauthorized)`,
			hint: `Check the API key in the "${credentialName}" credential. Keys are never shown in errors.`,
		};
	}
	if (status === 403) {
		return {
			message: `${service} refused the request (403 Forbidden)`,
			hint: `The key in the "${credentialName}" credential is valid but not allowed to do this.`,
		};
	}
	if (status === 404) {
		return {
			message: `${service} found no such resource (404 Not Found)`,
			hint: 'Check the ID: it may have been deleted, or belong to another account.',
		};
	}
	if (status === 429) {
		return {
			message: `${service} is rate limiting requests (429 Too Many Requests)`,
			hint: 'Slow down: use the Batching request option (items per batch and interval).',
		};
	}
	if (status >= 500) {
		return {
			message: `${service} failed to answer (${status})`,
			hint: [`This is a problem on the side of ${service === PLATFORM ? 'the platform' : service}.`, TRY_AGAIN_LATER],
		};
	}
	return {
		message: `${service} rejected the request (${status})`,
		hint: 'Check the fields of this operation.',
	};
}

/** An error answer (status >= 400) as a NodeApiError: its message, the hint it is described with, what was answered. */
function answerError(node: INode, status: number, errorResponse: JsonObject, message: string, hint: Hint, itemIndex?: number): NodeApiError {
	const error = new NodeApiError(node, errorResponse, {
		message,
		description: hintText(hint),
		httpCode: String(status),
		itemIndex,
	});
	return keepHint(error, hint);
}

/** A platform error answer (status >= 400) as a NodeApiError with the platform's code and a hint. */
export function platformApiError(node: INode, status: number, body: unknown, credentialName: string, itemIndex?: number): NodeApiError {
	const platform = readPlatformError(body);
	const known = platform.code ? HINTS[platform.code] : undefined;
	const base = known ?? statusHint(status, credentialName, PLATFORM);
	const code = platform.code ? `${platform.code}: ` : '';
	const detail = platform.message && !known ? ` (${platform.message})` : '';
	const field =
		platform.details && typeof platform.details.field === 'string'
			? ` Field: ${platform.details.field}.`
			: '';
	const errorResponse: JsonObject = {
		code: platform.code ?? null,
		message: platform.message ?? null,
		status,
	};
	const hint = [...parts(base.hint), field, platform.message && known ? ` Platform said: ${platform.message}` : ''];
	return answerError(node, status, errorResponse, `${code}${base.message}${detail}`, hint, itemIndex);
}

/** Who answers the requests of the Assistant Platform Data Tables API credential, in an error's message. */
export const N8N_PUBLIC_API = "n8n's public API";

/** A request to n8n's public API, as its errors name it: the method and the path it was sent to (without the query). */
export interface N8nApiRequest {
	method: string;
	path: string;
}

/** The API key scope each request of the nodes needs in n8n's public API (n8n 2.41.1), the README's list in order. */
const N8N_API_SCOPES: Array<{ method: string; path: RegExp; scope: string }> = [
	{ method: 'GET', path: /\/data-tables$/, scope: 'dataTable:list' },
	{ method: 'POST', path: /\/data-tables$/, scope: 'dataTable:create' },
	{ method: 'GET', path: /\/data-tables\/[^/]+$/, scope: 'dataTable:read' },
	{ method: 'POST', path: /\/data-tables\/[^/]+\/columns$/, scope: 'dataTableColumn:create' },
	{ method: 'GET', path: /\/data-tables\/[^/]+\/rows$/, scope: 'dataTableRow:read' },
	{ method: 'POST', path: /\/data-tables\/[^/]+\/rows$/, scope: 'dataTableRow:create' },
	{ method: 'PATCH', path: /\/data-tables\/[^/]+\/rows\/update$/, scope: 'dataTableRow:update' },
];

/**
 * What n8n's public API means by the answers whose status alone would mislead (docs/assumptions.md, "Durable
 * state"; measured on n8n 2.41.1 and 1.123.81): 401 is a wrong key, or on 2.x any key while the public API is off;
 * 403 a scope the key lacks (or a project its owner cannot open); 404 either a data table that is not there (n8n's
 * message names it) or no data tables at that URL (1.x, a URL without /api/v1, 1.x's public API off: n8n's
 * "not found", or Express's HTML page); 400 "… Data table size limit exceeded …" the cap of all data tables' size.
 */
function n8nApiHint(
	status: number,
	said: string | undefined,
	request: N8nApiRequest,
	credentialName: string,
): { message: string; hint: string } | undefined {
	if (status === 401) {
		return {
			message: `${N8N_PUBLIC_API} refused the API key (401 Unauthorized)`,
			hint: `Check the API key in the "${credentialName}" credential (in n8n: Settings > n8n API; a key can expire or be deleted), and that n8n's public API is on: while N8N_PUBLIC_API_DISABLED is true, n8n answers every key with 401. Keys are never shown in errors.`,
		};
	}
	if (status === 403) {
		const needed = N8N_API_SCOPES.find((entry) => entry.method === request.method && entry.path.test(request.path));
		return {
			message: `${N8N_PUBLIC_API} refused ${request.method} ${request.path} (403 Forbidden)`,
			hint: `The API key in the "${credentialName}" credential was accepted but may not do this${needed ? `: it needs the scope ${needed.scope}` : ''} (the nodes use ${N8N_API_SCOPES.map((entry) => entry.scope).join(', ')}), and its owner needs access to the data table's project.`,
		};
	}
	if (status === 404 && said !== undefined && /data table/i.test(said)) {
		return {
			message: `${N8N_PUBLIC_API} found no such data table (404 Not Found)`,
			hint: "It may have been deleted, or be in a project the API key's owner cannot open.",
		};
	}
	if (status === 404) {
		return {
			message: `${N8N_PUBLIC_API} answered 404 at ${request.path}: no data tables there`,
			hint: `Check the n8n API URL in the "${credentialName}" credential: this n8n's address followed by /api/v1 (e.g. https://n8n.example.com/api/v1). n8n serves data tables in its public API from 2.x on; n8n 1.x answers 404 here, and with its public API off (N8N_PUBLIC_API_DISABLED=true) 404 at every path of it.`,
		};
	}
	if (status === 400 && said !== undefined && /data table size limit exceeded/i.test(said)) {
		return {
			message: 'n8n refused the write: its data tables are at their size limit',
			hint: "n8n caps the total size of all its data tables (N8N_DATA_TABLES_MAX_SIZE_BYTES, 200 MB by default) and, once they reach it, refuses every insert and update until they are smaller; reading and deleting rows still work. Delete rows or data tables no longer needed (in n8n's Data tables), or raise N8N_DATA_TABLES_MAX_SIZE_BYTES and restart n8n. n8n measures the size again every few seconds.",
		};
	}
	return undefined;
}

/**
 * An error answer of n8n's public API (status >= 400; `body` undefined when it was not JSON, as n8n's own 404 page)
 * as a NodeApiError: its cause in n8n's terms (n8nApiHint), else what its status means; n8n's message in brackets.
 */
export function n8nApiError(
	node: INode,
	status: number,
	body: unknown,
	credentialName: string,
	request: N8nApiRequest,
	itemIndex?: number,
): NodeApiError {
	const said = readPlatformError(body).message;
	const base = n8nApiHint(status, said, request, credentialName) ?? statusHint(status, credentialName, N8N_PUBLIC_API);
	const errorResponse: JsonObject = { code: null, message: said ?? null, status };
	return answerError(node, status, errorResponse, `${base.message}${said ? ` (${said})` : ''}`, parts(base.hint), itemIndex);
}

/** A request that got no usable answer (network error, timeout, malformed body), without leaking request details. */
export function transportError(
	node: INode,
	reason: string,
	hint: string | Hint,
	itemIndex?: number,
): NodeApiError {
	const error = new NodeApiError(node, { message: reason } as JsonObject, {
		message: reason,
		description: hintText(hint),
		itemIndex,
		httpCode: 'none',
	});
	return keepHint(error, hint);
}
