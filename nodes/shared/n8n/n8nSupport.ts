import * as n8nWorkflow from 'n8n-workflow';

/**
 * The oldest n8n the package is tested on (`npm run test:e2e:1x`; README, "Supported n8n versions").
 * Keep it in step with `engines.n8n` in package.json.
 */
export const OLDEST_SUPPORTED_N8N = '1.123.81';

/**
 * What the nodes take from n8n-workflow at run time (types are erased). `webhookDescriptionFields` is not in
 * the list: the trigger uses it only where it exists (n8n 2.41 on) and falls back to its path templates.
 */
const REQUIRED_EXPORTS = [
	'NodeApiError',
	'NodeConnectionTypes',
	'NodeOperationError',
	'randomString',
	'sleep',
] as const;

/**
 * Stops a node from loading on an n8n whose n8n-workflow lacks something the nodes use, with an error that
 * says so (instead of a `Cannot read properties of undefined` at some later step). Called when each node
 * file loads; n8n then reports the package as not loadable, with this message.
 */
export function assertSupportedN8n(): void {
	const exported = n8nWorkflow as unknown as Record<string, unknown>;
	const missing = REQUIRED_EXPORTS.filter((name) => exported[name] === undefined);
	if (missing.length > 0) {
		throw new Error(
			`n8n-nodes-assistant-platform needs n8n ${OLDEST_SUPPORTED_N8N} or newer: the n8n-workflow of this n8n has no ${missing.join(', ')}. Update n8n.`,
		);
	}
}
