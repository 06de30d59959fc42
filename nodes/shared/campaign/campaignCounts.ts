import type { IExecuteFunctions } from 'n8n-workflow';

import type { ContactsTable } from './contactsTable';
import { ensureTable, findTable, forEachRow, insertRows, readRows, updateIfUnchanged } from '../transport/dataTables';

/*
 * Counts a campaign keeps beside its contacts, in their own data table `Assistant Platform Campaign Counts` (created
 * on first use): rows of {contactsTable (the contacts table's id), suspiciousResults, version, token}. A campaign's
 * count is the sum of its rows. A count goes up by a compare-and-set of one of its rows (version and a fresh token,
 * as every write of the campaign); a writer that keeps losing to others, or finds no row, inserts a row of 1
 * instead, which the sum counts all the same, so no count is lost and the rows grow only with writers that met.
 * Nothing here writes a contact's row: a contact whose result is final is never written again.
 */

export const COUNTS_TABLE = 'Assistant Platform Campaign Counts';
const COUNTS_COLUMNS = { contactsTable: 'string', suspiciousResults: 'number', version: 'number', token: 'string' } as const;

/** Compare-and-set attempts on an existing row before a row of its own is inserted. */
const ATTEMPTS = 3;

/** Adds one suspicious delivery (a posted result the platform's record contradicts) to the campaign's count. */
export async function countSuspiciousResult(ctx: IExecuteFunctions, contacts: ContactsTable): Promise<void> {
	const { table } = await ensureTable(ctx, COUNTS_TABLE, COUNTS_COLUMNS);
	for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
		const [row] = await readRows(ctx, table.id, [{ columnName: 'contactsTable', condition: 'eq', value: contacts.id }], 1);
		const version = Number(row?.version);
		const count = Number(row?.suspiciousResults ?? 0);
		if (!row || !Number.isInteger(version) || !Number.isFinite(count)) break;
		if (await updateIfUnchanged(ctx, table.id, { id: row.id, version }, { suspiciousResults: count + 1 }, { tokenColumn: 'token' })) return;
	}
	await insertRows(ctx, table.id, [{ contactsTable: contacts.id, suspiciousResults: 1, version: 0, token: '' }]);
}

/** The campaign's count of suspicious deliveries: 0 when none was ever counted (no counts table, or no row). */
export async function suspiciousResults(ctx: IExecuteFunctions, contacts: ContactsTable): Promise<number> {
	const table = await findTable(ctx, COUNTS_TABLE);
	if (!table || !(table.columns ?? []).some((column) => column.name === 'suspiciousResults')) return 0;
	let total = 0;
	await forEachRow(ctx, table.id, [{ columnName: 'contactsTable', condition: 'eq', value: contacts.id }], (row) => {
		const count = Number(row.suspiciousResults ?? 0);
		if (Number.isFinite(count) && count > 0) total += count;
	});
	return total;
}
