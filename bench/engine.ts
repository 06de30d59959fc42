/** The tests' engine (engine/) without their secrets guard, with n8n's HTTP Request and Split Out nodes; our node from this build or BENCH_SOURCE_ROOT. */
import Module from 'node:module';
import { join, resolve, sep } from 'node:path';
import { DirectoryLoader } from 'n8n-core';
import type { ICredentialType, IExecuteFunctions, INodeExecutionData, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { MemoryCredentialsHelper } from '../engine/credentials';
import { engineAdditionalData, InputNode, INPUT_TYPE, nodeTypesOf, outputOf, runChain as runEngine } from '../engine/workflow';
import type { ChainNode as EngineNode } from '../engine/workflow';
import { nodesBaseDir, PROJECT_ROOT } from './paths';

/** Our node and credentials: compiled, here or in a BENCH_VARIANTS copy (a folder whose n8n-workflow resolves to ours, e.g. by a symlink). */
const SOURCE_ROOT = resolve(process.env.BENCH_SOURCE_ROOT ?? resolve(__dirname, '..'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const construct = <T>(file: string, name: string): T => new (require(file) as Record<string, new () => T>)[name]();
export const [OUR_TYPE, FLOOR_TYPE] = ['n8n-nodes-assistant-platform.assistantPlatform', 'bench.helperLoop'];
export const [HTTP_TYPE, SPLIT_OUT_TYPE] = ['n8n-nodes-base.httpRequest', 'n8n-nodes-base.splitOut'];
/** The floor, a diagnostic: the least any node can do for Return All (ours / floor: our code; floor / raw: n8n's helper and engine). */
class HelperLoopNode implements INodeType {
	description = {
		displayName: 'Bench Helper Loop',
		name: FLOOR_TYPE,
		version: 1,
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
			const qs = cursor === undefined ? { limit } : { limit, cursor };
			const options = { method: 'GET' as const, baseURL, url: '/api/v1/assistants', qs, json: true };
			const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'assistantPlatformPortalApi', options)) as {
				data: Array<INodeExecutionData['json']>;
				meta: { hasMore: boolean; nextCursor: string };
			};
			for (const json of response.data) out.push({ json, pairedItem: { item: 0 } });
			[more, cursor] = [response.meta.hasMore, response.meta.nextCursor];
		}
		return [out];
	}
}
const credentialTypes = Object.fromEntries(
	['AssistantPlatformPortalApi', 'AssistantPlatformOutboundApi'].map((name) => [
		name[0].toLowerCase() + name.slice(1),
		construct<ICredentialType>(join(SOURCE_ROOT, `credentials/${name}.credentials.js`), name),
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
	const mod = Module as unknown as { _resolveFilename: (request: string, parent?: { filename?: string }, ...rest: unknown[]) => string };
	const original = mod._resolveFilename;
	mod._resolveFilename = function (request, parent, ...rest) {
		if (/^(n8n-workflow|n8n-core|@n8n\/di)(\/.*)?$/.test(request) && parent?.filename?.startsWith(foreignRoot + sep))
			return require.resolve(request, { paths: [join(PROJECT_ROOT, 'node_modules')] });
		return original.call(this, request, parent, ...rest);
	};
}
let foreign: { nodesBaseVersion: string; nodesBaseDir: string; httpRequestTypeVersion: number } | undefined;
/** Loads n8n's HTTP Request and Split Out nodes from n8n-nodes-base into this engine (once); their version, folder, and HTTP Request's default version. */
export function loadNodesBase(): NonNullable<typeof foreign> {
	if (foreign) return foreign;
	const dir = nodesBaseDir()!; // run.ts checked it is installed
	redirectEngineModules(resolve(dir, '..', '..'));
	const http = construct<IVersionedNodeType>(join(dir, 'dist/nodes/HttpRequest/HttpRequest.node.js'), 'HttpRequest');
	nodeTypesByName[HTTP_TYPE] = http;
	nodeTypesByName[SPLIT_OUT_TYPE] = construct<INodeType>(join(dir, 'dist/nodes/Transform/SplitOut/SplitOut.node.js'), 'SplitOut');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { version } = require(join(dir, 'package.json')) as { version: string };
	return (foreign = { nodesBaseVersion: version, nodesBaseDir: dir, httpRequestTypeVersion: Number(http.description.defaultVersion) });
}
const nodeTypes = nodeTypesOf(nodeTypesByName);
/** A node of the chain; every node has every credential the run is given. */
export type ChainNode = Pick<EngineNode, 'type' | 'typeVersion' | 'parameters'>;
type Credentials = ConstructorParameters<typeof MemoryCredentialsHelper>[0];
/** Runs Input -> chain[0] -> chain[1] ... through WorkflowExecute (mode 'manual', execution order v1): the last node's output items, or its error. */
export async function runChain(items: INodeExecutionData[], chain: ChainNode[], credentials: Credentials) {
	const refs = Object.fromEntries(Object.keys(credentials).map((type) => [type, { id: `${type}-id`, name: type }]));
	const nodes = chain.map((node, index) => ({ name: `Node ${index}`, credentials: refs, ...node }));
	const additionalData = engineAdditionalData(new MemoryCredentialsHelper(credentials, credentialTypes));
	const { run, last } = await runEngine({ nodeTypes, additionalData, items, chain: nodes, name: 'Bench' });
	return outputOf(run, last);
}
