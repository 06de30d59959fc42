import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CampaignStatus } from '../../../shared/campaignTable';
import { CAMPAIGN_STATES, campaignStatus, eachRow, openContactsTable, setCampaignStatus } from '../../../shared/campaignTable';

import { CONTACTS_TABLE_FIELD } from './fields';

/*
 * Campaign → Pause, Resume, Stop, Get Summary and Prepare Contacts Table: control without editing the workflow.
 * Pause and Stop keep dial runs from placing calls (calls in flight end as they would, their results are still
 * recorded); Resume lets them go on; a stopped campaign is not resumed. The summary counts the contacts by state.
 */

async function table(ctx: IExecuteFunctions, prepare = false) {
	return await openContactsTable(ctx, CONTACTS_TABLE_FIELD, ctx.getNodeParameter('contactsTable', 0, ''), [], { prepare });
}

function setStatus(to: CampaignStatus) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const contacts = await table(this);
		const before = await campaignStatus(this, contacts);
		if (before.status === 'stopped' && to !== 'stopped') {
			throw new NodeOperationError(this.getNode(), `The campaign "${contacts.name}" is stopped: it cannot be ${to === 'running' ? 'resumed' : 'paused'}`, {
				description: 'A stopped campaign stays stopped. To call its contacts again, copy them into a new contacts table.',
			});
		}
		if (before.status !== to) await setCampaignStatus(this, contacts, to);
		return [[{ json: { campaign: contacts.name, status: to, previousStatus: before.status } }]];
	};
}

export const pause = setStatus('paused');
export const resume = setStatus('running');
export const stop = setStatus('stopped');

export async function summary(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
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
	};
	return [[{ json }]];
}

export async function prepare(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const contacts = await table(this, true);
	return [[{ json: { campaign: contacts.name, prepared: true } }]];
}
