import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { markNoCallPlaced } from '../calls/messages';
import type { Row } from '../transport/dataTables';
import { ensureTable, insertRows, readRows, updateIfUnchanged, writeToken } from '../transport/dataTables';

/*
 * A campaign's dial lease: one dial run at a time per contacts table, so that its calls in flight are counted and
 * its lines filled with no other run filling the same lines meanwhile. Each campaign has its own row in the data
 * table "Assistant Platform Dial Leases" (the call limits keep their own table: a busy campaign never slows a
 * limit, nor a limit a campaign). A lease lasts LEASE_MS and the run that holds it renews it before each claim once
 * less than RENEW_BEFORE_MS is left, so it cannot lapse while its run dials however long the run lasts; a renewal
 * that finds the lease taken by another run stops the claims at once. A crashed run's lease ends LEASE_MS after its
 * last renewal. Every change is a compare-and-set on the row's version (docs/assumptions.md, "Durable state").
 */

export const LEASE_TABLE = 'Assistant Platform Dial Leases';
const COLUMNS = { contactsTable: 'string', holder: 'string', until: 'number', version: 'number', token: 'string' } as const;
/** How long a lease lasts from its last renewal. */
export const LEASE_MS = 120_000;
/**
 * A lease with less than this left is renewed before the next claim: more than a claim's write needs, read-back
 * included, so a claim made under the lease is written before it could end.
 */
export const RENEW_BEFORE_MS = 60_000;
/** Compare-and-set attempts of one change before the run stops, saying so. */
const MAX_ATTEMPTS = 10;

const OWNER = "Dial Due Contacts takes its campaign's dial lease before it dials, so that no other run dials the same lines; it refuses rather than guess.";

export interface DialLease {
	/** Takes the lease; false while another run holds it. */
	take(): Promise<boolean>;
	/** Before a claim: true while this run holds the lease with RENEW_BEFORE_MS or more left (renewed when less); false when it lost it. */
	keep(): Promise<boolean>;
	release(): Promise<void>;
}

interface LeaseRow {
	id: number;
	version: number;
	holder: string;
	until: number;
}

export function dialLease(ctx: IExecuteFunctions, contactsTableId: string): DialLease {
	const holder = writeToken(ctx);
	let tableId: string | undefined;
	/** The row as this run last wrote it (undefined until it holds the lease). */
	let mine: LeaseRow | undefined;

	const open = async () => (tableId ??= await openLeaseTable(ctx));
	const read = async (): Promise<LeaseRow> => await leaseRow(ctx, await open(), contactsTableId);
	const write = async (row: LeaseRow, data: { holder: string; until: number }): Promise<LeaseRow | undefined> => {
		const written = await updateIfUnchanged(ctx, await open(), row, data, { tokenColumn: 'token' });
		return written ? { id: row.id, version: row.version + 1, ...data } : undefined;
	};

	return {
		async take() {
			for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
				const row = await read();
				if (row.holder !== '' && row.holder !== holder && row.until > Date.now()) return false;
				mine = await write(row, { holder, until: Date.now() + LEASE_MS });
				if (mine) return true;
			}
			throw refusal(ctx, `the dial lease in the data table "${LEASE_TABLE}" kept changing under ${MAX_ATTEMPTS} attempts to take it`);
		},
		async keep() {
			if (!mine) return false;
			if (mine.until - Date.now() >= RENEW_BEFORE_MS) return true;
			let row: LeaseRow = mine;
			for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
				const renewed = await write(row, { holder, until: Date.now() + LEASE_MS });
				if (renewed) {
					mine = renewed;
					return true;
				}
				// Changed since this run wrote it: still this run's only if nobody took it meanwhile.
				row = await read();
				if (row.holder !== holder) {
					mine = undefined;
					return false;
				}
			}
			return false;
		},
		async release() {
			let row = mine;
			mine = undefined;
			for (let attempt = 0; row && attempt < MAX_ATTEMPTS; attempt++) {
				if (await write(row, { holder: '', until: 0 })) return;
				row = await read();
				if (row.holder !== holder) return;
			}
		},
	};
}

function refusal(ctx: IExecuteFunctions, reason: string): NodeOperationError {
	return markNoCallPlaced(new NodeOperationError(ctx.getNode(), `Not placed: ${reason}.`, { description: OWNER }));
}

async function openLeaseTable(ctx: IExecuteFunctions): Promise<string> {
	const { table } = await ensureTable(ctx, LEASE_TABLE, COLUMNS);
	return table.id;
}

/**
 * The campaign's lease row: the one with the lowest id for its contacts table, inserted on first use (two runs
 * inserting at once both use the lower one). A row someone edited into something else is refused, naming it.
 */
async function leaseRow(ctx: IExecuteFunctions, tableId: string, contactsTableId: string): Promise<LeaseRow> {
	const byCampaign = [{ columnName: 'contactsTable', condition: 'eq' as const, value: contactsTableId }];
	let rows: Row[] = await readRows(ctx, tableId, byCampaign, 10);
	if (rows.length === 0) {
		await insertRows(ctx, tableId, [{ contactsTable: contactsTableId, holder: '', until: 0, version: 0, token: '' }]);
		rows = await readRows(ctx, tableId, byCampaign, 10);
	}
	if (rows.length === 0) throw refusal(ctx, `the dial lease of this campaign could not be written to the data table "${LEASE_TABLE}"`);
	const row = rows.reduce((a, b) => (b.id < a.id ? b : a));
	const holder = row.holder ?? '';
	const until = row.until ?? 0;
	const version = row.version ?? 0;
	if (typeof holder !== 'string' || typeof until !== 'number' || !Number.isFinite(until) || typeof version !== 'number' || !Number.isInteger(version)) {
		throw refusal(
			ctx,
			`the dial lease in the data table "${LEASE_TABLE}" is unreadable (row ${row.id}: holder text, until and version numbers); delete that row to start the lease anew`,
		);
	}
	return { id: row.id, version, holder, until };
}
