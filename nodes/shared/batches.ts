import { sleep } from 'n8n-workflow';

import type { Batching } from './outbound';

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
