// Case 5, registration with workers running: publishing a trigger that configures the platform writes the
// assistant's two hooks exactly once (one PATCH each: only the main activates triggers; workers and the webhook
// processor do not), and unpublishing restores them exactly once.
'use strict';
const { assistantsOf } = require('../../test-e2e/support/assertions');
const { chain, noOpNode, triggerNode } = require('../../test-e2e/support/workflows');
const { waitFor } = require('../../test-e2e/support/wait');
const { delay } = require('../../scripts/n8n-runtime');
const { assert, post } = require('../support');

module.exports = {
	id: 5,
	title: 'Registration on publish / unpublish',
	expected: 'publish: 2 PATCHes (conversation webhook, schema) once; unpublish: 2 PATCHes once; URLs at the webhook processor',
	async run(cluster) {
		const { sandbox, main } = cluster;
		const assistant = assistantsOf(sandbox)[1];
		const prefix = `/api/v1/assistants/${assistant.assistantId}/runtime/hangup/`;
		const patches = () => sandbox.journal.filter((e) => e.method === 'PATCH' && e.path.startsWith(prefix)).map((e) => [e.path.slice(prefix.length), e.body, e.status]);
		const trigger = triggerNode(
			'Conversation Events',
			{
				events: ['conversationEnd', 'extractedData'],
				registerOnPublish: true,
				assistantId: { __rl: true, mode: 'id', value: assistant.assistantId },
				authName: 'n8n-header-auth',
				extractionSchema: { properties: [{ name: 'customerName', type: 'string', description: 'Name', required: true }] },
			},
			cluster.credentials.portal,
		);
		const workflow = await main.createWorkflow(chain('queue: registration', [trigger, noOpNode('Received')]));
		const registration = async () => (await main.api('GET', `/workflows/${workflow.id}`)).staticData?.[`node:${trigger.name}`]?.registration;
		const base = `${cluster.webhookUrl}/webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}`;
		sandbox.clearJournal();

		await main.api('POST', `/workflows/${workflow.id}/publish`);
		// The registration is stored once both PATCHes were answered. Only another process acting on the same publish
		// could still send one, as fast as the main did (two PATCHes on 127.0.0.1): a second of quiet shows it.
		await waitFor('the registration in the static data', registration);
		await delay(1000);
		const published = patches();
		assert.deepEqual(
			published.map(([suffix, body, status]) => [suffix, status, body.url ?? body.hangupUrl]),
			[
				['conversation-webhook', 200, `${base}/conversation-end`],
				['schema', 200, `${base}/extracted-data`],
			],
		);
		const listening = await post(`${base}/conversation-end`, { event: 'conversation_end' });
		assert.notEqual(listening.status, 404, 'the webhook processor does not serve the published trigger');

		sandbox.clearJournal();
		await main.api('POST', `/workflows/${workflow.id}/unpublish`);
		await waitFor('the registration to leave the static data', async () => (await registration()) === undefined);
		await delay(1000); // as after the publish: a second unregistration by another process would show now
		const unpublished = patches();
		assert.deepEqual(
			unpublished.map(([suffix, body, status]) => [suffix, status, body]),
			[
				['conversation-webhook', 200, { enabled: false, url: null, authName: null }],
				['schema', 200, { hangupUrl: null, schema: [] }],
			],
		);
		assert.deepEqual(sandbox.state.conversationWebhooks.get(assistant.assistantId), { enabled: false, url: null, authName: null });
		return { measured: `publish: ${published.length} PATCHes (once each); unpublish: ${unpublished.length} PATCHes (once each)` };
	},
};
