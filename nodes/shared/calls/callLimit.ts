import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { OUTBOUND_CREDENTIAL } from '../core/constants';
import { markNoCallPlaced, NO_CALL_PLACED } from './messages';
import type { Row } from '../transport/dataTables';
import { ensureTable, insertRows, readRows, updateIfUnchanged } from '../transport/dataTables';
import { assertIntegerInRange } from '../core/validation';

/*
 * Limit Calls Across Executions: at most Max Calls calls in any window of Per (Minutes), counted in n8n's
 * durable store (a data table) so that the count holds where one execution cannot see another: an MCP client's
 * tool calls (each its own execution), a sub-workflow run once per tool call, parallel executions, queue-mode
 * workers. A call takes a place in the count before its POST and gives it back only when the platform refused it
 * (nothing placed); an unknown outcome keeps it. Every place is taken by a conditional update that only one
 * writer wins (docs/assumptions.md, "Durable state").
 *
 * The count lives in one row of the data table "Assistant Platform Call Limits": `ledger` holds, per key, the
 * times at which the calls counted leave the window; `version` and `token` make each change a compare-and-set.
 */

export const LIMIT_TABLE = 'Assistant Platform Call Limits';
const COLUMNS = { ledger: 'string', version: 'number', token: 'string' } as const;
export const DEFAULT_LIMIT_MAX = 1;
export const DEFAULT_LIMIT_WINDOW_MINUTES = 60;
export const MAX_LIMIT = 100_000;
export const MAX_WINDOW_MINUTES = 525_600;
/** Compare-and-set attempts before a call is refused as "the count could not be taken" (nothing sent). */
const MAX_ATTEMPTS = 25;
/** How long a table without its count row is waited for (its creator inserts it), in ms. */
const ROW_WAIT_MS = 10_000;

export type LimitScope = 'workflow' | 'credential' | 'callingExecution';

/** A place taken in the count, given back when the platform refused the call. */
export interface LimitPlace {
	release(): Promise<void>;
}

export interface DurableCallLimit {
	/** What it counts under, e.g. `workflow:42`. */
	key: string;
	max: number;
	/** Takes a place; past the limit, the refusal to report instead (nothing may be sent). */
	take(itemIndex: number): Promise<{ place?: LimitPlace; refusal?: NodeOperationError }>;
}

type Ledger = Record<string, number[]>;

/**
 * The keys of the ledger: `workflow:<id>`, `credential:<id>`, `execution:<id>`, each a list of the times its calls
 * leave the window. (Campaigns' dial leases have a table of their own: campaign/dialLease.ts.)
 */
const KEY_FORM = /^(workflow|credential|execution):./;

function parseLedger(text: unknown): Ledger | undefined {
	if (typeof text !== 'string') return undefined;
	if (text === '') return {};
	try {
		const value = JSON.parse(text) as unknown;
		if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
		const ledger: Ledger = {};
		for (const [key, times] of Object.entries(value as Record<string, unknown>)) {
			if (!Array.isArray(times) || !times.every((t) => typeof t === 'number' && Number.isFinite(t))) return undefined;
			// Only the keys this node writes: a cell edited by hand cannot name a property every object has.
			if (KEY_FORM.test(key)) ledger[key] = times as number[];
		}
		return ledger;
	} catch {
		return undefined;
	}
}

/** The ledger without the places whose window has passed (keys left empty are dropped). */
function pruned(ledger: Ledger, now: number): Ledger {
	const kept: Ledger = {};
	for (const [key, times] of Object.entries(ledger)) {
		const live = times.filter((until) => until > now);
		if (live.length > 0) kept[key] = live;
	}
	return kept;
}

/** The key the calls are counted under; refuses a scope that has nothing to key on (it never guesses). */
export function limitKey(ctx: IExecuteFunctions, scope: LimitScope): string {
	const node = ctx.getNode();
	if (scope === 'credential') {
		const id = node.credentials?.[OUTBOUND_CREDENTIAL]?.id;
		if (!id) throw refusal(ctx, 'Count Per is Outbound Credential, and this node has no saved Outbound API credential to count under');
		return `credential:${id}`;
	}
	if (scope === 'callingExecution') {
		const parent = (ctx.getExecutionContext?.() as IDataObject | undefined)?.parentExecutionId;
		if (typeof parent !== 'string' && typeof parent !== 'number') {
			throw refusal(
				ctx,
				'Count Per is Calling Execution, and this execution was not started by another workflow (or this n8n does not tell which one)',
			);
		}
		return `execution:${String(parent)}`;
	}
	const workflowId = ctx.getWorkflow().id;
	if (!workflowId) throw refusal(ctx, 'Count Per is Workflow, and this workflow has no id yet: save it first');
	return `workflow:${workflowId}`;
}

/** Who keeps a ledger entry, and why nothing is placed without it: said in every refusal. */
const LIMIT_OWNER = 'Guardrails > Limit Calls Across Executions (in this node) must count a call before it is placed';

function refusal(ctx: IExecuteFunctions, reason: string, itemIndex = 0): NodeOperationError {
	return markNoCallPlaced(
		new NodeOperationError(ctx.getNode(), `Not placed: ${reason}.`, {
			itemIndex,
			description: `${LIMIT_OWNER}; it refuses rather than guess.`,
		}),
	);
}

