import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ContactsTable } from '../../../shared/campaignTable';
import { asContact, rowsInState } from '../../../shared/campaignTable';
import type { RetryPolicy } from '../../../shared/retryPolicy';
import type { RequestSettings } from '../../../shared/transport';

import type { DialSettings } from './fields';
import { applyResult, markUnknown, readRecord } from './results';

/** Status reads of one run at once. */
const READS_AT_ONCE = 5;

/*
 * What a dial run settles before it dials: claims older than Unconfirmed Claim After whose answer was never
 * written become unknown (the call may have been placed), and the placed calls waiting longest get their status
 * read; a record (same id, a dial status) applies the result, and a call with no record after Max Call Length
 * becomes unknown. Nothing here frees a line on a guess: a failed or empty status read changes nothing.
 */
export async function reconcile(
	ctx: IExecuteFunctions,
	table: ContactsTable,
	settings: DialSettings,
	policy: RetryPolicy,
	request: RequestSettings,
	baseURL: string,
): Promise<IDataObject> {
	const now = Date.now();
	const report = { unconfirmedClaims: 0, resultsRead: 0, noRecord: 0, statusReadsFailed: 0 };
	const stale = await rowsInState(ctx, table, 'claimed', 250, [{ columnName: 'claimedAt', condition: 'lt', value: now - settings.claimMs }]);
	for (const raw of stale) {
		const row = asContact(raw);
		if ('invalid' in row) continue;
		const reason = `claimed at ${new Date(Number(row.claimedAt)).toISOString()} but the platform's answer was never recorded: the call may have been placed, so it is never dialled again automatically`;
		if (await markUnknown(ctx, table, row, reason)) report.unconfirmedClaims++;
	}
	if (settings.statusReads === 0) return report;
	const placed = (await rowsInState(ctx, table, 'placed', 250)).sort((a, b) => Number(a.placedAt ?? 0) - Number(b.placedAt ?? 0)).slice(0, settings.statusReads);
	for (let start = 0; start < placed.length; start += READS_AT_ONCE) {
		await Promise.all(
			placed.slice(start, start + READS_AT_ONCE).map(async (raw) => {
				const row = asContact(raw);
				if ('invalid' in row || !row.internalId) return;
				const read = await readRecord(ctx, request, String(row.internalId), baseURL);
				if (read.kind === 'record') {
					if (await applyResult(ctx, table, row, read.dialStatus, policy, Date.now())) report.resultsRead++;
				} else if (read.kind === 'none' && Number(row.placedAt) < now - settings.maxCallMs) {
					const reason = `no status record ${Math.round(settings.maxCallMs / 60_000)} minute(s) after the call was placed (Max Call Length): its outcome is not known, so it is never dialled again automatically`;
					if (await markUnknown(ctx, table, row, reason)) report.noRecord++;
				} else if (read.kind === 'unusable') {
					report.statusReadsFailed++;
				}
			}),
		);
	}
	return report;
}
