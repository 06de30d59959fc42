import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { table } from './status';

/** Campaign → Prepare Contacts Table: adds the campaign's state columns to a table of contacts (once). */
export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const contacts = await table(this, true);
	return [[{ json: { campaign: contacts.name, prepared: true } }]];
}
