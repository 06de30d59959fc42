/**
 * The engine for the benchmarks: the tests' engine (engine/: n8n-core's WorkflowExecute, Input node -> nodes
 * under test, in-memory credentials) without the tests' secrets guard (which stringifies every output), and
 * with n8n's HTTP Request and Split Out nodes from the pinned n8n install loaded into it. Our node and
 * credentials may come from another build (BENCH_SOURCE_ROOT).
 */
import Module from 'node:module';
import { join, resolve, sep } from 'node:path';

import { MemoryCredentialsHelper } from '../engine/credentials';
import { engineAdditionalData, InputNode, INPUT_TYPE, outputOf, runChain as runEngine } from '../engine/workflow';

import { DirectoryLoader } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { nodesBaseDir, PROJECT_ROOT } from './paths';

export { nodesBaseDir } from './paths';

/**
 * Where our compiled node and credentials are loaded from: this build (.build/, compiled from nodes/ and
 * credentials/ by `tsc -p tsconfig.dev.json`), or BENCH_SOURCE_ROOT, e.g. a compiled scratch copy with a
 * candidate fix (it must resolve n8n-workflow to this project's copy, e.g. through a node_modules symlink).
 */
export const SOURCE_ROOT = resolve(process.env.BENCH_SOURCE_ROOT ?? resolve(__dirname, '..'));
/* eslint-disable @typescript-eslint/no-require-imports */
const { AssistantPlatform } = require(join(SOURCE_ROOT, 'nodes/AssistantPlatform/AssistantPlatform.node.js')) as {
	AssistantPlatform: new () => INodeType;
};
const { AssistantPlatformPortalApi } = require(join(SOURCE_ROOT, 'credentials/AssistantPlatformPortalApi.credentials.js')) as {
	AssistantPlatformPortalApi: new () => ICredentialType;
};
const { AssistantPlatformOutboundApi } = require(join(SOURCE_ROOT, 'credentials/AssistantPlatformOutboundApi.credentials.js')) as {
	AssistantPlatformOutboundApi: new () => ICredentialType;
};
/* eslint-enable @typescript-eslint/no-require-imports */

export const OUR_TYPE = 'n8n-nodes-assistant-platform.assistantPlatform';
export const HTTP_TYPE = 'n8n-nodes-base.httpRequest';
export const SPLIT_OUT_TYPE = 'n8n-nodes-base.splitOut';
export const FLOOR_TYPE = 'bench.helperLoop';
/**
 * Diagnostic, not a product: the least any n8n node can do for Return All with our credential. A
 * programmatic node that calls this.helpers.httpRequestWithAuthentication in a plain cursor loop and
 * outputs one item per assistant. ours / floor is the cost of our node's own code; floor / raw undici is the
 * cost of n8n's HTTP helper and execution engine.
 */
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
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' } as INodeProperties,
			{ displayName: 'Page Size', name: 'pageSize', type: 'number', default: 500 } as INodeProperties,
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const baseURL = this.getNodeParameter('baseUrl', 0) as string;
		const limit = this.getNodeParameter('pageSize', 0) as number;
		const out: INodeExecutionData[] = [];
		let cursor: string | undefined;
		for (;;) {
			const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'assistantPlatformPortalApi', {
				method: 'GET',
				baseURL,
				url: '/api/v1/assistants',
				qs: cursor === undefined ? { limit } : { limit, cursor },
				json: true,
			})) as { data: IDataObject[]; meta: { hasMore: boolean; nextCursor: string } };
			for (const json of response.data) out.push({ json, pairedItem: { item: 0 } });
			if (!response.meta.hasMore) break;
			cursor = response.meta.nextCursor;
		}
		return [out];
	}
}

const credentialTypes: Record<string, ICredentialType> = {
	assistantPlatformPortalApi: new AssistantPlatformPortalApi(),
	assistantPlatformOutboundApi: new AssistantPlatformOutboundApi(),
};

const nodeTypesByName: Record<string, INodeType | IVersionedNodeType> = {
	[INPUT_TYPE]: new InputNode(),
	[FLOOR_TYPE]: new HelperLoopNode(),
};

/**
 * Our node, loaded as n8n's loader loads every node. The loader adds Settings > Request Options only to
 * declarative nodes; ours is programmatic and carries them itself, so the call leaves it as it is.
 */
