import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { suspiciousResults } from '../../../shared/campaign/campaignCounts';
import { CAMPAIGN_STATES, campaignStatus, eachRow } from '../../../shared/campaign/contactsTable';

import { table } from './status';

/**
 * Campaign → Get Summary: the contacts counted by state (the whole table, page by page), in flight and due, and the
 * posted results the platform's records contradicted (suspiciousResults, kept in the campaign's counts table).
 */
export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const contacts = await table(this);
	const { status } = await campaignStatus(this, contacts);
	const counts: Record<string, number> = Object.fromEntries([...CAMPAIGN_STATES, 'new', 'other'].map((state) => [state, 0]));
	const now = Date.now();
	let dueNow = 0;
	let total = 0;
	await eachRow(this, contacts, (row) => {
		total++;
		const state = row.campaignState;
		const key = state === null || state === undefined || state === '' ? 'new' : typeof state === 'string' && Object.hasOwn(counts, state) ? state : 'other';
		counts[key]++;
		if ((key === 'pending' && Number(row.nextAttemptAt ?? 0) <= now) || key === 'new') dueNow++;
	});
	const json: IDataObject = {
		campaign: contacts.name,
		status,
		contacts: total,
		...counts,
		inFlight: counts.claimed + counts.placed,
		dueNow,
		waiting: counts.pending + counts.new - dueNow,
		done: counts.answered + counts.finished + counts.failed,
		suspiciousResults: await suspiciousResults(this, contacts),
	};
	return [[{ json }]];
}

