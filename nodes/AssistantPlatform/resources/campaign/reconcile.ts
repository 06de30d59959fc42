import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ContactRow, ContactsTableRef } from '../../../shared/campaign/contactLife';
import { asContact, isIn, move } from '../../../shared/campaign/contactLife';
import type { Row } from '../../../shared/transport/dataTables';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import type { RequestSettings } from '../../../shared/transport/settings';

import type { DialSettings } from './fields';
import { applyRecord, readRecord } from './results';

/** Status reads of one run at once. */
const READS_AT_ONCE = 5;

/**
 * Within one run: when each placed call (by internal_id) was last read with no record yet. A run that keeps dialling
 * reads such a call again only once it has waited twice as long since it was placed (its record exists only when the
 * call has ended), instead of at every pass.
 */
export type NoRecordReads = Map<string, number>;

export interface Settle {
	ctx: IExecuteFunctions;
	table: ContactsTableRef;
	settings: DialSettings;
	policy: RetryPolicy;
	request: RequestSettings;
	baseURL: string;
	noRecord: NoRecordReads;
}

/*
 * What a dial run settles before it dials, from the contacts holding lines it read (one read per pass): claims older
 * than Unconfirmed Claim After whose answer was never written become unknown (the call may have been placed: the line
 * stays held), and the placed calls waiting longest get their status read: the call's own record applies its outcome
 * (applyRecord); no record Max Call Length after the POST makes it unknown. Nothing here frees a line on a guess: a
 * failed or empty status read changes nothing. `ended` holds the rows whose line this pass freed.
 */
export async function reconcile(settle: Settle, rows: Row[]): Promise<{ report: Record<string, number>; ended: Set<number> }> {
	const { ctx, table, settings } = settle;
	const now = Date.now();
	const report = { unconfirmedClaims: 0, resultsRead: 0, noRecord: 0, statusReadsFailed: 0 };
	const ended = new Set<number>();
	for (const raw of rows) {
		const row = asContact(raw);
		if ('invalid' in row || !isIn(row, 'claimed') || !(Number(row.claimedAt) < now - settings.claimMs)) continue;
		const reason = `claimed at ${new Date(Number(row.claimedAt)).toISOString()} but the platform's answer was never recorded: the call may have been placed, so it is never dialled again automatically`;
		if (await move(ctx, table, row, 'unconfirmed', { reason })) report.unconfirmedClaims++;
	}
	if (settings.statusReads === 0) return { report, ended };
	const placed = rows
		.map((raw) => asContact(raw))
		.filter((row): row is ContactRow<'placed'> => !('invalid' in row) && isIn(row, 'placed') && !!row.internalId && readAgain(settle, row, now))
		.sort((a, b) => Number(a.placedAt ?? 0) - Number(b.placedAt ?? 0))
		.slice(0, settings.statusReads);
	for (let start = 0; start < placed.length; start += READS_AT_ONCE) {
		await Promise.all(placed.slice(start, start + READS_AT_ONCE).map(async (row) => await settleCall(settle, row, now, report, ended)));
	}
	return { report, ended };
}

/** Whether to read a placed call now: never read in this run, waited twice as long as at its last read, or past Max Call Length. */
function readAgain(settle: Settle, row: IDataObject, now: number): boolean {
	const last = settle.noRecord.get(String(row.internalId));
	const placedAt = Number(row.placedAt);
	return last === undefined || !Number.isFinite(placedAt) || now - placedAt >= 2 * (last - placedAt) || now - placedAt > settle.settings.maxCallMs;
}

async function settleCall(settle: Settle, row: ContactRow<'placed'>, now: number, report: Record<string, number>, ended: Set<number>): Promise<void> {
	const { ctx, table, settings } = settle;
	const id = String(row.internalId);
	const read = await readRecord(ctx, settle.request, id, settle.baseURL);
	if (read.kind === 'record') {
		const applied = await applyRecord(ctx, table, row, { ...read.record, trafficCost: read.record.record.trafficCost }, Date.now(), settle.policy);
		if (applied && applied !== 'noPolicy') {
			report.resultsRead++;
			ended.add(row.id);
		}
		return;
	}
	if (read.kind === 'unusable') {
		report.statusReadsFailed++;
		return;
	}
	if (!(Number(row.placedAt) < now - settings.maxCallMs)) {
		settle.noRecord.set(id, now);
		return;
	}
	const reason = `no status record ${Math.round(settings.maxCallMs / 60_000)} minute(s) after the call was placed (Max Call Length): its outcome is not known, so it is never dialled again automatically`;
	if (await move(ctx, table, row, 'noOutcome', { reason })) {
		report.noRecord++;
		ended.add(row.id);
	}
}
