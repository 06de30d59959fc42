import { sleep } from 'n8n-workflow';

/*
 * Calls in flight: places calls one after another while fewer than `cap` of them are unresolved, and
 * learns that a call ended from its status record (the platform writes it when the call is over; 404
 * before). Placing stays exactly once; a refusal that proves nothing was placed (429) is waited out and
 * the same call placed then. Status reads go through the transport's read retries; a call whose record
 * has not appeared after `maxCallMs` is given up on (its line counted free).
 */

export type PlaceResult =
	| { kind: 'placed'; internalId: string }
	/** The platform refused with 429: nothing was placed; wait this long before placing it again. */
	| { kind: 'refused'; retryAfterMs: number }
	/** Any other end (rejected, unknown outcome): the item's output is written, nothing to follow. */
	| { kind: 'done' };

export interface DialerHooks {
	/** Writes the output of an item that must not be dialled now (skipped, not yet); true when it did. */
	hold(index: number, now: number): boolean;
	place(index: number): Promise<PlaceResult>;
	/** Reads the call's status: 'ended' once its record is there (the hook writes the output). Throws on a failed read. */
	read(index: number, internalId: string): Promise<'ended' | 'pending'>;
	/** The call's record did not appear within maxCallMs, or the account stayed full that long: write the output. */
	giveUp(index: number, why: 'record' | 'refused', error?: Error): void;
	/** True once the run must stop placing (a failure without Continue On Fail, or the execution was cancelled). */
	stopped(): boolean;
}

export interface DialerSettings {
	cap: number;
	intervalMs: number;
	maxCallMs: number;
	/** Longest wait on one Retry-After (the platform's own value is used when shorter). */
	maxRetryAfterMs?: number;
}

export interface DialerStats {
	placed: number;
	refusals: number;
	statusReads: number;
	/** Largest number of unresolved calls at once (never above the cap). */
	maxInFlight: number;
}

interface Flight {
	internalId: string;
	placedAt: number;
	lastError?: Error;
}

const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export async function dialWithCap(indices: number[], settings: DialerSettings, hooks: DialerHooks): Promise<DialerStats> {
	const queue = [...indices];
	const inFlight = new Map<number, Flight>();
	const stats: DialerStats = { placed: 0, refusals: 0, statusReads: 0, maxInFlight: 0 };
	const maxRetryAfter = settings.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
	let blockedUntil = 0;
	/** When the item at the head of the queue was first refused (429), for the longest wait. */
	let refusedSince: number | undefined;

	for (;;) {
		if (hooks.stopped()) return stats;
		while (queue.length > 0 && inFlight.size < settings.cap && Date.now() >= blockedUntil) {
			const index = queue[0];
			if (hooks.hold(index, Date.now())) {
				queue.shift();
				continue;
			}
			const result = await hooks.place(index);
			if (result.kind === 'refused') {
				stats.refusals++;
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
			if (result.kind === 'placed') {
				stats.placed++;
				inFlight.set(index, { internalId: result.internalId, placedAt: Date.now() });
				stats.maxInFlight = Math.max(stats.maxInFlight, inFlight.size);
			}
			if (hooks.stopped()) return stats;
		}
		if (inFlight.size === 0 && queue.length === 0) return stats;

		// Wait: for a line (the next status check), or for the end of a refusal's Retry-After.
		const waitingForRefusal = queue.length > 0 && inFlight.size < settings.cap && blockedUntil > Date.now();
		const pause = waitingForRefusal
			? Math.min(blockedUntil - Date.now(), inFlight.size > 0 ? settings.intervalMs : Number.POSITIVE_INFINITY)
			: settings.intervalMs;
		await sleep(Math.max(1, pause));
		if (inFlight.size === 0) continue;

		await Promise.all(
			[...inFlight].map(async ([index, flight]) => {
				stats.statusReads++;
				let state: 'ended' | 'pending' = 'pending';
				try {
					state = await hooks.read(index, flight.internalId);
				} catch (error) {
					flight.lastError = error as Error;
				}
				if (state === 'ended') {
					inFlight.delete(index);
				} else if (Date.now() - flight.placedAt >= settings.maxCallMs) {
					inFlight.delete(index);
					hooks.giveUp(index, 'record', flight.lastError);
				}
			}),
		);
	}
}
