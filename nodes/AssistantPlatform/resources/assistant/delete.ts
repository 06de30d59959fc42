import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { forEachItem, itemScope } from '../../helpers/items';
import { managementRequest, resolvePath } from '../../helpers/request';

const show = { resource: ['assistant'], operation: ['delete'] };

export const description: INodeProperties[] = [
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

/** DELETE /assistants/{assistantId}. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const path = resolvePath(itemScope(this, itemIndex), '/assistants/{assistantId}', { assistantId: 'Assistant' });
		return await managementRequest(this, itemIndex, 'DELETE', path);
	});
}
