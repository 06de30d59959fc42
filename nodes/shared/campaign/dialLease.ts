import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { markNoCallPlaced } from '../calls/messages';
import type { Condition, Row } from '../transport/dataTables';
import { ensureTable, insertRows, readRows, updateRows, writeToken } from '../transport/dataTables';

/*
 * A campaign's dial lease: one dial run at a time per contacts table, so that its calls in flight are counted and
 * its lines filled with no other run filling the same lines meanwhile. Each campaign has its own row in the data
 * table "Assistant Platform Dial Leases" (the call limits keep their own table: a busy campaign never slows a
 * limit, nor a limit a campaign). A lease lasts LEASE_MS and the run that holds it renews it before each claim once
 * less than RENEW_BEFORE_MS is left, so it cannot lapse while its run dials however long the run lasts; a renewal
 * that finds the lease taken by another run stops the claims at once. A crashed run's lease ends LEASE_MS after its
 * last renewal (docs/assumptions.md, "Durable state"). A campaign's lease is its first row: two runs started at once
 * on a campaign without one may each insert a row, and only the holder of the first may dial.
 */

export const LEASE_TABLE = 'Assistant Platform Dial Leases';
const COLUMNS = { contactsTable: 'string', holder: 'string', until: 'number' } as const;
/** How long a lease lasts from its last renewal. */
export const LEASE_MS = 60_000;
/**
 * A lease with less than this left is renewed before the next claim: more than a claim's write needs, read-back
 * included, so a claim made under the lease is written before it could end.
 */
export const RENEW_BEFORE_MS = 45_000;

const OWNER = "Dial Due Contacts takes its campaign's dial lease before it dials, so that no other run dials the same lines; it refuses rather than guess.";

export interface DialLease {
	/** Takes the lease; false while another run holds it. */
	take(): Promise<boolean>;
	/** Before a claim: true while this run holds the lease with RENEW_BEFORE_MS or more left (renewed when less); false when it lost it. */
	keep(): Promise<boolean>;
	release(): Promise<void>;
}

/**
 * Each change is one conditional update of the campaign's row, whose `holder` (unique to each run) says who won: take
 * writes it where the lease has ended (`until` in the past; a released lease has 0), keep and release only where it is
 * still this run's. No read comes before a write: keeping and giving back a lease cost one request each, taking it two
 * (the write, then a read that the campaign's first row is this run's).
 */
export function dialLease(ctx: IExecuteFunctions, contactsTableId: string): DialLease {
	const holder = writeToken(ctx);
	let tableId: string | undefined;
	/** Until when this run holds the lease (0: it does not). */
	let until = 0;
	/** Whether the campaign's row was seen: a run waiting for the lease asks again without reading it each time. */
	let rowSeen = false;

	const open = async () => (tableId ??= await openLeaseTable(ctx));
	const campaign: Condition = { columnName: 'contactsTable', condition: 'eq', value: contactsTableId };
	const mine: Condition = { columnName: 'holder', condition: 'eq', value: holder };
	/** Writes `data` where `where` holds; whether the campaign's row is this run's afterwards. */
	const write = async (where: Condition[], data: { holder: string; until: number }): Promise<boolean> => {
		const id = await open();
		let rows: Row[] | undefined;
		let lost: unknown;
		try {
			rows = await updateRows(ctx, id, [campaign, ...where], data);
		} catch (error) {
			lost = error;
		}
		if (rows) return rows.length > 0 && rows.every((row) => row.holder === holder);
		// The answer may be lost, not the write: the row says whether this run holds the lease.
		const now = await readRows(ctx, id, [campaign], 10).catch(() => undefined);
		if (!now) throw lost;
		return now.length > 0 && now.every((row) => row.holder === data.holder && row.until === data.until);
	};

	/**
	 * Whether this run holds the campaign's first row (lowest id). Runs started at once on a campaign without a lease
	 * row may each insert one; the first row is the lease, so two runs can never both dial.
	 */
	const holdsFirstRow = async (): Promise<boolean> => {
		const rows = await readRows(ctx, await open(), [campaign], 10);
		const first = rows.reduce<Row | undefined>((low, row) => (low === undefined || row.id < low.id ? row : low), undefined);
		return first?.holder === holder;
	};

	return {
		async take() {
			const now = Date.now();
			const next = now + LEASE_MS;
			for (let attempt = 0; attempt < 2; attempt++) {
				if (await write([{ columnName: 'until', condition: 'lt', value: now }], { holder, until: next })) {
					until = next;
					if (await holdsFirstRow()) return true;
					// Two first runs at once can each insert a row: the campaign's lease is its first row, held by another.
					await this.release();
					return false;
				}
				// Nothing written: held by another run, or the campaign has no row yet (its first run inserts it).
				if (attempt > 0 || rowSeen || (rowSeen = await hasRow(ctx, await open(), campaign))) return false;
				await insertRows(ctx, await open(), [{ contactsTable: contactsTableId, holder: '', until: 0 }]);
			}
			return false;
		},
		async keep() {
			if (until === 0) return false;
			const now = Date.now();
			if (until - now >= RENEW_BEFORE_MS) return true;
			// Only where this run still holds it: a lease that lapsed and was taken by another run is not taken back.
			const next = now + LEASE_MS;
			until = (await write([mine], { holder, until: next })) ? next : 0;
			return until !== 0;
		},
		async release() {
			if (until === 0) return;
			until = 0;
			await updateRows(ctx, await open(), [campaign, mine], { holder: '', until: 0 }, undefined, false);
		},
	};
}

async function openLeaseTable(ctx: IExecuteFunctions): Promise<string> {
	const { table } = await ensureTable(ctx, LEASE_TABLE, COLUMNS);
	return table.id;
}

/**
 * Whether the campaign has its lease row. A row someone edited so that its `until` is not a number is refused, naming
 * it: no run could take the lease, and none would say why.
 */
async function hasRow(ctx: IExecuteFunctions, tableId: string, campaign: Condition): Promise<boolean> {
	const rows: Row[] = await readRows(ctx, tableId, [campaign], 10);
	for (const row of rows) {
		if (typeof row.until !== 'number' || !Number.isFinite(row.until)) {
			throw markNoCallPlaced(
				new NodeOperationError(
					ctx.getNode(),
					`Not placed: the dial lease in the data table "${LEASE_TABLE}" is unreadable (row ${row.id}: until must be a number); delete that row to start the lease anew.`,
					{ description: OWNER },
				),
			);
		}
	}
	return rows.length > 0;
}
