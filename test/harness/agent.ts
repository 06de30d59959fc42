/**
 * The Assistant Platform node as an AI agent's tool, through n8n-core's real WorkflowExecute: the tool variant n8n
 * derives from a node with `usableAsTool` (name + "Tool", no main input, an ai_tool output), and a scripted agent
 * node that asks the engine to run tools the way n8n 2.41's AI Agent does (an engine request with one action per
 * tool call; the engine runs each as a run of the tool node, resolves its `$fromAI()` parameters from the action's
 * input and hands the results back to the agent, which runs again). Only `error.message` of a failed tool reaches
 * the agent, as in n8n. What a real model receives is covered by the AI Agent suite (npm run test:ai).
 */
import type {
	EngineRequest,
	EngineResponse,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IRun,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';
import { WorkflowExecute } from 'n8n-core';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';

import { attachHooks, credentialsOfNode, inputNode, makeAdditionalData, NODE_TYPE, nodeTypes, registerNodeType } from './engine';
import { recordProduced } from './secretsGuard';

export const TOOL_TYPE = `${NODE_TYPE}Tool`;
const AGENT_TYPE = 'test.agent';
const AGENT = 'Agent';
const MODEL_TYPE = 'test.model';
const MODEL = 'Model';

/**
 * The tool variant of a node, as n8n 2.41 builds it for a node with `usableAsTool` (convertNodeToAiTool in n8n's
 * tool-generation): name + "Tool", no main input, an ai_tool output, and, unless the node has a `toolDescription`
 * parameter of its own, n8n's "Tool Description" choice (automatic by default) and text.
 */
export function asTool(base: INodeType): INodeType {
	const description: INodeTypeDescription = {
		...base.description,
		name: `${base.description.name}Tool`,
		displayName: `${base.description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
	delete description.usableAsTool;
	if (!description.properties.some((property) => property.name === 'toolDescription')) {
		description.properties = [
			{
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Set Automatically', value: 'auto' },
					{ name: 'Set Manually', value: 'manual' },
				],
				default: 'auto',
			},
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: base.description.description,
				required: true,
				displayOptions: { show: { descriptionType: ['manual'] } },
			},
			...description.properties,
		];
	}
	return Object.assign(Object.create(Object.getPrototypeOf(base)) as INodeType, base, { description });
}

export const toolType = asTool(new AssistantPlatform());
registerNodeType(TOOL_TYPE, toolType);

/** One tool call of the model: the tool node's name and the arguments the model gives. */
export interface ToolCall {
	tool: string;
	input: IDataObject;
}

/** What the agent read back from one tool call: the tool's output items, or the message of its error. */
export interface ToolResult extends ToolCall {
	items?: IDataObject[];
	error?: string;
}

interface AgentMemory extends IDataObject {
	turn: number;
	results: IDataObject[];
}

/**
 * The scripted agent: each run takes the next turn of its `turns` parameter (a JSON list of turns, each a list of
 * tool calls) and returns it as an engine request; when the turns are used up it outputs what every tool call
 * returned. The engine runs the requested tools and runs the agent again with their results.
 */
class ScriptedAgent implements INodeType {
	description = {
		displayName: 'Scripted Agent',
		name: AGENT_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Calls tools as scripted',
		defaults: { name: AGENT },
		inputs: [NodeConnectionTypes.Main, NodeConnectionTypes.AiTool],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Turns', name: 'turns', type: 'json', default: '[]' }],
	} as unknown as INodeTypeDescription;

	async execute(this: IExecuteFunctions, response?: EngineResponse): Promise<INodeExecutionData[][] | EngineRequest> {
		const turns = JSON.parse(this.getNodeParameter('turns', 0) as string) as ToolCall[][];
		// The engine hands the request's metadata back with the results (an empty object on the first run).
		const memory = (response?.metadata ?? {}) as Partial<AgentMemory>;
		const turnIndex = memory.turn ?? 0;
		const results = [...(memory.results ?? [])];
		for (const { action, data } of response?.actionResponses ?? []) {
			const output = data.data?.ai_tool?.[0]?.map((item) => item.json);
			const error = (data.error as Error | undefined)?.message;
			results.push({ tool: action.nodeName, input: action.input, ...(error ? { error } : { items: output ?? [] }) });
		}
		const turn = turns[turnIndex];
		if (!turn) return [[{ json: { results } }]];
		return {
			actions: turn.map((call, index) => ({
				actionType: 'ExecutionNodeAction',
				nodeName: call.tool,
				input: call.input,
				type: NodeConnectionTypes.AiTool,
				id: `call_${turnIndex}_${index}`,
				metadata: { itemIndex: 0 },
			})),
			metadata: { turn: turnIndex + 1, results },
		} as unknown as EngineRequest;
	}
}
registerNodeType(AGENT_TYPE, new ScriptedAgent());

/** A language model sub-node: attached to the agent as n8n's agents have one (the scripted agent never asks it). */
class ModelNode implements INodeType {
	description = {
		displayName: 'Test Model',
		name: MODEL_TYPE,
		group: ['transform'],
		version: 1,
		description: 'A model the scripted agent is attached to',
		defaults: { name: MODEL },
		inputs: [],
		outputs: [NodeConnectionTypes.AiLanguageModel],
		properties: [],
	} as unknown as INodeTypeDescription;
}
registerNodeType(MODEL_TYPE, new ModelNode());

export interface AgentRunOptions {
	/** Tool nodes: their names and parameters (as the editor stores them: defaults left out). */
	tools: Array<{ name: string; parameters: IDataObject; settings?: Partial<INode> }>;
	/** The model's turns: each a list of tool calls made at once. */
	turns: ToolCall[][];
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Input items of the agent (default one empty item). */
	items?: INodeExecutionData[];
	/**
	 * Without a language model attached, the calling node is not an agent (as an MCP Server Trigger, which runs the
	 * tools an MCP client calls): the tool cannot name an agent run.
	 */
	withoutModel?: boolean;
	/** The workflow's id (default agent-workflow): a durable limit counts per workflow id. */
	workflowId?: string;
}

export interface AgentRunResult {
	/** Every tool call with what the agent read back, in the order the engine ran them. */
	results: ToolResult[];
	run: IRun;
	/** The workflow's error, when the run stopped. */
	error?: Error;
}

/** Runs Input -> Agent with the tools attached; returns what the agent read back from each tool call. */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunResult> {
	const input = inputNode(options.items ?? [{ json: {} }]);
	const agent: INode = {
		id: 'agent',
		name: AGENT,
		type: AGENT_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: { turns: JSON.stringify(options.turns) },
	};
	const tools: INode[] = options.tools.map((tool, i) => ({
		id: `tool-${i}`,
		name: tool.name,
		type: TOOL_TYPE,
		typeVersion: 1,
		position: [200 + i * 100, 200],
		parameters: tool.parameters as INode['parameters'],
		credentials: credentialsOfNode(options.credentials),
		...(tool.settings ?? {}),
	}));
	const connections: Workflow['connectionsBySourceNode'] = {
		Input: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
	};
	for (const tool of tools) connections[tool.name] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
	const model: INode[] = options.withoutModel
		? []
		: [{ id: 'model', name: MODEL, type: MODEL_TYPE, typeVersion: 1, position: [200, 400], parameters: {} }];
	if (!options.withoutModel) connections[MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	const workflow = new Workflow({
		id: options.workflowId ?? 'agent-workflow',
		name: 'Agent',
		nodes: [input, agent, ...tools, ...model],
		connections,
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const additionalData = makeAdditionalData(options.credentials);
	attachHooks(additionalData, 'manual', workflow);
	const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode: input });
	const output = run.data.resultData.runData[AGENT]?.at(-1)?.data?.main?.[0]?.[0]?.json as { results?: ToolResult[] } | undefined;
	const results = output?.results ?? [];
	recordProduced(results);
	recordProduced(run.data.resultData.runData);
	const error = run.data.resultData.error as Error | undefined;
	if (error) recordProduced(error);
	return { results, run, error };
}

/** The parameters n8n gives a tool node (the given ones plus every default shown for a tool). */
export function toolParameters(parameters: IDataObject): IDataObject {
	return NodeHelpers.getNodeParameters(
		toolType.description.properties,
		parameters as INode['parameters'],
		true,
		false,
		null,
		toolType.description,
	) as IDataObject;
}
