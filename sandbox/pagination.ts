import { createHmac, timingSafeEqual } from 'node:crypto';

import { ApiError, invalid } from './errors';
import { lowerBound } from './store';
import type { PageOverride } from './types';

interface CursorPayload {
	/** List key: the list the cursor belongs to. */
	l: string;
	/** Last seq returned. */
	s: number;
	/** Page size the cursor was made with. */
	n: number;
	/** Filter value (or null). */
	f: string | null;
}

const MAC_BYTES = 16;

/** Signs and checks opaque cursors with an HMAC of a per-sandbox secret. */
export class CursorCodec {
	constructor(private readonly secret: Buffer) {}

	private mac(payload: Buffer): Buffer {
		return createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_BYTES);
	}

	encode(payload: CursorPayload): string {
		const body = Buffer.from(JSON.stringify(payload), 'utf8');
		return Buffer.concat([this.mac(body), body]).toString('base64url');
	}

	decode(cursor: string): CursorPayload {
		const bad = () => new ApiError(400, 'INVALID_CURSOR', 'The cursor is not valid: pass meta.nextCursor exactly as received.');
		if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
		const raw = Buffer.from(cursor, 'base64url');
		if (raw.length <= MAC_BYTES || raw.toString('base64url') !== cursor) throw bad();
		const mac = raw.subarray(0, MAC_BYTES);
		const body = raw.subarray(MAC_BYTES);
		if (!timingSafeEqual(mac, this.mac(body))) throw bad();
		let parsed: unknown;
		try {
			parsed = JSON.parse(body.toString('utf8'));
		} catch {
			throw bad();
		}
		const p = parsed as Partial<CursorPayload>;
		if (
			!p ||
			typeof p.l !== 'string' ||
			typeof p.s !== 'number' ||
			typeof p.n !== 'number' ||
			!(p.f === null || typeof p.f === 'string')
		) {
			throw bad();
		}
		return p as CursorPayload;
	}
}

export interface PageQuery {
	limit?: string | string[];
	cursor?: string | string[];
}

export interface ListFilter<T> {
	/** Query parameter name, e.g. 'name'. */
	param: string;
	/** Value from the query (undefined when absent). */
	value: string | undefined;
	test: (item: T, value: string) => boolean;
}

export interface Page {
	data: unknown[];
	meta: { count: number; totalCount: number; limit: number; nextCursor: string | null; hasMore: boolean };
}

function single(name: string, value: string | string[] | undefined): string | undefined {
	if (Array.isArray(value)) throw invalid(name, 'must be given once');
	return value;
}

/**
 * docs/assumptions.md, Pagination: bare array without limit and cursor; otherwise `{data, meta}`.
 * Items must be sorted by ascending seq (they are: OrderedStore keeps insertion order).
 */
export function paginate<T extends { seq: number }>(
	codec: CursorCodec,
	listKey: string,
	items: readonly T[],
	project: (item: T) => unknown,
	query: PageQuery,
	maxPageSize: number,
	filter?: ListFilter<T>,
): unknown[] | Page {
	const limitText = single('limit', query.limit);
	const cursorText = single('cursor', query.cursor);
	let limit: number | undefined;
	if (limitText !== undefined) {
		if (!/^\d+$/.test(limitText) || Number(limitText) < 1) throw invalid('limit', 'must be an integer >= 1');
		limit = Math.min(Number(limitText), maxPageSize);
	}
	let filterValue = filter?.value !== undefined && filter.value !== '' ? filter.value : null;
	if (limitText === undefined && cursorText === undefined) {
		const all = filterValue === null || !filter ? items : items.filter((item) => filter.test(item, filterValue as string));
		return all.map(project);
	}
	let start = 0;
	if (cursorText !== undefined) {
		const cursor = codec.decode(cursorText);
		if (cursor.l !== listKey) {
			throw new ApiError(400, 'INVALID_CURSOR', 'The cursor belongs to another list.');
		}
		if (filterValue !== null && filterValue !== cursor.f) {
			throw new ApiError(400, 'INVALID_CURSOR', `The cursor was made for a different ${filter?.param ?? 'filter'}.`);
		}
		filterValue = cursor.f;
		if (limit === undefined) limit = Math.min(Math.max(1, cursor.n), maxPageSize);
		start = lowerBound(items, cursor.s + 1);
	}
	const size = limit ?? maxPageSize;
	let page: T[];
	let hasMore: boolean;
	let totalCount: number;
	if (filterValue === null || !filter) {
		page = items.slice(start, start + size);
		hasMore = start + size < items.length;
		totalCount = items.length;
	} else {
		page = [];
		hasMore = false;
		totalCount = 0;
		for (let i = 0; i < items.length; i++) {
			if (!filter.test(items[i], filterValue)) continue;
			totalCount++;
			if (i < start) continue;
			if (page.length < size) page.push(items[i]);
			else hasMore = true;
		}
	}
	const nextCursor =
		hasMore && page.length > 0 ? codec.encode({ l: listKey, s: page[page.length - 1].seq, n: size, f: filterValue }) : null;
	return {
		data: page.map(project),
		meta: { count: page.length, totalCount, limit: size, nextCursor, hasMore: nextCursor !== null },
	};
}

/**
 * Fault kind `page`: rewrites a paginated answer (`{data, meta}`) as the override says. Anything
 * else (a bare array, an error body) is returned unchanged. `requestCursor` is the cursor the
 * request carried, if any.
 */
export function rewritePage(body: unknown, override: PageOverride, requestCursor: string | undefined): unknown {
	if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
	const page = body as Partial<Page>;
	if (!Array.isArray(page.data) || !page.meta || typeof page.meta !== 'object') return body;
	let data = override.data !== undefined ? override.data.slice() : page.data.slice();
	if (override.keep !== undefined) data = data.slice(0, override.keep);
	const meta: Record<string, unknown> = { ...page.meta, count: data.length };
	if (override.repeatCursor && requestCursor !== undefined) {
		meta.nextCursor = requestCursor;
		meta.hasMore = true;
	}
	Object.assign(meta, override.meta ?? {});
	return { ...body, data, meta };
}
