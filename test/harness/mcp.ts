/**
 * What an MCP client reads when it calls the Assistant Platform node as a tool through n8n's MCP Server Trigger, with
 * n8n-core's real tool wrapper: a server node (tools attached, no language model, as the MCP Server Trigger) gets its
 * tools from n8n (getInputConnectionData: the tool variant of the node wrapped by n8n-core's createNodeAsTool and
 * makeHandleToolInvocation) and invokes one per call, as the trigger's direct execution does (`tool.invoke(args)`).
 * A failed tool reaches the client as n8n 2.41.1's MCP Server Trigger formats an error (`${error.name}:
 * ${error.message}`), the message being the one n8n's wrapper composed ("<message>\n\nDetails: <description>").
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';
import { WorkflowExecute } from 'n8n-core';

import { TOOL_TYPE } from './agent';
import { attachHooks, credentialsOfNode, inputNode, makeAdditionalData, nodeTypes, registerNodeType } from './engine';
import { recordProduced } from './secretsGuard';

const SERVER_TYPE = 'test.mcpServer';
const SERVER = 'MCP Server Trigger';

/** What the client read back from one tool call: the text of the result, and whether it is an error. */
export interface McpResult {
	text: string;
	isError: boolean;
}

interface InvocableTool {
	invoke(args: IDataObject): Promise<unknown>;
}

/** The server: invokes its one tool once per call of its `calls` parameter (a JSON list of tool arguments). */
class McpServerNode {
	description = {
		displayName: 'Test MCP Server',
		name: SERVER_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Calls its tool as an MCP client asks',
		defaults: { name: SERVER },
		inputs: [NodeConnectionTypes.Main, NodeConnectionTypes.AiTool],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Calls', name: 'calls', type: 'json', default: '[]' }],
	} as unknown as INodeTypeDescription;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const calls = JSON.parse(this.getNodeParameter('calls', 0) as string) as IDataObject[];
		const [tool] = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as InvocableTool[];
		const results: McpResult[] = [];
		for (const args of calls) {
			try {
				const result = await tool.invoke(args);
				results.push({ text: typeof result === 'string' ? result : JSON.stringify(result), isError: false });
			} catch (error) {
				results.push({ text: `${(error as Error).name}: ${(error as Error).message}`, isError: true });
			}
		}
		return [[{ json: { results } as unknown as IDataObject }]];
	}
}
registerNodeType(SERVER_TYPE, new McpServerNode() as never);

/** Runs Input -> MCP Server with `tool` (the node's tool variant) attached; returns what the client read per call. */
export async function callAsMcpClient(options: {
	tool: { name: string; parameters: IDataObject; settings?: Partial<INode> };
	calls: IDataObject[];
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** The workflow's id (default mcp-workflow): a durable limit counts per workflow id. */
	workflowId?: string;
}): Promise<McpResult[]> {
	const input = inputNode([{ json: {} }]);
	const server: INode = { id: 'server', name: SERVER, type: SERVER_TYPE, typeVersion: 1, position: [200, 0], parameters: { calls: JSON.stringify(options.calls) } };
	const tool: INode = {
		id: 'tool',
		name: options.tool.name,
		type: TOOL_TYPE,
		typeVersion: 1,
		position: [200, 200],
		parameters: options.tool.parameters as INode['parameters'],
		credentials: credentialsOfNode(options.credentials),
		...(options.tool.settings ?? {}),
	};
	const workflow = new Workflow({
		id: options.workflowId ?? 'mcp-workflow',
		name: 'MCP',
		nodes: [input, server, tool],
		connections: {
			Input: { main: [[{ node: SERVER, type: 'main', index: 0 }]] },
			[tool.name]: { ai_tool: [[{ node: SERVER, type: 'ai_tool', index: 0 }]] },
		},
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const additionalData = makeAdditionalData(options.credentials);
	attachHooks(additionalData, 'manual', workflow);
	const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode: input });
	const error = run.data.resultData.error;
	if (error) throw error;
	const results = (run.data.resultData.runData[SERVER]?.at(-1)?.data?.main?.[0]?.[0]?.json.results ?? []) as unknown as McpResult[];
	recordProduced(results);
	recordProduced(run.data.resultData.runData);
	return results;
}
