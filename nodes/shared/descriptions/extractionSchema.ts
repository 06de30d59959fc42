import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { SCHEMA_TYPES } from '../core/constants';
import { invalid, kindOf, textField } from '../core/validation';

import { splitList } from '../core/text';

/*
 * The extraction schema (PATCH .../runtime/hangup/schema), as Runtime → Configure Data Extraction
 * and the trigger's Extraction Schema read and send it.
 */

/** One property as sent: `{name, type, description, required, values?}`. */
export interface SchemaProperty {
	name: string;
	type: string;
	description: string;
	required: boolean;
	values?: string[];
}

/** The body that clears the extraction configuration. */
export function clearedExtraction(): IDataObject {
	return { hangupUrl: null, schema: [] };
}

/** The fields of one property row; each node keeps its own field and row names (saved workflows). */
export const schemaPropertyFields: INodeProperties[] = [
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		description: 'What the property means; the platform uses it to extract the value',
	},
	{
		displayName: 'Enum Values',
		name: 'enumValues',
		type: 'string',
		default: '',
		placeholder: 'e.g. sales, support, billing',
		description: 'Allowed values, separated by commas (optional; sent as "values")',
		displayOptions: { show: { type: ['enum'] } },
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		placeholder: 'e.g. customerName',
		description: 'Property name, unique in the schema',
	},
	{
		displayName: 'Required',
		name: 'required',
		type: 'boolean',
		default: false,
		description: 'Whether the property must be extracted',
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
];

/**
 * Reads the property rows of a schema field (`field`: its display name). Rules, checked before
 * anything is sent: at least one property (`whenEmpty` says what to do), names non-empty and unique,
 * type one of SCHEMA_TYPES, Required true or false, Enum Values (enum only, optional) without
 * duplicates.
 */
export function readExtractionSchema(
	node: INode,
	rows: unknown,
	field: string,
	whenEmpty: string,
	itemIndex?: number,
): SchemaProperty[] {
	const properties = Array.isArray(rows) ? (rows as IDataObject[]) : [];
	if (properties.length === 0) throw invalid(node, field, whenEmpty, itemIndex);
	const seen = new Set<string>();
	return properties.map((property, index) => {
		const label = `${field} › Property ${index + 1}`;
		const name = textField(node, `${label} › Name`, property?.name, itemIndex);
		if (name === '') throw invalid(node, `${label} › Name`, 'must not be empty', itemIndex);
		if (seen.has(name)) {
			throw invalid(node, `${label} › Name`, `must be unique: "${name}" is used by an earlier property`, itemIndex);
		}
		seen.add(name);
		const type = textField(node, `${label} › Type`, property?.type ?? 'string', itemIndex);
		if (!SCHEMA_TYPES.includes(type)) {
			throw invalid(node, `${label} › Type`, `must be one of ${SCHEMA_TYPES.join(', ')} (got "${type}")`, itemIndex);
		}
		const required = property?.required ?? false;
		if (typeof required !== 'boolean') {
			throw invalid(node, `${label} › Required`, `must be true or false (got ${JSON.stringify(required)})`, itemIndex);
		}
		const entry: SchemaProperty = {
			name,
			type,
			description: textField(node, `${label} › Description`, property?.description, itemIndex, { trim: false }),
			required,
		};
		if (type === 'enum') {
			const raw = property?.enumValues;
			if (raw !== undefined && raw !== null && typeof raw !== 'string' && !Array.isArray(raw)) {
				throw invalid(node, `${label} › Enum Values`, `must be comma-separated text or a list, not ${kindOf(raw)}`, itemIndex);
			}
			const values = splitList(raw);
			const duplicate = values.find((value, i) => values.indexOf(value) !== i);
			if (duplicate !== undefined) {
				throw invalid(node, `${label} › Enum Values`, `must be unique: "${duplicate}" appears twice`, itemIndex);
			}
			if (values.length > 0) entry.values = values;
		}
		return entry;
	});
}
