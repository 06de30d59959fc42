// Case 2, the trigger through the webhook processor: 1,000 call results posted with 50 in flight, plus the call
// results, conversation ends and extracted data the sandbox itself posts for 20 answered calls (the trigger set the
// assistant's hooks on publish): every one starts exactly one execution; posts with a wrong token or without the
// saved authentication header are answered 401 and start none.
'use strict';
const { assistantsOf } = require('../../test-e2e/support/assertions');
const { assistantPlatformNode, chain, errorOf, newWebhookSecret, noOpNode, triggerNode } = require('../../test-e2e/support/workflows');
const { waitFor } = require('../../test-e2e/support/wait');
const { delay } = require('../../scripts/n8n-runtime');
const { assert, allExecutions, itemsOf, numbers, pool, post, rate, splitOutNode, waitForFinished, waitForWebhook, webhookNode } = require('../support');

const CALLER_ID = '+390200001001';
const SAVED_AUTH = { name: 'n8n-header-auth', header: 'X-Webhook-Auth' };
const DIRECT = 1000;
const IN_FLIGHT = 50;
const ANSWERED = 20;

module.exports = {
	id: 2,
	title: 'Trigger through the webhook processor',
	expected: `${DIRECT} call results (${IN_FLIGHT} in flight) + ${ANSWERED} x 3 sandbox events: one execution each; wrong-token posts: 401, none`,
	async run(cluster) {
		const { sandbox, main } = cluster;
		const assistant = assistantsOf(sandbox)[0]; // the outbound credential's assistant: its calls post its hooks
		const trigger = triggerNode(
			'Platform Event',
			{
				events: ['callResult', 'conversationEnd', 'extractedData'],
				registerOnPublish: true,
				assistantId: { __rl: true, mode: 'id', value: assistant.assistantId },
				authName: SAVED_AUTH.name,
				extractionSchema: { properties: [{ name: 'customerName', type: 'string', description: 'Name', required: true }] },
				options: { authHeaderName: SAVED_AUTH.header, authHeaderValue: sandbox.savedAuthValue },
			},
			cluster.credentials.portal,
		);
		const workflow = await main.createWorkflow(chain('queue: platform events', [trigger, noOpNode('Received')]));
		const base = `${cluster.webhookUrl}/webhook/${trigger.webhookId}`;
		const url = (slug, secret = trigger.parameters.webhookSecret) => `${base}/${secret}/${slug}`;
		await main.api('POST', `/workflows/${workflow.id}/publish`);
		const probe = await waitForWebhook(`${base}/call-result`, { probe: true });
		assert.equal(probe.status, 401, `the trigger is not listening at the webhook processor: ${JSON.stringify(probe.body)}`);
		await waitFor('the registration in the static data', async () => (await main.api('GET', `/workflows/${workflow.id}`)).staticData?.[`node:${trigger.name}`]?.registration);
		assert.equal(sandbox.state.conversationWebhooks.get(assistant.assistantId)?.url, url('conversation-end'));

		// Wrong posts first: none may start an execution.
		const body = { internal_id: 'q2-forged', dialstatus: 'ANSWER', duration: 1 };
		const wrong = [
			...Array.from({ length: 10 }, () => post(`${base}/call-result`, body)),
			...Array.from({ length: 10 }, () => post(url('call-result', newWebhookSecret()), body)),
			...Array.from({ length: 10 }, () => post(url('conversation-end'), { event: 'conversation_end', internal_id: 'q2-forged' })),
		];
		const wrongAnswers = await Promise.all(wrong);
		assert.deepEqual([...new Set(wrongAnswers.map((r) => r.status))], [401]);

		// 1,000 call results, 50 in flight.
		const ids = Array.from({ length: DIRECT }, (_, i) => `q2-${String(i).padStart(4, '0')}`);
		let t = Date.now();
		const answers = await pool(ids, IN_FLIGHT, (id, i) => post(url('call-result'), { internal_id: id, dialstatus: i % 2 ? 'ANSWER' : 'BUSY', duration: i % 2 ? 7 : 0 }));
		const intakeMs = Date.now() - t;
		const refused = answers.filter((r) => r.status !== 200);
		assert.equal(refused.length, 0, `answers: ${JSON.stringify(refused.slice(0, 3))}`);
		const direct = await waitForFinished(main, workflow.id, DIRECT, { what: 'case 2 (call results)', timeoutMs: 300000 });
		const throughMs = Date.now() - t;

		// The sandbox's own posts for answered calls placed by a production Place Call.
		const dsts = numbers('1415620', ANSWERED);
		// The calls end 400 ms apart (three posts each), as calls of a campaign do: not all in the same instant.
		dsts.forEach((dst, i) => sandbox.setDialOutcome({ dst, dialstatus: 'ANSWER', ringMs: 200 + i * 400, durationSec: 1 }));
		const placer = await main.createWorkflow(
			chain('queue: answered calls for the trigger', [
				webhookNode('Start', `q2-place-${trigger.webhookId}`),
				splitOutNode('Numbers', 'body.calls'),
				assistantPlatformNode(
					'Place Call',
					{ resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.dst }}', callerId: CALLER_ID, options: { callResultUrl: url('call-result') } },
					cluster.credentials.outbound,
				),
			]),
		);
		await main.api('POST', `/workflows/${placer.id}/publish`);
		const started = await waitForWebhook(`${cluster.webhookUrl}/webhook/q2-place-${trigger.webhookId}`, { calls: dsts.map((dst) => ({ dst })) });
		assert.equal(started.status, 200);
		const all = await waitForFinished(main, workflow.id, DIRECT + 3 * ANSWERED, { what: 'case 2 (sandbox events)', timeoutMs: 120000 });
		const placedIds = new Set([...sandbox.state.calls.values()].filter((c) => dsts.includes(c.dst)).map((c) => c.internalId));
		const ofPlaced = () => sandbox.callbacks.filter((c) => placedIds.has(String(c.internal_id)));
		await waitFor('every post of the sandbox answered', () => ofPlaced().length >= 3 * ANSWERED, { describe: () => `${ofPlaced().length} answered` });
		// Every post is answered, so no other execution can start; one it started is saved as its answer goes out, and
		// the last answers went out just now: a second of quiet lets an extra execution show.
		await delay(1000);
		const list = await allExecutions(main, workflow.id, { includeData: true });
		assert.equal(all.list.length, list.length);
		assert.equal(list.length, DIRECT + 3 * ANSWERED, 'executions of the trigger');

		const callbacks = ofPlaced();
		assert.equal(callbacks.length, 3 * ANSWERED, JSON.stringify(callbacks.map((c) => [c.kind, c.status])));
		assert.ok(callbacks.every((c) => c.status === 200), JSON.stringify(callbacks.filter((c) => c.status !== 200)));
		const events = list.map((execution) => {
			assert.equal(execution.status, 'success', errorOf(execution));
			assert.equal(execution.mode, 'webhook');
			const [event] = itemsOf(execution, 'Platform Event');
			return event;
		});
		const key = (e) => `${e.event}:${e.internal_id}`;
		const seen = new Map();
		for (const e of events) seen.set(key(e), (seen.get(key(e)) ?? 0) + 1);
		assert.ok([...seen.values()].every((n) => n === 1), 'an event started two executions');
		for (const id of ids) assert.ok(seen.has(`callResult:${id}`), `call result ${id} started no execution`);
		for (const c of callbacks) assert.ok(seen.has(`${c.kind}:${c.internal_id}`), `${c.kind} of ${c.internal_id} started no execution`);
		assert.ok(!seen.has('callResult:q2-forged') && !seen.has('conversationEnd:q2-forged'), 'a refused post started an execution');

		await main.api('POST', `/workflows/${workflow.id}/unpublish`);
		await main.api('POST', `/workflows/${placer.id}/unpublish`);
		const byKind = {};
		for (const e of events) byKind[e.event] = (byKind[e.event] ?? 0) + 1;
		return {
			measured:
				`${list.length} executions for ${DIRECT + 3 * ANSWERED} posts, each once (${JSON.stringify(byKind)}); ` +
				`${wrongAnswers.length} wrong posts: 401, 0 executions`,
			metrics: {
				webhookIntakePerSecond: rate(DIRECT, intakeMs),
				webhookExecutionsPerSecond: rate(DIRECT, throughMs),
				intakeMs,
				throughMs,

			},
		};
	},
};
