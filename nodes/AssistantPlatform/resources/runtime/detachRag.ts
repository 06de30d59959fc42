import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { forEachItem, itemScope } from '../../helpers/items';

import { assistantPath, patchRuntime, showFor } from './common';

export const description: INodeProperties[] = [
	assistantLocator(showFor('detachRag'), {
		description: 'The assistant whose RAG collection to detach (a collection can be deleted only once detached)',
	}),
];

/** PATCH /assistants/{assistantId}/runtime/rag {ragId: null}: detached, the collection can be deleted. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		return await patchRuntime(this, scope, assistantPath(scope, '/runtime/rag'), { ragId: null });
	});
}
