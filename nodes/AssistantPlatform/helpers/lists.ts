import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, NodeOutput } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { DEFAULT_MAX_LIST_MB, DEFAULT_MAX_PAGES, MAX_PAGE_SIZE, MB } from '../../shared/core/constants';
import type { SizeLimit } from '../../shared/transport/answer';
import { AnswerTooLargeError } from '../../shared/transport/answer';
import type { RequestContext } from '../../shared/transport/endpoint';
import { portalBaseUrl } from '../../shared/transport/endpoint';
import type { PlatformResponse } from '../../shared/transport/request';
import { portalRequest } from '../../shared/transport/request';
import { textDigest } from '../../shared/core/hash';
import { pageItems, readHasMore } from '../../shared/transport/pageMeta';
import { isObject } from '../../shared/core/object';
import { formatMb } from '../../shared/core/text';
import { assertIntegerInRange, invalid, kindOf } from '../../shared/core/validation';

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
	/** Bytes one walk may read, all pages together (Options > Max List Size); DEFAULT_MAX_LIST_MB when not set. */
	maxBytes?: number;
	/** Whether the operation has Options > Max List Size (the lists read by code have not). */
	listSizeOption?: boolean;
}

/** Empty pages that still say `hasMore`, in one walk, before it gives up (in a row or not). */
export const MAX_EMPTY_PAGES = 10;

/** The option that raises a walk's byte bound (list operations; the lists read by code have none). */
const MAX_LIST_SETTING = 'Options > Max List Size';

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

/** Ids longer than this are remembered by their digest, like items without an id. */
const MAX_ID_KEY = 128;

/**
 * Remembers the items a page walk has returned, to detect a page that repeats items already seen
 * (a platform whose pages shift, or a cursor that went back). Items are keyed by the list's id field
 * when they carry a short one, else by a digest of their JSON (textDigest): what is remembered per
 * item is at most about 130 characters, whatever the items hold.
 */
class SeenItems {
	private readonly keys = new Set<string>();

	constructor(private readonly idField?: string) {}

	private keyOf(item: unknown): string {
		const id = this.idField ? (item as IDataObject | null)?.[this.idField] : undefined;
		if (typeof id === 'number' || (typeof id === 'string' && id.length <= MAX_ID_KEY)) return `id:${String(id)}`;
		const text = typeof id === 'string' ? `id:${id}` : `json:${JSON.stringify(item)}`;
		return `digest:${textDigest(text)}`;
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
		async (qs, sizeLimit) => await portalRequest(ctx, 'GET', path, { qs, retry: true, itemIndex, sizeLimit }),
		{},
		{ returnAll: true, limit: Number.MAX_SAFE_INTEGER, pageSize: MAX_PAGE_SIZE, idField: listIdField(path) },
		itemIndex,
	);
}

/**
 * Follows `meta.nextCursor` (sent as received) with `limit` and the filters on every page, until `hasMore`
 * is false or Limit is reached. The items of a page are found by pageItems ("data", else the one list beside
 * meta). Every way a platform can make it loop, repeat or grow without end (no
 * items found, no cursor, a cursor or items seen before, empty pages, past meta.totalCount, past Max Pages, a
 * page of more items than asked for, more bytes than Max List Size) stops it with an error naming the
 * page; a short page is followed (docs/assumptions.md, "Pagination").
 */
async function walkList(
	ctx: RequestContext,
	url: string,
	fetchPage: (qs: IDataObject, sizeLimit: SizeLimit) => Promise<PlatformResponse>,
	qs: IDataObject,
	walk: PageWalkOptions,
	itemIndex: number | undefined,
): Promise<IDataObject[]> {
	const state = startWalk(ctx.getNode(), url, walk, itemIndex);
	const baseQs: IDataObject = { ...qs };
	delete baseQs.cursor;
	for (;;) {
		const body = await readNextPage(state, fetchPage, baseQs);
		if (Array.isArray(body)) {
			// The historical unpaginated form: everything at once.
			if (state.seen.add(body).length > 0) {
				throw stopWalk(state, 'the platform returned the same item twice', 'repeated items in its answer');
			}
			state.collected.push(...(body as IDataObject[]));
			break;
		}
		const { data, meta, hasMore } = checkedPage(state, body);
		state.collected.push(...data);
		if (!walk.returnAll && state.collected.length >= walk.limit) break;
		if (!hasMore) break;
		followCursor(state, meta, data.length);
	}
	return walk.returnAll ? state.collected : state.collected.slice(0, walk.limit);
}

