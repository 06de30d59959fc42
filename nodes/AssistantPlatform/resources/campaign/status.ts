import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CampaignStatus } from '../../../shared/campaign/contactsTable';
import { campaignStatus, openContactsTable, setCampaignStatus } from '../../../shared/campaign/contactsTable';

import { CONTACTS_TABLE_FIELD } from './fields';

/*
 * What the Campaign control operations share: the contacts table they name, and the change of a campaign's status
 * (Pause, Resume, Stop) without editing the workflow. Pause and Stop keep dial runs from placing calls (calls in
 * flight end as they would, their results are still recorded); Resume lets them go on; a stopped campaign is not
 * resumed.
 */

export async function table(ctx: IExecuteFunctions, prepare = false) {
	return await openContactsTable(ctx, CONTACTS_TABLE_FIELD, ctx.getNodeParameter('contactsTable', 0, ''), [], { prepare });
}

export function setStatus(to: CampaignStatus) {
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


