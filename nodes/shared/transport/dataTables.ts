import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { N8N_API_CREDENTIAL } from '../core/constants';
import type { PlatformResponse } from './request';
import { platformRequest } from './request';

/*
 * n8n's Data Tables, the store of what must outlive one execution, reached through n8n's public API
 * (/data-tables) with the Assistant Platform Data Tables API credential. n8n's data-table helper
 * (`this.helpers.getDataTableProxy`) would be the natural way, but n8n serves it only to its own Data Table
 * nodes (measured on 2.41.1: "This proxy is only available for Data table nodes"); the public API reaches the
 * same tables, on SQLite and on Postgres, with the same conditional update (docs/assumptions.md, "Durable state").
 */

export type ColumnType = 'string' | 'number' | 'boolean' | 'date';
export type Row = IDataObject & { id: number };
export interface Condition {
	columnName: string;
	/** What n8n's API takes in a filter (an update's takes no isEmpty/isNotEmpty: eq null is IS NULL). */
	condition: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';
	value: string | number | boolean | null;
}

export interface DataTable {
	id: string;
	name: string;
	createdAt?: string;
	/**
	 * When n8n last changed the table: every insert, update, upsert or delete of its rows sets it (n8n 2.x), so an
	 * unchanged value says no row was written since it was read.
	 */
	updatedAt?: string;
	columns: Array<{ name: string; type: string }>;
}