/** Guardrails > Limit Calls Across Executions as set in the node (`raw`: its Limit entry); undefined when it is not set. */
export function readCallLimit(ctx: IExecuteFunctions, raw: IDataObject | undefined): DurableCallLimit | undefined {
	if (!raw) return undefined;
	const node = ctx.getNode();
	let max: number;
	let windowMs: number;
	let key: string;
	try {
		max = assertIntegerInRange(node, 'Guardrails > Limit Calls Across Executions > Max Calls', raw.max ?? DEFAULT_LIMIT_MAX, 1, MAX_LIMIT, 0);
		windowMs =
			assertIntegerInRange(node, 'Guardrails > Limit Calls Across Executions > Per (Minutes)', raw.minutes ?? DEFAULT_LIMIT_WINDOW_MINUTES, 1, MAX_WINDOW_MINUTES, 0) * 60_000;
		key = limitKey(ctx, (raw.countPer ?? 'workflow') as LimitScope);
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	const changeLedger = sharedLedger(ctx);

	return {
		key,
		max,
		async take(itemIndex) {
			let until = 0;
			const used = await changeLedger<number | undefined>(itemIndex, (ledger, now) => {
				const live = ledger[key] ?? [];
				if (live.length >= max) return { stop: live.length };
				until = now + windowMs;
				return { next: { ...ledger, [key]: [...live, until] }, result: undefined };
			});
			if (used !== undefined) {
				return {
					refusal: new NodeOperationError(
						node,
						`Not placed: ${used} call${used === 1 ? ' was' : 's were'} placed in the last ${windowMs / 60_000} minute(s) under this limit, the most Limit Calls Across Executions allows (${max}). ${NO_CALL_PLACED} Do not try again now: tell the user the limit is reached.`,
						{
							itemIndex,
							description: `Guardrails > Limit Calls Across Executions (in this node) caps the calls placed in a rolling window, counted in the data table "${LIMIT_TABLE}" of this n8n. Raise Max Calls, or wait until the window has passed.`,
						},
					),
				};
			}
			const taken = until;
			return {
				place: {
					async release() {
						await changeLedger<void>(itemIndex, (ledger) => {
							const live = ledger[key] ?? [];
							const at = live.lastIndexOf(taken);
							if (at < 0) return { stop: undefined };
							const rest = [...live.slice(0, at), ...live.slice(at + 1)];
							const next = { ...ledger };
							if (rest.length > 0) next[key] = rest;
							else delete next[key];
							return { next, result: undefined };
						});
					},
				},
			};
		},
	};
}

/** Change of the shared ledger: `change` returns the new ledger and a result, or a result to stop with unchanged. */
type LedgerChange = <T>(itemIndex: number, change: (ledger: Ledger, now: number) => { next: Ledger; result: T } | { stop: T }) => Promise<T>;

/**
 * The ledger of this n8n's call limits: one row of the data table "Assistant Platform Call
 * Limits", changed by compare-and-set (the row's version and a fresh token; the writer whose token comes back won;
 * the others read again).
 */
function sharedLedger(ctx: IExecuteFunctions): LedgerChange {
	let tableId: Promise<string> | undefined;
	const table = () => {
		// A failure is not kept: the next item asks again (another execution may have created the table meanwhile).
		tableId ??= openTable(ctx).catch((error: Error) => {
			tableId = undefined;
			throw error;
		});
		return tableId;
	};

	return async <T>(itemIndex: number, change: (ledger: Ledger, now: number) => { next: Ledger; result: T } | { stop: T }): Promise<T> => {
		const id = await table();
		for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
			const row = await countRow(ctx, id, itemIndex);
			const ledger = parseLedger(row.ledger);
			if (!ledger) {
				throw refusal(ctx, `the count in the data table "${LIMIT_TABLE}" is unreadable (row ${row.id}, column ledger); clear that cell to start the count anew`, itemIndex);
			}
			const now = Date.now();
			const outcome = change(pruned(ledger, now), now);
			if ('stop' in outcome) return outcome.stop;
			const version = typeof row.version === 'number' ? row.version : 0;
			const won = await updateIfUnchanged(ctx, id, { id: row.id, version }, { ledger: JSON.stringify(outcome.next) }, { tokenColumn: 'token', itemIndex });
			if (won) return outcome.result;
			// Another execution changed the count first: read it again, after a short random pause.
			await sleep(5 + Math.floor(Math.random() * 20 * (attempt + 1)));
		}
		throw refusal(ctx, `the count in the data table "${LIMIT_TABLE}" kept changing under ${MAX_ATTEMPTS} attempts to take a place`, itemIndex);
	};
}

/** The id of the limit table, created with its count row on first use. */
async function openTable(ctx: IExecuteFunctions): Promise<string> {
	const { table, created } = await ensureTable(ctx, LIMIT_TABLE, COLUMNS);
	if (created) await insertRows(ctx, table.id, [{ ledger: '{}', version: 0, token: '' }]);
	return table.id;
}

/**
 * The row that holds the count: the one with the lowest id. Its table's creator inserts it right after creating
 * the table; a table found without it is waited for, then given one (its creator stopped in between).
 */
async function countRow(ctx: IExecuteFunctions, tableId: string, itemIndex: number): Promise<Row> {
	const started = Date.now();
	for (;;) {
		const rows = await readRows(ctx, tableId, [], 10, { itemIndex });
		if (rows.length > 0) return rows.reduce((a, b) => (b.id < a.id ? b : a));
		if (Date.now() - started > ROW_WAIT_MS) {
			await insertRows(ctx, tableId, [{ ledger: '{}', version: 0, token: '' }], itemIndex);
			continue;
		}
		await sleep(200);
	}
}
