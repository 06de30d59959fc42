import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { protectAssistantKeys } from '../../helpers/assistantKey';
import { additionalFieldsJson } from '../../../shared/descriptions/fields';
import { assertNonEmpty, textField } from '../../../shared/core/validation';
import { forEachItem, itemScope } from '../../helpers/items';
import { managementRequest, withAdditionalFields } from '../../helpers/request';

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

/** The fields of an assistant the spec shows as sent on create: output as sent when the answer leaves them out. */
const SENT_ON_CREATE = ['name', 'description', 'mode'] as const;

/**
 * POST /assistants {name, description, mode, ...Additional Fields}. The spec's answer is `{assistantId,
 * assistantApiKey}`: the output is the answer, completed with the name, description and mode that were sent.
 */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const body = withAdditionalFields(itemScope(this, itemIndex), {
			name: assertNonEmpty(node, 'Name', this.getNodeParameter('name', itemIndex), itemIndex),
			description: textField(node, 'Description', this.getNodeParameter('description', itemIndex, ''), itemIndex, { trim: false }),
			mode: assertNonEmpty(node, 'Mode', this.getNodeParameter('mode', itemIndex), itemIndex),
		});
		const items = await managementRequest(this, itemIndex, 'POST', '/assistants', body);
		for (const item of items) {
			for (const field of SENT_ON_CREATE) if (item.json[field] === undefined) item.json[field] = body[field];
		}
		return protectAssistantKeys(items, this.getNodeParameter('options.includeApiKey', itemIndex, false) === true);
	});
}
