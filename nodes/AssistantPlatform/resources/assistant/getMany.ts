import type { INodeProperties } from 'n8n-workflow';

import { listProperties } from '../../shared/descriptions';

const show = { resource: ['assistant'], operation: ['getAll'] };

export const getManyDescription: INodeProperties[] = [
	...listProperties(show, 'assistants'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Name Contains',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Only assistants whose name contains this text (case-insensitive)',
				routing: { send: { type: 'query', property: 'name' } },
			},
		],
	},
];
