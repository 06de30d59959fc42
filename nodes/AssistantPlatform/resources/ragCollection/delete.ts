import type { INodeProperties } from 'n8n-workflow';

import { ragCollectionLocator } from '../../../shared/descriptions';

import { showFor } from './common';

const show = showFor('delete');

export const deleteDescription: INodeProperties[] = [
	{
		displayName:
			'A collection attached to an assistant cannot be deleted: detach it first (Runtime resource, or attach another collection to that assistant)',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	ragCollectionLocator(show, { description: 'The collection to delete, with all its documents' }),
];
