import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { assistantLocator, listProperties } from '../../shared/descriptions';
import type { ResourceModule } from '../../shared/module';
import { showOperations } from '../../shared/module';
import { listOperation, readOnce, resolvePath } from '../../shared/routing';

import { assertProviderKind, providerKindOptions } from './catalogReader';

const showFor = showOperations('catalog');

/** preSend: GET /catalog/providers/{kind}, the kind checked (it may come from an expression). */
async function providersPath(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const kind = assertProviderKind(this, this.getNodeParameter('providerKind', ''), this.getItemIndex());
	return { ...requestOptions, url: `/catalog/providers/${kind}` };
}

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['catalog'] } },
		options: [
			{
				name: 'Get Assistant Tools',
				value: 'getAssistantTools',
				action: 'Get the tools of an assistant',
				description: 'List the tools bound to an assistant, with their subscription names',
			},
			{
				name: 'Get Providers',
				value: 'getProviders',
				action: 'Get the providers of a kind',
				description: 'List the supported providers of one kind (TTS, ASR, LLM or audio-to-audio) with their models',
				routing: {
					request: { method: 'GET', url: '=/catalog/providers' },
					send: { paginate: true, preSend: [providersPath] },
					operations: { pagination: readOnce },
				},
			},
			{
				name: 'Get Tools',
				value: 'getTools',
				action: 'Get the tool catalog',
				description: 'List the tools available to assistants, with the instance name of plugin and tool-server tools',
			},
		],
		default: 'getProviders',
	},
	{
		displayName: 'Kind',
		name: 'providerKind',
		type: 'options',
		options: providerKindOptions,
		default: 'llm',
		description: 'Which provider catalog to read',
		displayOptions: { show: showFor('getProviders') },
	},
	...listProperties(showFor('getTools'), 'tools'),
	assistantLocator(showFor('getAssistantTools'), { description: 'The assistant whose tools to list' }),
	...listProperties(showFor('getAssistantTools'), 'tools'),
];

export const catalogResource: ResourceModule = {
	resource: {
		name: 'Catalog',
		value: 'catalog',
		description: 'Read the provider and tool catalogs',
	},
	properties,
	customOperations: {
		getAssistantTools: listOperation({
			path: (scope) => resolvePath(scope, '/catalog/assistants/{assistantId}/tools', { assistantId: 'Assistant' }),
		}),
		getTools: listOperation({ path: () => '/catalog/tools' }),
	},
};
