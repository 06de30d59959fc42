/**
 * The tests' engine (engine/) without their secrets guard, with n8n's HTTP Request and Split Out nodes; our node from
 * this build or from BENCH_SOURCE_ROOT (a compiled copy that resolves n8n-workflow to ours, e.g. by a symlink).
 */
import Module from 'node:module';
import { join, resolve, sep } from 'node:path';
import { DirectoryLoader } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { MemoryCredentialsHelper } from '../engine/credentials';
import { engineAdditionalData, InputNode, INPUT_TYPE, outputOf, runChain as runEngine } from '../engine/workflow';
import { nodesBaseDir, PROJECT_ROOT } from './paths';

const SOURCE_ROOT = resolve(process.env.BENCH_SOURCE_ROOT ?? resolve(__dirname, '..'));
function construct<T>(file: string, name: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return new (require(file) as Record<string, new () => T>)[name]();
}

export const [OUR_TYPE, HTTP_TYPE, SPLIT_OUT_TYPE, FLOOR_TYPE] = [
	'n8n-nodes-assistant-platform.assistantPlatform',
	'n8n-nodes-base.httpRequest',
	'n8n-nodes-base.splitOut',
	'bench.helperLoop',
];
/** The floor, a diagnostic: the least any node can do for Return All (ours / floor: our code; floor / raw: n8n's helper and engine). */
class HelperLoopNode implements INodeType {
	description = {
		displayName: 'Bench Helper Loop',
		name: FLOOR_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Cursor loop over httpRequestWithAuthentication',
		defaults: { name: 'Helper Loop' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'assistantPlatformPortalApi', required: true }],
		properties: [
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
			{ displayName: 'Page Size', name: 'pageSize', type: 'number', default: 500 },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const [baseURL, limit] = [this.getNodeParameter('baseUrl', 0) as string, this.getNodeParameter('pageSize', 0) as number];
		const out: INodeExecutionData[] = [];
		for (let cursor: string | undefined, more = true; more; ) {
			const options = {
				method: 'GET' as const,
				baseURL,
				url: '/api/v1/assistants',
				qs: cursor === undefined ? { limit } : { limit, cursor },
				json: true,
			};
			const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'assistantPlatformPortalApi', options)) as {
				data: IDataObject[];
				meta: { hasMore: boolean; nextCursor: string };
			};
			for (const json of response.data) out.push({ json, pairedItem: { item: 0 } });
			[more, cursor] = [response.meta.hasMore, response.meta.nextCursor];
		}
		return [out];
	}
}

const credentialTypes: Record<string, ICredentialType> = Object.fromEntries(
	['AssistantPlatformPortalApi', 'AssistantPlatformOutboundApi'].map((name) => [
		name[0].toLowerCase() + name.slice(1),
		construct(join(SOURCE_ROOT, `credentials/${name}.credentials.js`), name),
	]),
);
/** Our node, loaded as n8n's loader loads every node (which adds Settings > Request Options to declarative nodes only: ours carries them). */
const ourNode = construct<INodeType>(join(SOURCE_ROOT, 'nodes/AssistantPlatform/AssistantPlatform.node.js'), 'AssistantPlatform');
DirectoryLoader.applyDeclarativeNodeOptionParameters(ourNode);
const nodeTypesByName: Record<string, INodeType | IVersionedNodeType> = {
	[INPUT_TYPE]: new InputNode(),
	[FLOOR_TYPE]: new HelperLoopNode(),
	[OUR_TYPE]: ourNode,
};
/** Modules loaded from the n8n install resolve n8n-workflow, n8n-core and @n8n/di to this project's copies (the same versions): one engine for all. */
function redirectEngineModules(foreignRoot: string): void {
	const mod = Module as unknown as {
		_resolveFilename: (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
	};
	const original = mod._resolveFilename;
	mod._resolveFilename = function (request, parent, ...rest) {
		if (/^(n8n-workflow|n8n-core|@n8n\/di)(\/.*)?$/.test(request) && parent?.filename?.startsWith(foreignRoot + sep))
			return require.resolve(request, { paths: [join(PROJECT_ROOT, 'node_modules')] });
		return original.call(this, request, parent, ...rest);
	};
}

let foreign: { dir: string; version: string; httpRequestDefaultVersion: number } | undefined;
/** Loads n8n's HTTP Request and Split Out nodes from n8n-nodes-base into this engine (once). */
export function loadNodesBase(): NonNullable<typeof foreign> {
	if (foreign) return foreign;
	const dir = nodesBaseDir();
	if (!dir) throw new Error('n8n-nodes-base is not installed (.tools/n8n or .tools/bench-nodes-base)');
	redirectEngineModules(resolve(dir, '..', '..'));
	const http = construct<IVersionedNodeType>(join(dir, 'dist/nodes/HttpRequest/HttpRequest.node.js'), 'HttpRequest');
	nodeTypesByName[HTTP_TYPE] = http;
	nodeTypesByName[SPLIT_OUT_TYPE] = construct<INodeType>(join(dir, 'dist/nodes/Transform/SplitOut/SplitOut.node.js'), 'SplitOut');
	foreign = {
		dir,
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		version: (require(join(dir, 'package.json')) as { version: string }).version,
		httpRequestDefaultVersion: Number(http.description.defaultVersion),
	};
	return foreign;
}

function typeNamed(name: string): INodeType | IVersionedNodeType {
	if (!nodeTypesByName[name]) throw new Error(`Unknown node type ${name}`);
	return nodeTypesByName[name];
}
const nodeTypes = {
	getByName: typeNamed,
	getByNameAndVersion: (name: string, version?: number) => NodeHelpers.getVersionedNodeType(typeNamed(name), version),
	getKnownTypes: () => ({}),
} as INodeTypes;
export type ChainNode = { type: string; typeVersion?: number; parameters: IDataObject; credentials?: string[] };
/** Runs Input -> chain[0] -> chain[1] ... through WorkflowExecute (mode 'manual', execution order v1): the last node's output items, or its error. */
export async function runChain(
	inputItems: INodeExecutionData[],
	chain: ChainNode[],
	credentials: Record<string, ICredentialDataDecryptedObject>,
): Promise<{ items: INodeExecutionData[]; error?: Error }> {
	const credentialsOf = (spec: ChainNode) =>
		Object.fromEntries((spec.credentials ?? []).map((type) => [type, { id: `${type}-id`, name: type }]));
	const nodes = chain.map((spec, index) => ({
		name: `Node ${index}`,
		type: spec.type,
		typeVersion: spec.typeVersion ?? 1,
		parameters: spec.parameters as INode['parameters'],
		credentials: credentialsOf(spec),
	}));
	const additionalData = engineAdditionalData(new MemoryCredentialsHelper(credentials, credentialTypes), {
		executionId: 'bench-execution',
	});
	const { run, last } = await runEngine({ nodeTypes, additionalData, items: inputItems, chain: nodes, name: 'Bench' });
	return outputOf(run, last);
}
