import type { IDataObject } from 'n8n-workflow';

import { READ_BACKOFF_BASE_MS, READ_BACKOFF_MAX_MS } from '../core/constants';
import type { Hint } from './errors';
import { OR_TRY_AGAIN_LATER, TRY_AGAIN_LATER } from './errors';

/*
 * Why an exchange failed before it had an answer (a timeout, a reset, a refused connection, a body that
 * does not decompress), whether a read may try again, and how long it waits first.
 */

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

/** An exchange that failed before it had an answer: whether a read may try again, and what to tell the user. */
export interface NetworkFailure {
	transient: boolean;
	reason: string;
	hint: Hint;
}

/**
 * What failed an exchange: its deadline (`timedOut`, Timeout covers the whole answer), a body that does
 * not decompress, or the network (describeNetworkError).
 */
export function networkFailure(error: unknown, timedOut: boolean, timeout: number): NetworkFailure {
	const code = errorCode(error);
	const undecodable = code !== undefined && /^Z_/.test(code);
	const transient =
		timedOut ||
		undecodable ||
		TRANSIENT_NETWORK_CODES.has(code ?? '') ||
		/timeout|socket hang up|aborted/i.test((error as Error)?.message ?? '');
	if (timedOut) {
		return {
			transient,
			reason: `The platform did not answer within ${timeout} ms (timeout)`,
			hint: ['The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option', OR_TRY_AGAIN_LATER],
		};
	}
	if (undecodable) {
		return {
			transient,
			reason: 'The platform answered a compressed body that could not be decompressed',
			hint: [`Content-Encoding ${code}: the answer was not used.`],
		};
	}
	return { transient, ...describeNetworkError(error, timeout) };
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

/** The wait before a read's next attempt: doubling from READ_BACKOFF_BASE_MS, at most READ_BACKOFF_MAX_MS. */
export function backoffMs(attempt: number): number {
	return Math.min(READ_BACKOFF_MAX_MS, READ_BACKOFF_BASE_MS * 2 ** attempt);
}
