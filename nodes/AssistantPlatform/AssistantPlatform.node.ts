import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	NodeOutput,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { assertSupportedN8n } from '../shared/n8nSupport';
import { searchAssistants } from '../shared/searchAssistants';

import { searchRagCollections } from './listSearch/searchRagCollections';
import { assistantResource } from './resources/assistant';
import { callStatusResource } from './resources/callStatus';
import { catalogResource } from './resources/catalog';
import { customApiRequestResource } from './resources/customApiRequest';
import { outboundCallResource } from './resources/outboundCall';
import { ragCollectionResource } from './resources/ragCollection';
import { runtimeResource } from './resources/runtime';
import { OUTBOUND_CREDENTIAL, PORTAL_CREDENTIAL } from './shared/constants';
import type { ResourceModule } from './shared/module';

assertSupportedN8n();

const modules: ResourceModule[] = [
	assistantResource,
	runtimeResource,
	catalogResource,
	ragCollectionResource,
	outboundCallResource,
	callStatusResource,
	customApiRequestResource,
];

/** Resources served by the outbound API (and its credential); every other resource uses the portal API. */
const OUTBOUND_RESOURCES = ['outboundCall', 'callStatus'];

type CustomOperation = (this: IExecuteFunctions) => Promise<NodeOutput>;
type ListSearch = (
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) => Promise<INodeListSearchResult>;
type LoadOptions = (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>;

const customOperations: Record<string, Record<string, CustomOperation>> = {};
const listSearch: Record<string, ListSearch> = { searchAssistants, searchRagCollections };
const loadOptions: Record<string, LoadOptions> = {};
for (const module of modules) {
	if (module.customOperations) {
		customOperations[String(module.resource.value)] = module.customOperations;
	}
	Object.assign(listSearch, module.listSearch ?? {});
	Object.assign(loadOptions, module.loadOptions ?? {});
}

const managementResources = modules
	.map((module) => String(module.resource.value))
	.filter((value) => !OUTBOUND_RESOURCES.includes(value));
const outboundResources = modules
	.map((module) => String(module.resource.value))
	.filter((value) => OUTBOUND_RESOURCES.includes(value));

export class AssistantPlatform implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Assistant Platform',
		name: 'assistantPlatform',
		icon: {
			light: 'file:assistantPlatform.svg',
			dark: 'file:assistantPlatform.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Manage voice assistants (prompt, providers, tools, RAG collections, hangup hooks) and place phone calls',
		defaults: {
			name: 'Assistant Platform',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: PORTAL_CREDENTIAL,
				required: true,
				displayOptions: { show: { authentication: ['portalApi'] } },
			},
			{
				name: OUTBOUND_CREDENTIAL,
				required: true,
				displayOptions: { show: { authentication: ['outboundApi'] } },
			},
		],
		requestDefaults: {
			baseURL: '={{String($credentials.baseUrl ?? "").replace(/\\/+$/, "")}}/api/v1',
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
			},
			json: true,
		},
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: modules.map((module) => module.resource),
				default: 'assistant',
			},
			// Which credential a resource uses follows from the resource; n8n's declarative engine picks
			// the credential through a parameter named "authentication".
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'hidden',
				default: 'portalApi',
				displayOptions: { show: { resource: managementResources } },
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'hidden',
				default: 'outboundApi',
				displayOptions: { show: { resource: outboundResources } },
			},
			...modules.flatMap((module) => module.properties),
		],
	};

	methods = { listSearch, loadOptions };

	customOperations = customOperations;
}
