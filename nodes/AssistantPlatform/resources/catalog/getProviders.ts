import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { forEachItem } from '../../helpers/items';
import { showOperations } from '../../helpers/module';
import { managementRequest } from '../../helpers/request';

import { assertProviderKind, providerKindOptions } from './catalogReader';

export const description: INodeProperties[] = [
	{
		displayName: 'Kind',
		name: 'providerKind',
		type: 'options',
		options: providerKindOptions,
		default: 'llm',
		description: 'Which provider catalog to read',
		displayOptions: { show: showOperations('catalog')('getProviders') },
	},
];

/** GET /catalog/providers/{kind}, the kind checked (it may come from an expression). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const kind = assertProviderKind(this, this.getNodeParameter('providerKind', itemIndex, ''), itemIndex);
		return await managementRequest(this, itemIndex, 'GET', `/catalog/providers/${kind}`);
	});
}
