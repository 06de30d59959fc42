import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator, ragCollectionLocator } from '../../../shared/descriptions/fields';
import { forEachItem, itemScope } from '../../helpers/items';
import { assertRagId } from '../ragCollection/rules';

import { assistantPath, patchRuntime, showFor } from './common';

const show = showFor('attachRag');

export const description: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName:
			'An assistant has at most one RAG collection: attaching one replaces the collection attached before',
		name: 'attachRagNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	ragCollectionLocator(show, { description: 'The collection to attach' }),
];

/** PATCH /assistants/{assistantId}/runtime/rag {ragId} (docs/assumptions.md row 14). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/rag');
		const ragId = assertRagId(this.getNode(), 'RAG Collection', this.getNodeParameter('ragId', itemIndex, '', { extractValue: true }), itemIndex);
		return await patchRuntime(this, scope, path, { ragId });
	});
}
