import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { additionalFieldsJson } from '../../../shared/descriptions/fields';
import type { ResourceModule } from '../../helpers/module';

import * as attachRag from './attachRag';
import * as clearDataExtraction from './clearDataExtraction';
import * as configureConversationWebhook from './configureConversationWebhook';
import * as configureDataExtraction from './configureDataExtraction';
import * as configurePostCallMcp from './configurePostCallMcp';
import * as detachRag from './detachRag';
import * as setProvider from './setProvider';
import * as updateTools from './updateTools';

const operations: INodePropertyOptions[] = [
	{
		name: 'Add or Remove Tools',
		value: 'updateTools',
		action: 'Add or remove tools of an assistant',
		description: 'Bind tools to an assistant or unbind them; subscription names are filled in from the tool catalog',
	},
	{
		name: 'Attach RAG Collection',
		value: 'attachRag',
		action: 'Attach a RAG collection to an assistant',
		description: 'Attach a retrieval collection to an assistant (it replaces the one attached before)',
	},
	{
		name: 'Clear Data Extraction',
		value: 'clearDataExtraction',
		action: 'Clear the data extraction of an assistant',
		description: 'Remove the structured-data extraction of an assistant',
	},
	{
		name: 'Configure Conversation Webhook',
		value: 'configureConversationWebhook',
		action: 'Configure a conversation webhook',
		description: 'Set the URL the platform calls when a conversation ends',
	},
	{
		name: 'Configure Data Extraction',
		value: 'configureDataExtraction',
		action: 'Configure the data extraction',
		description: 'Set the data to extract from each conversation and the URL that receives it',
	},
	{
		name: 'Configure Post-Call MCP',
		value: 'configurePostCallMcp',
		action: 'Configure a post-call MCP server',
		description: 'Set the tool server (MCP) the platform runs after each call',
	},
	{
		name: 'Detach RAG Collection',
		value: 'detachRag',
		action: 'Detach the RAG collection of an assistant',
		description: 'Detach the retrieval collection of an assistant (needed before the collection can be deleted)',
	},
	{
		name: 'Set Provider',
		value: 'setProvider',
		action: 'Set a provider of an assistant',
		description: 'Set the TTS, ASR, LLM or audio-to-audio provider of an assistant, from the live catalog',
	},
];

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['runtime'] } },
		options: operations,
		default: 'setProvider',
	},
	...setProvider.description,
	...updateTools.description,
	...attachRag.description,
	...detachRag.description,
	...configureConversationWebhook.description,
	...configureDataExtraction.description,
	...clearDataExtraction.description,
	...configurePostCallMcp.description,
	// One field for every runtime write: each merges it into its body (patchRuntime in common.ts).
	additionalFieldsJson(
		{ resource: ['runtime'], operation: operations.map((operation) => String(operation.value)) },
		'request',
	),
];

export const runtimeResource: ResourceModule = {
	resource: {
		name: 'Runtime',
		value: 'runtime',
		description: 'Configure an assistant at run time: providers, tools, RAG collection, hangup hooks',
	},
	properties,
	operations: {
		attachRag: attachRag.execute,
		clearDataExtraction: clearDataExtraction.execute,
		configureConversationWebhook: configureConversationWebhook.execute,
		configureDataExtraction: configureDataExtraction.execute,
		configurePostCallMcp: configurePostCallMcp.execute,
		detachRag: detachRag.execute,
		setProvider: setProvider.execute,
		updateTools: updateTools.execute,
	},
};
