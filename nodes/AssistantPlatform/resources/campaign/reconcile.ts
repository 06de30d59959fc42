import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ContactsTable } from '../../../shared/campaign/contactsTable';
import { asContact } from '../../../shared/campaign/contactsTable';
import type { Row } from '../../../shared/transport/dataTables';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import type { RequestSettings } from '../../../shared/transport/settings';

import type { DialSettings } from './fields';
import { applyResult, markUnknown, readRecord } from './results';

/** Status reads of one run at once. */
const READS_AT_ONCE = 5;

/**
 * Within one run: when each placed call (by internal_id) was last read with no record yet. A run that keeps dialling
 * reads such a call again only once it has waited twice as long since it was placed (its record exists only when the
 * call has ended), instead of at every pass: a result still reaches the table within the call's own length again.
 */
export type NoRecordReads = Map<string, number>;

/*
 * What a dial run settles before it dials, from the calls in flight it read (claimed and placed rows, one read per
 * pass): claims older than Unconfirmed Claim After whose answer was never written become unknown (the call may have
 * been placed), and the placed calls waiting longest get their status read; a record (same id, a dial status)
 * applies the result, and a call with no record after Max Call Length becomes unknown. Nothing here frees a line on a
 * guess: a failed or empty status read changes nothing. `ended` holds the rows no longer in flight.
 */
export async function reconcile(
	ctx: IExecuteFunctions,
	table: ContactsTable,
	settings: DialSettings,
	policy: RetryPolicy,
	request: RequestSettings,
	baseURL: string,
	inFlight: IDataObject[],
	noRecord: NoRecordReads = new Map(),
): Promise<{ report: IDataObject; ended: Set<number> }> {
	const now = Date.now();
	const report = { unconfirmedClaims: 0, resultsRead: 0, noRecord: 0, statusReadsFailed: 0 };
	const ended = new Set<number>();
	const stale = inFlight.filter((row) => row.campaignState === 'claimed' && Number(row.claimedAt) < now - settings.claimMs);
	for (const raw of stale) {
		const row = asContact(raw as Row);
		if ('invalid' in row) continue;
		const reason = `claimed at ${new Date(Number(row.claimedAt)).toISOString()} but the platform's answer was never recorded: the call may have been placed, so it is never dialled again automatically`;
		if (await markUnknown(ctx, table, row, reason)) {
			report.unconfirmedClaims++;
			ended.add(row.id);
		}
	}
	if (settings.statusReads === 0) return { report, ended };
	const readAgain = (row: IDataObject) => {
		const last = noRecord.get(String(row.internalId));
		const placedAt = Number(row.placedAt);
		// Past Max Call Length it is read at once: with no record it becomes unknown now, not a pass later.
		return last === undefined || !Number.isFinite(placedAt) || now - placedAt >= 2 * (last - placedAt) || now - placedAt > settings.maxCallMs;
	};
	const placed = inFlight
		.filter((row) => row.campaignState === 'placed' && readAgain(row))
		.sort((a, b) => Number(a.placedAt ?? 0) - Number(b.placedAt ?? 0))
		.slice(0, settings.statusReads);
	for (let start = 0; start < placed.length; start += READS_AT_ONCE) {
		await Promise.all(
			placed.slice(start, start + READS_AT_ONCE).map(async (raw) => {
				const row = asContact(raw as Row);
				if ('invalid' in row || !row.internalId) return;
				const read = await readRecord(ctx, request, String(row.internalId), baseURL);
				if (read.kind === 'record') {
					if (await applyResult(ctx, table, row, read.dialStatus, policy, Date.now())) {
						report.resultsRead++;
						ended.add(row.id);
					}
				} else if (read.kind === 'none' && !(Number(row.placedAt) < now - settings.maxCallMs)) {
					noRecord.set(String(row.internalId), now);
				} else if (read.kind === 'none') {
					const reason = `no status record ${Math.round(settings.maxCallMs / 60_000)} minute(s) after the call was placed (Max Call Length): its outcome is not known, so it is never dialled again automatically`;
					if (await markUnknown(ctx, table, row, reason)) {
						report.noRecord++;
						ended.add(row.id);
					}
				} else if (read.kind === 'unusable') {
					report.statusReadsFailed++;
				}
			}),
		);
	}
	return { report, ended };
}
