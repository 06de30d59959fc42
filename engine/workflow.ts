/**
 * The in-process n8n engine the tests (test/harness/engine.ts) and the benchmarks (bench/engine.ts) run
 * workflows in: n8n-core's real WorkflowExecute, a start node that emits the items it is given, and the
 * additional data n8n hands to a run. Each caller brings its own node types and credentials helper.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core reads its user folder when it is loaded: a fresh one per process, unless the caller set one.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-ap-engine-'));

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialsHelper,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

export const INPUT_TYPE = 'engine.input';

/** The start node: emits the items given in its `items` parameter (JSON), binary data included. */
export class InputNode implements INodeType {
	description = {
		displayName: 'Input',
		name: INPUT_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits the items it is given',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' } as INodeProperties],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [JSON.parse(this.getNodeParameter('items', 0) as string) as INodeExecutionData[]];
	}
}

/**
 * n8n's node types over `byName`, read when asked (a type added later is found): a versioned type resolves to the
 * version asked for; an unknown name throws.
 */
export function nodeTypesOf(byName: Record<string, INodeType | IVersionedNodeType>): INodeTypes {
	const getByName = (name: string): INodeType | IVersionedNodeType => {
		if (!byName[name]) throw new Error(`Unknown node type ${name}`);
		return byName[name];
	};
	const getByNameAndVersion = (name: string, version?: number) => NodeHelpers.getVersionedNodeType(getByName(name), version);
	return { getByName, getByNameAndVersion, getKnownTypes: () => ({}) } as INodeTypes;
}

/** What n8n hands to a run: the credentials helper, the instance's URLs (webhooks, resume) and no sub-workflows. */
export function engineAdditionalData(
	credentialsHelper: ICredentialsHelper,
	{ executionId = 'engine-execution', webhookBaseUrl = 'http://127.0.0.1:5678' }: { executionId?: string; webhookBaseUrl?: string } = {},
): IWorkflowExecuteAdditionalData {
	const base = webhookBaseUrl;
	return {
		credentialsHelper,
		executeWorkflow: async () => {
			throw new Error('executeWorkflow is not available in this engine');
		},
		getRunExecutionData: async () => undefined,
		executionId,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: {},
		currentNodeExecutionIndex: 0,
		logAiEvent: () => {},
		getRuntimeCredential: async () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** The start node "Input", emitting `items`. */
export function inputNode(items: INodeExecutionData[]): INode {
	return { id: 'input', name: 'Input', type: INPUT_TYPE, typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(items) } };
}

/** n8n's lifecycle hooks for a run of `workflow` (WorkflowExecute needs them), set on `additionalData`. */
export function attachHooks(additionalData: IWorkflowExecuteAdditionalData, mode: WorkflowExecuteMode, workflow: Workflow): void {
	const now = new Date();
	const data = { id: workflow.id, name: workflow.name, nodes: Object.values(workflow.nodes), connections: workflow.connectionsBySourceNode, active: false, isArchived: false, createdAt: now, updatedAt: now, activeVersionId: null };
	additionalData.hooks = new ExecutionLifecycleHooks(mode, additionalData.executionId!, data as never);
}

/** A node of a chain: what differs from one run to the next. */
export type ChainNode = Pick<INode, 'name' | 'type' | 'parameters'> & Partial<INode>;

/**
 * Runs Input -> chain[0] -> chain[1] ... through WorkflowExecute (execution order v1) and returns the run and
 * the last node. Throws what n8n's own pre-flight checks throw before any node runs.
 */
export async function runChain(options: {
	nodeTypes: INodeTypes;
	additionalData: IWorkflowExecuteAdditionalData;
	items: INodeExecutionData[];
	chain: ChainNode[];
	mode?: WorkflowExecuteMode;
	name?: string;
	/** The workflow's static data (n8n keeps it between executions that are not manual ones); changes land in it. */
	staticData?: IDataObject;
}): Promise<{ run: IRun; last: INode }> {
	const { nodeTypes, additionalData, chain, mode = 'manual', name = 'Engine', staticData } = options;
	const input = inputNode(options.items);
	const nodes = [input, ...chain.map((node, index) => ({ id: `node-${index}`, typeVersion: 1, position: [200 * (index + 1), 0], ...node }) as INode)];
	const connections: Workflow['connectionsBySourceNode'] = {};
	for (let i = 1; i < nodes.length; i++) connections[nodes[i - 1].name] = { main: [[{ node: nodes[i].name, type: 'main', index: 0 }]] };
	const id = `${name.toLowerCase()}-workflow`;
	const workflow = new Workflow({ id, name, nodes, connections, active: false, nodeTypes, staticData, settings: { executionOrder: 'v1' } });
	attachHooks(additionalData, mode, workflow);
	const run = await new WorkflowExecute(additionalData, mode).run({ workflow, startNode: input });
	return { run, last: nodes[nodes.length - 1] };
}

/** The output items and the error of a node in a run. */
export function outputOf(run: IRun, node: INode): { items: INodeExecutionData[]; error?: Error & IDataObject } {
	const taskData = run.data.resultData.runData[node.name]?.[0];
	const error = (taskData?.error ?? run.data.resultData.error) as (Error & IDataObject) | undefined;
	return { items: (taskData?.data?.main?.[0] ?? []) as INodeExecutionData[], error };
}
