import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeExecutionData, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { additionalFieldsJson } from '../../shared/descriptions';
import type { ResourceModule } from '../../shared/module';
import { redactUrlFields } from '../../shared/redact';
import { mergeJsonInto, pathFrom, sendOnce } from '../../shared/routing';
import { getCatalogTools, searchProviderModels, searchProviders } from '../catalog/methods';

import { conversationWebhookDescription, buildConversationWebhookRequest } from './conversationWebhook';
import {
	buildClearDataExtractionRequest,
	buildDataExtractionRequest,
	clearDataExtractionDescription,
	dataExtractionDescription,
} from './dataExtraction';
import { buildPostCallMcpRequest, postCallMcpDescription } from './postCallMcp';
import { attachRagDescription, buildAttachRagRequest, buildDetachRagRequest, detachRagDescription } from './rag';
import { buildProviderRequest, setProviderDescription } from './setProvider';
import { buildToolsRequest, updateToolsDescription } from './updateTools';

type PreSend = (this: IExecuteSingleFunctions, requestOptions: IHttpRequestOptions) => Promise<IHttpRequestOptions>;

/**
 * A runtime write: PATCH under /assistants/{assistantId}, body built (and checked) by `build`, then
 * Additional Fields (JSON) merged in, sent once and never retried.
 */
function patchOperation(
	name: string,
	value: string,
	action: string,
	description: string,
	path: string,
	build: PreSend,
): INodePropertyOptions {
	return {
		name,
		value,
		action,
		description,
		routing: {
			request: { method: 'PATCH', url: '=/assistants' },
			send: {
				paginate: true,
				preSend: [pathFrom(`/assistants/{assistantId}${path}`, { assistantId: 'Assistant' }), build, mergeJsonInto()],
			},
			operations: { pagination: sendOnce },
			output: { postReceive: [hideHookUrls] },
		},
	};
}

/** postReceive: the hook URLs in the platform's answer are output like every URL handed to it (redactUrl). */
async function hideHookUrls(this: IExecuteSingleFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return items.map((item) => ({ ...item, json: redactUrlFields(item.json) }));
}

const operations: INodePropertyOptions[] = [
	patchOperation(
		'Add or Remove Tools',
		'updateTools',
		'Add or remove tools of an assistant',
		"Bind tools to an assistant or unbind them; subscription names are filled in from the tool catalog",
		'/runtime/tools',
		buildToolsRequest,
	),
	patchOperation(
		'Attach RAG Collection',
		'attachRag',
		'Attach a RAG collection to an assistant',
		'Attach a retrieval collection to an assistant (it replaces the one attached before)',
		'/runtime/rag',
		buildAttachRagRequest,
	),
	patchOperation(
		'Clear Data Extraction',
		'clearDataExtraction',
		'Clear the data extraction of an assistant',
		'Remove the structured-data extraction of an assistant',
		'/runtime/hangup/schema',
		buildClearDataExtractionRequest,
	),
	patchOperation(
		'Configure Conversation Webhook',
		'configureConversationWebhook',
		'Configure the conversation webhook of an assistant',
		'Set the URL the platform calls when a conversation ends',
		'/runtime/hangup/conversation-webhook',
		buildConversationWebhookRequest,
	),
	patchOperation(
		'Configure Data Extraction',
		'configureDataExtraction',
		'Configure the data extraction of an assistant',
		'Set the data to extract from each conversation and the URL that receives it',
		'/runtime/hangup/schema',
		buildDataExtractionRequest,
	),
	patchOperation(
		'Configure Post-Call MCP',
		'configurePostCallMcp',
		'Configure the post-call MCP server of an assistant',
		'Set the tool server (MCP) the platform runs after each call',
		'/runtime/postcall/mcp-config',
		buildPostCallMcpRequest,
	),
	patchOperation(
		'Detach RAG Collection',
		'detachRag',
		'Detach the RAG collection of an assistant',
		'Detach the retrieval collection of an assistant (needed before the collection can be deleted)',
		'/runtime/rag',
		buildDetachRagRequest,
	),
	patchOperation(
		'Set Provider',
		'setProvider',
		'Set a provider of an assistant',
		'Set the TTS, ASR, LLM or audio-to-audio provider of an assistant, from the live catalog',
		'/runtime',
		buildProviderRequest,
	),
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
	...setProviderDescription,
	...updateToolsDescription,
	...attachRagDescription,
	...detachRagDescription,
	...conversationWebhookDescription,
	...dataExtractionDescription,
	...clearDataExtractionDescription,
	...postCallMcpDescription,
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
	listSearch: { searchProviders, searchProviderModels },
	loadOptions: { getCatalogTools },
};
