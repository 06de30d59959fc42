import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../shared/module';
import { listOperation, pathFrom, sendOnce } from '../../shared/routing';

import { createDescription } from './create';
import { deleteDescription } from './delete';
import { getManyDescription, getManyQuery } from './getMany';
import { updatePromptDescription } from './updatePrompt';

const showOnlyForAssistant = { resource: ['assistant'] };

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: showOnlyForAssistant },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create an assistant',
				description: 'Create an assistant; returns its ID and its confidential API key',
				routing: {
					request: { method: 'POST', url: '/assistants' },
					send: { paginate: true },
					operations: { pagination: sendOnce },
				},
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete an assistant',
				description:
					'Delete an assistant. Irreversible: its configuration is deleted and its demo and purchased numbers are released.',
				routing: {
					request: { method: 'DELETE', url: '=/assistants' },
					send: { paginate: true, preSend: [pathFrom('/assistants/{assistantId}', { assistantId: 'Assistant' })] },
					operations: { pagination: sendOnce },
				},
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many assistants',
				description: 'List assistants, page by page',
			},
			{
				name: 'Update Prompt',
				value: 'updatePrompt',
				action: 'Update the prompt of an assistant',
				description: "Replace the assistant's prompt",
				routing: {
					request: { method: 'PATCH', url: '=/assistants' },
					send: {
						paginate: true,
						preSend: [pathFrom('/assistants/{assistantId}/prompt', { assistantId: 'Assistant' })],
					},
					operations: { pagination: sendOnce },
				},
			},
		],
		default: 'getAll',
	},
	...createDescription,
	...deleteDescription,
	...getManyDescription,
	...updatePromptDescription,
];

export const assistantResource: ResourceModule = {
	resource: {
		name: 'Assistant',
		value: 'assistant',
		description: 'Create, list and delete assistants, and update their prompt',
	},
	properties,
	customOperations: {
		getAll: listOperation({ path: () => '/assistants', query: getManyQuery }),
	},
};
