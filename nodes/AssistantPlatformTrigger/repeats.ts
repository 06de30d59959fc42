import type { IDataObject } from 'n8n-workflow';

import { isInternalId } from '../shared/callResult';
import { textDigest } from '../shared/hash';

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
 * Records a delivery in the trigger's static data (`seen`: key → time first received) and tells
 * whether the same delivery was already received within the window. Forgets entries older than the
 * window and keeps at most MAX_REMEMBERED.
 */
export function isRepeat(staticData: IDataObject, key: string, now: number, windowMs: number): boolean {
	const seen = (staticData.seen && typeof staticData.seen === 'object' ? staticData.seen : {}) as Record<string, number>;
	const kept: Record<string, number> = {};
	const fresh = Object.entries(seen).filter(([, at]) => typeof at === 'number' && now - at < windowMs);
	fresh.sort((a, b) => a[1] - b[1]);
	for (const [k, at] of fresh.slice(Math.max(0, fresh.length - (MAX_REMEMBERED - 1)))) kept[k] = at;
	const repeat = key in kept;
	if (!repeat) kept[key] = now;
	staticData.seen = kept;
	return repeat;
}
