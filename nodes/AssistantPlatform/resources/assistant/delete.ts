import type { INodeProperties } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions';

const show = { resource: ['assistant'], operation: ['delete'] };

export const deleteDescription: INodeProperties[] = [
	{
		displayName:
			'Deleting an assistant is irreversible: its configuration is deleted and its demo and purchased numbers are released',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	assistantLocator(show, { description: 'The assistant to delete' }),
];
