import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { assertHttpUrl } from '../../../shared/core/validation';
import { readExtractionSchema, schemaPropertyFields } from '../../../shared/descriptions/extractionSchema';
import { forEachItem, itemScope } from '../../helpers/items';

import { assistantPath, patchRuntime, showFor } from './common';

const show = showFor('configureDataExtraction');

export const description: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Hangup URL',
		name: 'hangupUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/webhook/extracted-data',
		description:
			'The http:// or https:// URL that receives the extracted data after each conversation (HTTPS recommended in production)',
		displayOptions: { show },
	},
	{
		displayName: 'Schema',
		name: 'schemaProperties',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Property',
		default: {},
		description: 'The data to extract from each conversation. It replaces the current schema.',
		displayOptions: { show },
		options: [
			{
				displayName: 'Property',
				name: 'property',
				values: schemaPropertyFields,
			},
		],
	},
];

/** PATCH /assistants/{assistantId}/runtime/hangup/schema {hangupUrl, schema} (docs/assumptions.md row 17). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/hangup/schema');
		const hangupUrl = assertHttpUrl(node, 'Hangup URL', this.getNodeParameter('hangupUrl', itemIndex, ''), itemIndex);
		const schema = readExtractionSchema(
			node,
			this.getNodeParameter('schemaProperties.property', itemIndex, []),
			'Schema',
			'add at least one property (to remove the extraction, use Clear Data Extraction)',
			itemIndex,
		);
		return await patchRuntime(this, scope, path, { hangupUrl, schema: schema as unknown as IDataObject[] });
	});
}
