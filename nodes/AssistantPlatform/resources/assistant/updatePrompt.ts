import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { additionalFieldsJson, assistantLocator } from '../../../shared/descriptions/fields';
import { assertNonEmpty } from '../../../shared/core/validation';
import { forEachItem, itemScope } from '../../helpers/items';
import { managementRequest, resolvePath, withAdditionalFields } from '../../helpers/request';

const show = { resource: ['assistant'], operation: ['updatePrompt'] };

export const description: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 8 },
		description: 'The new prompt. It replaces the current one.',
		displayOptions: { show },
	},
	additionalFieldsJson(show, 'prompt update'),
];

/** PATCH /assistants/{assistantId}/prompt {prompt}: a blank prompt is refused, a given one sent as typed. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = resolvePath(scope, '/assistants/{assistantId}/prompt', { assistantId: 'Assistant' });
		const value = this.getNodeParameter('prompt', itemIndex);
		const prompt = typeof value === 'string' && value.trim() !== '' ? value : assertNonEmpty(node, 'Prompt', value, itemIndex);
		const body = withAdditionalFields(scope, { prompt });
		return await managementRequest(this, itemIndex, 'PATCH', path, body);
	});
}
