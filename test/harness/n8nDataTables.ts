import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { registerSecret } from './secretsGuard';

/*
 * n8n's public API for data tables, as much of it as the nodes use (/data-tables: list, create; rows: list, insert,
 * conditional update), in memory on 127.0.0.1, for engine tests. Each request is applied whole before the next
 * (as n8n's database applies one UPDATE … WHERE), so a conditional update has one winner. `gate` holds every
 * conditional update until released: tests use it to make several writers read the same version first. The real
 * n8n (SQLite, and Postgres on queue mode) is what the end-to-end suites run against.
 */

export type Value = string | number | boolean | null;
export type Row = Record<string, Value> & { id: number };
interface Filter {
	type?: 'and' | 'or';
	filters: Array<{ columnName: string; condition: string; value: Value }>;
}
interface Table {
	id: string;
	name: string;
	columns: Array<{ name: string; type: string }>;
	rows: Row[];
	createdAt: string;
	/** Set by every write of the table's rows or columns, as n8n does. */
	updatedAt: string;
}

export interface N8nDataTables {
	url: string;
	credentials: ICredentialDataDecryptedObject;
	tables: Table[];
	/**
	 * Every request, in order: method, path below /api/v1, the whole path as received (`pathname`) and, for scans of
	 * what reached this host, its headers and body.
	 */
	requests: Array<{ method: string; path: string; pathname?: string; headers?: Record<string, unknown>; body?: string }>;
	/** Holds conditional updates until `open()`; `waiting()` counts those held. */
	gate: { close(): void; open(): void; waiting(): number };
	/** A table with `rows` (as a user's CSV import makes it); every column is a string unless `types` says otherwise. */
	seed(name: string, rows: Array<Record<string, Value>>, types?: Record<string, string>): Table;
	/** Appends rows to a table as n8n's insert does (every column, a fresh id, after the rows there are); returns them. */
	insert(table: Table, rows: Array<Record<string, Value>>): Row[];
	/** Changes a row as a person does in n8n's table view (n8n sets the table's updatedAt). */
	edit(table: Table, row: Row, data: Record<string, Value>): void;
	/** Deletes rows as a person does in n8n's table view. */
	remove(table: Table, rows: Row[]): void;
	/** Lets `count` more row updates through, then answers every update with `status` (undefined: updates work again). */
	failWritesAfter(count: number | undefined, status?: number): void;
	/**
	 * The next `times` row updates whose data `match` accepts: `fail` answers them with `status` (nothing written);
	 * `lose` applies them and closes the connection without an answer (the write happened, its answer was lost).
	 */
	faultWrites(fault: { kind: 'fail' | 'lose'; times: number; match?: (data: Record<string, Value>) => boolean; status?: number; message?: string }): void;
	/** Called with each row update's table and data before it is applied (a test's view of the moment it lands). */
	onUpdate?: (table: string, data: Record<string, Value>) => void;
	/** Answers every request with this status until cleared (a broken n8n API). */
	failWith(status: number | undefined): void;
	reset(): void;
	stop(): Promise<void>;
}

/** A table as n8n's API shows it: without its rows. */
function shown(table: Table): Omit<Table, 'rows'> {
	return { id: table.id, name: table.name, columns: table.columns, createdAt: table.createdAt, updatedAt: table.updatedAt };
}

/** n8n's own clock for updatedAt: a new Date() after each write, to the millisecond. */
function touch(table: Table): void {
	table.updatedAt = new Date().toISOString();
}

/** Rows ordered as n8n orders them on SQLite: by the column (nulls first ascending), then by id. */
function sorted(rows: Row[], sortBy: string | null): Row[] {
	if (!sortBy) return rows;
	const [column, direction] = sortBy.split(':');
	const sign = direction?.toLowerCase() === 'desc' ? -1 : 1;
	const rank = (value: Value | undefined) => (value === null || value === undefined ? -Infinity : value);
	return [...rows].sort((a, b) => {
		const x = rank(a[column]);
		const y = rank(b[column]);
		if (x !== y) return (x < y ? -1 : 1) * sign;
		return a.id - b.id;
	});
}

