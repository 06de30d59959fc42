// Every route by which a model reaches Place Call in a real n8n, beyond the AI Agent's own tools
// (10-agent-tools.js), is guarded the same way: nothing reaches the platform that Allowed Destinations, Max Calls per
// Agent Run or Limit Calls Across Executions (the durable count) forbid, and the caller reads "No call was placed".
//  - MCP Server Trigger: an external MCP client (support/mcpClient.js, the protocol spoken by hand) lists and calls
//    the Place Call tool of a published workflow. Each tool call is its own execution, with no agent run in it, so
//    Max Calls per Agent Run cannot count: without the durable count nothing may be placed; with it, the cap holds
//    across the client's calls, one after the other and at once.
//  - Call n8n Workflow Tool: an AI Agent runs a published sub-workflow (Execute Workflow Trigger -> Place Call) once
//    per tool call, each run its own execution; the durable count per calling execution caps one agent run, the
//    count per workflow caps every run together.
//  - Human review of tool calls (n8n 2.x): the workflow a user imports for it, examples/7-agent-with-human-review.json
//    (Chat Trigger -> AI Agent -> Respond to Chat, Place Call behind the Chat node's review), run as written but for
//    the model, the Caller ID and the allowed prefix; a call runs only once a person approved it, a declined call
//    places nothing, an approval does not lift Max Calls per Agent Run, and the hosted chat shows the review and the
//    agent's answer.
// On n8n 1.123 (npm run test:ai:1x) there is no human review of tool calls, and no data tables in the public API, so
// the durable count cannot be kept: there the node must refuse every call that needs it.
// What reaches the platform is read from the sandbox's journal (the POSTs that place calls), what the caller reads
// from the MCP answers or the requests the fake model received.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { after, before, describe, test } = require('node:test');

const { assertNoSecrets, requestsTo } = require('../support/assertions');
const { AGENT, MODEL, TOOL_TYPE, agentWorkflow, createModelCredential, toolNameOf, toolNode, toolResultsSeen } = require('../support/agent');
const { startFakeModel } = require('../support/fakeModel');
const { connectMcp, textOfResult } = require('../support/mcpClient');
const {
	CHAT_HITL_TOOL_TYPE,
	CHAT_TRIGGER_TYPE,
	INSTALLED_N8N_MAJOR,
	chatUrl,
	createN8nApiCredential,
	fromAi,
	mcpUrl,
	mcpWorkflow,
	openChat,
	pressButton,
	publish,
	sourcesOf,
	subWorkflow,
	toolWorkflowNode,
	waitForReview,
	withCredential,
} = require('../support/routes');
const { assistantPlatformNode, chain, errorOf, manualTrigger, outputOf } = require('../support/workflows');
const { loadExamples, prepareExamples } = require('../../scripts/n8n-examples');

const CALLER_ID = '+390200001001'; // demo number of the first seeded assistant (its key is in the outbound credential)
const PLACE_CALL = 'Place a real phone call in Assistant Platform';
const PLACE_PATH = '/webhook/outbound_call';
const NO_CALL = /no call was placed/i;
/** Durable count: 1 call in any 60 minutes (longer than the suite), counted as `per` says. */
const durableLimit = (per) => ({ guardrails: { callLimit: { limit: { max: 1, minutes: 60, countPer: per } } } });

/** The example a user imports for an agent whose calls a person approves, and its nodes the test names. */
const REVIEW_EXAMPLE = '7-agent-with-human-review.json';
const REVIEW = 'Review in Chat';
const REVIEWED_TOOL = 'Place Call';

const model = {};
let pathCounter = 0;

async function prepare(env) {
	model.server = await startFakeModel();
	model.credential = await createModelCredential(env.n8n, model.server);
}

/**
 * The human review example made runnable here, as a user completes it in the editor: the OpenAI Chat Model on the
 * fake model (its credential, Chat Completions), Place Call's Caller ID the sandbox's demo number and Allowed
 * Destinations the +1415 numbers the model asks for. Everything else is the example as written.
 */
