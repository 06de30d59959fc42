import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as create from './create';
import * as del from './delete';
import * as getMany from './getMany';
import * as updatePrompt from './updatePrompt';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['assistant'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create an assistant',
				description: 'Create an assistant; returns its ID and its confidential API key',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete an assistant',
				description:
					'Delete an assistant. Irreversible: its configuration is deleted and its demo and purchased numbers are released.',
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
			},
		],
		default: 'getAll',
	},
	...create.description,
	...del.description,
	...getMany.description,
	...updatePrompt.description,
];

export const assistantResource: ResourceModule = {
	resource: {
		name: 'Assistant',
		value: 'assistant',
		description: 'Create, list and delete assistants, and update their prompt',
	},
	properties,
	operations: {
		create: create.execute,
		delete: del.execute,
		getAll: getMany.execute,
		updatePrompt: updatePrompt.execute,
	},
};
