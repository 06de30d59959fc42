import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as getAssistantTools from './getAssistantTools';
import * as getProviders from './getProviders';
import * as getTools from './getTools';
import { getCatalogTools, searchProviderModels, searchProviders } from './methods';

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
	...getProviders.description,
	...getTools.description,
	...getAssistantTools.description,
];

export const catalogResource: ResourceModule = {
	resource: {
		name: 'Catalog',
		value: 'catalog',
		description: 'Read the provider and tool catalogs',
	},
	properties,
	operations: {
		getAssistantTools: getAssistantTools.execute,
		getProviders: getProviders.execute,
		getTools: getTools.execute,
	},
	listSearch: { searchProviders, searchProviderModels },
	loadOptions: { getCatalogTools },
};
