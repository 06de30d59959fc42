import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { clearedExtraction } from '../../../shared/descriptions/extractionSchema';
import { forEachItem, itemScope } from '../../helpers/items';

import { assistantPath, patchRuntime, showFor } from './common';

export const description: INodeProperties[] = [
	assistantLocator(showFor('clearDataExtraction'), {
		description: 'The assistant whose data extraction to remove',
	}),
];

/** PATCH /assistants/{assistantId}/runtime/hangup/schema with the body that clears the extraction. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		return await patchRuntime(this, scope, assistantPath(scope, '/runtime/hangup/schema'), clearedExtraction());
	});
}
