import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { additionalFieldsJson } from '../../../shared/descriptions/fields';
import { assertNonEmpty, textField } from '../../../shared/core/validation';
import { forEachItem, itemScope } from '../../helpers/items';
import { managementRequest, withAdditionalFields } from '../../helpers/request';

import { showFor } from './common';

const show = showFor('create');

export const description: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Product manuals',
		description: 'Name of the collection',
		displayOptions: { show },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		description: 'What the collection contains. Left out of the request when empty.',
		displayOptions: { show },
	},
	additionalFieldsJson(show, 'create request'),
];

/** POST /rag/collections {name, description?}: Name required; an empty Description is left out. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const body: IDataObject = { name: assertNonEmpty(node, 'Name', this.getNodeParameter('name', itemIndex), itemIndex) };
		const text = textField(node, 'Description', this.getNodeParameter('description', itemIndex, ''), itemIndex, { trim: false });
		if (text.trim() !== '') body.description = text;
		return await managementRequest(this, itemIndex, 'POST', '/rag/collections', withAdditionalFields(itemScope(this, itemIndex), body));
	});
}
