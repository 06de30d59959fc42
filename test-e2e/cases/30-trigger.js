// A published Assistant Platform Trigger receives the sandbox's real callbacks: the call result of a call placed
// with Place Call, and the conversation end (with the saved authentication's header) and the extracted data of a
// call to the assistant it configured on publish. Posts without its token, or with another one, are answered 401
// and start nothing.
'use strict';
const assert = require('node:assert/strict');
const { after, before, describe, test } = require('node:test');

const { delay } = require('../../scripts/n8n-runtime');
const { assertNoSecrets, assistantsOf } = require('../support/assertions');
const { waitForCallbacks } = require('../support/wait');
const {
	assistantPlatformNode,
	chain,
	errorOf,
	manualTrigger,
	newWebhookSecret,
	noOpNode,
	outputOf,
	publishTrigger,
	triggerNode,
	triggerUrl,
	unpublishTrigger,
} = require('../support/workflows');

const CALLER_ID = '+390200001001'; // demo number of the first seeded assistant (its key is in the outbound credential)
const BUSY_DST = '+14155550177';
const ANSWER_DST = '+14155550178';
const SAVED_AUTH = { name: 'n8n-header-auth', header: 'X-Webhook-Auth' }; // seeded in the sandbox

function register(env) {
	describe('Assistant Platform Trigger, published, with the sandbox calling it', () => {
		let assistant;
		let trigger;
		let workflowId;

		/** Manual Trigger -> Place Call (to `dst`, with `callResultUrl` if given); returns the execution. */
		async function placeCall(dst, callResultUrl) {
			const workflow = await env.n8n.createWorkflow(
				chain(`e2e: place a call to ${dst}`, [
					manualTrigger(),
					assistantPlatformNode(
						'Place Call',
						{
							resource: 'outboundCall',
							operation: 'placeCall',
							route: 'trunk',
							dst,
							callerId: CALLER_ID,
							options: callResultUrl ? { callResultUrl } : {},
						},
						env.credentials.outbound,
					),
				]),
			);
			const execution = await env.n8n.runWorkflow(workflow.id);
			assert.equal(execution.status, 'success', errorOf(execution));
			const [placed] = outputOf(execution, 'Place Call');
			// The spec's acceptance is {internal_id}: no status.
			assert.equal(placed.status, null);
			return String(placed.internal_id);
		}

		async function executionsOfTrigger() {
			return (await env.n8n.api('GET', `/executions?includeData=true&limit=100&workflowId=${workflowId}`)).data;
		}

		before(async () => {
			env.sandbox.reset();
			assistant = assistantsOf(env.sandbox)[0];
			trigger = triggerNode(
				'Platform Event',
				{
					events: ['callResult', 'conversationEnd', 'extractedData'],
					registerOnPublish: true,
					assistantId: { __rl: true, mode: 'id', value: assistant.assistantId },
					authName: SAVED_AUTH.name,
					extractionSchema: {
						properties: [
							{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
							{ name: 'interested', type: 'boolean', description: 'Wants an offer', required: false },
							{ name: 'callback', type: 'enum', description: 'Call back?', required: false, enumValues: 'yes, no' },
						],
					},
					options: { authHeaderName: SAVED_AUTH.header, authHeaderValue: env.sandbox.savedAuthValue },
				},
				env.credentials.portal,
			);
			const created = await env.n8n.createWorkflow(chain('e2e: platform events', [trigger, noOpNode('Received')]));
			workflowId = created.id;
			await publishTrigger(env.n8n, workflowId, trigger);
		});

		after(async () => {
			if (workflowId) await unpublishTrigger(env.n8n, workflowId, trigger);
		});

		test('the call result of a call placed with Place Call starts the workflow once', async () => {
			env.sandbox.setDialOutcome({ dst: BUSY_DST, dialstatus: 'BUSY', ringMs: 500 });
			env.sandbox.clearCallbacks();
			const url = triggerUrl(env.n8n, trigger, 'call-result');

			const internalId = await placeCall(BUSY_DST, url);

			const [callback] = await waitForCallbacks(env.sandbox, { kind: 'callResult', internal_id: internalId });
			assert.equal(callback.url, url);
			assert.equal(callback.status, 200, callback.error ?? '');
			const executions = await env.n8n.waitForExecutions(workflowId, { count: 1 });
			assert.equal(executions.length, 1);
			const [execution] = executions;
			assert.equal(execution.status, 'success', errorOf(execution));
			assert.equal(execution.mode, 'webhook');
			const [event] = outputOf(execution, 'Platform Event');
			assert.equal(event.event, 'callResult');
			assert.equal(event.internal_id, internalId);
			assert.equal(event.dialStatus, 'BUSY');
			assert.equal(event.duration, 0);
			assert.ok(Math.abs(Date.parse(event.receivedAt) - Date.now()) < 60000, `receivedAt ${event.receivedAt}`);
			assert.deepEqual(event.body, { internal_id: internalId, dialstatus: 'BUSY', duration: 0 });
			assert.deepEqual(outputOf(execution, 'Received'), [event]);
			// A busy call has no conversation: nothing else was posted.
			assert.deepEqual(env.sandbox.callbacks.map((c) => c.kind), ['callResult']);
		});

		test('the conversation end (with its saved authentication header) and the extracted data of a call to the assistant start it', async () => {
			env.sandbox.clearCallbacks();
			const countBefore = (await executionsOfTrigger()).length;

			const internalId = await placeCall(ANSWER_DST); // no Call Result URL: only the assistant's hooks post

			const conversationEnd = await waitForCallbacks(env.sandbox, { kind: 'conversationEnd', internal_id: internalId });
			const extracted = await waitForCallbacks(env.sandbox, { kind: 'extractedData', internal_id: internalId });
			assert.equal(conversationEnd.length, 1);
			assert.equal(extracted.length, 1);
			assert.equal(conversationEnd[0].url, triggerUrl(env.n8n, trigger, 'conversation-end'));
			assert.equal(conversationEnd[0].headers[SAVED_AUTH.header.toLowerCase()], '[masked]', 'the saved authentication header was not sent');
			assert.equal(conversationEnd[0].status, 200, conversationEnd[0].error ?? '');
			assert.equal(extracted[0].url, triggerUrl(env.n8n, trigger, 'extracted-data'));
			assert.equal(extracted[0].status, 200, extracted[0].error ?? '');

			const executions = await env.n8n.waitForExecutions(workflowId, { count: countBefore + 2 });
			assert.equal(executions.length, countBefore + 2);
			const events = executions.slice(0, 2).map((execution) => {
				assert.equal(execution.status, 'success', errorOf(execution));
				return outputOf(execution, 'Platform Event')[0];
			});
			const byEvent = Object.fromEntries(events.map((e) => [e.event, e]));
			assert.deepEqual(Object.keys(byEvent).sort(), ['conversationEnd', 'extractedData']);

			const end = byEvent.conversationEnd;
			assert.equal(end.assistantId, assistant.assistantId);
			assert.equal(end.internal_id, internalId);
			assert.equal(end.body.event, 'conversation_end');
			assert.equal(end.body.durationSec, 2);
			assert.equal(end.body.from, CALLER_ID);
			assert.equal(end.body.to, ANSWER_DST);
			assert.deepEqual(end.body, conversationEnd[0].body);

			const data = byEvent.extractedData;
			assert.equal(data.assistantId, assistant.assistantId);
			assert.equal(data.internal_id, internalId);
			// One value per property of the schema the trigger registered on publish.
			assert.deepEqual(data.data, { customerName: 'sample customerName', interested: true, callback: 'yes' });
			assert.deepEqual(data.body, extracted[0].body);
			assertNoSecrets(env.sandbox, events, 'the trigger output');
			assert.ok(!JSON.stringify(events).includes(env.sandbox.savedAuthValue), 'the saved authentication value is in the output');
		});

		test('a post without the token, with another token, or without the authentication header gets 401 and starts nothing', async () => {
			const countBefore = (await executionsOfTrigger()).length;
			const body = { internal_id: 'e2e-forged', dialstatus: 'ANSWER', duration: 5 };
			const attempts = [
				['no token', `${env.n8n.url}/webhook/${trigger.webhookId}/call-result`, {}, 'missing or wrong token'],
				['another token', `${env.n8n.url}/webhook/${trigger.webhookId}/${newWebhookSecret()}/call-result`, {}, 'missing or wrong token'],
				[
					'no authentication header',
					triggerUrl(env.n8n, trigger, 'conversation-end'),
					{},
					'missing or wrong authentication header',
				],
				[
					'a wrong authentication header',
					triggerUrl(env.n8n, trigger, 'conversation-end'),
					{ [SAVED_AUTH.header]: 'not-the-saved-value' },
					'missing or wrong authentication header',
				],
			];
			for (const [what, url, headers, reason] of attempts) {
				const response = await env.n8n.callWebhook(url, { body, headers });
				assert.equal(response.status, 401, `${what}: ${JSON.stringify(response.body)}`);
				assert.deepEqual(response.body, { error: reason }, what);
			}
			// Executions of a webhook start before it answers; give any stray one time to show up.
			await delay(1500);
			assert.equal((await executionsOfTrigger()).length, countBefore, 'a refused post started an execution');

			// The same post with the token is accepted (the check above could fail).
			const accepted = await env.n8n.callWebhook(triggerUrl(env.n8n, trigger, 'call-result'), { body });
			assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
			const executions = await env.n8n.waitForExecutions(workflowId, { count: countBefore + 1 });
			assert.equal(executions.length, countBefore + 1);
			assert.equal(outputOf(executions[0], 'Platform Event')[0].internal_id, 'e2e-forged');
		});
	});
}

module.exports = { register };
