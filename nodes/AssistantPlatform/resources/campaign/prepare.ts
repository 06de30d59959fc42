import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { openControl } from '../../../shared/campaign/campaignControl';
import { checkColumns, findCampaignTables, hasStarted } from '../../../shared/campaign/campaignTables';

import { CONTACTS_TABLE_FIELD } from './fields';

/**
 * Campaign → Prepare Contacts Table: adds the campaign's state columns to a table of contacts (once) and creates the
 * campaign's control row (a table none of whose contacts has a state yet has no run to wait for).
 */
export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const tables = await findCampaignTables(this, CONTACTS_TABLE_FIELD, this.getNodeParameter('contactsTable', 0, ''), { control: true });
	await checkColumns(this, tables.contacts, [], { prepare: true });
	const control = await openControl(this, tables.controlTableId, tables.contacts.id, async () => await hasStarted(this, tables.contacts));
	return [[{ json: { campaign: tables.contacts.name, prepared: true, status: control.status } }]];
}
