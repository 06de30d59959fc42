import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CAMPAIGN_STATES, STATE_COLUMNS } from '../../../shared/campaign/contactLife';
import { findCampaignTables } from '../../../shared/campaign/campaignTables';
import type { Condition, Row } from '../../../shared/transport/dataTables';
import { forEachRow } from '../../../shared/transport/dataTables';
import { returnAllAndLimit } from '../../../shared/descriptions/fields';
import { invalid } from '../../../shared/core/validation';

import { readLimit } from '../../helpers/lists';
import { CONTACTS_TABLE_FIELD } from './fields';

/*
 * Campaign → Get Contacts: the campaign's results view, one item per contact as a person reads it (its own columns,
 * its state, attempts, last outcome and cost, when it is called next, why), for a sheet, a report or an email. Read
 * from the contacts table page by page (250 rows a request), filtered by state in n8n's database.
 */

const show = { resource: ['campaign'], operation: ['contacts'] };
const NEW = 'new';

export const description: INodeProperties[] = [
	{
		displayName: 'States',
		name: 'states',
		type: 'multiOptions',
		default: [],
		description: 'Which contacts to return, by their state; none chosen: every contact',
		options: [NEW, ...CAMPAIGN_STATES].map((state) => ({
			name: state === NEW ? 'New (Not Worked Yet)' : state[0].toUpperCase() + state.slice(1),
			value: state,
		})),
		displayOptions: { show },
	},
	...returnAllAndLimit(show),
];

const iso = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? new Date(value).toISOString() : null);

/** A contact as the results view shows it: the user's columns, then what the campaign knows of it. */
export function contactView(row: Row, now: number): IDataObject {
	const own: IDataObject = {};
	for (const [column, value] of Object.entries(row)) {
		if (!Object.hasOwn(STATE_COLUMNS, column) && !['id', 'createdAt', 'updatedAt'].includes(column)) own[column] = value;
	}
	const state = typeof row.campaignState === 'string' && row.campaignState !== '' ? row.campaignState : NEW;
	return {
		rowId: row.id,
		...own,
		state,
		attempts: Number(row.attempt ?? 0) || 0,
		dialStatus: row.dialStatus || null,
		// Due contacts are called from now on (a new row is made due by the next run).
		nextCallAt: state === 'pending' || state === NEW ? new Date(Math.max(Number(row.nextAttemptAt) || 0, now)).toISOString() : null,
		lastCallPlacedAt: iso(row.placedAt),
		lastCallEndedAt: iso(row.endedAt),
		internal_id: row.internalId || null,
		trafficCost: typeof row.trafficCost === 'number' ? row.trafficCost : null,
		spent: typeof row.spent === 'number' ? row.spent : 0,
		reason: row.reason ?? null,
		...(row.heldResult ? { heldResult: row.heldResult } : {}),
	};
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const states = this.getNodeParameter('states', 0, []) as unknown;
	if (!Array.isArray(states) || states.some((state) => state !== NEW && !(CAMPAIGN_STATES as readonly string[]).includes(String(state)))) {
		throw invalid(node, 'States', `must be a list of ${[NEW, ...CAMPAIGN_STATES].join(', ')}`, 0);
	}
	const returnAll = this.getNodeParameter('returnAll', 0, false) === true;
	const limit = readLimit(node, returnAll, returnAll ? 1 : this.getNodeParameter('limit', 0, 50), 0);
	const { contacts } = await findCampaignTables(this, CONTACTS_TABLE_FIELD, this.getNodeParameter('contactsTable', 0, ''), { control: false });
	const conditions: Condition[] = (states as string[]).flatMap((state): Condition[] =>
		state === NEW
			? [
					{ columnName: 'campaignState', condition: 'eq', value: null },
					{ columnName: 'campaignState', condition: 'eq', value: '' },
				]
			: [{ columnName: 'campaignState', condition: 'eq', value: state }],
	);
	const out: INodeExecutionData[] = [];
	const now = Date.now();
	await forEachRow(
		this,
		contacts.id,
		conditions,
		(row) => {
			out.push({ json: contactView(row, now), pairedItem: { item: 0 } });
			return out.length < limit;
		},
		'or',
	);
	return [out];
}
