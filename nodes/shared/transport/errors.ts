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

/** Who answered, in an error's message: the platform, unless a request went elsewhere (n8n's own API). */
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

/** A platform error answer (status >= 400) as a NodeApiError with the platform's code and a hint. */
export function platformApiError(
	node: INode,
	status: number,
	body: unknown,
	credentialName: string,
	itemIndex?: number,
	service = PLATFORM,
): NodeApiError {
	const platform = readPlatformError(body);
	const known = service === PLATFORM && platform.code ? HINTS[platform.code] : undefined;
	const base = known ?? statusHint(status, credentialName, service);
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
	const error = new NodeApiError(node, errorResponse, {
		message: `${code}${base.message}${detail}`,
		description: hintText(hint),
		httpCode: String(status),
		itemIndex,
	});
	return keepHint(error, hint);
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
