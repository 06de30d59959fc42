// Publishing an Assistant Platform Trigger with Conversation End / Extracted Data and Configure Platform on
// Publish writes its Production URLs into the assistant's conversation-webhook and extraction configuration on
// the platform; unpublishing turns them off and clears them. Seen in the sandbox's state and journal.
'use strict';
const assert = require('node:assert/strict');
const { before, describe, test } = require('node:test');

const { delay } = require('../../scripts/n8n-runtime');
const { assistantsOf } = require('../support/assertions');
const {
	chain,
	noOpNode,
	publishTrigger,
	storedRegistration,
	triggerNode,
	triggerUrl,
	unpublishTrigger,
} = require('../support/workflows');

const SCHEMA = [
	{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
	{ name: 'budget', type: 'number', description: 'Budget in EUR', required: false },
	{ name: 'product', type: 'enum', description: 'Product asked about', required: false, enumValues: 'basic, pro' },
];
const SCHEMA_SENT = [
	{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
	{ name: 'budget', type: 'number', description: 'Budget in EUR', required: false },
	{ name: 'product', type: 'enum', description: 'Product asked about', required: false, values: ['basic', 'pro'] },
];

function register(env) {
	describe('trigger registration on publish and unpublish', () => {
		let assistant;

		/** The PATCHes of the assistant's hangup configuration in the journal, as [path suffix, body]. */
		function hangupPatches() {
			const prefix = `/api/v1/assistants/${assistant.assistantId}/runtime/hangup/`;
			return env.sandbox.journal
				.filter((e) => e.method === 'PATCH' && e.path.startsWith(prefix))
				.map((e) => {
					assert.equal(e.auth, 'ok', e.path);
					assert.equal(e.status, 200, e.path);
					return [e.path.slice(prefix.length), e.body];
				});
		}

		before(() => {
			env.sandbox.reset();
			// The second seeded assistant: nothing else in the suite configures it.
			assistant = assistantsOf(env.sandbox)[1];
			assert.equal(env.sandbox.state.conversationWebhooks.get(assistant.assistantId), undefined);
			assert.equal(env.sandbox.state.extractionConfigs.get(assistant.assistantId), undefined);
		});

		test('publish sets the Production URLs and the schema on the assistant; unpublish turns them off', async () => {
			const trigger = triggerNode(
				'Conversation Events',
				{
					events: ['conversationEnd', 'extractedData'],
					registerOnPublish: true,
					assistantId: { __rl: true, mode: 'id', value: assistant.assistantId },
					authName: 'n8n-header-auth',
					extractionSchema: { properties: SCHEMA },
				},
				env.credentials.portal,
			);
			const workflow = await env.n8n.createWorkflow(chain('e2e: registration', [trigger, noOpNode('Received')]));
			env.sandbox.clearJournal();

			await publishTrigger(env.n8n, workflow.id, trigger);

			const conversationEndUrl = triggerUrl(env.n8n, trigger, 'conversation-end');
			const extractedDataUrl = triggerUrl(env.n8n, trigger, 'extracted-data');
			assert.deepEqual(hangupPatches(), [
				['conversation-webhook', { enabled: true, url: conversationEndUrl, authName: 'n8n-header-auth' }],
				['schema', { hangupUrl: extractedDataUrl, schema: SCHEMA_SENT }],
			]);
			assert.equal(env.sandbox.journal.length, 2, JSON.stringify(env.sandbox.journal.map((e) => `${e.method} ${e.path}`)));
			assert.deepEqual(env.sandbox.state.conversationWebhooks.get(assistant.assistantId), {
				enabled: true,
				url: conversationEndUrl,
				authName: 'n8n-header-auth',
			});
			assert.deepEqual(env.sandbox.state.extractionConfigs.get(assistant.assistantId), {
				hangupUrl: extractedDataUrl,
				schema: SCHEMA_SENT,
			});
			// What was set is kept in the workflow's static data, for unpublishing.
			const registration = await storedRegistration(env.n8n, workflow.id, trigger);
			assert.deepEqual(
				[registration.assistantId, registration.conversationEndUrl, registration.extractedDataUrl],
				[assistant.assistantId, conversationEndUrl, extractedDataUrl],
			);

			// n8n 2.x calls the trigger's delete for each of its five webhooks at once: still one request each.
			env.sandbox.clearJournal();
			await unpublishTrigger(env.n8n, workflow.id, trigger);

			assert.deepEqual(hangupPatches(), [
				['conversation-webhook', { enabled: false, url: null, authName: null }],
				['schema', { hangupUrl: null, schema: [] }],
			]);
			assert.equal(env.sandbox.journal.length, 2, JSON.stringify(env.sandbox.journal.map((e) => `${e.method} ${e.path}`)));
			assert.deepEqual(env.sandbox.state.conversationWebhooks.get(assistant.assistantId), {
				enabled: false,
				url: null,
				authName: null,
			});
			assert.deepEqual(env.sandbox.state.extractionConfigs.get(assistant.assistantId), { hangupUrl: null, schema: [] });
			// n8n no longer serves the trigger.
			const response = await env.n8n.callWebhook(conversationEndUrl, { body: { event: 'conversation_end' }, retryMs: 0 });
			assert.equal(response.status, 404);
		});

		test('with Configure Platform on Publish off, publishing and unpublishing leave the platform alone', async () => {
			const trigger = triggerNode(
				'Conversation Events',
				{
					events: ['conversationEnd', 'extractedData'],
					registerOnPublish: false,
				},
			);
			const workflow = await env.n8n.createWorkflow(chain('e2e: no registration', [trigger, noOpNode('Received')]));
			const previous = {
				conversation: env.sandbox.state.conversationWebhooks.get(assistant.assistantId),
				extraction: env.sandbox.state.extractionConfigs.get(assistant.assistantId),
			};
			env.sandbox.clearJournal();

			await publishTrigger(env.n8n, workflow.id, trigger);
			await unpublishTrigger(env.n8n, workflow.id, trigger);
			// n8n tears the trigger down after the unpublish call returns; this one leaves no trace to wait for.
			await delay(1500);

			assert.deepEqual(env.sandbox.journal, []);
			assert.deepEqual(env.sandbox.state.conversationWebhooks.get(assistant.assistantId), previous.conversation);
			assert.deepEqual(env.sandbox.state.extractionConfigs.get(assistant.assistantId), previous.extraction);
		});
	});
}

module.exports = { register };