function matches(row: Row, filter: Filter | undefined): boolean {
	if (!filter || filter.filters.length === 0) return true;
	const test = ({ columnName, condition, value }: Filter['filters'][number]) => {
		const cell = row[columnName];
		switch (condition) {
			case 'eq':
				return cell === value;
			case 'neq':
				return cell !== value;
			case 'gt':
				return cell !== null && value !== null && cell > value;
			case 'gte':
				return cell !== null && value !== null && cell >= value;
			case 'lt':
				return cell !== null && value !== null && cell < value;
			case 'lte':
				return cell !== null && value !== null && cell <= value;
			case 'isEmpty':
				return cell === null || cell === undefined || cell === '';
			case 'isNotEmpty':
				return !(cell === null || cell === undefined || cell === '');
			default:
				throw new Error(`unsupported condition ${condition}`);
		}
	};
	return filter.type === 'or' ? filter.filters.some(test) : filter.filters.every(test);
}

export async function startN8nDataTables(apiKey = 'n8n-api-key-for-tests-0123456789'): Promise<N8nDataTables> {
	registerSecret(apiKey);
	const tables: Table[] = [];
	const requests: N8nDataTables['requests'] = [];
	let nextRowId = 1;
	let nextTableId = 1;
	let failing: number | undefined;
	let writesLeft: number | undefined;
	let writeFailure = 503;
	let writeFaults: Array<Parameters<N8nDataTables['faultWrites']>[0]> = [];
	let gateClosed = false;
	let held: Array<() => void> = [];

	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://127.0.0.1');
			const path = url.pathname.replace(/^\/api\/v1/, '');
			requests.push({ method: req.method ?? '', path, pathname: url.pathname, headers: { ...req.headers }, body: Buffer.concat(chunks).toString('utf8') });
			const send = (status: number, body: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.headers['x-n8n-api-key'] !== apiKey) return send(401, { message: 'unauthorized' });
			if (failing) return send(failing, { message: 'failing on purpose' });
			const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
			const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
			if (parts[0] !== 'data-tables') return send(404, { message: 'not found' });
			if (parts.length === 1 && req.method === 'GET') {
				const filter = url.searchParams.get('filter');
				const { name, id } = filter ? (JSON.parse(filter) as { name?: string; id?: string | string[] }) : {};
				const ids = id === undefined ? undefined : [id].flat();
				const data = tables
					.filter((t) => (name === undefined || t.name.toLowerCase().includes(name.toLowerCase())) && (ids === undefined || ids.includes(t.id)))
					.map(shown);
				return send(200, { data, nextCursor: null });
			}
			if (parts.length === 1 && req.method === 'POST') {
				const name = String(body.name);
				if (tables.some((t) => t.name === name)) return send(409, { message: `Data table with name '${name}' already exists` });
				const table: Table = {
					id: `table-${nextTableId++}`,
					name,
					columns: (body.columns as Table['columns']).map(({ name: column, type }) => ({ name: column, type })),
					rows: [],
					createdAt: new Date().toISOString(),
					updatedAt: new Date().toISOString(),
				};
				tables.push(table);
				return send(200, shown(table));
			}
			const table = tables.find((t) => t.id === parts[1]);
			if (!table) return send(404, { message: 'Data table not found' });
			if (parts.length === 2 && req.method === 'GET') return send(200, shown(table));
			if (parts[2] === 'columns' && req.method === 'POST') {
				const column = { name: String(body.name), type: String(body.type) };
				if (table.columns.some((c) => c.name === column.name)) return send(409, { message: 'column exists' });
				table.columns.push(column);
				for (const row of table.rows) row[column.name] = null;
				touch(table);
				return send(200, column);
			}
			if (parts[2] !== 'rows') return send(404, { message: 'not found' });
			if (parts.length === 3 && req.method === 'GET') {
				const filter = url.searchParams.get('filter');
				const limit = Math.min(250, Number(url.searchParams.get('limit') ?? 100));
				const cursor = url.searchParams.get('cursor');
				const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString('utf8')) : 0;
				const all = sorted(
					table.rows.filter((row) => matches(row, filter ? (JSON.parse(filter) as Filter) : undefined)),
					url.searchParams.get('sortBy'),
				);
				const data = all.slice(offset, offset + limit);
				const nextCursor = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64') : null;
				return send(200, { data: data.map((row) => ({ ...row })), nextCursor });
			}
			if (parts.length === 3 && req.method === 'POST') {
				const blank = Object.fromEntries(table.columns.map((c) => [c.name, null]));
				const inserted = (body.data as Array<Record<string, Value>>).map((data) => ({ ...blank, ...data, id: nextRowId++ }) as Row);
				table.rows.push(...inserted);
				touch(table);
				return send(200, inserted);
			}
			if (parts[3] === 'update' && req.method === 'PATCH') {
				if (writesLeft !== undefined && writesLeft-- <= 0) return send(writeFailure, { message: 'failing on purpose' });
				store.onUpdate?.(table.name, body.data as Record<string, Value>);
				const fault = writeFaults.find((f) => f.times > 0 && (!f.match || f.match(body.data as Record<string, Value>)));
				if (fault) fault.times--;
				if (fault?.kind === 'fail') return send(fault.status ?? 503, { message: fault.message ?? 'failing on purpose' });
				// n8n 2.41's API validates an update's filter: isEmpty and isNotEmpty are not among its conditions.
				const conditions = (body.filter as Filter).filters.map((f) => f.condition);
				if (conditions.some((c) => !['eq', 'neq', 'like', 'ilike', 'gt', 'gte', 'lt', 'lte'].includes(c))) {
					return send(400, { message: 'request/body/filter/filters/0/condition must be equal to one of the allowed values' });
				}
				const apply = () => {
					const updated = table.rows.filter((row) => matches(row, body.filter as Filter));
					for (const row of updated) Object.assign(row, body.data as Record<string, Value>);
					touch(table);
					if (fault?.kind === 'lose') return void res.socket?.destroy();
					send(200, body.returnData ? updated.map((row) => ({ ...row })) : true);
				};
				if (gateClosed) held.push(apply);
				else apply();
				return;
			}
			return send(404, { message: 'not found' });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
	const store: N8nDataTables = {
		url,
		credentials: { baseUrl: url, apiKey },
		tables,
		requests,
		gate: {
			close: () => {
				gateClosed = true;
			},
			open: () => {
				gateClosed = false;
				const waiting = held;
				held = [];
				for (const apply of waiting) apply();
			},
			waiting: () => held.length,
		},
		seed(name, rows, types = {}) {
			const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
			const table: Table = {
				id: `table-${nextTableId++}`,
				name,
				columns: names.map((column) => ({ name: column, type: types[column] ?? 'string' })),
				rows: rows.map((row) => ({ ...row, id: nextRowId++ }) as Row),
				createdAt: new Date().toISOString(),
				updatedAt: new Date().toISOString(),
			};
			tables.push(table);
			return table;
		},
		insert(table, rows) {
			const blank = Object.fromEntries(table.columns.map((c) => [c.name, null]));
			const inserted = rows.map((data) => ({ ...blank, ...data, id: nextRowId++ }) as Row);
			table.rows.push(...inserted);
			touch(table);
			return inserted;
		},
		edit(table, row, data) {
			Object.assign(row, data);
			touch(table);
		},
		remove(table, rows) {
			table.rows.splice(0, table.rows.length, ...table.rows.filter((row) => !rows.includes(row)));
			touch(table);
		},
		failWritesAfter(count, status = 503) {
			writesLeft = count;
			writeFailure = status;
		},
		faultWrites(fault) {
			writeFaults.push({ ...fault });
		},
		failWith(status) {
			failing = status;
		},
		reset() {
			store.onUpdate = undefined;
			tables.length = 0;
			requests.length = 0;
			failing = undefined;
			writesLeft = undefined;
			writeFaults = [];
			gateClosed = false;
			held = [];
		},
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
	return store;
}

/**
 * The usual fixture of a test file: n8n's data-table API started before the file's tests, emptied before each and
 * stopped after them. Read its fields inside hooks and tests only.
 */
export function useN8nDataTables(): { store: N8nDataTables } {
	const fixture = {} as { store: N8nDataTables };
	beforeAll(async () => {
		fixture.store = await startN8nDataTables();
	});
	afterAll(async () => {
		await fixture.store.stop();
	});
	beforeEach(() => fixture.store.reset());
	return fixture;
}
