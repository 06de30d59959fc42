// Small builders for workflows the suite creates in n8n (valid n8n 2.x workflow JSON).
'use strict';
const crypto = require('node:crypto');

const NODE_TYPE = 'n8n-nodes-assistant-platform.assistantPlatform';
const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';

/** A Manual Trigger node. */
function manualTrigger(name = 'Manual Trigger') {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/** An Assistant Platform node with raw parameters and the credential of the given type ({ id, name }). */
function assistantPlatformNode(name, parameters, credential) {
	return {
		id: crypto.randomUUID(),
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [220, 0],
		parameters,
		credentials: { [credential.type]: { id: String(credential.id), name: credential.name } },
	};
}

/** A workflow whose nodes run one after the other, in the given order. */
function chain(name, nodes) {
	const connections = {};
	nodes.forEach((node, i) => {
		node.position = [i * 220, 0];
		if (i + 1 < nodes.length) {
			connections[node.name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
		}
	});
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** The items a node produced in an execution fetched with includeData (first run, first output). */
function outputOf(execution, nodeName, { run = 0, output = 0 } = {}) {
	const runs = execution?.data?.resultData?.runData?.[nodeName];
	if (!runs) {
		const ran = Object.keys(execution?.data?.resultData?.runData ?? {});
		throw new Error(`node "${nodeName}" did not run (ran: ${ran.join(', ') || 'nothing'}); status ${execution?.status}`);
	}
	return (runs[run]?.data?.main?.[output] ?? []).map((item) => item.json);
}

/** The error of a failed execution, as text, for assertion messages. */
function errorOf(execution) {
	const error = execution?.data?.resultData?.error;
	return error ? `${error.message}${error.description ? ` (${error.description})` : ''}` : '';
}

module.exports = { NODE_TYPE, TRIGGER_TYPE, manualTrigger, assistantPlatformNode, chain, outputOf, errorOf };

/**
 * The Production URL of one event of an Assistant Platform Trigger node (as imported):
 * <n8n>/webhook/<webhookId>/<webhookSecret>/<call-result|conversation-end|extracted-data>.
 */
function triggerUrl(n8n, triggerNode, slug = 'call-result') {
	return `${n8n.url}/webhook/${triggerNode.webhookId}/${triggerNode.parameters.webhookSecret}/${slug}`;
}

module.exports.triggerUrl = triggerUrl;