function loadOurNode(): void {
	const node = new AssistantPlatform();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(node);
	nodeTypesByName[OUR_TYPE] = node;
}
loadOurNode();

/**
 * Makes modules loaded from the n8n install resolve n8n-workflow, n8n-core and @n8n/di to this project's
 * copies (the same versions), so that the HTTP Request node runs in exactly the engine our node runs in.
 */
let redirectInstalled = false;
function redirectEngineModules(foreignRoot: string): void {
	if (redirectInstalled) return;
	redirectInstalled = true;
	const shared = /^(n8n-workflow|n8n-core|@n8n\/di)(\/.*)?$/;
	const ownPaths = [join(PROJECT_ROOT, 'node_modules')];
	const mod = Module as unknown as {
		_resolveFilename: (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
	};
	const original = mod._resolveFilename;
	mod._resolveFilename = function (request, parent, ...rest) {
		if (shared.test(request) && parent?.filename?.startsWith(foreignRoot + sep)) {
			return require.resolve(request, { paths: ownPaths });
		}
		return original.call(this, request, parent, ...rest);
	};
}

export interface ForeignNodes {
	dir: string;
	version: string;
	httpRequestDefaultVersion: number;
}

let foreign: ForeignNodes | undefined;

/** Loads n8n's HTTP Request and Split Out nodes from n8n-nodes-base into this engine (once). */
export function loadNodesBase(): ForeignNodes {
	if (foreign) return foreign;
	const dir = nodesBaseDir();
	if (!dir) throw new Error('n8n-nodes-base is not installed (.tools/n8n or .tools/bench-nodes-base)');
	redirectEngineModules(resolve(dir, '..', '..'));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { HttpRequest } = require(join(dir, 'dist/nodes/HttpRequest/HttpRequest.node.js')) as {
		HttpRequest: new () => IVersionedNodeType;
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { SplitOut } = require(join(dir, 'dist/nodes/Transform/SplitOut/SplitOut.node.js')) as {
		SplitOut: new () => INodeType;
	};
	const http = new HttpRequest();
	nodeTypesByName[HTTP_TYPE] = http;
	nodeTypesByName[SPLIT_OUT_TYPE] = new SplitOut();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const version = (require(join(dir, 'package.json')) as { version: string }).version;
	foreign = { dir, version, httpRequestDefaultVersion: Number(http.description.defaultVersion) };
	return foreign;
}

const nodeTypes: INodeTypes = {
	getByName(name: string): INodeType | IVersionedNodeType {
		const type = nodeTypesByName[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	},
	getByNameAndVersion(name: string, version?: number): INodeType {
		const type = nodeTypesByName[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return NodeHelpers.getVersionedNodeType(type, version);
	},
	getKnownTypes() {
		return {};
	},
} as INodeTypes;

export interface ChainNode {
	type: string;
	typeVersion?: number;
	parameters: IDataObject;
	/** Credential type names the node uses. */
	credentials?: string[];
	continueOnFail?: boolean;
}

export interface ChainResult {
	/** Output items of the last node. */
	items: INodeExecutionData[];
	error?: Error;
}

/**
 * Runs Input -> nodes[0] -> nodes[1] ... through WorkflowExecute (mode 'manual', execution order v1)
 * and returns the last node's output.
 */
export async function runChain(
	inputItems: INodeExecutionData[],
	chain: ChainNode[],
	credentials: Record<string, ICredentialDataDecryptedObject>,
): Promise<ChainResult> {
	const nodes = chain.map((spec, index) => ({
		name: `Node ${index}`,
		type: spec.type,
		typeVersion: spec.typeVersion ?? 1,
		parameters: spec.parameters as INode['parameters'],
		credentials: Object.fromEntries((spec.credentials ?? []).map((type) => [type, { id: `${type}-id`, name: type }])),
		continueOnFail: spec.continueOnFail,
	}));
	const additionalData = engineAdditionalData(new MemoryCredentialsHelper(credentials, credentialTypes), { executionId: 'bench-execution' });
	const { run, last } = await runEngine({ nodeTypes, additionalData, items: inputItems, chain: nodes, name: 'Bench' });
	return outputOf(run, last);
}
