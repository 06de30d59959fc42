import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeOutput } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEFAULT_MAX_PAGES, MAX_EMPTY_PAGES, MAX_PAGE_SIZE } from '../../shared/constants';
import type { PlatformResponse, RequestContext } from '../../shared/transport';
import { portalBaseUrl, portalRequest } from '../../shared/transport';
import { assertIntegerInRange, assertPageSize, invalid } from '../../shared/validation';

import type { ItemScope } from './items';
import { forEachItem, itemScope } from './items';

export interface PageWalkOptions {
	returnAll: boolean;
	limit: number;
	pageSize: number;
	/** The field that identifies an item of this list (duplicates are keyed by it, else by the item's JSON). */
	idField?: string;
	/** Pages one walk may read (Options > Max Pages); DEFAULT_MAX_PAGES when not set. */
	maxPages?: number;
}

/** The id field of the lists whose items have one (docs/assumptions.md, "Pagination"). */
const LIST_ID_FIELDS: Array<[RegExp, string]> = [
	[/^\/assistants\/?$/, 'assistantId'],
	[/^\/rag\/collections\/?$/, 'ragId'],
	[/^\/rag\/collections\/[^/]+\/documents\/?$/, 'documentId'],
];

/** The id field of the list at `path` (relative to /api/v1), or undefined when items are keyed by their JSON. */
function listIdField(path: string | undefined): string | undefined {
	const clean = String(path ?? '').replace(/^=/, '').split('?')[0];
	return LIST_ID_FIELDS.find(([pattern]) => pattern.test(clean))?.[1];
}

/**
 * Remembers the items a page walk has returned, to detect a page that repeats items already seen
 * (a platform whose pages shift, or a cursor that went back). Items are keyed by the list's id field
 * when they carry it, else by their JSON.
 */
class SeenItems {
	private readonly keys = new Set<string>();

	constructor(private readonly idField?: string) {}

	private keyOf(item: unknown): string {
		const id = this.idField ? (item as IDataObject | null)?.[this.idField] : undefined;
		if (typeof id === 'string' || typeof id === 'number') return `id:${String(id)}`;
		return `json:${JSON.stringify(item)}`;
	}

	/** Adds the items of a page; returns the ones already seen (earlier pages or this page). */
	add(items: unknown[]): unknown[] {
		const repeated: unknown[] = [];
		for (const item of items) {
			const key = this.keyOf(item);
			if (this.keys.has(key)) repeated.push(item);
			else this.keys.add(key);
		}
		return repeated;
	}

	/** How to name a repeated item in an error: its id when it has one (ids are not secret). */
	describe(item: unknown): string {
		const id = this.idField ? (item as IDataObject | null)?.[this.idField] : undefined;
		return typeof id === 'string' || typeof id === 'number' ? `${this.idField} ${JSON.stringify(id)}` : 'an identical item';
	}
}

/** A page request's error, saying where the walk stopped after the first page (e.g. a cursor the platform rejected). */
function stoppedAt(error: NodeApiError, page: number, url: string, read: number): NodeApiError {
	if (page > 1) {
		error.description = `${error.description ?? ''} Pagination stopped at page ${page} of ${url}; ${read} items were read before.`.trim();
	}
	return error;
}

/** Every item of a management list at `path` (programmatic callers: all pages, the largest page size). */
export async function readWholeList(
	ctx: RequestContext,
	path: string,
	itemIndex?: number,
): Promise<IDataObject[]> {
	return await walkList(
		ctx,
		path,
		async (qs) => await portalRequest(ctx, 'GET', path, { qs, retry: true, itemIndex }),
		{},
		{ returnAll: true, limit: Number.MAX_SAFE_INTEGER, pageSize: MAX_PAGE_SIZE, idField: listIdField(path) },
		itemIndex,
	);
}

/**
 * Follows `meta.nextCursor` (sent as received) with `limit` and the filters on every page, until `hasMore`
 * is false or Limit is reached. Every way a platform can make it loop or repeat (no data, no cursor, a
 * cursor or items seen before, empty pages, past meta.totalCount, past Max Pages) stops it with an error
 * naming the page; a short page is followed (docs/assumptions.md, "Pagination").
 */
