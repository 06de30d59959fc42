import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { DEFAULT_MAX_RESPONSE_MB, MB } from '../core/constants';
import { formatMb } from '../core/text';

/*
 * The bounds of one exchange: its answer read as it arrives and stopped past its size, and a signal that
 * ends it at its deadline or with the execution.
 */

/** How many bytes (after decompression) an answer may have, and the setting that raises the bound. */
export interface SizeLimit {
	bytes: number;
	/** Where the user raises it, e.g. "Settings > Request Options > Max Response Size". */
	setting: string;
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

/** The bound of one answer: Max Response Size (or its default), or the caller's tighter one. */
export function answerLimit(maxResponseBytes: number | undefined, tighter: SizeLimit | undefined): SizeLimit {
	const bytes = maxResponseBytes && maxResponseBytes > 0 ? maxResponseBytes : DEFAULT_MAX_RESPONSE_MB * MB;
	if (tighter && tighter.bytes < bytes) return tighter;
	return { bytes, setting: MAX_RESPONSE_SETTING };
}

/**
 * The signal of one exchange: aborted by its deadline or by the execution's cancel signal. Listeners
 * rather than AbortSignal.any, which costs a weak reference and a finalizer per request; `release`
 * detaches them once the exchange is over.
 */
export function exchangeSignal(deadline: AbortSignal, cancel: AbortSignal | undefined): { signal: AbortSignal; release(): void } {
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

export type Received = { overflow: false; data: unknown; bytes: number } | { overflow: true; bytes: number };

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
export async function receive(body: unknown, maxBytes: number): Promise<Received> {
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
