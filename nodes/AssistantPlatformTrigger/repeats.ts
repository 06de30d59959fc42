import type { IDataObject } from 'n8n-workflow';

import { isInternalId } from '../shared/callResult';

import type { EventName } from './events';

/** Deliveries remembered at most (the oldest are forgotten first): static data is saved with the workflow. */
export const MAX_REMEMBERED = 5_000;
export const DEFAULT_REPEAT_WINDOW_MINUTES = 60;

/** 53 bits of cyrb53 over `text` (a well-mixed string hash; node code loads no crypto module). */
function cyrb53(text: string, seed: number): string {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ ch, 2654435761);
		h2 = Math.imul(h2 ^ ch, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

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
	return `${event}:body:${text.length}:${cyrb53(text, 1)}${cyrb53(text, 2)}`;
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
