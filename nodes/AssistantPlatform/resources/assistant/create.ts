import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, NodeOutput } from 'n8n-workflow';

import { additionalFieldsJson } from '../../../shared/descriptions';
import { assertNonEmpty } from '../../../shared/validation';
import { forEachItem, itemScope } from '../../shared/items';
import { managementRequest, withAdditionalFields } from '../../shared/request';

const show = { resource: ['assistant'], operation: ['create'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Front desk',
		description: 'Name of the assistant',
		displayOptions: { show },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		description: 'What the assistant is for',
		displayOptions: { show },
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'string',
		default: 'text',
		description:
			'Mode of the assistant. The platform documents the value "text"; other values depend on your account.',
		displayOptions: { show },
	},
	additionalFieldsJson(show, 'create request'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Include API Key in Output',
				name: 'includeApiKey',
				type: 'boolean',
				default: false,
				description:
					"Whether to output the assistant's confidential API key. The platform returns it only once, on create. In a workflow, when on, it is stored in the execution data: copy it into an Outbound API credential and keep executions private; when off, only its last four characters are output. As an AI agent's tool the key is never output, on or off: the model would read it.",
			},
		],
	},
];

/**
 * The platform returns the assistant's confidential key once, on create. Unless the user asks for it,
 * only a hint (its last four characters) is output.
 */
function protectAssistantKey(items: INodeExecutionData[], reveal: boolean): INodeExecutionData[] {
	if (reveal) return items;
	for (const item of items) {
		const key = item.json.assistantApiKey;
		if (typeof key !== 'string') continue;
		const json: IDataObject = { ...item.json };
		delete json.assistantApiKey;
		json.assistantApiKeyHint = key.length > 8 ? `…${key.slice(-4)}` : '…';
		item.json = json;
	}
	return items;
}

/** POST /assistants {name, description, mode, ...Additional Fields}. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const body = withAdditionalFields(itemScope(this, itemIndex), {
			name: assertNonEmpty(node, 'Name', this.getNodeParameter('name', itemIndex), itemIndex),
			description: this.getNodeParameter('description', itemIndex, '') as string,
			mode: assertNonEmpty(node, 'Mode', this.getNodeParameter('mode', itemIndex), itemIndex),
		});
		const items = await managementRequest(this, itemIndex, 'POST', '/assistants', body);
		return protectAssistantKey(items, this.getNodeParameter('options.includeApiKey', itemIndex, false) === true);
	});
}
