import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { assistantLocator } from '../../shared/descriptions';
import { assertHttpUrl } from '../../shared/validation';
import { clearedExtraction, readExtractionSchema, schemaPropertyFields } from '../../../shared/extractionSchema';

import { showFor } from './common';

const show = showFor('configureDataExtraction');

/** preSend: PATCH .../runtime/hangup/schema with {hangupUrl, schema} (assumptions row 17). */
export async function buildDataExtractionRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const itemIndex = this.getItemIndex();
	const hangupUrl = assertHttpUrl(node, 'Hangup URL', this.getNodeParameter('hangupUrl', ''), itemIndex);
	const schema = readExtractionSchema(
		node,
		this.getNodeParameter('schemaProperties.property', []),
		'Schema',
		'add at least one property (to remove the extraction, use Clear Data Extraction)',
		itemIndex,
	);
	return { ...requestOptions, body: { hangupUrl, schema: schema as unknown as IDataObject[] } };
}

/** preSend: the body that clears the extraction configuration. */
export async function buildClearDataExtractionRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return { ...requestOptions, body: clearedExtraction() };
}

export const dataExtractionDescription: INodeProperties[] = [
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

export const clearDataExtractionDescription: INodeProperties[] = [
	assistantLocator(showFor('clearDataExtraction'), {
		description: 'The assistant whose data extraction to remove',
	}),
];
