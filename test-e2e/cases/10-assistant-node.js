// Workflows with the Assistant Platform node run in real n8n against the sandbox.
'use strict';
const assert = require('node:assert/strict');
const { describe, test } = require('node:test');

const { assertNoSecrets, assistantsOf, requestsTo } = require('../support/assertions');
const { assistantPlatformNode, chain, errorOf, manualTrigger, outputOf } = require('../support/workflows');

function register(env) {
	describe('Assistant Platform node in a workflow', () => {
		test('Manual Trigger -> Assistant: Get Many (Return All) outputs every seeded assistant', async () => {
			const seeded = assistantsOf(env.sandbox);
			assert.ok(seeded.length > 0, 'the sandbox has no seeded assistants');
			const workflow = await env.n8n.createWorkflow(
				chain('e2e: get all assistants', [
					manualTrigger(),
					assistantPlatformNode(
						'Get Assistants',
						{ resource: 'assistant', operation: 'getAll', returnAll: true },
						env.credentials.portal,
					),
				]),
			);
			env.sandbox.clearJournal();

			const execution = await env.n8n.runWorkflow(workflow.id);

			assert.equal(execution.status, 'success', errorOf(execution));
			assert.equal(execution.mode, 'manual');
			const items = outputOf(execution, 'Get Assistants');
			assert.equal(items.length, seeded.length);
			assert.deepEqual(
				items.map((item) => item.assistantId).sort(),
				seeded.map((a) => a.assistantId).sort(),
			);
			assert.deepEqual(
				items.map((item) => item.name).sort(),
				seeded.map((a) => a.name).sort(),
			);
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');

			const requests = requestsTo(env.sandbox, 'GET', '/api/v1/assistants');
			assert.equal(requests.length, env.sandbox.journal.length, 'requests other than GET /api/v1/assistants were sent');
			assert.ok(requests.length >= 1);
			for (const request of requests) {
				assert.equal(request.auth, 'ok');
				assert.equal(request.status, 200);
				assert.equal(request.query.limit, '500');
			}
			assert.equal(requests[0].query.cursor, undefined);
		});
	});
}

module.exports = { register };
