import type { INode } from 'n8n-workflow';

/**
 * Whether the node runs as a tool of an AI agent: n8n runs a node attached to an agent as the tool variant it
 * derives from a node with `usableAsTool` (same parameters, type name + "Tool"), the rule of n8n's own `@tool`
 * display condition.
 */
export function isToolRun(node: INode): boolean {
	return node.type.endsWith('Tool');
}
