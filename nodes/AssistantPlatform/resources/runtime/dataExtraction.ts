import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { SCHEMA_TYPES } from '../../shared/constants';
import { assistantLocator } from '../../shared/descriptions';
import { assertHttpUrl, invalid } from '../../shared/validation';

import { readText, showFor, splitList } from './common';

const show = showFor('configureDataExtraction');

/**
 * preSend: PATCH .../runtime/hangup/schema with {hangupUrl, schema: [{name, type, description,
 * required, values?}]} (assumptions row 17). Rules checked before sending: at least one property,
 * names non-empty and unique, type one of string/number/boolean/enum/object, Enum Values (enum only,
 * optional) without duplicates.
 */
export async function buildDataExtractionRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const itemIndex = this.getItemIndex();
	const hangupUrl = assertHttpUrl(node, 'Hangup URL', this.getNodeParameter('hangupUrl', ''), itemIndex);
	const raw = this.getNodeParameter('schemaProperties.property', []) as unknown;
	const properties = Array.isArray(raw) ? (raw as IDataObject[]) : [];
	if (properties.length === 0) {
		throw invalid(
			node,
			'Schema',
			'add at least one property (to remove the extraction, use Clear Data Extraction)',
			itemIndex,
		);
	}
	const seen = new Set<string>();
	const schema = properties.map((property, index) => {
		const label = `Schema › Property ${index + 1}`;
		const name = readText(property?.name);
		if (name === '') throw invalid(node, `${label} › Name`, 'must not be empty', itemIndex);
		if (seen.has(name)) {
			throw invalid(node, `${label} › Name`, `must be unique: "${name}" is used by an earlier property`, itemIndex);
		}
		seen.add(name);
		const type = readText(property?.type ?? 'string');
		if (!SCHEMA_TYPES.includes(type)) {
			throw invalid(
				node,
				`${label} › Type`,
				`must be one of ${SCHEMA_TYPES.join(', ')} (got "${type}")`,
				itemIndex,
			);
		}
		const required = property?.required ?? false;
		if (typeof required !== 'boolean') {
			throw invalid(node, `${label} › Required`, `must be true or false (got ${JSON.stringify(required)})`, itemIndex);
		}
		const entry: IDataObject = {
			name,
			type,
			description: typeof property?.description === 'string' ? property.description : '',
			required,
		};
		if (type === 'enum') {
			const values = splitList(property?.enumValues);
			const duplicate = values.find((value, i) => values.indexOf(value) !== i);
			if (duplicate !== undefined) {
				throw invalid(node, `${label} › Enum Values`, `must be unique: "${duplicate}" appears twice`, itemIndex);
			}
			if (values.length > 0) entry.values = values;
		}
		return entry;
	});
	return { ...requestOptions, body: { hangupUrl, schema } };
}

/** preSend: {hangupUrl: null, schema: []} clears the extraction configuration. */
export async function buildClearDataExtractionRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return { ...requestOptions, body: { hangupUrl: null, schema: [] } };
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
				values: [
					{
						displayName: 'Description',
						name: 'description',
						type: 'string',
						default: '',
						description: 'What the property means, to guide the extraction',
					},
					{
						displayName: 'Enum Values',
						name: 'enumValues',
						type: 'string',
						default: '',
						placeholder: 'e.g. sales, support, billing',
						description:
							'Allowed values, comma-separated (optional; sent as "values"). You may also list them in the description.',
						displayOptions: { show: { type: ['enum'] } },
					},
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. customerName',
						description: 'Property name (unique within the schema)',
					},
					{
						displayName: 'Required',
						name: 'required',
						type: 'boolean',
						default: false,
						description: 'Whether the property is required',
					},
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'string',
						options: [
							{ name: 'Boolean', value: 'boolean' },
							{ name: 'Enum', value: 'enum' },
							{ name: 'Number', value: 'number' },
							{ name: 'Object', value: 'object' },
							{ name: 'String', value: 'string' },
						],
					},
				],
			},
		],
	},
];

export const clearDataExtractionDescription: INodeProperties[] = [
	assistantLocator(showFor('clearDataExtraction'), {
		description: 'The assistant whose data extraction to remove',
	}),
];
