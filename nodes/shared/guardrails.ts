import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { isToolRun } from './agentTool';
import { callCapReachedMessage, markNoCallPlaced } from './placementMessages';
import { assertIntegerInRange, invalid } from './validation';

/*
 * Guardrails of placing calls (docs/assumptions.md, "AI agents"):
 * - Allowed Destinations (Place Call, Call and Wait): an optional list of number prefixes; a destination outside
 *   it is refused before anything is sent. Toll fraud through premium-rate numbers is the classic telephony
 *   attack, and an AI agent fed a hostile prompt or document is a new way to it.
 * - Max Calls per Agent Run (Place Call as an AI agent's tool): the most calls one run of the agent may place.
 */

/**
 * A guardrail is the user's limit on what runs, an AI agent's model included: a value left to the model
 * (`$fromAI()`, which n8n's editor offers on every field of a tool) is refused before anything is sent.
 */
export function assertNotFromModel(node: INode, name: string, label: string, itemIndex?: number): void {
	const raw = node.parameters?.[name];
	if (typeof raw === 'string' && /\$fromai\s*\(/i.test(raw)) {
		throw invalid(node, label, 'must be set in the node, not by the AI model ($fromAI): it limits what the model may do', itemIndex);
	}
}

// ------------------------------------------------------------------------------------------ Allowed Destinations

/** A number prefix: a plus, then 1 to 15 digits, the first not 0 (a country code, or longer). */
const PREFIX = /^\+[1-9]\d{0,14}$/;

/** The Allowed Destinations field, with the display condition of the operation (`display`). */
export function allowedDestinationsProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Allowed Destinations',
		name: 'allowedDestinations',
		type: 'string',
		default: '',
		placeholder: 'e.g. +39, +4420',
		description:
			'Number prefixes calls may go to, separated by commas or new lines: country codes (+39) or longer prefixes (+4420 for London). Any other destination is refused before anything is sent. Empty: any destination. Keeps premium-rate numbers out (toll fraud), also when an AI agent or a document chooses the number: prefer the narrowest prefixes you need.',
		...display,
	};
}

/** The prefixes of Allowed Destinations; empty when every destination is allowed. */
export function readAllowedDestinations(node: INode, raw: unknown, itemIndex?: number): string[] {
	const entries = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(/[\s,;]+/) : raw == null ? [] : [String(raw)];
	const prefixes = entries.map((entry) => entry.trim()).filter((entry) => entry !== '');
	for (const prefix of prefixes) {
		if (!PREFIX.test(prefix)) {
			throw invalid(
				node,
				'Allowed Destinations',
				`"${prefix}" is not a number prefix: write + and the first digits of the numbers to allow, e.g. +39 or +4420`,
				itemIndex,
			);
		}
	}
	return prefixes;
}

/** Refuses `dst` (already E.164) unless it starts with one of the Allowed Destinations (when there are any). */
export function assertAllowedDestination(node: INode, dst: string, raw: unknown, itemIndex?: number): void {
	assertNotFromModel(node, 'allowedDestinations', 'Allowed Destinations', itemIndex);
	const prefixes = readAllowedDestinations(node, raw, itemIndex);
	if (prefixes.length === 0 || prefixes.some((prefix) => dst.startsWith(prefix))) return;
	throw new NodeOperationError(node, `Invalid "Destination Number": ${dst} is not in Allowed Destinations (${prefixes.join(', ')})`, {
		itemIndex,
		description:
			'Allowed Destinations (in this node) lists the number prefixes calls may go to; any other destination is refused before anything is sent. Add the prefix if this number should be called.',
	});
}

// -------------------------------------------------------------------------------------- Max Calls per Agent Run

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
		throw markNoCallPlaced(
			new NodeOperationError(
				node,
				`Not placed: Max Calls per Agent Run counts the calls of one AI Agent run, and this tool was not called by an AI Agent in this execution (${caller ? `called by "${caller}"` : 'no caller: an MCP client, or the tool run on its own'}), so the calls cannot be counted.`,
				{
					itemIndex: 0,
					description:
						"On this route (an MCP client through an MCP Server Trigger, where every tool call is an execution of its own, or the tool run alone) turn on Limit Calls Across Executions in this tool: it counts the calls in this n8n's data tables, across executions.",
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