/** Where a page walk is and what it has read (its errors name the page and the items read before). */
interface WalkState {
	node: INode;
	url: string;
	walk: PageWalkOptions;
	itemIndex: number | undefined;
	/** The `limit` sent with every page. */
	pageLimit: number;
	maxPages: number;
	maxBytes: number;
	collected: IDataObject[];
	cursors: Set<string>;
	seen: SeenItems;
	cursor: string | undefined;
	page: number;
	emptyPages: number;
	bytesRead: number;
}

function startWalk(node: INode, url: string, walk: PageWalkOptions, itemIndex: number | undefined): WalkState {
	return {
		node,
		url,
		walk,
		itemIndex,
		pageLimit: walk.returnAll ? walk.pageSize : Math.min(walk.pageSize, walk.limit),
		maxPages: walk.maxPages ?? DEFAULT_MAX_PAGES,
		maxBytes: walk.maxBytes ?? DEFAULT_MAX_LIST_MB * MB,
		collected: [],
		cursors: new Set<string>(),
		seen: new SeenItems(walk.idField),
		cursor: undefined,
		page: 0,
		emptyPages: 0,
		bytesRead: 0,
	};
}

/** The error that stops a walk at its current page. */
function stopWalk(state: WalkState, message: string, detail: string): NodeApiError {
	return new NodeApiError(state.node, { page: state.page } as IDataObject as never, {
		message: `Pagination stopped: ${message}`,
		description: `Page ${state.page} of ${state.url} ${detail}. ${state.collected.length} items were read before the stop; nothing was output twice.`,
		itemIndex: state.itemIndex,
	});
}

/** The error of a walk that read more bytes than its bound. */
function listTooLarge(state: WalkState): NodeApiError {
	const { maxBytes, walk } = state;
	return stopWalk(
		state,
		`the list is larger than ${formatMb(maxBytes)}${walk.listSizeOption ? ` (${MAX_LIST_SETTING})` : ''}`,
		`brought what was read to more than ${formatMb(maxBytes)}, the bound of one list so that it cannot exhaust n8n's memory. ${
			walk.listSizeOption
				? `Use Limit or a filter to read less, or raise ${MAX_LIST_SETTING} (MB)`
				: 'Remove entries the platform no longer needs, or read the list with Custom API Request (Paginate, Limit)'
		}`,
	);
}

/** Requests the next page (with the cursor of the one before) within what is left of the byte bound; its body. */
async function readNextPage(
	state: WalkState,
	fetchPage: (qs: IDataObject, sizeLimit: SizeLimit) => Promise<PlatformResponse>,
	baseQs: IDataObject,
): Promise<IDataObject> {
	state.page++;
	const pageQs: IDataObject = { ...baseQs, limit: state.pageLimit };
	if (state.cursor !== undefined) pageQs.cursor = state.cursor;
	let response: PlatformResponse;
	// A page may bring the walk up to its bound, not past it: the transport stops reading there.
	const remaining: SizeLimit = { bytes: Math.max(0, state.maxBytes - state.bytesRead), setting: MAX_LIST_SETTING };
	try {
		response = await fetchPage(pageQs, remaining);
	} catch (error) {
		if (error instanceof AnswerTooLargeError && error.limit === remaining) throw listTooLarge(state);
		if (!(error instanceof NodeApiError)) throw new NodeOperationError(state.node, error as Error, { itemIndex: state.itemIndex });
		throw stoppedAt(error, state.page, state.url, state.collected.length);
	}
	state.bytesRead += response.bytes ?? 0;
	if (state.bytesRead > state.maxBytes) throw listTooLarge(state);
	return response.body as IDataObject;
}

/** A page's items, meta and hasMore, once its shape, its size and its items are checked. */
function checkedPage(state: WalkState, body: IDataObject): { data: IDataObject[]; meta: IDataObject; hasMore: boolean } {
	const meta = isObject(body) && isObject(body.meta) ? body.meta : undefined;
	if (!meta) {
		throw stopWalk(state, 'the platform answered a page without "meta"', 'had no "meta" object, which every page of a paginated list has (use Custom API Request with Paginate off to inspect the raw answer)');
	}
	// The spec shows only meta: the items are "data", else the one list beside it (pageItems).
	const page = pageItems(body);
	if (!page.ok) {
		throw stopWalk(
			state,
			'the platform answered a page whose items cannot be found',
			`had ${page.problem} (use Custom API Request with Paginate off to inspect the raw answer)`,
		);
	}
	const data = page.items;
	if (data.length > state.pageLimit) {
		throw stopWalk(
			state,
			'the platform returned more items than the page size asked for',
			`had ${data.length} items where limit ${state.pageLimit} was asked for; a platform that ignores the page size could fill n8n's memory with items`,
		);
	}
	const repeated = state.seen.add(data);
	if (repeated.length > 0) {
		throw stopWalk(
			state,
			'the platform returned items already returned',
			`repeated ${repeated.length} item(s) already read (first: ${state.seen.describe(repeated[0])}); following it could loop or output duplicates`,
		);
	}
	const hasMore = readHasMore(meta);
	if (!hasMore.ok) {
		throw stopWalk(
			state,
			hasMore.problem,
			'had it: the contract\'s hasMore is true or false, and a guess could end the list early without a word or follow it forever',
		);
	}
	return { data: data as IDataObject[], meta, hasMore: hasMore.value };
}

