import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { ragCollectionLocator } from '../../../shared/descriptions/fields';

import { forEachItem, itemScope } from '../../helpers/items';
import { managementRequest } from '../../helpers/request';

import { ragPathOf, showFor } from './common';

const show = showFor('delete');

export const description: INodeProperties[] = [
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

/** DELETE /rag/collections/{ragId} (the platform refuses while the collection is attached). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const path = ragPathOf(itemScope(this, itemIndex), '/rag/collections/{ragId}');
		return await managementRequest(this, itemIndex, 'DELETE', path);
	});
}
