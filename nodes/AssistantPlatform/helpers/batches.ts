import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/* Request Options > Batching, one rule for every operation: how it is read and how items run under it. */

export interface Batching {
	/** Whether the user set Request Options > Batching. Without it items go one at a time. */
	enabled: boolean;
	size: number;
	intervalMs: number;
}

/** Reads Request Options > Batching > Items per Batch / Batch Interval (ms). */
export function readBatching(raw: unknown): Batching {
	const options = (raw && typeof raw === 'object' ? raw : {}) as IDataObject;
	const batch = ((options.batching as IDataObject | undefined)?.batch ?? undefined) as
		| IDataObject
		| undefined;
	if (!batch || typeof batch !== 'object') return { enabled: false, size: 1, intervalMs: 0 };
	const size = Number(batch.batchSize ?? 50);
	const interval = Number(batch.batchInterval ?? 1000);
	return {
		enabled: true,
		// n8n's own rule: -1 disables batching, 0 is treated as 1.
		size: Number.isFinite(size) && size > 0 ? Math.floor(size) : 1,
		intervalMs: Number.isFinite(interval) && interval > 0 && size !== -1 ? interval : 0,
	};
}

/**
 * Runs `work` for each index: one at a time without batching; with Request Options > Batching, up
 * to Items per Batch at once, then Batch Interval (ms) before the next batch. `work` must not
 * throw (it records its own outcome). `stop()` is checked after every batch, so a failure ends
 * the run before the next batch starts.
 */
export async function runInBatches(
	indices: number[],
	batching: Batching,
	work: (index: number) => Promise<void>,
	stop: () => boolean,
): Promise<void> {
	const size = batching.enabled ? batching.size : 1;
	for (let start = 0; start < indices.length; start += size) {
		if (start > 0 && batching.intervalMs > 0) await sleep(batching.intervalMs);
		const batch = indices.slice(start, start + size);
		if (batch.length === 1) {
			await work(batch[0]);
		} else {
			await Promise.all(batch.map(async (index) => await work(index)));
		}
		if (stop()) return;
	}
}
