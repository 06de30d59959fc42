import { sleep } from 'n8n-workflow';

/*
 * Calls in flight: places calls one after another while fewer than `cap` of them are unresolved, and
 * learns that a call ended from its status record (the platform writes it when the call is over; 404
 * before). Placing stays exactly once; a refusal that proves nothing was placed (429) is waited out and
 * the same call placed then. Status reads go through the transport's read retries; a call whose record
 * has not appeared after `maxCallMs` is given up on (its line counted free).
 *
 * Only the call's own record frees its line: a read that fails, or answers anything but a 404 or that
 * record, leaves the call in flight, so a platform that answers wrongly can never make the node place more
 * calls than the cap. Reads that keep failing stop the dialling (MAX_FAILED_STATUS_READS in a row): the
 * node no longer knows which lines are free, and holding every line for Max Call Length would hide it.
 * One read per call in flight per check: never more than `cap` reads at once.
 */

/**
 * Status reads of the calls in flight that may fail in a row (each after the transport's own retries) before
 * the dialling stops; a read that answers (a 404 or the call's record) starts the count again.
 */
export const MAX_FAILED_STATUS_READS = 10;

export type PlaceResult =
	| { kind: 'placed'; internalId: string }
	/** The platform refused with 429: nothing was placed; wait this long before placing it again. */
	| { kind: 'refused'; retryAfterMs: number }
	/** Any other end (rejected, unknown outcome): the item's output is written, nothing to follow. */
	| { kind: 'done' };

export interface DialerHooks {
	/** Writes the output of an item that must not be dialled now (skipped, or deferred); true when it did. */
	skipOrDefer(index: number, now: number): boolean;
	place(index: number): Promise<PlaceResult>;
	/**
	 * Reads the call's status: 'ended' once its own record is there (the hook writes the output), 'pending'
	 * while the platform answers 404. Throws when the read failed or answered anything else (the call stays
	 * in flight).
	 */
	read(index: number, internalId: string): Promise<'ended' | 'pending'>;
	/** The call's record did not appear within maxCallMs, or the account stayed full that long: write the output. */
	giveUp(index: number, why: 'record' | 'refused', error?: Error): void;
	/** True once the run must stop placing (a failure without Continue On Fail, or the execution was cancelled). */
	stopped(): boolean;
	/**
	 * MAX_FAILED_STATUS_READS status reads failed in a row: the dialling stops. `inFlight`: the calls placed
	 * whose end is not known (with the last error of their reads), `notDialled`: the items never dialled,
	 * `error`: the last failure. Writes their outputs, or throws to end the run.
	 */
	readsFailed(inFlight: InFlightCall[], notDialled: number[], error: Error): void;
}

/** A call placed whose end is not known. */
export interface InFlightCall {
	index: number;
	internalId: string;
	error?: Error;
}

interface DialerSettings {
	cap: number;
	intervalMs: number;
	maxCallMs: number;
	/** Longest wait on one Retry-After (the platform's own value is used when shorter). */
	maxRetryAfterMs?: number;
}

interface Flight {
	internalId: string;
	placedAt: number;
	lastError?: Error;
}

const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export async function dialWithCap(indices: number[], settings: DialerSettings, hooks: DialerHooks): Promise<void> {
	const queue = [...indices];
	const inFlight = new Map<number, Flight>();
	const maxRetryAfter = settings.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
	let blockedUntil = 0;
	/** When the item at the head of the queue was first refused (429), for the longest wait. */
	let refusedSince: number | undefined;
	/** Status reads failed in a row, and the last failure. */
	let failedReads = 0;
	let lastFailure: Error | undefined;

	for (;;) {
		if (hooks.stopped()) return;
		while (queue.length > 0 && inFlight.size < settings.cap && Date.now() >= blockedUntil) {
			const index = queue[0];
			if (hooks.skipOrDefer(index, Date.now())) {
				queue.shift();
				continue;
			}
			const result = await hooks.place(index);
			if (result.kind === 'refused') {
				refusedSince ??= Date.now();
				if (Date.now() - refusedSince >= settings.maxCallMs) {
					queue.shift();
					refusedSince = undefined;
					hooks.giveUp(index, 'refused');
					continue;
				}
				blockedUntil = Date.now() + Math.min(Math.max(result.retryAfterMs, settings.intervalMs), maxRetryAfter);
				break;
			}
			queue.shift();
			refusedSince = undefined;
			if (result.kind === 'placed') inFlight.set(index, { internalId: result.internalId, placedAt: Date.now() });
			if (hooks.stopped()) return;
		}
		if (inFlight.size === 0 && queue.length === 0) return;

		// Wait: for a line (the next status check), or for the end of a refusal's Retry-After.
		const waitingForRefusal = queue.length > 0 && inFlight.size < settings.cap && blockedUntil > Date.now();
		const pause = waitingForRefusal
			? Math.min(blockedUntil - Date.now(), inFlight.size > 0 ? settings.intervalMs : Number.POSITIVE_INFINITY)
			: settings.intervalMs;
		await sleep(Math.max(1, pause));
		if (inFlight.size === 0) continue;

		// One read per call in flight, all at once: at most `cap` reads.
		await Promise.all(
			[...inFlight].map(async ([index, flight]) => {
				let state: 'ended' | 'pending' = 'pending';
				try {
					state = await hooks.read(index, flight.internalId);
					failedReads = 0;
				} catch (error) {
					flight.lastError = error as Error;
					lastFailure = error as Error;
					failedReads++;
				}
				if (state === 'ended') {
					inFlight.delete(index);
				} else if (Date.now() - flight.placedAt >= settings.maxCallMs) {
					inFlight.delete(index);
					hooks.giveUp(index, 'record', flight.lastError);
				}
			}),
		);
		if (failedReads >= MAX_FAILED_STATUS_READS && lastFailure && (inFlight.size > 0 || queue.length > 0)) {
			const calls = [...inFlight].map(([index, flight]) => ({ index, internalId: flight.internalId, error: flight.lastError }));
			hooks.readsFailed(calls, [...queue], lastFailure);
			return;
		}
	}
}
