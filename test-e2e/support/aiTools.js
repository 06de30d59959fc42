// docs/ai-tools.md: what an AI Agent's model receives from each Assistant Platform operation attached as a tool
// (its name, description and parameter schema, exactly as n8n sent them to the model), rendered by the AI Agent
// suite from the requests the fake model recorded. The README shows the sections of Place Call and Call Status.
'use strict';
const path = require('node:path');

const { paths: toolPaths } = require('../../scripts/n8n-install');

/** n8n-workflow's NodeHelpers as the n8n under test has them (makeNodeName: the name the editor gives a node). */
function n8nNodeHelpers() {
	return require(require.resolve('n8n-workflow', { paths: [path.join(toolPaths.nodeModules, 'n8n')] })).NodeHelpers;
}

/** The schema without the JSON Schema dialect line, which is the same for every tool. */
function schemaOf(tool) {
	const { $schema: _dialect, ...schema } = tool.parameters;
	return schema;
}

/** One operation's section: { resource, operation, nodeName, tool: { name, description, parameters } }. */
function toolSection(op) {
	return [
		`### ${op.resource} → ${op.operation}`,
		'',
		`Tool name \`${op.tool.name}\` (the node's default name "${op.nodeName}"). Description:`,
		'',
		'```text',
		op.tool.description,
		'```',
		'',
		'Parameters the model fills:',
		'',
		'```json',
		JSON.stringify(schemaOf(op.tool), null, 2),
		'```',
		'',
	].join('\n');
}

function renderToolsDoc(operations) {
	return [
		'# What the model of an AI agent receives from the Assistant Platform tools',
		'',
		'Written by the AI Agent suite (`npm run test:ai`, test-e2e/ai-agent/) from the requests n8n 2.41.1\'s AI Agent',
		'sent to its chat model, with every operation of the Assistant Platform node attached as a tool the way the editor',
		'attaches it: the default node name (which n8n turns into the tool name) and every parameter left at its tool',
		'default. The suite fails when this file differs from what the model receives; `AI_TOOLS_WRITE=1 npm run test:ai`',
		'rewrites it. Each schema is sent with `"$schema": "http://json-schema.org/draft-07/schema#"`, left out here.',
		'',
		'A parameter you fix in the tool (a value instead of its `$fromAI()` default) leaves the schema; a tool',
		'description you write in the tool replaces the one below.',
		'',
		...operations.map(toolSection),
	].join('\n');
}

module.exports = { n8nNodeHelpers, renderToolsDoc, toolSection };
