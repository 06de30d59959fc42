import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { additionalFieldsJson } from '../../../shared/descriptions';
import { mergeJsonInto } from '../../shared/routing';
import { assertNonEmpty } from '../../../shared/validation';

const show = { resource: ['assistant'], operation: ['create'] };

async function validateCreate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const body = { ...((requestOptions.body as Record<string, unknown>) ?? {}) };
	body.name = assertNonEmpty(node, 'Name', body.name, this.getItemIndex());
	body.mode = assertNonEmpty(node, 'Mode', body.mode, this.getItemIndex());
	return { ...requestOptions, body };
}

/**
 * The platform returns the assistant's confidential key once, on create. Secrets stay out of node
 * output unless the user asks for it: by default only a hint (its last four characters) is output.
 */
async function protectAssistantKey(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const reveal = this.getNodeParameter('options.includeApiKey', false) as boolean;
	return items.map((item) => {
		const json = { ...item.json } as IDataObject;
		const key = json.assistantApiKey;
		if (typeof key === 'string' && !reveal) {
			delete json.assistantApiKey;
			json.assistantApiKeyHint = key.length > 8 ? `…${key.slice(-4)}` : '…';
		}
		return { ...item, json };
	});
}

export const createDescription: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Front desk',
		description: 'Name of the assistant',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'name' } },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		description: 'What the assistant is for',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'description' } },
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'string',
		default: 'text',
		description:
			'Mode of the assistant. The platform documents the value "text"; other values depend on your account.',
		displayOptions: { show },
		routing: {
			send: { type: 'body', property: 'mode', preSend: [validateCreate, mergeJsonInto()] },
		},
	},
	additionalFieldsJson(show, 'create request'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		routing: { output: { postReceive: [protectAssistantKey] } },
		options: [
			{
				displayName: 'Include API Key in Output',
				name: 'includeApiKey',
				type: 'boolean',
				default: false,
				description:
					"Whether to output the assistant's confidential API key. The platform returns it only once, on create; when on, it is stored in the execution data, so copy it into an Outbound API credential and keep executions private. When off, only its last four characters are output.",
			},
		],
	},
];
