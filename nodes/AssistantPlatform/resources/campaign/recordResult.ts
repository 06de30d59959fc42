import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { asContact, openContactsTable } from '../../../shared/campaign/contactsTable';
import type { ContactsTable } from '../../../shared/campaign/contactsTable';
import { readRows } from '../../../shared/transport/dataTables';
import { normalizeDialStatus } from '../../../shared/calls/dialStatuses';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { readRetryPolicy } from '../../../shared/campaign/retryPolicy';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import type { RequestSettings } from '../../../shared/transport/settings';
import { readRequestSettings } from '../../../shared/transport/settings';
import { textField } from '../../../shared/core/validation';

import { CONTACTS_TABLE_FIELD } from './fields';
import { applyResult, markUnknown, readRecord } from './results';

/*
 * Campaign → Record Call Result: a result (from the Assistant Platform Trigger's Call Result, Call Status or
 * anywhere) applied to its contact by internal_id, once. With Verify With Call Record (the default) the platform's
 * status record is the fact: a result whose record is not there yet waits for it (the next dial run reads it), and
 * a result that disagrees with the record makes the contact unknown, never a retry. A URL anybody may have seen
 * cannot reset an attempt: the attempt is the table's.
 */

const show = { resource: ['campaign'], operation: ['recordResult'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Internal ID',
		name: 'internalId',
		type: 'string',
		required: true,
		default: '={{ $json.internal_id }}',
		description: 'The internal_id of the call whose result this is (the trigger and Call Status give it as internal_id)',
		displayOptions: { show },
	},
	{
		displayName: 'Dial Status',
		name: 'dialStatus',
		type: 'string',
		default: '={{ $json.dialStatus }}',
		description: 'The dial status the result reports (e.g. ANSWER, BUSY). With Verify With Call Record it is checked against the record.',
		displayOptions: { show },
	},
	{
		displayName: 'Verify With Call Record',
		name: 'verifyWithRecord',
		type: 'boolean',
		default: true,
		description:
			"Whether to read the call's status record before recording: the record is the platform's own word, where a posted result may be repeated, late or forged by anyone who has seen the Call Result URL",
		displayOptions: { show },
	},
];

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const table = await openContactsTable(this, CONTACTS_TABLE_FIELD, this.getNodeParameter('contactsTable', 0, ''), []);
	const policy = readRetryPolicy(node, this.getNodeParameter('retryPolicy', 0, {}), 0);
	const request = readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0);
	const verify = this.getNodeParameter('verifyWithRecord', 0, true) !== false;
	const baseURL = verify ? await outboundBaseUrl(this) : '';
	const items = this.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const id = textField(node, 'Internal ID', this.getNodeParameter('internalId', i, ''), i).trim();
		const reported = normalizeDialStatus(textField(node, 'Dial Status', this.getNodeParameter('dialStatus', i, ''), i, { numbers: false }));
		const json = await recordOne(this, table, policy, { id, reported, verify, request, baseURL });
		out.push({ json: { internal_id: id || null, ...json }, pairedItem: { item: i } });
	}
	return [out];
}

async function recordOne(
	ctx: IExecuteFunctions,
	table: ContactsTable,
	policy: RetryPolicy,
	call: { id: string; reported: string; verify: boolean; request: RequestSettings; baseURL: string },
): Promise<IDataObject> {
	if (call.id === '') return { recorded: false, reason: 'no internal_id: nothing to record' };
	const rows = await readRows(ctx, table.id, [{ columnName: 'internalId', condition: 'eq', value: call.id }], 2);
	if (rows.length === 0) return { recorded: false, reason: `no contact of the campaign "${table.name}" has this internal_id` };
	const row = asContact(rows[0]);
	if ('invalid' in row) return { recorded: false, rowId: rows[0].id, reason: row.invalid };
	if (row.campaignState !== 'placed') {
		return { recorded: false, rowId: row.id, campaignState: row.campaignState, reason: `already recorded: the contact is ${row.campaignState}` };
	}
	let status = call.reported;
	if (call.verify) {
		const read = await readRecord(ctx, call.request, call.id, call.baseURL);
		if (read.kind === 'none') {
			return { recorded: false, rowId: row.id, reason: 'no status record yet: the result is recorded when the record exists (the next dial run reads it)' };
		}
		if (read.kind === 'unusable') return { recorded: false, rowId: row.id, reason: `${read.why}: the result is recorded by a later read` };
		if (status !== '' && status !== read.dialStatus) {
			const reason = `the posted result (${status}) and the status record (${read.dialStatus}) disagree: outcome unknown, never dialled again automatically`;
			const written = await markUnknown(ctx, table, row, reason, { dialStatus: read.dialStatus });
			return { recorded: Boolean(written), rowId: row.id, campaignState: 'unknown', reason };
		}
		status = read.dialStatus;
	}
	if (status === '') return { recorded: false, rowId: row.id, reason: 'no dial status: nothing to record' };
	const applied = await applyResult(ctx, table, row, status, policy, Date.now());
	if (!applied) return { recorded: false, rowId: row.id, reason: 'already recorded by another execution' };
	return { recorded: true, rowId: row.id, campaignState: applied.state, dialStatus: status, attempt: row.attempt, reason: applied.reason };
}
