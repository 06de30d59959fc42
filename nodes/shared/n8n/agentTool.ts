import type { INode } from 'n8n-workflow';

import { invalid } from '../core/validation';

/**
 * Whether the node runs as a tool of an AI agent: n8n runs a node attached to an agent as the tool variant it
 * derives from a node with `usableAsTool` (same parameters, type name + "Tool"), the rule of n8n's own `@tool`
 * display condition.
 */
export function isToolRun(node: INode): boolean {
	return node.type.endsWith('Tool');
}

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