/** Takes the cursor of a page that said hasMore, unless following it could loop or never end. */
function followCursor(state: WalkState, meta: IDataObject, pageItems: number): void {
	const next = meta.nextCursor;
	if (typeof next !== 'string' || next === '') {
		throw stopWalk(
			state,
			'the platform said there are more items but gave no cursor',
			`had meta.hasMore true and meta.nextCursor ${JSON.stringify(next ?? null)}`,
		);
	}
	if (state.cursors.has(next)) {
		throw stopWalk(state, 'the platform returned the same cursor twice', 'repeated an earlier cursor; following it would loop forever');
	}
	if (pageItems === 0) state.emptyPages++;
	if (state.emptyPages >= MAX_EMPTY_PAGES) {
		throw stopWalk(
			state,
			`the platform returned ${MAX_EMPTY_PAGES} empty pages`,
			`was the ${MAX_EMPTY_PAGES}th empty page of this walk with meta.hasMore true`,
		);
	}
	const total = meta.totalCount;
	if (typeof total === 'number' && Number.isFinite(total) && state.collected.length > total + state.pageLimit) {
		throw stopWalk(
			state,
			`the platform returned more items than the list holds (meta.totalCount ${total})`,
			`brought the count to ${state.collected.length}, more than a page past meta.totalCount, and still said hasMore`,
		);
	}
	if (state.page >= state.maxPages) {
		throw stopWalk(
			state,
			`the list has more than ${state.maxPages} pages (Options > Max Pages)`,
			`was the last page allowed and said hasMore. If the list really is that long, raise Options > Max Pages or use Limit`,
		);
	}
	state.cursors.add(next);
	state.cursor = next;
}

/** How many items Return All / Limit ask for (Return All: no bound), Limit checked. */
export function readLimit(node: INode, returnAll: boolean, value: unknown, itemIndex: number): number {
	if (returnAll) return Number.MAX_SAFE_INTEGER;
	// A number, or its text from an expression; a boolean or an object is no limit (Number(true) would be 1).
	const limit = typeof value === 'number' || (typeof value === 'string' && value.trim() !== '') ? Number(value) : Number.NaN;
	if (!Number.isInteger(limit) || limit < 1) throw invalid(node, 'Limit', `must be a whole number of at least 1 (got ${JSON.stringify(value)})`, itemIndex);
	return limit;
}

/** Reads Return All / Limit / Options > Page Size of the current operation for one item. */
export function readPageWalkOptions(scope: ItemScope): PageWalkOptions {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const returnAll = scope.getNodeParameter('returnAll', false) as boolean;
	const limit = readLimit(node, returnAll, returnAll ? 1 : scope.getNodeParameter('limit', 50), itemIndex);
	const pageSize = assertIntegerInRange(node, 'Page Size', scope.getNodeParameter('options.pageSize', MAX_PAGE_SIZE), 1, MAX_PAGE_SIZE, itemIndex);
	const maxPages = assertIntegerInRange(node, 'Max Pages', scope.getNodeParameter('options.maxPages', DEFAULT_MAX_PAGES), 1, 1_000_000, itemIndex);
	const maxListSize = scope.getNodeParameter('options.maxListSize', DEFAULT_MAX_LIST_MB);
	if (typeof maxListSize !== 'number' || !Number.isFinite(maxListSize) || maxListSize <= 0) {
		throw invalid(
			node,
			'Max List Size (MB)',
			`must be a number above 0 (got ${typeof maxListSize === 'number' ? maxListSize : kindOf(maxListSize)})`,
			itemIndex,
		);
	}
	return { returnAll, limit, pageSize, maxPages, maxBytes: Math.floor(maxListSize * MB), listSizeOption: true };
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
		async (pageQs, sizeLimit) => await portalRequest(ctx, 'GET', path, { qs: pageQs, baseURL, retry: true, itemIndex, sizeLimit }),
		qs,
		{ ...walk, idField: walk.idField ?? listIdField(path) },
		itemIndex,
	);
	const items: INodeExecutionData[] = new Array(rows.length);
	for (let i = 0; i < rows.length; i++) items[i] = { json: rows[i] };
	return items;
}
