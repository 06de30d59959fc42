import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { listedEntry, readDoNotCallList } from '../../../shared/guards/doNotCall';
import { canonicalNumber, invalid, textField } from '../../../shared/core/validation';
import { forEachItem } from '../../helpers/items';

import { entryJson, listProperty, readList } from './fields';

/*
 * Do-Not-Call List → Check Number: whether a number is on the list (itself, or under a prefix), as the guard of every
 * call reads it. Read-only.
 */

const show = { resource: ['doNotCallList'], operation: ['check'] };

export const description: INodeProperties[] = [
	listProperty(['check']),
	{
		displayName: 'Number',
		name: 'number',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description: 'The number to look up, in international form (+14155550123 or 0039 02 1234 5678)',
		displayOptions: { show },
	},
];

export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (i) => {
		const text = textField(node, 'Number', this.getNodeParameter('number', i, ''), i);
		const phone = canonicalNumber(text);
		if (!phone) throw invalid(node, 'Number', `must be a phone number in international form, e.g. +14155550123 or 0039 02 1234 5678 (got "${text}")`, i);
		const list = readDoNotCallList(this, readList(this, i), i)!;
		const entry = await listedEntry(this, list, phone, i);
		return [
			{
				json: {
					phone,
					listed: entry !== undefined,
					entry: entry ? entryJson(entry) : null,
					list: list.ref,
				},
			},
		];
	});
}
