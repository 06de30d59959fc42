import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { markNoCallPlaced } from '../calls/messages';
import type { Row } from '../transport/dataTables';
import { ensureTable, findTable, insertRows, readRows, updateIfUnchanged, versionOf } from '../transport/dataTables';

/*
 * A ledger kept in a data table of this n8n, one row per key (a number, a campaign, a workflow), each changed by a
 * compare-and-set (the row's version and a fresh token: the writer whose token comes back won; the others read
 * again), so that a count holds across executions, workflows, agent routes and queue-mode workers. A key without a
 * row gets one inserted; two inserted at once leave two rows, and the first (lowest id) is the key's: a writer whose
 * row is not the first applies its change to the first as well, so nothing it counted is lost.
 */

const COLUMNS = { key: 'string', value: 'string', version: 'number', token: 'string' } as const;
/** Compare-and-set attempts before the change is refused (nothing placed). */
const MAX_ATTEMPTS = 25;

export interface LedgerCodec<T> {
	/** The table's name in n8n's data tables. */
	table: string;
	/** What a new key holds. */
	empty(): T;
	/** The value a row holds, or undefined when it cannot be read (a cell edited by hand). */
	parse(text: string): T | undefined;
	serialize(value: T): string;
	/** Who keeps the ledger and why nothing is placed without it: said in every refusal. */
	owner: string;
}

/** What a change decides: a new value and a result, or a result with the value left as it is. */
export type LedgerDecision<T, R> = { next: T; result: R } | { stop: R };

export interface KeyedLedger<T> {
	/**
	 * Changes a key's value by compare-and-set. `before` runs once on the value first read (e.g. reading what the
	 * change depends on), so that it needs no read of its own.
	 */
	change<R>(key: string, decide: (value: T, now: number) => LedgerDecision<T, R>, before?: (value: T) => Promise<void>): Promise<R>;
	/** The value of a key, or empty() when it has none (a read only). */
	read(key: string): Promise<T>;
	/** The value of a key, or undefined when it has none or the table is not there (a read that creates nothing). */
	peek(key: string): Promise<T | undefined>;
}

function refusal(ctx: IExecuteFunctions, codec: LedgerCodec<unknown>, reason: string, itemIndex: number): Error {
	return markNoCallPlaced(new NodeOperationError(ctx.getNode(), `Not placed: ${reason}.`, { itemIndex, description: `${codec.owner}; it refuses rather than guess.` }));
}

/**
 * What a run knows of a ledger table: its id (found once per run), and per key the row this run last wrote, so that
 * the run's next change of that key is tried on it without reading it again (another writer meanwhile makes the
 * compare-and-set fail, and the row is read).
 */
interface RunLedger {
	id?: Promise<string>;
	written: Map<string, Row>;
}

/** By run (its execute functions), by table name. */
const ledgersOfRun = new WeakMap<object, Map<string, RunLedger>>();

export function keyedLedger<T>(ctx: IExecuteFunctions, codec: LedgerCodec<T>, itemIndex = 0): KeyedLedger<T> {
	const ofRun = ledgersOfRun.get(ctx) ?? new Map<string, RunLedger>();
	ledgersOfRun.set(ctx, ofRun);
	const state = ofRun.get(codec.table) ?? { written: new Map<string, Row>() };
	ofRun.set(codec.table, state);
	const table = () => {
		// A failure is not kept: the next call asks again (another execution may have created the table meanwhile).
		state.id ??= ensureTable(ctx, codec.table, COLUMNS, itemIndex).then(
			({ table: created }) => created.id,
			(error: Error) => {
				state.id = undefined;
				throw error;
			},
		);
		return state.id;
	};
	const rowsOf = async (id: string, key: string): Promise<Row[]> =>
		(await readRows(ctx, id, [{ columnName: 'key', condition: 'eq', value: key }], 10, { itemIndex })).sort((a, b) => a.id - b.id);
	const valueOf = (row: Row): T => {
		const value = codec.parse(String(row.value ?? ''));
		if (value === undefined) {
			throw refusal(ctx, codec, `the data table "${codec.table}" holds a value it cannot read for this number or limit (row ${row.id}, column value); clear that cell to start it anew`, itemIndex);
		}
		return value;
	};
	return {
		async read(key) {
			const [first] = await rowsOf(await table(), key);
			return first ? valueOf(first) : codec.empty();
		},
		async peek(key) {
			const there = await findTable(ctx, codec.table, itemIndex);
			const [first] = there ? await rowsOf(there.id, key) : [];
			return first ? valueOf(first) : undefined;
		},
		async change<R>(key: string, decide: (value: T, now: number) => LedgerDecision<T, R>, before?: (value: T) => Promise<void>): Promise<R> {
			const id = await table();
			for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
				// The row this run wrote last is tried first; a row someone else changed since is read.
				const known = attempt === 0 ? state.written.get(key) : undefined;
				const [first] = known ? [known] : await rowsOf(id, key);
				state.written.delete(key);
				if (attempt === 0 && before) await before(first ? valueOf(first) : codec.empty());
				const now = Date.now();
				const decision = decide(first ? valueOf(first) : codec.empty(), now);
				// A refusal is never decided on the row this run remembers (it may be out of date): read, decide again.
				if ('stop' in decision && known) continue;
				if ('stop' in decision) return decision.stop;
				if (!first) {
					const [inserted] = await insertRows(ctx, id, [{ key, value: codec.serialize(decision.next), version: 0, token: '' }], itemIndex);
					const [earliest] = await rowsOf(id, key);
					// Another writer's row came first: this change goes there as well (read again, decided again).
					if (!inserted || earliest?.id === inserted.id) return decision.result;
					continue;
				}
				const written = await updateIfUnchanged(ctx, id, { id: first.id, version: versionOf(first.version) }, { value: codec.serialize(decision.next) }, { tokenColumn: 'token', itemIndex });
				if (written) {
					state.written.set(key, written);
					return decision.result;
				}
				if (!known) await sleep(5 + Math.floor(Math.random() * 20 * (attempt + 1)));
			}
			throw refusal(ctx, codec, `the data table "${codec.table}" kept changing under ${MAX_ATTEMPTS} attempts to count this call`, itemIndex);
		},
	};
}
