import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { asContact, CAMPAIGN_STATES, heldResultOf } from '../../../shared/campaign/contactLife';
import { eachRow } from '../../../shared/campaign/contactsTable';
import { campaignSpendKey, spendSoFar } from '../../../shared/guards/spend';
import type { Row } from '../../../shared/transport/dataTables';

import { campaign } from './status';

/**
 * Campaign → Get Summary: the contacts counted by state (the whole table, page by page), in flight and due, what the
 * calls cost (the contacts' recorded spend, and what the calls in flight hold reserved under a Spending Limit counted
 * per campaign), the suspicious results counted in the control row, and every row the engine cannot work, with what
 * to fix.
 */
export const description: INodeProperties[] = [];

/** Rows listed by name in `needsAttention` (all are counted). */
const LISTED = 20;

/** Why the engine cannot work a row, and what fixes it; undefined for a row it can work. */
function problemOf(row: Row, now: number): { problem: string; fix: string } | undefined {
	const state = row.campaignState;
	if (state === null || state === undefined || state === '') return undefined;
	const contact = asContact(row);
	if ('invalid' in contact) {
		return { problem: String(contact.invalid), fix: `set campaignState to one of ${CAMPAIGN_STATES.join(', ')} (pending to call the contact), and attempt and version to whole numbers (or empty)` };
	}
	if (contact.campaignState === 'pending' && !Number.isFinite(Number(row.nextAttemptAt ?? 0))) {
		return { problem: `row ${row.id} is pending with a nextAttemptAt that is not a time`, fix: 'set nextAttemptAt to 0 (due now) or a time in ms since 1970' };
	}
	if (contact.campaignState === 'unknown' && heldResultOf(row) && !contact.internalId) {
		return { problem: `row ${row.id} may have been called (unknown) and a result was posted for it: ${String(row.heldResult)}`, fix: "look the call up in the platform's call log; set campaignState to pending to call again" };
	}
	if ((contact.campaignState === 'claimed' || contact.campaignState === 'placed') && Number(row.lineUntil ?? 0) < now - 60_000) {
		return { problem: `row ${row.id} has been ${contact.campaignState} past its Max Call Length`, fix: 'the next dial run settles it (marks it unknown or records its result); none is running: publish the workflow' };
	}
	return undefined;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const { tables, control } = await campaign(this);
	const counts: Record<string, number> = Object.fromEntries([...CAMPAIGN_STATES, 'new', 'other'].map((state) => [state, 0]));
	const now = Date.now();
	let dueNow = 0;
	let total = 0;
	let linesHeld = 0;
	let spent = 0;
	const needsAttention: IDataObject[] = [];
	let cannotBeWorked = 0;
	await eachRow(this, tables.contacts, (row) => {
		total++;
		const state = row.campaignState;
		const key = state === null || state === undefined || state === '' ? 'new' : typeof state === 'string' && Object.hasOwn(counts, state) ? state : 'other';
		counts[key]++;
		if ((key === 'pending' && Number(row.nextAttemptAt ?? 0) <= now) || key === 'new') dueNow++;
		if (Number(row.lineUntil ?? 0) > now || key === 'claimed' || key === 'placed') linesHeld++;
		spent += Number(row.spent) || 0;
		const problem = problemOf(row, now);
		if (problem) {
			cannotBeWorked++;
			if (needsAttention.length < LISTED) needsAttention.push({ rowId: row.id, ...problem });
		}
	});
	const json: IDataObject = {
		campaign: tables.contacts.name,
		status: control.status,
		contacts: total,
		...counts,
		inFlight: counts.claimed + counts.placed,
		linesHeld,
		dueNow,
		waiting: counts.pending + counts.new - dueNow,
		done: counts.answered + counts.finished + counts.failed + counts.doNotCall,
		// The sum of the contacts' recorded costs (six decimals, as the platform gives trafficCost).
		spent: Math.round(spent * 1e6) / 1e6,
		spendReserved: (await spendSoFar(this, campaignSpendKey(tables.contacts.id)))?.reserved ?? null,
		suspiciousResults: control.suspiciousResults,
		cannotBeWorked,
		needsAttention,
		dialling: control.holder !== '' && control.until > now,
	};
	if (control.extraRows > 0) json.controlRowsIgnored = control.extraRows;
	return [[{ json }]];
}