function reviewExampleForTest(prepared) {
	const workflow = JSON.parse(JSON.stringify(prepared));
	workflow.name = `routes: human review (${REVIEW_EXAMPLE})`;
	const chatModel = workflow.nodes.find((n) => n.name === MODEL);
	chatModel.parameters = { ...chatModel.parameters, model: { __rl: true, mode: 'id', value: 'fake-model' }, responsesApiEnabled: false };
	chatModel.credentials = { [model.credential.type]: { id: String(model.credential.id), name: model.credential.name } };
	const place = workflow.nodes.find((n) => n.name === REVIEWED_TOOL);
	place.parameters = { ...place.parameters, callerId: CALLER_ID, allowedDestinations: '+1415' };
	return workflow;
}

/** The POSTs that placed calls since the journal was last cleared. */
const placements = (env) => requestsTo(env.sandbox, 'POST', PLACE_PATH);

/** A tool result (as the model or an MCP client reads it) that names an internal_id: a call was placed. */
const placedIn = (text) => /"internal_id":\s*"[0-9a-f]{8,}"/.test(text);

/**
 * Place Call as a tool the way the editor attaches it, with the Destination Number left to the model by the
 * editor's button ($fromAI, empty description), only +1415 numbers allowed, and `extra` parameters.
 */
function placeCallTool(env, extra = {}) {
	const parameters = { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER_ID, dst: fromAi('Destination_Number'), allowedDestinations: '+1415', ...extra };
	return toolNode(PLACE_CALL, parameters, env.credentials.outbound);
}

/** Creates and publishes an MCP Server Trigger workflow with `tool`; returns { workflow, path, url }. */
async function publishMcp(env, name, tool) {
	const path = `e2e-routes-${process.pid}-${++pathCounter}`;
	const workflow = await env.n8n.createWorkflow(mcpWorkflow(env.n8n, `routes: ${name}`, { path, tools: [tool] }));
	await publish(env.n8n, workflow.id);
	return { workflow, path, url: mcpUrl(env.n8n, path) };
}

const unpublish = (env, workflowId) => env.n8n.api('POST', `/workflows/${workflowId}/unpublish`).catch(() => undefined);

/** Fails when the n8n API key (the durable count's credential) or a sandbox secret is in `value`. */
function assertNothingSecret(env, value, what) {
	assertNoSecrets(env.sandbox, value, what);
	assert.ok(!JSON.stringify(value).includes(env.n8n.apiKey), `${what} contains the n8n API key`);
}

/** A published MCP workflow whose Place Call counts durably (per workflow), and a client connected to it. */
async function limitedMcp(env, apiCredential, name) {
	const tool = withCredential(placeCallTool(env, durableLimit('workflow')), apiCredential);
	const mcp = await publishMcp(env, name, tool);
	return { mcp, client: await connectMcp(mcp.url) };
}

const SUB_TOOL = 'Place a phone call';
/** One tool call of the Call n8n Workflow Tool (to `dst`) in a turn. */
const subCallTo = (dst) => ({ name: toolNameOf(SUB_TOOL), arguments: { destination: dst } });

/**
 * A sub-workflow (Execute Workflow Trigger -> Place Call to {{ $json.destination }}, Continue On Fail, so that a
 * refusal comes back as an item the model reads) counting durably per `per`, and the parent: an AI Agent with the
 * Call n8n Workflow Tool on it.
 */
async function agentWithSubWorkflow(env, apiCredential, name, per) {
	const place = assistantPlatformNode(
		'Place Call',
		{ resource: 'outboundCall', operation: 'placeCall', dst: '={{ $json.destination }}', callerId: CALLER_ID, ...durableLimit(per) },
		env.credentials.outbound,
	);
	place.onError = 'continueRegularOutput';
	withCredential(place, apiCredential);
	const sub = await env.n8n.createWorkflow(subWorkflow(`routes: ${name} (sub-workflow)`, place));
	// n8n 2.41.1 runs only the published version of a sub-workflow an agent calls as a tool; n8n 1.123 runs the saved
	// one and refuses to activate a workflow whose only trigger is the Execute Workflow Trigger.
	if (env.n8n.majorVersion >= 2) await publish(env.n8n, sub.id);
	const tool = toolWorkflowNode(SUB_TOOL, sub, 'Places a real phone call to destination, a number in E.164 form (e.g. +14155550123).');
	const parent = await env.n8n.createWorkflow(agentWorkflow(`routes: ${name}`, { prompt: 'Call the leads.', tools: [tool], modelCredential: model.credential }));
	return { sub, parent };
}