async function walkList(
	ctx: RequestContext,
	url: string,
	fetchPage: (qs: IDataObject) => Promise<PlatformResponse>,
	qs: IDataObject,
	walk: PageWalkOptions,
	itemIndex: number | undefined,
): Promise<IDataObject[]> {
	const node = ctx.getNode();
	const pageLimit = walk.returnAll ? walk.pageSize : Math.min(walk.pageSize, walk.limit);
	const baseQs: IDataObject = { ...qs };
	delete baseQs.cursor;
	const collected: IDataObject[] = [];
	const cursors = new Set<string>();
	const seen = new SeenItems(walk.idField);
	let cursor: string | undefined;
	let page = 0;
	let emptyPages = 0;
	const maxPages = walk.maxPages ?? DEFAULT_MAX_PAGES;
	const stop = (message: string, detail: string) =>
		new NodeApiError(node, { page } as IDataObject as never, {
			message: `Pagination stopped: ${message}`,
			description: `Page ${page} of ${url} ${detail}. ${collected.length} items were read before the stop; nothing was output twice.`,
			itemIndex,
		});

	for (;;) {
		page++;
		const pageQs: IDataObject = { ...baseQs, limit: pageLimit };
		if (cursor !== undefined) pageQs.cursor = cursor;
		let response: PlatformResponse;
		try {
			response = await fetchPage(pageQs);
		} catch (error) {
			if (!(error instanceof NodeApiError)) throw new NodeOperationError(node, error as Error, { itemIndex });
			throw stoppedAt(error, page, url, collected.length);
		}
		const body = response.body as IDataObject;
		if (Array.isArray(body)) {
			// The historical unpaginated form: everything at once.
			if (seen.add(body).length > 0) {
				throw stop('the platform returned the same item twice', 'repeated items in its answer');
			}
			collected.push(...(body as IDataObject[]));
			break;
		}
		const data = body?.data;
		const meta = body?.meta as IDataObject | undefined;
		if (!Array.isArray(data) || !meta || typeof meta !== 'object') {
			throw stop('the platform answered a page without "data" and "meta"', 'had an unexpected shape (use Custom API Request to inspect the raw answer)');
		}
		const repeated = seen.add(data);
		if (repeated.length > 0) {
			throw stop(
				'the platform returned items already returned',
				`repeated ${repeated.length} item(s) already read (first: ${seen.describe(repeated[0])}); following it could loop or output duplicates`,
			);
		}
		collected.push(...(data as IDataObject[]));
		if (!walk.returnAll && collected.length >= walk.limit) break;
		if (meta.hasMore !== true) break;
		const next = meta.nextCursor;
		if (typeof next !== 'string' || next === '') {
			throw stop(
				'the platform said there are more items but gave no cursor',
				`had meta.hasMore true and meta.nextCursor ${JSON.stringify(next ?? null)}`,
			);
		}
		if (cursors.has(next)) {
			throw stop('the platform returned the same cursor twice', 'repeated an earlier cursor; following it would loop forever');
		}
		if (data.length === 0) emptyPages++;
		if (emptyPages >= MAX_EMPTY_PAGES) {
			throw stop(
				`the platform returned ${MAX_EMPTY_PAGES} empty pages`,
				`was the ${MAX_EMPTY_PAGES}th empty page of this walk with meta.hasMore true`,
			);
		}
		const total = meta.totalCount;
		if (typeof total === 'number' && Number.isFinite(total) && collected.length > total + pageLimit) {
			throw stop(
				`the platform returned more items than the list holds (meta.totalCount ${total})`,
				`brought the count to ${collected.length}, more than a page past meta.totalCount, and still said hasMore`,
			);
		}
		if (page >= maxPages) {
			throw stop(
				`the list has more than ${maxPages} pages (Options > Max Pages)`,
				`was the last page allowed and said hasMore. If the list really is that long, raise Options > Max Pages or use Limit`,
			);
		}
		cursors.add(next);
		cursor = next;
	}
	return walk.returnAll ? collected : collected.slice(0, walk.limit);
}

/** Reads Return All / Limit / Options > Page Size of the current operation for one item. */
export function readPageWalkOptions(scope: ItemScope): PageWalkOptions {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const returnAll = scope.getNodeParameter('returnAll', false) as boolean;
	const limitValue = returnAll ? 1 : scope.getNodeParameter('limit', 50);
	const limit = returnAll ? Number.MAX_SAFE_INTEGER : Number(limitValue);
	if (!returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw invalid(node, 'Limit', `must be a whole number of at least 1 (got ${JSON.stringify(limitValue)})`, itemIndex);
	}
	const pageSize = assertPageSize(node, scope.getNodeParameter('options.pageSize', MAX_PAGE_SIZE), itemIndex);
	const maxPages = assertIntegerInRange(node, 'Max Pages', scope.getNodeParameter('options.maxPages', DEFAULT_MAX_PAGES), 1, 1_000_000, itemIndex);
	return { returnAll, limit, pageSize, maxPages };
}

/** How a list operation reads one input item: the path of its list and its filters. */
export interface ListSpec {
	/** The list's path under /api/v1 (locators read and checked here, before anything is sent). */
	path: (scope: ItemScope) => string;
	/** Filters sent as query parameters on every page. */
	query?: (scope: ItemScope) => IDataObject;
}

/**
 * A list operation (Get Many and the like): per input item, cursor pagination with Return All /
 * Limit over `walkList`, one output item per list item, paired with its input item.
 * */
export function listOperation(spec: ListSpec): (this: IExecuteFunctions) => Promise<NodeOutput> {
	return async function (this: IExecuteFunctions): Promise<NodeOutput> {
		let baseURL: string | undefined;
		return await forEachItem(this, async (itemIndex) => {
			const scope = itemScope(this, itemIndex);
			const path = spec.path(scope);
			const qs = spec.query?.(scope) ?? {};
			const walk = readPageWalkOptions(scope);
			baseURL ??= await portalBaseUrl(this);
			return await readListItems(this, baseURL, path, qs, walk, itemIndex);
		});
	};
}

/** One item's list at `path` under `baseURL` ({baseUrl}/api/v1) as output items. */
export async function readListItems(
	ctx: IExecuteFunctions,
	baseURL: string,
	path: string,
	qs: IDataObject,
	walk: PageWalkOptions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const rows = await walkList(
		ctx,
		path,
		async (pageQs) => await portalRequest(ctx, 'GET', path, { qs: pageQs, baseURL, retry: true, itemIndex }),
		qs,
		{ ...walk, idField: walk.idField ?? listIdField(path) },
		itemIndex,
	);
	const items: INodeExecutionData[] = new Array(rows.length);
	for (let i = 0; i < rows.length; i++) items[i] = { json: rows[i] };
	return items;
}
