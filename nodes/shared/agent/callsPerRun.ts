import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { assertNotFromModel, isToolRun } from '../n8n/agentTool';
import { callCapReachedMessage, markNoCallPlaced, NO_CALL_PLACED } from '../calls/messages';
import { assertIntegerInRange } from '../core/validation';

/*
 * Max Calls per Agent Run (Place Call as an AI agent's tool; docs/assumptions.md, "AI agents"): the most calls one
 * run of the agent may place.
 */

export const DEFAULT_CALLS_PER_RUN = 1;
export const MAX_CALLS_PER_RUN = 1000;

/** The Max Calls per Agent Run field of Place Call, shown only on the AI agent's tool. */
export function callsPerRunProperty(show: { resource: string[]; operation: string[] }): INodeProperties {
	return {
		displayName: 'Max Calls per Agent Run',
		name: 'maxCallsPerRun',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CALLS_PER_RUN },
		default: DEFAULT_CALLS_PER_RUN,
		description:
			'The most calls one run of the AI agent may place with this tool (a run: the agent answering one chat message or one trigger, all its turns and tool calls included). Further calls are refused before anything is sent and the model is told the limit is reached. Calls the platform refused do not count; calls whose outcome is unknown do.',
		displayOptions: { show: { '@tool': [true], ...show } },
	};
}

/**
 * Which run of an AI agent a tool call belongs to, or undefined when no agent run can be named. n8n runs each tool
 * call of an agent as a run of the tool node whose source is the agent's node run: every turn of one agent run,
 * and every tool call of one turn, shares it; the next chat message or trigger is a new execution. (An agent that
 * gets several items in one run runs them together: they share the count.) The key is the calling node's name and
 * run index, and only when that node is an agent: this tool is attached to it (ai_tool) and a language model is
 * attached to it (ai_languageModel), as n8n's AI Agent and AI Agent Tool are; behind a human review step, the
 * execution. An MCP Server Trigger runs each tool call of an MCP client as its own execution (the tool run has no
 * source, and n8n 2.x names the trigger), where a count per execution would start again with every call: there is
 * no agent run to count, and the caller refuses rather than guess.
 */
function agentRunKey(ctx: IExecuteFunctions): string | undefined {
	const source = ctx.getExecuteData?.()?.source?.main?.[0];
	const caller = source?.previousNode;
	if (!caller) return undefined;
	// An execution an MCP client started (n8n 2.x names its trigger): every tool call is an execution of its own.
	const trigger = (ctx.getExecutionContext?.() as { triggerNode?: { type?: unknown } } | undefined)?.triggerNode?.type;
	if (typeof trigger === 'string' && /\.mcpTrigger$/.test(trigger)) return undefined;
	const tools = ctx.getParentNodes(caller, { connectionType: NodeConnectionTypes.AiTool, depth: 1 });
	if (!tools.some((tool) => tool.name === ctx.getNode().name)) return undefined;
	const models = ctx.getParentNodes(caller, { connectionType: NodeConnectionTypes.AiLanguageModel, depth: 1 });
	if (models.length > 0) return `${caller}#${source.previousNodeRun ?? 0}`;
	// A caller with tools and no model, inside the execution: a human review step between the agent and the tool
	// (n8n's review nodes, e.g. "Review in Chat"), which runs once per reviewed call, so its run index grows with
	// every review. The count is kept per execution: one agent run answering one chat message or trigger (several
	// agent runs in one execution share it: the safe side).
	return `${caller}@execution`;
}

/** The calls this agent run may still place with this tool: take one before each POST, give it back after a 4xx. */
export interface CallSlots {
	/** Takes a slot; past the cap, returns the refusal to report instead (nothing may be sent). */
	take(itemIndex: number): NodeOperationError | undefined;
	/** Gives a slot back: the platform refused the call (4xx), no call was placed. */
	release(): void;
}

/**
 * The call slots of this agent run, undefined unless the node runs as an AI agent's tool. The count lives in the
 * execution's context of this node (kept with the execution, across the agent's turns, also when the execution
 * waits); taking a slot is one synchronous step, so tool calls made at once cannot both take the last one.
 */
export function agentRunCallSlots(ctx: IExecuteFunctions, durableLimit: boolean): CallSlots | undefined {
	const node = ctx.getNode();
	if (!isToolRun(node)) return undefined;
	const key = agentRunKey(ctx);
	if (key === undefined) {
		// No agent run to count (an MCP client, a test run of the tool alone): the durable limit counts, or nothing is placed.
		if (durableLimit) return undefined;
		const caller = ctx.getExecuteData?.()?.source?.main?.[0]?.previousNode;
		// The message opens with what only the workflow's author can change: the model or MCP client reads it first,
		// and can only pass it on.
		throw markNoCallPlaced(
			new NodeOperationError(
				node,
				`Not placed: the workflow's author must add Guardrails > Limit Calls Across Executions to this tool before it can place calls for a caller that is not an AI Agent (${caller ? `called by "${caller}"` : 'no caller: an MCP client, or the tool run on its own'}). ${NO_CALL_PLACED} Max Calls per Agent Run counts only the calls of one AI Agent run, so it cannot count these. Do not try again: tell the user.`,
				{
					itemIndex: 0,
					description:
						"On this route (an MCP client through an MCP Server Trigger, where every tool call is an execution of its own, or the tool run alone) add Guardrails > Limit Calls Across Executions to this tool: it counts the calls in this n8n's data tables, across executions.",
				},
			),
		);
	}
	let cap: number;
	try {
		assertNotFromModel(node, 'maxCallsPerRun', 'Max Calls per Agent Run', 0);
		cap = assertIntegerInRange(node, 'Max Calls per Agent Run', ctx.getNodeParameter('maxCallsPerRun', 0, DEFAULT_CALLS_PER_RUN), 1, MAX_CALLS_PER_RUN, 0);
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	const context = ctx.getContext('node') as IDataObject;
	const counts = (context.callsPerAgentRun ??= {}) as Record<string, number>;
	return {
		take(itemIndex) {
			const used = counts[key] ?? 0;
			if (used >= cap) {
				return new NodeOperationError(node, callCapReachedMessage(used, cap), {
					itemIndex,
					description:
						'Max Calls per Agent Run (in this tool) caps the calls one run of the AI agent may place, against loops and prompts that ask for more calls than intended. Raise it if the agent must place more calls in one run.',
				});
			}
			counts[key] = used + 1;
			return undefined;
		},
		release() {
			counts[key] = Math.max(0, (counts[key] ?? 1) - 1);
		},
	};
}
