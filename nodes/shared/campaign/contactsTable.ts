import type { IExecuteFunctions } from 'n8n-workflow';

import type { Condition, Row } from '../transport/dataTables';
import { forEachRow, readRows } from '../transport/dataTables';

import type { ContactRow, ContactsTableRef } from './contactLife';
import { asContact } from './contactLife';

/*
 * The reads of a campaign's contacts table (its writes are contactLife.ts's): the contacts that hold a line, the
 * due ones, the rows added since the campaign last looked, a contact by the claim its Call Result URL carries, and
 * every row for counts. n8n's data tables have no index on the campaign's columns: each filtered read scans the
 * table, so a run reads as few times as it can (a read by id does not scan).
 */

/**
 * The contacts that hold a line (their call may be live: `lineUntil` ahead, or still claimed or placed), page by
 * page up to `limit` rows; with `endedSince`, also those whose line was freed since then (a run tells a row that
 * ended from one that was deleted). `more`: there were more than `limit`.
 */
export async function rowsHoldingLines(
	ctx: IExecuteFunctions,
	table: ContactsTableRef,
	limit: number,
	now: number,
	endedSince?: number,
): Promise<{ rows: Row[]; more: boolean }> {
	const rows: Row[] = [];
	let more = false;
	const conditions: Condition[] = [
		{ columnName: 'lineUntil', condition: 'gt', value: now },
		{ columnName: 'campaignState', condition: 'eq', value: 'claimed' },
		{ columnName: 'campaignState', condition: 'eq', value: 'placed' },
	];
	if (endedSince !== undefined) conditions.push({ columnName: 'endedAt', condition: 'gt', value: endedSince });
	await forEachRow(
		ctx,
		table.id,
		conditions,
		(row) => {
			if (rows.length >= limit) {
				more = true;
				return false;
			}
			rows.push(row);
			return true;
		},
		'or',
	);
	return { rows, more };
}

/** The pending contacts due at `now`, the longest due first (up to `limit`). */
export async function dueRows(ctx: IExecuteFunctions, table: ContactsTableRef, limit: number, now: number): Promise<Row[]> {
	return await readRows(
		ctx,
		table.id,
		[
			{ columnName: 'campaignState', condition: 'eq', value: 'pending' },
			{ columnName: 'nextAttemptAt', condition: 'lte', value: now },
		],
		limit,
		{ sort: { column: 'nextAttemptAt', direction: 'asc' } },
	);
}

/** When the next pending contact is due (ms; undefined when none is pending). */
export async function nextDueAt(ctx: IExecuteFunctions, table: ContactsTableRef): Promise<number | undefined> {
	const [row] = await readRows(ctx, table.id, [{ columnName: 'campaignState', condition: 'eq', value: 'pending' }], 1, {
		sort: { column: 'nextAttemptAt', direction: 'asc' },
	});
	if (!row) return undefined;
	const at = Number(row.nextAttemptAt ?? 0);
	return Number.isFinite(at) ? at : 0;
}

/** The highest row id above `after` (rows added since the campaign last looked; a read by id, no scan), or undefined. */
export async function newestRowAfter(ctx: IExecuteFunctions, table: ContactsTableRef, after: number): Promise<number | undefined> {
	const [row] = await readRows(ctx, table.id, [{ columnName: 'id', condition: 'gt', value: after }], 1, { sort: { column: 'id', direction: 'desc' } });
	return row?.id;
}

/**
 * The claim a dial run puts in a call's Call Result URL (Result Context `campaignClaim`: the row id and its claim
 * token), so that a result finds its contact by id (no scan) and is judged against the call that contact's own POST
 * returned. The token is fresh for every claim: a claim of an earlier attempt names nothing.
 */
export const CLAIM_CONTEXT_FIELD = 'campaignClaim';

export function claimContext(row: ContactRow): Record<string, string> {
	return { [CLAIM_CONTEXT_FIELD]: `${row.id}:${String(row.claimToken ?? '')}` };
}

/** The contact a claim names, as it is now (its token still the claim's), or undefined (a forged claim, an earlier attempt's). */
export async function contactOfClaim(ctx: IExecuteFunctions, table: ContactsTableRef, claim: string): Promise<ContactRow | { invalid: string } | undefined> {
	const match = /^([1-9][0-9]{0,15}):(.+)$/.exec(claim.trim());
	if (!match) return undefined;
	const [row] = await readRows(ctx, table.id, [{ columnName: 'id', condition: 'eq', value: Number(match[1]) }], 1);
	if (!row || String(row.claimToken ?? '') !== match[2]) return undefined;
	return asContact(row);
}

/** The contacts whose call had this internal_id (a result without a claim; a scan), up to two. */
export async function contactsOfCall(ctx: IExecuteFunctions, table: ContactsTableRef, internalId: string): Promise<Row[]> {
	return await readRows(ctx, table.id, [{ columnName: 'internalId', condition: 'eq', value: internalId }], 2);
}

/** Every row of the campaign (page by page), for counts; `visit` sees each. */
export async function eachRow(ctx: IExecuteFunctions, table: ContactsTableRef, visit: (row: Row) => void): Promise<void> {
	await forEachRow(ctx, table.id, [], visit);
}