/** One agent run of `parent` (a new execution) with the model asking for `turns`: the execution, what the model read, the POSTs. */
async function runAgent(env, parent, turns) {
	model.server.script(turns);
	env.sandbox.clearJournal();
	const execution = await env.n8n.runWorkflow(parent.id, { timeoutMs: 90000 });
	return { execution, texts: toolResultsSeen(model.server).map((r) => r.text), placements: placements(env) };
}

function register(env) {
	describe('Every route to a phone call is guarded: MCP Server Trigger, Call n8n Workflow Tool, human review', () => {
		after(async () => {
			await model.server?.stop();
		});

		describe('MCP Server Trigger: an external MCP client calls Place Call (Max Calls per Agent Run 1, no durable count)', () => {
			let mcp;
			let client;

			before(async () => {
				mcp = await publishMcp(env, 'MCP, per-run cap only', placeCallTool(env));
				client = await connectMcp(mcp.url);
			});

			after(async () => {
				await client?.close();
				if (mcp) await unpublish(env, mcp.workflow.id);
			});

			test('tools/list shows Place Call with the description written for a model and its one input, the destination', async () => {
				const tools = await client.listTools();
				assert.deepEqual(
					tools.map((t) => t.name),
					[toolNameOf(PLACE_CALL)],
					'the one tool, named as n8n names a tool node',
				);
				const [tool] = tools;
				assert.match(tool.description, /real phone call/i);
				assert.match(tool.description, /cannot be undone/i);
				assert.match(tool.description, /no call was placed/i);
				assert.deepEqual(Object.keys(tool.inputSchema.properties), ['Destination_Number']);
				assert.equal(tool.inputSchema.properties.Destination_Number.type, 'string');
				assert.deepEqual(tool.inputSchema.required, ['Destination_Number']);
			});

			test('three calls one after another to allowed numbers: no agent run to count them, so none is placed and each answer says no call was placed', async () => {
				env.sandbox.clearJournal();
				const texts = [];
				for (const dst of ['+14155550201', '+14155550202', '+14155550203']) {
					texts.push(textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: dst })));
				}
				assert.equal(
					placements(env).length,
					0,
					`each MCP tool call is its own execution: a per-run cap of 1 counted per execution let ${placements(env).length} call(s) through; answers: ${JSON.stringify(texts)}`,
				);
				for (const text of texts) assert.match(text, NO_CALL, text);
				assertNothingSecret(env, client.exchanges, 'what the MCP client read');
			});

			// n8n 1.123 saves no execution for an MCP tool call whose tool failed (it logs "Error while executing Tool"
			// and starts nothing), so there is nothing to read there once every call is refused.
			const noFailedExecutions = INSTALLED_N8N_MAJOR < 2 && 'n8n 1.x saves no execution for a failed MCP tool call';
			test('each MCP tool call is its own execution, with no agent run: n8n records the MCP Server Trigger as the tool\'s source', { skip: noFailedExecutions }, async () => {
				// What n8n gives the tool node on this route (n8n 2.41.1, measured): the node itself reads
				// getExecuteData().source === null (the MCP Server Trigger runs the tool inside its webhook, through
				// WebhookContext.getInputConnectionData, which builds executeData with `source: null`), and the run data
				// n8n saves for the tool says source [{ previousNode: 'MCP Server Trigger', previousNodeRun: 0 }]: the
				// trigger, which has tools and no language model. One execution per tools/call (mode `webhook`), none
				// for initialize or tools/list; every execution starts with a fresh node context, so a count kept
				// there starts again with every call.
				const executions = await env.n8n.waitForExecutions(mcp.workflow.id, { count: 3 });
				assert.ok(executions.length >= 3, `${executions.length} executions for 3 tool calls`);
				for (const execution of executions) {
					assert.equal(execution.mode, 'webhook');
					assert.deepEqual(
						sourcesOf(execution, PLACE_CALL),
						[[{ previousNode: 'MCP Server Trigger', previousNodeRun: 0 }]],
						`the source n8n recorded for the tool in execution ${execution.id}`,
					);
				}
			});

			test('a +1900 destination (outside Allowed Destinations): refused, nothing sent, no call was placed, and nothing the client reads holds a key', async () => {
				env.sandbox.clearJournal();
				const result = await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: '+19005550199' });
				const text = textOfResult(result);
				assert.equal(placements(env).length, 0);
				assert.equal(result.isError, true, text);
				assert.match(text, NO_CALL);
				assertNothingSecret(env, client.exchanges, 'what the MCP client read');
			});
		});

		// The durable count lives in n8n's data tables, which n8n's public API serves from 2.x on; on n8n 1.123 the
		// node cannot keep it and refuses every call instead (the last describe below).
		const noDurable = INSTALLED_N8N_MAJOR < 2 && 'n8n 1.x has no data tables in its public API: the durable count cannot be kept there';
		describe('MCP Server Trigger with Limit Calls Across Executions (1 per 60 minutes, per workflow)', { skip: noDurable }, () => {
			let apiCredential;
			const published = [];

			before(async () => {
				apiCredential = await createN8nApiCredential(env.n8n);
			});

			after(async () => {
				for (const { workflow } of published) await unpublish(env, workflow.id);
			});

			test('a refused destination does not use the count; then three calls one after another: exactly one placed, the two others say no call was placed', async () => {
				const { mcp, client } = await limitedMcp(env, apiCredential, 'MCP, durable count, one after another');
				published.push(mcp);
				try {
					env.sandbox.clearJournal();
					const outside = textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: '+19005550198' }));
					assert.match(outside, /Allowed Destinations/, outside);
					assert.match(outside, NO_CALL, outside);
					const texts = [];
					for (const dst of ['+14155550211', '+14155550212', '+14155550213']) {
						texts.push(textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: dst })));
					}
					assert.equal(placements(env).length, 1, `POSTs to the platform; answers: ${JSON.stringify(texts)}`);
					assert.equal(placements(env)[0].body.dst, '+14155550211', 'the first call is the one placed');
					assert.ok(placedIn(texts[0]), texts[0]);
					for (const text of texts.slice(1)) {
						assert.match(text, NO_CALL, text);
						assert.ok(!placedIn(text), text);
					}
					assertNothingSecret(env, client.exchanges, 'what the MCP client read');
				} finally {
					await client.close();
				}
			});

			test('three calls at once (a fresh workflow, so a fresh count): exactly one placed', async () => {
				const { mcp, client } = await limitedMcp(env, apiCredential, 'MCP, durable count, at once');
				published.push(mcp);
				try {
					env.sandbox.clearJournal();
					const results = await Promise.all(
						['+14155550221', '+14155550222', '+14155550223'].map((dst) => client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: dst })),
					);
					const texts = results.map(textOfResult);
					assert.equal(placements(env).length, 1, `POSTs to the platform; answers: ${JSON.stringify(texts)}`);
					assert.equal(texts.filter(placedIn).length, 1, JSON.stringify(texts));
					for (const text of texts.filter((t) => !placedIn(t))) assert.match(text, NO_CALL, text);
					assertNothingSecret(env, client.exchanges, 'what the MCP client read');
				} finally {
					await client.close();
				}
			});
		});

		describe('Guardrails > Do-Not-Call List on the agent routes: a listed number is never called', { skip: noDurable }, () => {
			const LISTED = '+14155550251';
			let apiCredential;

			before(async () => {
				apiCredential = await createN8nApiCredential(env.n8n, 'n8n API for the do-not-call list (e2e)');
				// The number reaches the list as a workflow puts it there: Do-Not-Call List > Add Number.
				const add = await env.n8n.createWorkflow(
					chain('routes: a person asked not to be called', [manualTrigger(), assistantPlatformNode('Add Number', { resource: 'doNotCallList', operation: 'add', number: LISTED, source: 'asked by phone' }, apiCredential)]),
				);
				const added = await env.n8n.runWorkflow(add.id);
				assert.equal(added.status, 'success', errorOf(added));
				assert.equal(outputOf(added, 'Add Number')[0].phone, LISTED);
			});

			test('an AI Agent asked to call a listed number: nothing reaches the platform, and the model reads why and that no call was placed', async () => {
				const tool = withCredential(placeCallTool(env, { guardrails: { doNotCallList: 'Assistant Platform Do-Not-Call List' } }), apiCredential);
				const parent = await env.n8n.createWorkflow(agentWorkflow('routes: agent and the do-not-call list', { prompt: 'Call the lead.', tools: [tool], modelCredential: model.credential }));
				const run = await runAgent(env, parent, [{ toolCalls: [{ name: toolNameOf(PLACE_CALL), arguments: { Destination_Number: LISTED } }] }]);
				assert.equal(run.execution.status, 'success', errorOf(run.execution));
				assert.equal(run.placements.length, 0, `POSTs to the platform; the model read: ${JSON.stringify(run.texts)}`);
				assert.match(run.texts[0] ?? '', /must not be called: it is on the do-not-call list/);
				assert.match(run.texts[0] ?? '', NO_CALL);
				assertNothingSecret(env, model.server.chatRequests(), 'what the model received');
			});

			test('an MCP client asking for a listed number: refused, nothing sent; an unlisted number is placed', async () => {
				const tool = withCredential(placeCallTool(env, { guardrails: { doNotCallList: 'Assistant Platform Do-Not-Call List', callLimit: { limit: { max: 5, minutes: 60 } } } }), apiCredential);
				const mcp = await publishMcp(env, 'MCP and the do-not-call list', tool);
				const client = await connectMcp(mcp.url);
				try {
					env.sandbox.clearJournal();
					const refused = textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: LISTED }));
					assert.match(refused, /must not be called: it is on the do-not-call list/, refused);
					assert.match(refused, NO_CALL, refused);
					assert.equal(placements(env).length, 0);
					const placed = textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: '+14155550252' }));
					assert.ok(placedIn(placed), placed);
					assert.deepEqual(placements(env).map((p) => p.body.dst), ['+14155550252']);
				} finally {
					await client.close();
					await unpublish(env, mcp.workflow.id);
				}
			});
		});

		describe('Call n8n Workflow Tool: an AI Agent runs a published sub-workflow that places the call', { skip: noDurable }, () => {
			let apiCredential;

			before(async () => {
				apiCredential = await createN8nApiCredential(env.n8n, 'n8n API for sub-workflow call limits (e2e)');
			});

			test('Count Per Calling Execution, Max 1: an agent run asking for three calls (two in one turn, one in the next) places exactly one; the next run places one again', async () => {
				const { parent } = await agentWithSubWorkflow(env, apiCredential, 'sub-workflow per calling execution', 'callingExecution');
				const first = await runAgent(env, parent, [{ toolCalls: [subCallTo('+14155550231'), subCallTo('+14155550232')] }, { toolCalls: [subCallTo('+14155550233')] }]);
				assert.equal(first.execution.status, 'success', errorOf(first.execution));
				assert.equal(first.placements.length, 1, `one agent run, one call; the model read: ${JSON.stringify(first.texts)}`);
				assert.equal(first.texts.length, 3);
				assert.equal(first.texts.filter(placedIn).length, 1, JSON.stringify(first.texts));
				for (const text of first.texts.filter((t) => !placedIn(t))) assert.match(text, NO_CALL, text);

				const second = await runAgent(env, parent, [{ toolCalls: [subCallTo('+14155550234')] }]);
				assert.equal(second.execution.status, 'success', errorOf(second.execution));
				assert.equal(second.placements.length, 1, `a new agent run (a new calling execution) counts anew; the model read: ${JSON.stringify(second.texts)}`);
				assert.equal(second.placements[0].body.dst, '+14155550234');
				assertNothingSecret(env, model.server.chatRequests(), 'what the model received');
			});

			test('Count Per Workflow, Max 1: across two agent runs, one call in total', async () => {
				const { parent } = await agentWithSubWorkflow(env, apiCredential, 'sub-workflow per workflow', 'workflow');
				const first = await runAgent(env, parent, [{ toolCalls: [subCallTo('+14155550241')] }]);
				assert.equal(first.execution.status, 'success', errorOf(first.execution));
				assert.equal(first.placements.length, 1, JSON.stringify(first.texts));
				const second = await runAgent(env, parent, [{ toolCalls: [subCallTo('+14155550242')] }]);
				assert.equal(second.execution.status, 'success', errorOf(second.execution));
				assert.equal(second.placements.length, 0, `the window still holds the first run's call; the model read: ${JSON.stringify(second.texts)}`);
				assert.match(second.texts[0] ?? '', NO_CALL);
			});
		});

		describe('n8n 1.x: Limit Calls Across Executions cannot count there, so nothing is placed on either route', { skip: INSTALLED_N8N_MAJOR >= 2 && 'only on n8n 1.x' }, () => {
			let apiCredential;

			before(async () => {
				apiCredential = await createN8nApiCredential(env.n8n, 'n8n API for call limits on 1.x (e2e)');
			});

			test('an MCP client: refused, nothing sent, no call was placed', async () => {
				const { mcp, client } = await limitedMcp(env, apiCredential, 'MCP, durable count on 1.x');
				try {
					env.sandbox.clearJournal();
					const text = textOfResult(await client.callTool(toolNameOf(PLACE_CALL), { Destination_Number: '+14155550271' }));
					assert.equal(placements(env).length, 0, text);
					assert.match(text, NO_CALL, text);
					assertNothingSecret(env, client.exchanges, 'what the MCP client read');
				} finally {
					await client.close();
					await unpublish(env, mcp.workflow.id);
				}
			});

			test('an agent through a sub-workflow: refused, nothing sent, the model reads no call was placed', async () => {
				const { parent } = await agentWithSubWorkflow(env, apiCredential, 'sub-workflow on 1.x', 'callingExecution');
				const run = await runAgent(env, parent, [{ toolCalls: [subCallTo('+14155550272')] }]);
				assert.equal(run.execution.status, 'success', errorOf(run.execution));
				assert.equal(run.placements.length, 0, JSON.stringify(run.texts));
				assert.equal(run.texts.length, 1, JSON.stringify(run.texts));
				assert.match(run.texts[0], NO_CALL);
			});
		});

		// n8n 1.123 has no Human-in-the-Loop tools (no chatHitlTool): nothing to review there.
		const noReview = INSTALLED_N8N_MAJOR < 2 && 'n8n 1.x has no human review of tool calls';
		describe(`Human review of tool calls: ${REVIEW_EXAMPLE}, Place Call behind the Chat node's review (n8n 2.x)`, { skip: noReview }, () => {
			let example;
			let workflow;
			let trigger;
			const chats = [];

			before(async () => {
				example = loadExamples().find((e) => e.file === REVIEW_EXAMPLE)?.workflow;
				assert.ok(example, `${REVIEW_EXAMPLE} is in examples/`);
				const [prepared] = prepareExamples([{ file: REVIEW_EXAMPLE, workflow: example }], env.byType, { baseUrl: env.n8n.url });
				const sent = reviewExampleForTest(prepared.workflow);
				trigger = sent.nodes.find((n) => n.type === CHAT_TRIGGER_TYPE);
				workflow = await env.n8n.createWorkflow(sent);
				await publish(env.n8n, workflow.id);
				workflow.sent = sent;
			});

			after(async () => {
				for (const chat of chats) chat.close();
				if (workflow) await unpublish(env, workflow.id);
			});

			/** Place Call through the review: the model's arguments are the tool's input and the review's (none). */
			const reviewedCallTo = (dst) => ({ name: toolNameOf(REVIEWED_TOOL), arguments: { toolParameters: { Destination_Number: dst }, hitlParameters: {} } });

			/**
			 * A chat message that starts one agent run (a new execution), and the hosted chat connected to it as n8n's
			 * chat page connects: { executionId, chat }.
			 */
			async function chatMessage(sessionId, chatInput) {
				const response = await env.n8n.callWebhook(chatUrl(env.n8n, trigger), { body: { action: 'sendMessage', sessionId, chatInput }, expect: [200] });
				assert.ok(response.body?.executionId, JSON.stringify(response.body));
				const chat = await openChat(env.n8n, sessionId, response.body);
				chats.push(chat);
				return { executionId: response.body.executionId, chat };
			}

			test('the example as written: Place Call only behind Review in Chat, Allowed Destinations set, Max Calls per Agent Run 1, the model and its credential left to the user; n8n stores it as imported', async () => {
				const node = (name) => example.nodes.find((n) => n.name === name);
				const into = (name) => Object.values(example.connections[name] ?? {}).flat(2).map((c) => `${c.type} -> ${c.node}`);
				const chatTrigger = example.nodes.find((n) => n.type === CHAT_TRIGGER_TYPE);
				assert.deepEqual(chatTrigger.parameters, { public: true, mode: 'hostedChat', options: { responseMode: 'responseNodes' } });
				assert.deepEqual(into(chatTrigger.name), [`main -> ${AGENT}`]);
				assert.deepEqual(into(REVIEWED_TOOL), [`ai_tool -> ${REVIEW}`], 'Place Call reaches the agent only through the review');
				assert.deepEqual(into(REVIEW), [`ai_tool -> ${AGENT}`]);
				assert.equal(node(REVIEW).type, CHAT_HITL_TOOL_TYPE);
				assert.match(node(REVIEW).parameters.message, /\$tool\.parameters\.Destination_Number/, 'the review shows the number');
				assert.deepEqual(into(MODEL), [`ai_languageModel -> ${AGENT}`]);
				assert.equal(node(MODEL).credentials, undefined, 'the OpenAI credential is left to the user');
				assert.match(node(AGENT).parameters.options.systemMessage, /only once/);
				const place = node(REVIEWED_TOOL);
				assert.equal(place.type, TOOL_TYPE);
				assert.equal(place.parameters.maxCallsPerRun, 1);
				assert.match(place.parameters.allowedDestinations, /^\+[1-9]\d*$/);
				assert.equal(place.parameters.dst, undefined, 'the model fills the Destination Number');
				assert.equal(place.parameters.guardrails, undefined);
				assert.deepEqual(Object.keys(place.credentials), ['assistantPlatformOutboundApi']);
				const stored = await env.n8n.api('GET', `/workflows/${workflow.id}`);
				assert.deepEqual(stored.connections, workflow.sent.connections);
				assert.deepEqual(stored.nodes.map((n) => [n.name, n.type]).sort(), example.nodes.map((n) => [n.name, n.type]).sort());
			});

			test('approved once: one call placed; the model asks again, a person approves again, and Max Calls per Agent Run (1) still refuses it; the chat shows the agent\'s answer', async () => {
				const answer = 'The call to +14155550251 is placed; the second call was refused.';
				model.server.script([{ toolCalls: [reviewedCallTo('+14155550251')] }, { toolCalls: [reviewedCallTo('+14155550252')] }, { content: answer }]);
				env.sandbox.clearJournal();
				const { executionId, chat } = await chatMessage('review-approve', 'Please call +14155550251.');
				const first = await waitForReview(env.n8n, executionId, REVIEW, 0);
				assert.match(first.text, /\+14155550251/, 'the reviewer sees the number');
				assert.deepEqual(first.buttons.map((b) => b.text).sort(), ['Approve', 'Decline']);
				// What the person reads in the chat before pressing a button.
				const shown = JSON.parse(await chat.waitForMessage(/\+14155550251/));
				assert.equal(shown.text, first.text);
				assert.equal(placements(env).length, 0, 'nothing is placed before the approval');
				assert.equal(await pressButton(first, 'Approve'), 200);
				const second = await waitForReview(env.n8n, executionId, REVIEW, 1);
				assert.match(second.text, /\+14155550252/);
				assert.equal(placements(env).length, 1, `the approved call is placed; the model read: ${JSON.stringify(toolResultsSeen(model.server).map((r) => r.text))}`);
				assert.equal(placements(env)[0].body.dst, '+14155550251');
				assert.equal(await pressButton(second, 'Approve'), 200);
				// The chat shows the agent's answer (Respond to Chat), and the execution ends once it was shown.
				await chat.waitForMessage(new RegExp(answer.replace(/[.+]/g, '\\$&')));
				const execution = await env.n8n.waitForExecution(executionId, { timeoutMs: 60000 });
				assert.equal(execution.status, 'success', errorOf(execution));
				const texts = toolResultsSeen(model.server).map((r) => r.text);
				assert.equal(
					placements(env).length,
					1,
					`an approval does not lift Max Calls per Agent Run; POSTs: ${JSON.stringify(placements(env).map((p) => p.body.dst))}; the tool's sources: ${JSON.stringify(sourcesOf(execution, REVIEWED_TOOL))}; the model read: ${JSON.stringify(texts)}`,
				);
				assert.equal(placements(env)[0].body.callerId, CALLER_ID);
				assert.equal(texts.length, 2, JSON.stringify(texts));
				assert.ok(placedIn(texts[0]), texts[0]);
				assert.match(texts[1], /Max Calls per Agent Run/, texts[1]);
				assert.match(texts[1], NO_CALL, texts[1]);
				// The system message of the example reached the model.
				const system = model.server.chatRequests().at(-1).messages.find((m) => m.role === 'system');
				assert.match(String(system?.content), /only once/);
			});

			test('declined: nothing is placed, the model is told the call was rejected, and the chat shows its answer', async () => {
				const answer = 'No call was placed: the call was declined.';
				model.server.script([{ toolCalls: [reviewedCallTo('+14155550261')] }, { content: answer }]);
				env.sandbox.clearJournal();
				const { executionId, chat } = await chatMessage('review-decline', 'Please call +14155550261.');
				const message = await waitForReview(env.n8n, executionId, REVIEW, 0);
				assert.match(message.text, /\+14155550261/);
				assert.equal(await pressButton(message, 'Decline'), 200);
				await chat.waitForMessage(new RegExp(answer.replace(/[.+]/g, '\\$&')));
				const execution = await env.n8n.waitForExecution(executionId, { timeoutMs: 60000 });
				assert.equal(execution.status, 'success', errorOf(execution));
				assert.equal(placements(env).length, 0);
				const texts = toolResultsSeen(model.server).map((r) => r.text);
				assert.equal(texts.length, 1, JSON.stringify(texts));
				// n8n's own words for a declined tool call (the tool never ran, so the node has nothing to say).
				assert.match(texts[0], /rejected the tool call/i, texts[0]);
				assert.ok(!placedIn(texts[0]), texts[0]);
				assertNothingSecret(env, model.server.chatRequests(), 'what the model received');
				assertNothingSecret(env, chat.messages, 'what the chat showed');
			});
		});

		test("nothing secret (the platform's keys, the n8n API key of the durable count) in n8n's log or in the executions of these routes", async () => {
			const executions = (await env.n8n.api('GET', '/executions?includeData=true&limit=250')).data;
			assertNothingSecret(env, executions, 'the executions');
			assertNothingSecret(env, fs.readFileSync(env.n8n.logFile, 'utf8'), "n8n's log");
			assertNothingSecret(env, model.server.allRequests, 'what the model received');
		});
	});
}

module.exports = { prepare, register };
