import type { IDataObject } from 'n8n-workflow';

import { isInternalId } from '../shared/calls/callResult';
import { textDigest } from '../shared/core/hash';

import type { EventName } from './events';

/** Deliveries remembered at most (the oldest are forgotten first): static data is saved with the workflow. */
export const MAX_REMEMBERED = 5_000;
export const DEFAULT_REPEAT_WINDOW_MINUTES = 60;

/**
 * What makes two deliveries "the same": the event and the call's internal_id when the body has one,
 * else the event, the body's length and two 53-bit hashes of it as received. Not a cryptographic
 * hash: whoever could forge a collision already holds the trigger's secret and can post anything.
 */
export function deliveryKey(event: EventName, body: IDataObject, raw: unknown): string {
	const id = body.internal_id ?? body.internalId;
	if (isInternalId(id)) {
		return `${event}:id:${String(id).trim()}`;
	}
	const text = raw instanceof Uint8Array && raw.length > 0 ? Buffer.from(raw).toString('utf8') : JSON.stringify(body);
	return `${event}:body:${textDigest(text)}`;
}

/**
 * The deliveries this n8n process received, per trigger (see triggerMemoryKey): key → time first received.
 *
 * The workflow's static data alone cannot hold them. n8n gives each webhook request its own copy, read from
 * the database when the request arrives, and writes that copy back whole after answering. Deliveries that
 * overlap therefore do not see each other (a repeat arriving before the first was answered starts again), and
 * the last copy written back drops what the others added (a call result received together with others is
 * forgotten, and its later repeat starts again). On n8n 2.x, starting the execution also clears the copy's
 * change flag (a second Workflow is built on the same object), so a delivery that starts an execution is not
 * written back at all: only a request that starts none (a repeat) saves. Checking and recording a delivery
 * here is one synchronous step no other request of this process can come between. Another n8n process (queue
 * mode's webhook processes) shares only what was written back, and after a restart only that is left.
 */
const receivedHere = new Map<string, Record<string, number>>();

/** One trigger's deliveries: its mode (a test URL never shares with the production URL), workflow and node. */
export function triggerMemoryKey(mode: string, workflowId: string | undefined, nodeName: string): string {
	return JSON.stringify([mode, workflowId ?? '', nodeName]);
}

function entries(value: unknown): Array<[string, number]> {
	if (!value || typeof value !== 'object') return [];
	return Object.entries(value as Record<string, unknown>).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
}

/**
 * Records a delivery and tells whether the same delivery was already received within the window: in the
 * trigger's static data (`seen`: key → time first received, what other processes and restarts see) and in
 * what this process received for the same trigger (`memoryKey`). Both end up with the union of the two,
 * without entries older than the window and with at most MAX_REMEMBERED (the oldest are forgotten first).
 */
export function isRepeat(staticData: IDataObject, key: string, now: number, windowMs: number, memoryKey?: string): boolean {
	const here = memoryKey === undefined ? undefined : receivedHere.get(memoryKey);
	const earliest = new Map<string, number>();
	for (const [k, at] of [...entries(staticData.seen), ...entries(here)]) {
		if (now - at >= windowMs) continue;
		const known = earliest.get(k);
		if (known === undefined || at < known) earliest.set(k, at);
	}
	const fresh = [...earliest].sort((a, b) => a[1] - b[1]);
	const kept: Record<string, number> = {};
	for (const [k, at] of fresh.slice(Math.max(0, fresh.length - (MAX_REMEMBERED - 1)))) kept[k] = at;
	const repeat = key in kept;
	if (!repeat) kept[key] = now;
	if (memoryKey === undefined) {
		staticData.seen = kept;
		return repeat;
	}
	// One record per trigger, updated in place and put in every request's copy: whichever copy n8n writes back
	// last holds what this process had received by then, not only what that request saw.
	const record = here ?? {};
	for (const k of Object.keys(record)) delete record[k];
	Object.assign(record, kept);
	receivedHere.set(memoryKey, record);
	staticData.seen = record;
	return repeat;
}
