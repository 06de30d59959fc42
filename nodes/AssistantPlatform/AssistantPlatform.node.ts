import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	NodeOutput,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { isToolRun } from '../shared/n8n/agentTool';
import { requestOptionsProperty } from '../shared/descriptions/fields';
import { assertSupportedN8n } from '../shared/n8n/n8nSupport';
import { searchAssistants } from '../shared/descriptions/searchAssistants';

import { searchRagCollections } from './listSearch/searchRagCollections';
import { assistantResource } from './resources/assistant';
import { callStatusResource } from './resources/callStatus';
import { campaignResource } from './resources/campaign';
import { catalogResource } from './resources/catalog';
import { customApiRequestResource } from './resources/customApiRequest';
import { doNotCallListResource } from './resources/doNotCallList';
import { outboundCallResource } from './resources/outboundCall';
import { ragCollectionResource } from './resources/ragCollection';
import { runtimeResource } from './resources/runtime';
import { N8N_API_CREDENTIAL, OUTBOUND_CREDENTIAL, PORTAL_CREDENTIAL } from '../shared/core/constants';
import { NO_GUARDRAIL_ADDED } from '../shared/guards/fields';
import type { OperationExecute, ResourceModule } from './helpers/module';
import { withToolProperties } from './helpers/toolDescriptions';
import { outputForModel } from './helpers/toolOutput';

assertSupportedN8n();

const modules: ResourceModule[] = [
	assistantResource,
	runtimeResource,
	catalogResource,
	ragCollectionResource,
	outboundCallResource,
	callStatusResource,
	campaignResource,
	doNotCallListResource,
	customApiRequestResource,
];

/** Resources that never keep state in n8n's data tables (no Assistant Platform Data Tables API credential). */
const STATELESS_RESOURCES = modules.map((module) => String(module.resource.value)).filter((value) => !['outboundCall', 'campaign', 'doNotCallList'].includes(value));

/** Resources served by the outbound API (and its credential); those of this n8n alone (its data tables); every other resource uses the portal API. */
const OUTBOUND_RESOURCES = ['outboundCall', 'callStatus', 'campaign'];
const N8N_ONLY_RESOURCES = ['doNotCallList'];

type ListSearch = (
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
) => Promise<INodeListSearchResult>;
type LoadOptions = (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>;

/** The router: resource value → operation value → that operation file's `execute`. */
const operations: Record<string, Record<string, OperationExecute>> = {};
const listSearch: Record<string, ListSearch> = { searchAssistants, searchRagCollections };
const loadOptions: Record<string, LoadOptions> = {};
for (const module of modules) {
	operations[String(module.resource.value)] = module.operations;
	Object.assign(listSearch, module.listSearch ?? {});
	Object.assign(loadOptions, module.loadOptions ?? {});
}

const managementResources = modules
	.map((module) => String(module.resource.value))
	.filter((value) => !OUTBOUND_RESOURCES.includes(value) && !N8N_ONLY_RESOURCES.includes(value));
const outboundResources = modules
	.map((module) => String(module.resource.value))
	.filter((value) => OUTBOUND_RESOURCES.includes(value));

const AUTHENTICATION_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Portal API', value: 'portalApi' },
	{ name: 'Outbound API', value: 'outboundApi' },
	{ name: 'None', value: 'none' },
];

/**
 * The canvas subtitle, "<operation>: <resource>" in the words the panel shows (e.g. "Get Many: Assistant"),
 * never the internal values: the expression looks both names up in tables built from the options.
 */
function subtitleExpression(): string {
	const resourceNames: Record<string, string> = {};
	const operationNames: Record<string, Record<string, string>> = {};
	for (const module of modules) {
		const resource = String(module.resource.value);
		resourceNames[resource] = module.resource.name;
		for (const property of module.properties) {
			if (property.name !== 'operation' || !Array.isArray(property.options)) continue;
			operationNames[resource] = {};
			for (const option of property.options as INodePropertyOptions[]) {
				operationNames[resource][String(option.value)] = option.name;
			}
		}
	}
	// Object literals inside {{ }}: a space before every closing brace, or "}}" would end the expression.
	const literal = (value: object) => JSON.stringify(value).replace(/}/g, ' }');
	return (
		`={{ (${literal(operationNames)}[$parameter["resource"]] || {})[$parameter["operation"]]` +
		` + ": " + ${literal(resourceNames)}[$parameter["resource"]] }}`
	);
}

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
		subtitle: subtitleExpression(),
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
			// Place Call's Guardrails and every Campaign operation keep their state in this n8n's data tables, through
			// n8n's API. n8n reads one description per credential type, so one condition: hidden while Guardrails has
			// nothing added (Place Call), and on the resources that keep no state.
			{
				name: N8N_API_CREDENTIAL,
				required: true,
				displayOptions: { hide: { guardrails: [NO_GUARDRAIL_ADDED], resource: STATELESS_RESOURCES } },
			},
		],
		// As an AI agent's tool, each operation has a description written for the model and described
		// $fromAI() defaults for the inputs the model fills (helpers/toolDescriptions.ts).
		properties: withToolProperties([
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: modules.map((module) => module.resource),
				default: 'assistant',
			},
			// Which credential a resource uses follows from the resource: the credentials above are shown
			// by this hidden field. Its options list "none" too (never the value): without it n8n's editor
			// takes an "authentication" field for the node's main authentication choice and offers every
			// credential type in one picker, where choosing the other type cannot work.
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'hidden',
				options: AUTHENTICATION_OPTIONS,
				default: 'portalApi',
				displayOptions: { show: { resource: managementResources } },
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'hidden',
				options: AUTHENTICATION_OPTIONS,
				default: 'outboundApi',
				displayOptions: { show: { resource: outboundResources } },
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'hidden',
				options: AUTHENTICATION_OPTIONS,
				default: 'none',
				displayOptions: { show: { resource: N8N_ONLY_RESOURCES } },
			},
			...modules.flatMap((module) => module.properties),
			requestOptionsProperty({ batching: true, timeoutDefault: 10000 }),
		]),
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<NodeOutput> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const run = operations[resource]?.[operation];
		if (!run) {
			throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
		}
		const output = await run.call(this);
		// As an AI agent's tool the output is what the model reads: one rule for every operation (helpers/toolOutput.ts).
		return isToolRun(this.getNode()) ? outputForModel(output, resource, operation) : output;
	}
}
