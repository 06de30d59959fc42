import type {
	DeclarativeRestApiSettings,
	IDataObject,
	IExecutePaginationFunctions,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MAX_PAGE_SIZE, PORTAL_CREDENTIAL } from './constants';
import type { PlatformResponse } from './transport';
import { platformRequest } from './transport';
import { assertNonEmpty, assertPageSize, invalid, parseJsonObject } from './validation';

/*
 * Declarative operations describe their request with `routing` (method, url, body, query, preSend
 * validation). Every one of them also sets `send.paginate: true` and one of the executors below as
 * `operations.pagination`, so that the request itself always goes through `platformRequest`:
 * one error mapping, retries for reads only, and no request details in errors.
 */

function cleanOptions(options: DeclarativeRestApiSettings.HttpRequestOptions): IHttpRequestOptions {
	const result = { ...options } as IHttpRequestOptions;
	const method = (result.method ?? 'GET').toUpperCase();
	const body = result.body as IDataObject | undefined;
	if (
		(method === 'GET' || method === 'DELETE') &&
		body !== undefined &&
		typeof body === 'object' &&
		!Buffer.isBuffer(body) &&
		Object.keys(body).length === 0
	) {
		delete result.body;
	}
	if (result.qs && Object.keys(result.qs).length === 0) delete result.qs;
	return result;
}

function toItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((json) => ({ json: json as IDataObject }));
	if (body === undefined || body === null || body === '') return [{ json: { success: true } }];
	if (typeof body !== 'object') return [{ json: { data: body as string } }];
	return [{ json: body as IDataObject }];
}

/** Runs the operation's declarative `postReceive` functions (the executors bypass n8n's own pass). */
async function applyPostReceive(
	ctx: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	items: INodeExecutionData[],
	response: PlatformResponse,
): Promise<INodeExecutionData[]> {
	let result = items;
	for (const entry of requestData.postReceive) {
		for (const action of entry.actions) {
			if (typeof action === 'function') {
				result = await action.call(ctx, result, {
					body: response.body as IDataObject,
					headers: response.headers,
					statusCode: response.statusCode,
				});
			}
		}
	}
	return result;
}

async function execute(
	ctx: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
	retry: boolean,
): Promise<INodeExecutionData[]> {
	const response = await platformRequest(ctx, PORTAL_CREDENTIAL, cleanOptions(requestData.options), {
		retry,
		itemIndex: ctx.getItemIndex(),
	});
	return await applyPostReceive(ctx, requestData, toItems(response.body), response);
}

type Executor = (
	this: IExecutePaginationFunctions,
	requestData: DeclarativeRestApiSettings.ResultOptions,
) => Promise<INodeExecutionData[]>;

/**
 * Every output item is paired with the input item it came from, and with Continue On Fail an error
 * becomes an item of its own (`{ error }`), also paired, so one bad item never hides the others.
 */
