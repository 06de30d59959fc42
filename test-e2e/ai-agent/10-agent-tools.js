// n8n's real AI Agent (n8n 2.41.1, @n8n/n8n-nodes-langchain) with the Assistant Platform node attached as tools, the
// way the editor attaches them (default tool names, parameters left at their tool defaults), and the OpenAI Chat
// Model sub-node pointed at a scripted fake model (support/fakeModel.js) that records every request. What the model
// is told (tool descriptions and parameter schemas), what it reads back (tool results and errors), what it never
// sees (keys), and what it cannot do (destinations outside the allow-list, more calls than the cap) are asserted on
// those recorded requests and on the sandbox's journal (the POSTs that reached the platform).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, describe, test } = require('node:test');

const { assertNoSecrets, assistantsOf, requestsTo } = require('../support/assertions');
const { agentWorkflow, createModelCredential, toolNameOf, toolNode, toolResultsSeen, TOOL_TYPE } = require('../support/agent');
const { startFakeModel } = require('../support/fakeModel');
const { errorOf, outputOf } = require('../support/workflows');
const { renderToolsDoc, toolSection, n8nNodeHelpers } = require('../support/aiTools');

const CALLER_ID = '+390200001001'; // demo number of the first seeded assistant (its key is in the outbound credential)
const PLACE_CALL = 'Place a real phone call in Assistant Platform';
const CALL_STATUS = 'Get the status of a call in Assistant Platform';
const CREATE_ASSISTANT = 'Create an assistant in Assistant Platform';
const CUSTOM_REQUEST = 'Make a custom API request in Assistant Platform';
const PLACE_PATH = '/webhook/outbound_call';
const root = path.join(__dirname, '..', '..');
const DOC_FILE = path.join(root, 'docs', 'ai-tools.md');
const README_FILE = path.join(root, 'README.md');

const model = {};

async function prepare(env) {
	model.server = await startFakeModel();
	model.credential = await createModelCredential(env.n8n, model.server);
}

/** Place Call as a tool: Caller ID fixed, Destination Number left at its tool default, `extra` parameters added. */
function placeCallTool(env, extra = {}) {
	return toolNode(PLACE_CALL, { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER_ID, ...extra }, env.credentials.outbound);
}

function callStatusTool(env) {
	return toolNode(CALL_STATUS, { resource: 'callStatus', operation: 'get' }, env.credentials.outbound);
}

/** One tool call of Place Call (to `dst`) in a turn. */
const callTo = (dst) => ({ name: toolNameOf(PLACE_CALL), arguments: { Destination_Number: dst } });

/**
 * Runs an agent with `tools`, the fake model answering `turns` (then "Done."). Returns the execution, the chat
 * requests the model received, the tool results it read back (in order), and the POSTs that placed calls.
 */
async function runAgent(env, name, { tools, turns, prompt = 'Call the lead and tell me what happened.' }) {
	const workflow = await env.n8n.createWorkflow(agentWorkflow(`ai-agent: ${name}`, { prompt, tools, modelCredential: model.credential }));
	model.server.script(turns);
	env.sandbox.clearJournal();
	const execution = await env.n8n.runWorkflow(workflow.id, { timeoutMs: 90000 });
	return {
		execution,
		requests: model.server.chatRequests(),
		results: toolResultsSeen(model.server),
		placements: requestsTo(env.sandbox, 'POST', PLACE_PATH),
	};
}

/** The text of a tool result as the model read it: an error's message, or the JSON of the items. */
function textOf(result) {
	const first = Array.isArray(result.value) ? result.value[0] : result.value;
	return typeof first?.error === 'string' ? first.error : result.text;
}