const TIMEOUT_MS = 15_000;
/** Every answer of n8n here is small (one table, a few rows). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** encodeURIComponent, and the five characters it leaves that n8n's API also refuses unencoded: ! ' ( ) *. */
function encodeStrictly(text: string): string {
	return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

async function n8nApi(
	ctx: IExecuteFunctions,
	method: 'GET' | 'POST' | 'PATCH',
	path: string,
	options: { qs?: IDataObject; body?: IDataObject; itemIndex?: number; passStatuses?: number[] },
): Promise<PlatformResponse> {
	// n8n's API refuses a query value with reserved characters left as they are (a filter's JSON has ':' and ','),
	// so every value is encoded here, whole.
	const query = Object.entries(options.qs ?? {})
		.filter(([, value]) => value !== undefined && value !== null)
		.map(([name, value]) => `${encodeStrictly(name)}=${encodeStrictly(String(value))}`)
		.join('&');
	return await platformRequest(
		ctx,
		N8N_API_CREDENTIAL,
		{
			method,
			// The base URL is the credential's, which the transport loads once per node run.
			url: query ? `${path}?${query}` : path,
			body: options.body,
			headers: { Accept: 'application/json' },
			json: true,
			timeout: TIMEOUT_MS,
			maxResponseBytes: MAX_ANSWER_BYTES,
		},
		// Reads are retried; a write is sent once (its effect is read back instead).
		{ retry: method === 'GET', itemIndex: options.itemIndex, passStatuses: options.passStatuses },
	);
}

function listOf(body: unknown): IDataObject[] {
	const data = (body as IDataObject | undefined)?.data;
	return Array.isArray(data) ? (data as IDataObject[]) : [];
}

/**
 * The data table named `name` in the API key's project, created with `columns` when there is none. A table that
 * lacks some of them is refused, naming them; with `addMissing` (a table only the package writes) they are added.
 */
export async function ensureTable(
	ctx: IExecuteFunctions,
	name: string,
	columns: Record<string, ColumnType>,
	itemIndex?: number,
	options: { addMissing?: boolean } = {},
): Promise<{ table: DataTable; created: boolean }> {
	const find = async (): Promise<DataTable | undefined> => {
		const { body, statusCode } = await n8nApi(ctx, 'GET', '/data-tables', {
			qs: { filter: JSON.stringify({ name }), limit: 100 },
			itemIndex,
			passStatuses: [404],
		});
		if (statusCode === 404) {
			throw new NodeOperationError(ctx.getNode(), "This n8n's public API has no data tables (/data-tables answered 404)", {
				itemIndex,
				description:
					"n8n serves data tables in its public API from 2.x on; n8n 1.x answers 404 here, and with its public API off (N8N_PUBLIC_API_DISABLED=true) 404 at every path of it; it gives community nodes no other way to its data tables. Check the n8n API URL in the Assistant Platform Data Tables API credential (this n8n's address followed by /api/v1), or run n8n 2.x.",
			});
		}
		return listOf(body).find((table) => table.name === name) as DataTable | undefined;
	};
	let table = await find();
	let created = false;
	if (!table) {
		// Another execution may create it at the same moment: n8n keeps names unique per project, answering 409, or
		// 500 when both passed its name check and the database's unique index refused the second. Whatever the
		// answer, a table that is there now is the one to use.
		const answer = await n8nApi(ctx, 'POST', '/data-tables', {
			body: { name, columns: Object.entries(columns).map(([column, type]) => ({ name: column, type })) },
			itemIndex,
			passStatuses: [409, 500, 503],
		}).catch((error: Error) => ({ statusCode: 0, body: undefined, headers: {}, error }));
		if (answer.statusCode >= 200 && answer.statusCode < 300 && typeof (answer.body as DataTable | undefined)?.id === 'string') {
			table = answer.body as DataTable;
			created = true;
		} else {
			table = await find();
			if (!table && 'error' in answer) throw answer.error;
		}
	}
	if (!table || typeof table.id !== 'string') {
		throw new NodeOperationError(ctx.getNode(), `The data table "${name}" could not be created or read`, { itemIndex });
	}
	const lacking = (of: DataTable) => {
		const have = new Set((of.columns ?? []).map((column) => column.name));
		return Object.keys(columns).filter((column) => !have.has(column));
	};
	let missing = lacking(table);
	if (missing.length > 0 && options.addMissing) {
		// Another execution may add the same column at the same moment: what the table has afterwards decides.
		for (const column of missing) await addColumn(ctx, table.id, column, columns[column], itemIndex).catch(() => undefined);
		table = (await find()) ?? table;
		missing = lacking(table);
	}
	if (missing.length > 0) {
		throw new NodeOperationError(ctx.getNode(), `The data table "${name}" lacks the column(s) ${missing.join(', ')}`, {
			itemIndex,
			description: `Add them (${missing.map((column) => `${column}: ${columns[column]}`).join(', ')}) in n8n's Data tables, or delete the table and the node creates it anew.`,
		});
	}
	return { table, created };
}

/** How a filter's conditions combine: every one (and) or any one (or). */
export type Match = 'and' | 'or';

function filterOf(conditions: Condition[], match: Match = 'and'): IDataObject {
	return { type: match, filters: conditions as unknown as IDataObject[] };
}

/** n8n's largest page of rows. */
export const MAX_ROWS_PER_PAGE = 250;

/** How a read orders its rows: a column and a direction (n8n orders by id after it). */
export interface Sort {
	column: string;
	direction: 'asc' | 'desc';
}

/** Rows matching the conditions (every one, or with `match` 'or' any one; at most `limit`, up to one page of n8n's). */
export async function readRows(
	ctx: IExecuteFunctions,
	tableId: string,
	conditions: Condition[],
	limit: number,
	options: { itemIndex?: number; match?: Match; sort?: Sort } = {},
): Promise<Row[]> {
	return (await readPage(ctx, tableId, conditions, Math.min(limit, MAX_ROWS_PER_PAGE), undefined, options)).rows;
}

/** One page of the rows matching the conditions, and the cursor of the next page (undefined after the last). */
export async function readPage(
	ctx: IExecuteFunctions,
	tableId: string,
	conditions: Condition[],
	limit: number,
	cursor: string | undefined,
	options: { itemIndex?: number; match?: Match; sort?: Sort } = {},
): Promise<{ rows: Row[]; next?: string }> {
	const { itemIndex, match = 'and', sort } = options;
	const qs: IDataObject = { limit };
	if (conditions.length > 0) qs.filter = JSON.stringify(filterOf(conditions, match));
	if (sort) qs.sortBy = `${sort.column}:${sort.direction}`;
	if (cursor) qs.cursor = cursor;
	const { body } = await n8nApi(ctx, 'GET', `/data-tables/${encodeStrictly(tableId)}/rows`, { qs, itemIndex });
	const next = (body as IDataObject | undefined)?.nextCursor;
	return { rows: listOf(body) as Row[], next: typeof next === 'string' && next !== '' ? next : undefined };
}

/** What an id of n8n's data tables can be (n8n makes them of letters and digits): anything else is only a name. */
const MAYBE_AN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A data table by id, or else by name; undefined when there is none. A text that cannot be an id is looked up by name at once. */
export async function findTable(ctx: IExecuteFunctions, idOrName: string, itemIndex?: number): Promise<DataTable | undefined> {
	if (MAYBE_AN_ID.test(idOrName)) {
		const byId = await n8nApi(ctx, 'GET', `/data-tables/${encodeStrictly(idOrName)}`, { itemIndex, passStatuses: [400, 404] });
		if (byId.statusCode < 300 && typeof (byId.body as DataTable | undefined)?.id === 'string') return byId.body as DataTable;
	}
	const { body } = await n8nApi(ctx, 'GET', '/data-tables', { qs: { filter: JSON.stringify({ name: idOrName }), limit: 100 }, itemIndex });
	return listOf(body).find((table) => table.name === idOrName) as DataTable | undefined;
}

/** The data tables with these ids that the API key can see, in one request (with their columns and updatedAt). */
export async function tablesById(ctx: IExecuteFunctions, ids: string[], itemIndex?: number): Promise<DataTable[]> {
	const { body } = await n8nApi(ctx, 'GET', '/data-tables', { qs: { filter: JSON.stringify({ id: ids }), limit: Math.max(ids.length, 1) }, itemIndex });
	return listOf(body).filter((table) => typeof table.id === 'string' && ids.includes(table.id)) as unknown as DataTable[];
}

export async function addColumn(ctx: IExecuteFunctions, tableId: string, name: string, type: ColumnType, itemIndex?: number): Promise<void> {
	await n8nApi(ctx, 'POST', `/data-tables/${encodeStrictly(tableId)}/columns`, { body: { name, type }, itemIndex });
}

export async function insertRows(ctx: IExecuteFunctions, tableId: string, rows: IDataObject[], itemIndex?: number): Promise<Row[]> {
	const { body } = await n8nApi(ctx, 'POST', `/data-tables/${encodeStrictly(tableId)}/rows`, {
		body: { data: rows, returnType: 'all' },
		itemIndex,
	});
	return (Array.isArray(body) ? body : listOf(body)) as Row[];
}

/**
 * A conditional update: the rows matching every condition get `data`, in one statement of n8n's database
 * (Postgres: UPDATE … WHERE … RETURNING; SQLite: the same UPDATE inside a transaction). The rows n8n returns
 * are read back by the caller, which writes a token of its own to know whether its update is the one that won.
 */
export async function updateRows(
	ctx: IExecuteFunctions,
	tableId: string,
	conditions: Condition[],
	data: IDataObject,
	itemIndex?: number,
	returnData = true,
	match: Match = 'and',
): Promise<Row[]> {
	const { body } = await n8nApi(ctx, 'PATCH', `/data-tables/${encodeStrictly(tableId)}/rows/update`, {
		body: { filter: filterOf(conditions, match), data, returnData },
		itemIndex,
	});
	return (Array.isArray(body) ? body : listOf(body)) as Row[];
}

/** Every row matching the conditions (every one, or with `match` 'or' any one), page by page; `visit` returns false to stop there. */
export async function forEachRow(
	ctx: IExecuteFunctions,
	tableId: string,
	conditions: Condition[],
	visit: (row: Row) => boolean | void,
	match: Match = 'and',
): Promise<void> {
	let cursor: string | undefined;
	do {
		const page = await readPage(ctx, tableId, conditions, MAX_ROWS_PER_PAGE, cursor, { match });
		for (const row of page.rows) if (visit(row) === false) return;
		cursor = page.rows.length > 0 ? page.next : undefined;
	} while (cursor);
}

let tokens = 0;
/**
 * A token no other writer uses: this execution, a counter of this process and 64 random bits. It only has to tell
 * one writer's update from another's, read back from the same row.
 */
export function writeToken(ctx: IExecuteFunctions): string {
	const random = () => Math.floor(Math.random() * 2 ** 32).toString(36);
	return `${ctx.getExecutionId()}.${++tokens}.${random()}${random()}`;
}

/** A row's version as a compare-and-set names it: a whole number, or null for a cell never written (or cleared). */
export function versionOf(value: unknown): number | null {
	if (value === null || value === undefined || value === '') return null;
	const n = typeof value === 'number' ? value : Number(value);
	return Number.isInteger(n) ? n : Number.NaN;
}

/** Writes of one compare-and-set before it gives up: each one follows a read-back that found the row unchanged. */
const WRITE_ATTEMPTS = 3;

/**
 * Whether a write that threw may still have been applied: no answer (reset, timeout) or a 5xx (a proxy or n8n may
 * fail after the statement ran). A 4xx is n8n refusing the request: nothing was written.
 */
function mayHaveApplied(error: unknown): boolean {
	const status = Number((error as { httpCode?: unknown }).httpCode);
	return !(status >= 400 && status < 500);
}

/**
 * A compare-and-set of one row: `data`, the next version and a fresh token in `tokenColumn` are written only if the
 * row still has the version read (and meets `also`). The row as written when this writer won, else undefined: on
 * SQLite n8n returns the rows it selected even when another writer's update came first, so the token, not the
 * answer, says who won.
 *
 * A write whose answer is lost is resolved before anything else is decided: the row is read back by id, and a token
 * of this writer there means it was written; another version means another writer won; the row unchanged means it
 * was not (yet) written, and it is written again with a fresh token. Every attempt names the same version, so at most
 * one of them is applied, even one that n8n applies late: the read-back after the last attempt sees it.
 */
export async function updateIfUnchanged(
	ctx: IExecuteFunctions,
	tableId: string,
	row: { id: number; version: number | null },
	data: IDataObject,
	options: { tokenColumn: string; also?: Condition[]; itemIndex?: number },
): Promise<Row | undefined> {
	// A version never written (a row added by hand, or a cell cleared) is compared as empty: it can still be won.
	const version = versionOf(row.version);
	const tokens: string[] = [];
	const mine = (r: Row | undefined) => r !== undefined && r.id === row.id && tokens.includes(String(r[options.tokenColumn]));
	let lost: unknown;
	for (let attempt = 1; ; attempt++) {
		const token = writeToken(ctx);
		tokens.push(token);
		let threw = false;
		try {
			const written = await updateRows(
				ctx,
				tableId,
				[{ columnName: 'id', condition: 'eq', value: row.id }, { columnName: 'version', condition: 'eq', value: version }, ...(options.also ?? [])],
				{ ...data, version: (version ?? 0) + 1, [options.tokenColumn]: token },
				options.itemIndex,
			);
			const won = written.find(mine);
			if (won || lost === undefined) return won;
		} catch (error) {
			lost = error;
			threw = true;
		}
		// n8n refused the request (4xx): nothing was written.
		if (threw && !mayHaveApplied(lost)) throw lost;
		const [now] = await readRows(ctx, tableId, [{ columnName: 'id', condition: 'eq', value: row.id }], 1, { itemIndex: options.itemIndex }).catch(() => {
			throw lost;
		});
		if (mine(now)) return now;
		if (!now || versionOf(now.version) !== version || !threw) return undefined;
		if (attempt >= WRITE_ATTEMPTS) throw lost;
	}
}