function perItem(run: Executor): Executor {
	return async function (this: IExecutePaginationFunctions, requestData) {
		const itemIndex = this.getItemIndex();
		try {
			const items = await run.call(this, requestData);
			return items.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
		} catch (error) {
			if (this.continueOnFail()) {
				const e = error as { message?: string; description?: string };
				return [
					{
						json: { error: e.message ?? String(error), ...(e.description ? { description: e.description } : {}) },
						pairedItem: { item: itemIndex },
					},
				];
			}
			// Both constructors hand back an error that is already of their kind unchanged.
			if (error instanceof NodeApiError) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	};
}

/** POST, PATCH, DELETE: sent once, never retried. */
export const sendOnce: Executor = perItem(async function (requestData) {
	return await execute(this, requestData, false);
});

/** A single read, retried with bounded backoff on 429/5xx/resets/timeouts/malformed answers. */
export const readOnce: Executor = perItem(async function (requestData) {
	return await execute(this, requestData, true);
});

export interface PageWalkOptions {
	returnAll: boolean;
	limit: number;
	pageSize: number;
}

/**
 * Walks `meta.nextCursor` (sent exactly as received) keeping `limit` and every filter on every page.
 * Stops when `hasMore` is false, or when enough items are collected in Limit mode. A repeated cursor,
 * `hasMore` with no cursor, or a page without a `data` array stops with a clear error.
 */
export async function walkPages(
	ctx: IExecutePaginationFunctions | IExecuteSingleFunctions,
	options: IHttpRequestOptions,
	walk: PageWalkOptions,
	itemIndex: number,
): Promise<IDataObject[]> {
	const node = ctx.getNode();
	const pageLimit = walk.returnAll ? walk.pageSize : Math.min(walk.pageSize, walk.limit);
	const baseQs: IDataObject = { ...(options.qs ?? {}) };
	delete baseQs.cursor;
	const collected: IDataObject[] = [];
	const seen = new Set<string>();
	let cursor: string | undefined;
	let page = 0;

	for (;;) {
		page++;
		const qs: IDataObject = { ...baseQs, limit: pageLimit };
		if (cursor !== undefined) qs.cursor = cursor;
		const response = await platformRequest(
			ctx,
			PORTAL_CREDENTIAL,
			{ ...options, qs },
			{ retry: true, itemIndex },
		);
		const body = response.body as IDataObject;
		if (Array.isArray(body)) {
			// The historical unpaginated form: everything at once.
			collected.push(...(body as IDataObject[]));
			break;
		}
		const data = body?.data;
		const meta = body?.meta as IDataObject | undefined;
		if (!Array.isArray(data) || !meta || typeof meta !== 'object') {
			throw new NodeApiError(node, { page } as IDataObject as never, {
				message: 'Pagination stopped: the platform answered a page without "data" and "meta"',
				description: `Page ${page} of ${options.url} had an unexpected shape. Use Custom API Request to inspect the raw answer.`,
				itemIndex,
			});
		}
		collected.push(...(data as IDataObject[]));
		if (!walk.returnAll && collected.length >= walk.limit) break;
		if (meta.hasMore !== true) break;
		const next = meta.nextCursor;
		if (typeof next !== 'string' || next === '') {
			throw new NodeApiError(node, { page } as IDataObject as never, {
				message: 'Pagination stopped: the platform said there are more items but gave no cursor',
				description: `Page ${page} of ${options.url} had meta.hasMore true and meta.nextCursor ${JSON.stringify(next ?? null)}. ${collected.length} items were read before the stop.`,
				itemIndex,
			});
		}
		if (seen.has(next)) {
			throw new NodeApiError(node, { page } as IDataObject as never, {
				message: 'Pagination stopped: the platform returned the same cursor twice',
				description: `Page ${page} of ${options.url} repeated an earlier cursor; following it would loop forever. ${collected.length} items were read before the stop.`,
				itemIndex,
			});
		}
		seen.add(next);
		cursor = next;
	}
	return walk.returnAll ? collected : collected.slice(0, walk.limit);
}

/** Reads Return All / Limit / Options > Page Size from the current operation's parameters. */
export function readPageWalkOptions(ctx: IExecuteSingleFunctions): PageWalkOptions {
	const node = ctx.getNode();
	const returnAll = ctx.getNodeParameter('returnAll', false) as boolean;
	const limitValue = returnAll ? 1 : ctx.getNodeParameter('limit', 50);
	const limit = returnAll ? Number.MAX_SAFE_INTEGER : Number(limitValue);
	if (!returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw invalid(node, 'Limit', `must be a whole number of at least 1 (got ${JSON.stringify(limitValue)})`, ctx.getItemIndex());
	}
	const pageSize = assertPageSize(
		node,
		ctx.getNodeParameter('options.pageSize', MAX_PAGE_SIZE),
		ctx.getItemIndex(),
	);
	return { returnAll, limit, pageSize };
}

/** List operations: cursor pagination with Return All / Limit. */
export const listPages: Executor = perItem(async function (requestData) {
	const walk = readPageWalkOptions(this);
	const items = await walkPages(this, cleanOptions(requestData.options), walk, this.getItemIndex());
	return items.map((json) => ({ json }));
});

/**
 * preSend: resolves `{param}` placeholders in a path from node parameters (resource locators
 * included), rejecting empty values before anything is sent.
 */
export function pathFrom(template: string, labels: Record<string, string>) {
	return async function (
		this: IExecuteSingleFunctions,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const url = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
			const value = this.getNodeParameter(name, '', { extractValue: true });
			const text = assertNonEmpty(this.getNode(), labels[name] ?? name, value, this.getItemIndex());
			return encodeURIComponent(text);
		});
		return { ...requestOptions, url };
	};
}

/** preSend: merges the "Additional Fields (JSON)" escape hatch into the body (its keys win). */
export function mergeJsonInto(parameter = 'additionalFieldsJson', label = 'Additional Fields (JSON)') {
	return async function (
		this: IExecuteSingleFunctions,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const extra = parseJsonObject(
			this.getNode(),
			label,
			this.getNodeParameter(parameter, ''),
			this.getItemIndex(),
		);
		if (Object.keys(extra).length === 0) return requestOptions;
		const body = (requestOptions.body as IDataObject | undefined) ?? {};
		return { ...requestOptions, body: { ...body, ...extra } };
	};
}
