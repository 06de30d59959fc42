// Workflows with n8n's real AI Agent (from the pinned n8n's @n8n/n8n-nodes-langchain): Manual Trigger -> AI Agent,
// with the OpenAI Chat Model sub-node pointed at the scripted fake model (support/fakeModel.js) and Assistant
// Platform nodes attached as tools, the way the editor attaches them (node type <package>.assistantPlatformTool).
'use strict';
const crypto = require('node:crypto');
const path = require('node:path');

const { paths: toolPaths } = require('../../scripts/n8n-install');
const { NODE_TYPE, assistantPlatformNode, manualTrigger } = require('./workflows');

const TOOL_TYPE = `${NODE_TYPE}Tool`;
const AGENT_TYPE = '@n8n/n8n-nodes-langchain.agent';
const N8N_MAJOR = Number(require(path.join(toolPaths.nodeModules, 'n8n', 'package.json')).version.split('.')[0]);
// The AI Agent's newest version on the n8n under test: 3.1 on n8n 2.x; n8n 1.x has 3.
const AGENT_VERSION = N8N_MAJOR >= 2 ? 3.1 : 3;
const MODEL_TYPE = '@n8n/n8n-nodes-langchain.lmChatOpenAi';
const MODEL_VERSION = 1.3;
const OPENAI_CREDENTIAL_TYPE = 'openAiApi';
const AGENT = 'AI Agent';
const MODEL = 'OpenAI Chat Model';

/** n8n-workflow as the n8n under test resolves it: its own rule for a tool's name (nodeNameToToolName). */
function n8nWorkflow() {
	return require(require.resolve('n8n-workflow', { paths: [path.join(toolPaths.nodeModules, 'n8n')] }));
}

/** The name the model sees for a tool node called `nodeName` (n8n's rule: cut at 64 characters). */
function toolNameOf(nodeName) {
	return n8nWorkflow().nodeNameToToolName(nodeName);
}

/** An OpenAI credential whose Base URL is the fake model. */
async function createModelCredential(n8n, model) {
	const created = await n8n.api('POST', '/credentials', {
		name: 'Fake model (e2e)',
		type: OPENAI_CREDENTIAL_TYPE,
		data: { apiKey: 'fake-model-key', url: model.baseUrl, header: false },
	});
	return { id: created.id, name: created.name, type: OPENAI_CREDENTIAL_TYPE };
}

/**
 * An Assistant Platform tool node: `parameters` as the editor stores them (parameters left at their default are
 * absent), `credential` ({ id, name, type }).
 */
function toolNode(name, parameters, credential) {
	return { ...assistantPlatformNode(name, parameters, credential), type: TOOL_TYPE };
}

/**
 * Manual Trigger -> AI Agent (prompt `prompt`) with the OpenAI Chat Model (fake model) and `tools` (tool nodes)
 * attached. `items`: input items of the agent, one agent run each (default one item).
 */
function agentWorkflow(name, { prompt, tools, modelCredential, items, agentOptions = {} }) {
	const trigger = manualTrigger();
	const nodes = [trigger];
	const connections = {};
	let previous = trigger.name;
	if (items) {
		const set = {
			id: crypto.randomUUID(),
			name: 'Leads',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: { jsCode: `return ${JSON.stringify(items.map((json) => ({ json })))};` },
		};
		nodes.push(set);
		connections[previous] = { main: [[{ node: set.name, type: 'main', index: 0 }]] };
		previous = set.name;
	}
	nodes.push({
		id: crypto.randomUUID(),
		name: AGENT,
		type: AGENT_TYPE,
		typeVersion: AGENT_VERSION,
		position: [440, 0],
		parameters: { promptType: 'define', text: prompt, options: { maxIterations: 6, ...agentOptions } },
	});
	connections[previous] = { main: [[{ node: AGENT, type: 'main', index: 0 }]] };
	nodes.push({
		id: crypto.randomUUID(),
		name: MODEL,
		type: MODEL_TYPE,
		typeVersion: MODEL_VERSION,
		position: [300, 200],
		parameters: { model: { __rl: true, mode: 'id', value: 'fake-model' }, responsesApiEnabled: false, options: {} },
		credentials: { [OPENAI_CREDENTIAL_TYPE]: { id: String(modelCredential.id), name: modelCredential.name } },
	});
	connections[MODEL] = { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] };
	tools.forEach((tool, i) => {
		tool.position = [500 + i * 160, 240];
		// n8n 2.x hands a tool's error to the model by default; n8n 1.x ends the whole run instead, unless the
		// tool's Settings > On Error is Continue: what the README tells n8n 1.x users to set.
		if (N8N_MAJOR < 2) tool.onError ??= 'continueRegularOutput';
		nodes.push(tool);
		connections[tool.name] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
	});
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/**
 * What the model was given back for each tool call, in order: the content of every `tool` message of the last
 * chat request (the agent sends the whole conversation each time), parsed from JSON where it is JSON.
 */
function toolResultsSeen(model) {
	const last = model.chatRequests().at(-1);
	return (last?.messages ?? [])
		.filter((message) => message.role === 'tool')
		.map((message) => {
			const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
			try {
				return { text, value: JSON.parse(text) };
			} catch {
				return { text, value: text };
			}
		});
}

module.exports = {
	AGENT,
	MODEL,
	TOOL_TYPE,
	toolNameOf,
	createModelCredential,
	toolNode,
	agentWorkflow,
	toolResultsSeen,
};

