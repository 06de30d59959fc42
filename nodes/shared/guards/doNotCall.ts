import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { NO_CALL_PLACED } from '../calls/messages';
import type { DataTable, Row } from '../transport/dataTables';
import { ensureTable, findTable, insertRows, readRows } from '../transport/dataTables';
import { canonicalNumber, invalid, textField } from '../core/validation';

/*
 * The do-not-call list: a data table of this n8n whose `phone` column holds the numbers never called, in
 * international form (+390212345678), or number prefixes ending in * (+1900* for every +1900 number). Every route
 * to a call that has it set (Guardrails > Do-Not-Call List: Place Call, Call and Wait, Dial Due Contacts, as an AI
 * agent's tool or an MCP client's) looks the number up right before it is placed, so a number added while a
 * campaign runs is never called from its next claim on. Do-Not-Call List → Add Number writes a number there in that
 * form, with where the request came from and when.
 */

export const DEFAULT_DO_NOT_CALL_TABLE = 'Assistant Platform Do-Not-Call List';
export const DO_NOT_CALL_COLUMNS = { phone: 'string', source: 'string', addedAt: 'string', note: 'string' } as const;
const FIELD = 'Guardrails > Do-Not-Call List';

/** A do-not-call list as a run reads it: the table, found once per run. */
export interface DoNotCallList {
	ref: string;
	table(): Promise<DataTable>;
}

/** The do-not-call list a node names (its table's name or id), or undefined when none is set. */
export function readDoNotCallList(ctx: IExecuteFunctions, raw: unknown, itemIndex: number): DoNotCallList | undefined {
	const ref = textField(ctx.getNode(), FIELD, raw, itemIndex).trim();
	if (ref === '') return undefined;
	let found: Promise<DataTable> | undefined;
	return {
		ref,
		table() {
			found ??= findTable(ctx, ref, itemIndex).then(async (table) => {
				// The list of the default name is this n8n's own: created empty the first time, so a new workflow works at once.
				if (!table && ref === DEFAULT_DO_NOT_CALL_TABLE) return (await ensureTable(ctx, ref, DO_NOT_CALL_COLUMNS, itemIndex)).table;
				if (!table) {
					throw invalid(ctx.getNode(), FIELD, `names no data table of this n8n ("${ref}"): a list that is not there would let every number through. Create it (Do-Not-Call List → Add Number creates it) or fix the name`, itemIndex);
				}
				if (!(table.columns ?? []).some((column) => column.name === 'phone')) {
					throw invalid(ctx.getNode(), FIELD, `the data table "${table.name}" has no column "phone": the list holds its numbers there`, itemIndex);
				}
				return table;
			});
			found.catch(() => {
				found = undefined;
			});
			return found;
		},
	};
}

/** `dst` and every prefix of it that a list entry may name (+1*, +14*, ...): the values one read looks for. */
function entriesFor(dst: string): string[] {
	const digits = dst.slice(1);
	return [dst, ...Array.from({ length: digits.length }, (_, n) => `+${digits.slice(0, n + 1)}*`)];
}

/** The list's entry that covers `dst` (the number itself, or a prefix of it), or undefined when it is not listed. */
export async function listedEntry(ctx: IExecuteFunctions, list: DoNotCallList, dst: string, itemIndex: number): Promise<Row | undefined> {
	const table = await list.table();
	const conditions = entriesFor(dst).map((value) => ({ columnName: 'phone', condition: 'eq' as const, value }));
	const [row] = await readRows(ctx, table.id, conditions, 1, { itemIndex, match: 'or' });
	return row;
}

/** The refusal of a listed number: it says the number is listed, since when and why, and that nothing was placed. */
export function listedRefusal(node: INode, dst: string, entry: Row, listName: string, itemIndex: number): NodeOperationError {
	const what = String(entry.phone).endsWith('*') ? `its prefix ${String(entry.phone).slice(0, -1)} is` : 'it is';
	const since = typeof entry.addedAt === 'string' && entry.addedAt !== '' ? ` since ${entry.addedAt}` : '';
	const source = typeof entry.source === 'string' && entry.source !== '' ? ` (${entry.source})` : '';
	return new NodeOperationError(node, `Not placed: ${dst} must not be called: ${what} on the do-not-call list${since}${source}. ${NO_CALL_PLACED} Do not try again.`, {
		itemIndex,
		description: `Guardrails > Do-Not-Call List (in this node) names the data table "${listName}": a number there, or under a prefix there, is never called.`,
	});
}

/** Adds `number` to the list `ref` (created with its columns when there is none): its entry, and whether it was there already. */
export async function addToList(
	ctx: IExecuteFunctions,
	ref: string,
	number: string,
	entry: { source: string; note: string },
	itemIndex: number,
): Promise<{ row: IDataObject; already: boolean }> {
	const node = ctx.getNode();
	const phone = number.endsWith('*') ? prefixEntry(node, number, itemIndex) : canonicalNumber(number);
	if (!phone) throw invalid(node, 'Number', `must be a phone number in international form, e.g. +14155550123 or 0039 02 1234 5678, or a prefix ending in * (got "${number}")`, itemIndex);
	const table = (await findTable(ctx, ref, itemIndex)) ?? (await ensureTable(ctx, ref, DO_NOT_CALL_COLUMNS, itemIndex)).table;
	const [there] = await readRows(ctx, table.id, [{ columnName: 'phone', condition: 'eq', value: phone }], 1, { itemIndex });
	if (there) return { row: there, already: true };
	const columns = new Set((table.columns ?? []).map((column) => column.name));
	const values: IDataObject = { phone, source: entry.source, addedAt: new Date().toISOString(), note: entry.note };
	const [row] = await insertRows(ctx, table.id, [Object.fromEntries(Object.entries(values).filter(([column]) => columns.has(column)))], itemIndex);
	return { row: row ?? values, already: false };
}

/** A prefix entry: + and 1 to 14 digits, then *. */
function prefixEntry(node: INode, text: string, itemIndex: number): string {
	const prefix = text.trim().replace(/[\s.\-/()]/g, '');
	if (!/^\+[1-9]\d{0,13}\*$/.test(prefix)) throw invalid(node, 'Number', `a prefix must be + and its first digits, then * (e.g. +1900*) (got "${text}")`, itemIndex);
	return prefix;
}
