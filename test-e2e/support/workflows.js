// Small builders for workflows the suite creates in n8n (valid n8n 2.x workflow JSON).
'use strict';
const crypto = require('node:crypto');

const { waitFor } = require('./wait');

const NODE_TYPE = 'n8n-nodes-assistant-platform.assistantPlatform';
const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';
const CALL_AND_WAIT_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformCallAndWait';

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

/** A random Webhook Secret for the trigger (64 hex characters, as `openssl rand -hex 32`). */
function newWebhookSecret() {
	return crypto.randomBytes(32).toString('hex');
}

/**
 * An Assistant Platform Trigger with a fresh webhookId and Webhook Secret (unless `parameters` sets one).
 * `credential` ({ id, name, type }) is only needed when it configures the platform on publish.
 */
function triggerNode(name, parameters, credential) {
	return {
		id: crypto.randomUUID(),
		name,
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { webhookSecret: newWebhookSecret(), ...parameters },
		...(credential ? { credentials: { [credential.type]: { id: String(credential.id), name: credential.name } } } : {}),
	};
}

/** An Assistant Platform Call and Wait node (its resume webhook needs a webhookId, as in the editor). */
function callAndWaitNode(name, parameters, credential) {
	return {
		id: crypto.randomUUID(),
		name,
		type: CALL_AND_WAIT_TYPE,
		typeVersion: 1,
		position: [220, 0],
		webhookId: crypto.randomUUID(),
		parameters,
		credentials: { [credential.type]: { id: String(credential.id), name: credential.name } },
	};
}

/** A No Operation node (shows that the workflow went on, and with which items). */
function noOpNode(name) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [440, 0],
		parameters: {},
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

module.exports = {
	NODE_TYPE,
	TRIGGER_TYPE,
	CALL_AND_WAIT_TYPE,
	manualTrigger,
	assistantPlatformNode,
	triggerNode,
	callAndWaitNode,
	noOpNode,
	newWebhookSecret,
	chain,
	outputOf,
	errorOf,
};

/**
 * The Production URL of one event of an Assistant Platform Trigger node (as imported):
 * <n8n>/webhook/<webhookId>/<webhookSecret>/<call-result|conversation-end|extracted-data>.
 */
function triggerUrl(n8n, triggerNode, slug = 'call-result') {
	return `${n8n.url}/webhook/${triggerNode.webhookId}/${triggerNode.parameters.webhookSecret}/${slug}`;
}

module.exports.triggerUrl = triggerUrl;

/**
 * Resolves once n8n serves the published trigger's webhooks: a post without the token answers 404 until n8n
 * has registered them (just after the publish call returns), then 401 from the trigger itself. Nothing starts.
 */
async function waitUntilListening(n8n, triggerNode, { timeoutMs = 20000 } = {}) {
	const url = `${n8n.url}/webhook/${triggerNode.webhookId}/call-result`;
	const response = await n8n.callWebhook(url, { body: { probe: true }, retryMs: timeoutMs });
	if (response.status !== 401) {
		throw new Error(`trigger "${triggerNode.name}" is not listening: POST ${url} -> ${response.status} ${JSON.stringify(response.body)}`);
	}
}

module.exports.waitUntilListening = waitUntilListening;

/** Whether a trigger node configures the platform when its workflow is published (Configure Platform on Publish). */
function registersOnPublish(triggerNode) {
	const { events = ['callResult'], registerOnPublish = true } = triggerNode.parameters;
	return registerOnPublish !== false && events.some((event) => event === 'conversationEnd' || event === 'extractedData');
}

/** The trigger's registration in the stored workflow's static data (what it set on the platform), if any. */
async function storedRegistration(n8n, workflowId, triggerNode) {
	const workflow = await n8n.api('GET', `/workflows/${workflowId}`);
	return workflow.staticData?.[`node:${triggerNode.name}`]?.registration;
}

/**
 * Publishes a workflow with an Assistant Platform Trigger and waits until it is done: n8n 2.x activates the
 * trigger after the publish call returns. Done = the webhooks answer (see waitUntilListening) and, for a trigger
 * that configures the platform, its registration is in the workflow's static data (n8n saves it last, after
 * every webhook of the node was created).
 */
async function publishTrigger(n8n, workflowId, triggerNode) {
	await n8n.api('POST', `/workflows/${workflowId}/publish`);
	await waitUntilListening(n8n, triggerNode);
	if (registersOnPublish(triggerNode)) {
		await waitFor(`the registration of "${triggerNode.name}" in the static data`, () => storedRegistration(n8n, workflowId, triggerNode));
	}
}

/**
 * Unpublishes it and waits until n8n has torn the trigger down (also after the call returns): for a trigger that
 * configured the platform, until its registration is gone from the static data (saved after every webhook's
 * delete finished).
 */
async function unpublishTrigger(n8n, workflowId, triggerNode) {
	await n8n.api('POST', `/workflows/${workflowId}/unpublish`);
	if (registersOnPublish(triggerNode)) {
		await waitFor(
			`the registration of "${triggerNode.name}" to leave the static data`,
			async () => (await storedRegistration(n8n, workflowId, triggerNode)) === undefined,
		);
	}
}

Object.assign(module.exports, { registersOnPublish, storedRegistration, publishTrigger, unpublishTrigger });

/** Every execution of a workflow (newest first, with data), page by page. */
async function allExecutions(n8n, workflowId) {
	const all = [];
	let cursor;
	do {
		const page = await n8n.api('GET', `/executions?includeData=true&limit=100&workflowId=${workflowId}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
		all.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return all;
}

module.exports.allExecutions = allExecutions;
