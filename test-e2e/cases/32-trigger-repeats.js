// Ignore Repeated Deliveries on the production URL of a published workflow in the real n8n: the same call result
// delivered again starts nothing, whether the repeat arrives after the first delivery was answered or at the same
// moment, and also when other call results were received together with it. What is protected: a platform that retries its callbacks must not start a workflow (and, with the
// trigger's Retry Policy, schedule a call again) once per delivery.
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { after, before, describe, test } = require('node:test');

const { delay } = require('../../scripts/n8n-runtime');
const { chain, errorOf, noOpNode, outputOf, publishTrigger, triggerNode, triggerUrl, unpublishTrigger } = require('../support/workflows');

const REPEATED = { received: true, started: false, reason: 'repeated delivery' };

function register(env) {
	describe('Assistant Platform Trigger, Ignore Repeated Deliveries on a published workflow', () => {
		let trigger;
		let workflowId;

		async function endedExecutions() {
			const { data } = await env.n8n.api('GET', `/executions?includeData=true&limit=100&workflowId=${workflowId}`);
			return data.filter((e) => !['new', 'running'].includes(e.status));
		}

		/** The internal_ids the trigger put out, one per execution (after stray executions had time to show up). */
		async function startedIds(expected) {
			await env.n8n.waitForExecutions(workflowId, { count: expected });
			await delay(1500);
			return (await endedExecutions()).map((execution) => {
				assert.equal(execution.status, 'success', errorOf(execution));
				return outputOf(execution, 'Call Result')[0].internal_id;
			});
		}

		before(async () => {
			trigger = triggerNode('Call Result', {
				events: ['callResult'],
				registerOnPublish: false,
				options: { ignoreRepeats: true },
			});
			const created = await env.n8n.createWorkflow(chain('e2e: repeated deliveries', [trigger, noOpNode('Received')]));
			workflowId = created.id;
			await publishTrigger(env.n8n, workflowId, trigger);
		});

		after(async () => {
			if (workflowId) await unpublishTrigger(env.n8n, workflowId, trigger);
		});

		test('a call result delivered again after the first was answered, several at once, or after other results received at the same moment, starts one execution', async () => {
			const url = triggerUrl(env.n8n, trigger, 'call-result');
			const result = (internalId) => ({ internal_id: internalId, dialstatus: 'BUSY', duration: 0 });

			// One after the other, each repeat sent once the previous delivery was answered.
			const sequential = `e2e-repeat-${crypto.randomUUID()}`;
			const answers = [];
			for (let i = 0; i < 3; i++) answers.push(await env.n8n.callWebhook(url, { body: result(sequential) }));
			assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
			assert.notDeepEqual(answers[0].body, REPEATED);
			assert.deepEqual(answers[1].body, REPEATED, 'the second delivery was not recognised as a repeat');
			assert.deepEqual(answers[2].body, REPEATED, 'the third delivery was not recognised as a repeat');

			// Four at once.
			const together = `e2e-repeat-${crypto.randomUUID()}`;
			const burst = await Promise.all([1, 2, 3, 4].map(() => env.n8n.callWebhook(url, { body: result(together) })));
			assert.deepEqual(burst.map((a) => a.status), [200, 200, 200, 200]);
			const repeats = burst.filter((a) => JSON.stringify(a.body) === JSON.stringify(REPEATED)).length;

			// Six different call results at once (each starts), then each delivered again, one after the other.
			const distinct = [1, 2, 3, 4, 5, 6].map(() => `e2e-repeat-${crypto.randomUUID()}`);
			const firsts = await Promise.all(distinct.map((id) => env.n8n.callWebhook(url, { body: result(id) })));
			assert.deepEqual(firsts.map((a) => JSON.stringify(a.body) === JSON.stringify(REPEATED)), distinct.map(() => false));
			const again = [];
			for (const id of distinct) again.push((await env.n8n.callWebhook(url, { body: result(id) })).body);
			const forgotten = distinct.filter((id, i) => JSON.stringify(again[i]) !== JSON.stringify(REPEATED));
			assert.deepEqual(
				{ startedAtOnce: 4 - repeats, forgotten: forgotten.length },
				{ startedAtOnce: 1, forgotten: 0 },
				'deliveries at once that started the workflow (of 4), call results received at the same moment then forgotten (of 6)',
			);

			const ids = await startedIds(8);
			assert.deepEqual(ids.sort(), [sequential, together, ...distinct].sort(), `executions started for: ${ids.join(', ')}`);
		});
	});
}

module.exports = { register };