function register(env) {
	describe('AI Agent with Assistant Platform tools (fake model)', () => {
		after(async () => {
			await model.server?.stop();
		});

		test('a valid call: one POST, the model reads internal_id and what to keep, and nothing it receives holds a secret', async () => {
			const run = await runAgent(env, 'valid call', { tools: [placeCallTool(env), callStatusTool(env)], turns: [{ toolCalls: [callTo('+14155550123')] }] });
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(run.placements.length, 1, 'one call reaches the platform');
			assert.equal(run.placements[0].body.dst, '+14155550123');
			assert.equal(run.results.length, 1);
			const [item] = run.results[0].value;
			const placed = [...env.sandbox.state.calls.values()].find((call) => call.dst === '+14155550123');
			assert.equal(item.internal_id, placed.internalId, 'the model reads the internal_id the platform gave');
			assert.match(item.message, /keep internal_id/i);
			assert.match(item.message, /do not place (it|this call) again/i);
			assertNoSecrets(env.sandbox, run.requests, 'what the model received');
			assertNoSecrets(env.sandbox, run.execution.data, 'the execution data');
		});

		test('a rejected number: nothing is sent and the model is told no call was placed', async () => {
			const run = await runAgent(env, 'rejected number', { tools: [placeCallTool(env)], turns: [{ toolCalls: [callTo('12345')] }] });
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(run.placements.length, 0);
			assert.match(textOf(run.results[0]), /Destination Number/);
			assert.match(textOf(run.results[0]), /no call was placed/i);
		});

		for (const [fault, extra, reason] of [
			[{ kind: 'slow', delayMs: 2500 }, { requestOptions: { timeout: 1000 } }, /did not answer within 1000 ms/],
			[{ kind: 'reset' }, {}, /reset/],
		]) {
			test(`the platform ${fault.kind === 'slow' ? 'times out' : 'resets the connection'} after the POST: exactly one POST, and the model is told the call may be placed and not to place it again`, async () => {
				env.sandbox.injectFault({ method: 'POST', path: PLACE_PATH, times: 1, ...fault });
				try {
					const run = await runAgent(env, `unknown outcome (${fault.kind})`, {
						tools: [placeCallTool(env, extra)],
						turns: [{ toolCalls: [callTo('+14155550124')] }],
					});
					assert.equal(run.execution.status, 'success', errorOf(run.execution));
					assert.equal(run.placements.length, 1, 'the call was sent once and never again');
					const text = textOf(run.results[0]);
					assert.match(text, reason);
					assert.match(text, /may have been placed/i);
					assert.match(text, /do not place it again/i);
					assert.doesNotMatch(text, /try again/i);
				} finally {
					env.sandbox.clearFaults();
				}
			});
		}

		test('Custom API Request creating an assistant: the new assistant key never reaches the model', async () => {
			const before = assistantsOf(env.sandbox).length;
			const tool = toolNode(CUSTOM_REQUEST, { resource: 'customApiRequest', operation: 'request', method: 'POST', path: '/assistants' }, env.credentials.portal);
			const run = await runAgent(env, 'custom request creates an assistant', {
				tools: [tool],
				turns: [{ toolCalls: [{ name: toolNameOf(CUSTOM_REQUEST), arguments: { Body: { name: 'Made by an agent', description: 'e2e', mode: 'text' } } }] }],
			});
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(assistantsOf(env.sandbox).length, before + 1, 'the assistant was created');
			const created = assistantsOf(env.sandbox).at(-1);
			assert.ok(!JSON.stringify(run.requests).includes(created.assistantApiKey), 'the model received the new key');
			assert.equal(run.results[0].value[0].assistantId, created.assistantId, 'the model reads the new assistant id');
			assertNoSecrets(env.sandbox, run.requests, 'what the model received');
			assertNoSecrets(env.sandbox, run.execution.data, 'the execution data');
		});

		test('Assistant → Create with "Include API Key in Output" on: as a tool, the key never reaches the model', async () => {
			const tool = toolNode(CREATE_ASSISTANT, { resource: 'assistant', operation: 'create', options: { includeApiKey: true } }, env.credentials.portal);
			const run = await runAgent(env, 'create with the key option on', {
				tools: [tool],
				turns: [{ toolCalls: [{ name: toolNameOf(CREATE_ASSISTANT), arguments: { Name: 'Agent front desk', Description: 'made in e2e' } }] }],
			});
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			const created = assistantsOf(env.sandbox).at(-1);
			assert.equal(created.name, 'Agent front desk');
			assert.ok(!JSON.stringify(run.requests).includes(created.assistantApiKey), 'the model received the new key');
			assertNoSecrets(env.sandbox, run.requests, 'what the model received');
			assertNoSecrets(env.sandbox, run.execution.data, 'the execution data');
		});

		test('two tool calls in one turn (cap raised to 2): two POSTs, one internal_id each', async () => {
			const run = await runAgent(env, 'two calls in one turn', {
				tools: [placeCallTool(env, { maxCallsPerRun: 2 })],
				turns: [{ toolCalls: [callTo('+14155550131'), callTo('+14155550132')] }],
			});
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.deepEqual(run.placements.map((p) => p.body.dst).sort(), ['+14155550131', '+14155550132']);
			assert.equal(run.results.length, 2);
			for (const result of run.results) assert.ok(result.value[0].internal_id, result.text);
		});

		test('a destination outside Allowed Destinations: nothing is sent and the model is told why and that no call was placed', async () => {
			const run = await runAgent(env, 'outside the allow-list', {
				tools: [placeCallTool(env, { allowedDestinations: '+39, +4420' })],
				turns: [{ toolCalls: [callTo('+14155550140')] }],
			});
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(run.placements.length, 0);
			const text = textOf(run.results[0]);
			assert.match(text, /Allowed Destinations/);
			assert.match(text, /no call was placed/i);
		});

		test('the calls-per-run cap (default 1): two calls in one turn and one more in the next place exactly one call; the others are told the cap is reached', async () => {
			const run = await runAgent(env, 'calls-per-run cap', {
				tools: [placeCallTool(env)],
				turns: [{ toolCalls: [callTo('+14155550151'), callTo('+14155550152')] }, { toolCalls: [callTo('+14155550153')] }],
			});
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(run.placements.length, 1, 'exactly the cap');
			assert.equal(run.results.length, 3);
			const refused = run.results.filter((result) => !result.value?.[0]?.internal_id);
			assert.equal(refused.length, 2);
			for (const result of refused) {
				assert.match(textOf(result), /Max Calls per Agent Run/);
				assert.match(textOf(result), /no call was placed/i);
			}
		});

		test('Call Status as a tool says in words what happened: still in progress while the call rings, busy once it ended busy', async () => {
			env.sandbox.setDialOutcome({ dst: '+14155550161', dialstatus: 'NOANSWER', ringMs: 120000 });
			env.sandbox.setDialOutcome({ dst: '+14155550162', dialstatus: 'BUSY', ringMs: 0, durationSec: 0, persistDelayMs: 0 });
			const lastInternalId = (body) => {
				const tool = body.messages.filter((m) => m.role === 'tool').at(-1);
				return JSON.parse(tool.content)[0].internal_id;
			};
			for (const [dst, expected] of [
				['+14155550161', /still in progress/i],
				['+14155550162', /busy/i],
			]) {
				const run = await runAgent(env, `call status ${dst}`, {
					tools: [placeCallTool(env), callStatusTool(env)],
					turns: [
						{ toolCalls: [callTo(dst)] },
						{ delayMs: 500, toolCalls: [{ name: toolNameOf(CALL_STATUS), arguments: (body) => ({ Internal_ID: lastInternalId(body) }) }] },
					],
				});
				assert.equal(run.execution.status, 'success', errorOf(run.execution));
				assert.equal(run.results.length, 2);
				const status = run.results[1].value[0];
				assert.equal(status.internal_id, run.results[0].value[0].internal_id);
				assert.match(status.message, expected);
			}
		});

		test('every operation as a tool: names within 64 characters, descriptions and parameter schemas written for a model (docs/ai-tools.md)', async () => {
			const types = await env.n8n.types('nodes');
			const toolType = types.find((type) => type.name === TOOL_TYPE);
			assert.ok(toolType, `${TOOL_TYPE} is loaded`);
			const { makeNodeName } = n8nNodeHelpers();
			const operations = [];
			for (const property of toolType.properties.filter((p) => p.name === 'operation')) {
				for (const resource of property.displayOptions.show.resource) {
					const resourceName = toolType.properties.find((p) => p.name === 'resource').options.find((o) => o.value === resource).name;
					// n8n's loader adds its own "Custom API Call" option (__CUSTOM_API_CALL__): not an operation of the package.
					for (const option of property.options.filter((o) => !String(o.value).startsWith('__'))) {
						const parameters = { resource, operation: option.value };
						operations.push({ resource: resourceName, operation: option.name, parameters, nodeName: makeNodeName(parameters, toolType) });
					}
				}
			}
			const outbound = ['outboundCall', 'callStatus'];
			const tools = operations.map((op) =>
				toolNode(op.nodeName, op.parameters, outbound.includes(op.parameters.resource) ? env.credentials.outbound : env.credentials.portal),
			);
			const run = await runAgent(env, 'every operation as a tool', { tools, turns: [{ content: 'Nothing to do.' }] });
			assert.equal(run.execution.status, 'success', errorOf(run.execution));
			assert.equal(outputOf(run.execution, 'AI Agent')[0].output, 'Nothing to do.');
			const sent = run.requests[0].tools.map((tool) => tool.function);
			assert.equal(sent.length, operations.length);
			for (const op of operations) {
				const tool = sent.find((t) => t.name === toolNameOf(op.nodeName));
				assert.ok(tool, `no tool for ${op.nodeName}`);
				op.tool = tool;
				assert.ok(op.nodeName.length <= 64, `"${op.nodeName}" is cut to 64 characters`);
				assert.notEqual(tool.description, op.nodeName, `${op.nodeName}: the automatic description`);
				assert.ok(tool.description.length > 120, `${op.nodeName}: a description written for a model`);
				for (const [key, schema] of Object.entries(tool.parameters.properties ?? {})) {
					assert.ok(schema.description?.length > 20, `${op.nodeName}: ${key} has no description`);
					assert.match(schema.description, /e\.g\./, `${op.nodeName}: ${key} has no example`);
				}
			}
			const place = operations.find((op) => op.nodeName === PLACE_CALL).tool;
			assert.match(place.description, /real phone call/i);
			assert.match(place.description, /cannot be undone/i);
			assert.match(place.description, /internal_id/);
			assert.deepEqual(Object.keys(place.parameters.properties), ['Destination_Number']);
			const status = operations.find((op) => op.nodeName === CALL_STATUS).tool;
			assert.deepEqual(Object.keys(status.parameters.properties), ['Internal_ID']);

			const doc = renderToolsDoc(operations);
			if (process.env.AI_TOOLS_WRITE === '1') fs.writeFileSync(DOC_FILE, doc);
			assert.equal(fs.existsSync(DOC_FILE) ? fs.readFileSync(DOC_FILE, 'utf8') : '', doc, 'docs/ai-tools.md is what the model receives (AI_TOOLS_WRITE=1 npm run test:ai rewrites it)');
			const readme = fs.readFileSync(README_FILE, 'utf8');
			for (const nodeName of [PLACE_CALL, CALL_STATUS]) {
				const section = toolSection(operations.find((op) => op.nodeName === nodeName));
				assert.ok(readme.includes(section), `README shows what the model receives for ${nodeName}:\n${section}`);
			}
		});

		test("nothing secret in n8n's log or in the data of the suite's executions", async () => {
			const executions = (await env.n8n.api('GET', '/executions?includeData=true&limit=250')).data;
			assert.ok(executions.length >= 10);
			assertNoSecrets(env.sandbox, executions, 'the executions');
			assertNoSecrets(env.sandbox, fs.readFileSync(env.n8n.logFile, 'utf8'), "n8n's log");
			assertNoSecrets(env.sandbox, model.server.allRequests, 'what the model received');
		});
	});
}

module.exports = { prepare, register };
