import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { contactsOfCall } from '../../../shared/campaign/contactsTable';
import { addToList } from '../../../shared/guards/doNotCall';
import { findTable } from '../../../shared/transport/dataTables';
import { invalid, optionField, textField } from '../../../shared/core/validation';
import { forEachItem } from '../../helpers/items';

import { entryJson, listProperty, readList } from './fields';

/*
 * Do-Not-Call List → Add Number: writes a number (or a prefix ending in *) to the list, in international form, with
 * where the request came from and when; the number already there is left as it is. The number is given, or is the
 * one a campaign called: the contact whose call has this internal_id (an opt-out said during a campaign's call
 * arrives with the call's internal_id, at the trigger's Extracted Data). Every route with Guardrails > Do-Not-Call
 * List set refuses the number from its next call on.
 */

const show = { resource: ['doNotCallList'], operation: ['add'] };
const showCall = { ...show, numberFrom: ['campaignCall'] };

export const description: INodeProperties[] = [
	listProperty(['add']),
	{
		displayName: 'Number From',
		name: 'numberFrom',
		type: 'options',
		noDataExpression: true,
		default: 'number',
		options: [
			{ name: 'Number', value: 'number', description: 'A phone number (or a prefix ending in *) given here' },
			{
				name: 'A Campaign Call',
				value: 'campaignCall',
				description: "The number of the campaign contact whose call has this internal_id (e.g. from the trigger's Extracted Data)",
			},
		],
		displayOptions: { show },
	},
	{
		displayName: 'Number',
		name: 'number',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description: 'The number never to call, in international form (+14155550123 or 0039 02 1234 5678: kept as +390212345678), or a prefix ending in * (+1900*)',
		displayOptions: { show: { ...show, numberFrom: ['number'] } },
	},
	{
		displayName: 'Contacts Table',
		name: 'contactsTable',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Spring campaign contacts',
		description: "The campaign's contacts table (its name or ID): the contact whose call has the Internal ID gives the number",
		displayOptions: { show: showCall },
	},
	{
		displayName: 'Internal ID',
		name: 'internalId',
		type: 'string',
		required: true,
		default: '={{ $json.internal_id }}',
		description: 'The internal_id of the call during which the person asked not to be called again',
		displayOptions: { show: showCall },
	},
	{
		displayName: 'Phone Column',
		name: 'phoneColumn',
		type: 'string',
		default: 'phone',
		description: "The contacts table's column with each contact's number",
		displayOptions: { show: showCall },
	},
	{
		displayName: 'Source',
		name: 'source',
		type: 'string',
		default: '',
		placeholder: 'e.g. said during call {{ $json.internal_id }}',
		description: 'Where the request came from, kept with the number (empty: this workflow and node)',
		displayOptions: { show },
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string',
		default: '',
		description: 'Anything else to keep with the number',
		displayOptions: { show },
	},
];

export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (i) => {
		const list = readList(this, i);
		const from = optionField(node, 'Number From', this.getNodeParameter('numberFrom', i, 'number'), ['number', 'campaignCall'] as const, i);
		const found = from === 'number' ? { number: textField(node, 'Number', this.getNodeParameter('number', i, ''), i) } : await numberOfCall(this, i);
		const source = textField(node, 'Source', this.getNodeParameter('source', i, ''), i) || `workflow "${this.getWorkflow().name ?? this.getWorkflow().id}", node "${node.name}"`;
		const note = textField(node, 'Note', this.getNodeParameter('note', i, ''), i);
		const { row, already } = await addToList(this, list, found.number, { source, note }, i);
		const { phone, ...kept } = entryJson(row);
		const json: IDataObject = { phone, listed: true, alreadyListed: already, ...kept, list };
		if ('rowId' in found) Object.assign(json, { contactRowId: found.rowId, internal_id: found.internalId });
		return [{ json }];
	});
}

/** The number of the contact whose call is `internalId`, in the contacts table named. */
async function numberOfCall(ctx: IExecuteFunctions, i: number): Promise<{ number: string; rowId: number; internalId: string }> {
	const node = ctx.getNode();
	const tableRef = textField(node, 'Contacts Table', ctx.getNodeParameter('contactsTable', i, ''), i);
	const internalId = textField(node, 'Internal ID', ctx.getNodeParameter('internalId', i, ''), i);
	const column = textField(node, 'Phone Column', ctx.getNodeParameter('phoneColumn', i, 'phone'), i) || 'phone';
	if (tableRef === '') throw invalid(node, 'Contacts Table', "must name the campaign's contacts table (its name or ID)", i);
	if (internalId === '') throw invalid(node, 'Internal ID', 'must be the internal_id of a call of the campaign (e.g. {{ $json.internal_id }} after the trigger)', i);
	const table = await findTable(ctx, tableRef, i);
	if (!table) throw invalid(node, 'Contacts Table', `names no data table of this n8n ("${tableRef}")`, i);
	const [contact] = await contactsOfCall(ctx, { id: table.id, name: table.name }, internalId);
	if (!contact) {
		throw invalid(node, 'Internal ID', `no contact of "${table.name}" had the call ${internalId}: nothing was added. Give the number itself (Number From: Number) if it was not a call of this campaign`, i);
	}
	const number = contact[column];
	if (typeof number !== 'string' || number.trim() === '') throw invalid(node, 'Phone Column', `row ${contact.id} of "${table.name}" has no number in column "${column}"`, i);
	return { number, rowId: contact.id, internalId };
}
