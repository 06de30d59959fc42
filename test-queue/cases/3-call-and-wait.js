// Case 3, Call and Wait across processes: 50 production executions (started at the webhook processor, run by the
// workers) wait at once; the sandbox's call results reach their resume URLs at the webhook processor (the workers'
// N8N_WEBHOOK_URL); each execution resumes, on a worker, with its own call's result. A call with no result resumes
// through the time-out path (the main's wait tracker) with the pending item: it is started first and checked last.
'use strict';
const crypto = require('node:crypto');

const { callAndWaitNode, chain, errorOf, noOpNode } = require('../../test-e2e/support/workflows');
const { assert, allExecutions, itemsOf, numbers, pool, post, waitForFinished, waitForWebhook, webhookNode } = require('../support');
const { delay } = require('../../scripts/n8n-runtime');

const CALLER_ID = '+390200001001';
const WAITING = 50;
const NODE = 'Place Call and Wait';

/** Webhook (body.dst) -> Call and Wait -> No Operation, published; returns { workflow, url }. */
async function callAndWaitWorkflow(cluster, name, maxWaitMinutes, extraNodes = []) {
	const webhookPath = `q-wait-${crypto.randomUUID()}`;
	const workflow = await cluster.main.createWorkflow(
		chain(name, [
			webhookNode('Start', webhookPath),
			callAndWaitNode(NODE, { route: 'trunk', dst: '={{ $json.body.dst }}', callerId: CALLER_ID, maxWaitMinutes, options: {} }, cluster.credentials.outbound),
			...extraNodes,
			noOpNode('After Result'),
		]),
	);
	await cluster.main.api('POST', `/workflows/${workflow.id}/publish`);
	return { workflow, url: `${cluster.webhookUrl}/webhook/${webhookPath}` };
}

const TIMEOUT_DST = '+14156300999';
const state = {};

module.exports = {
	id: 3,
	title: 'Call and Wait across processes',
	expected: `${WAITING} waiting at once, each resumed with its own result (0 crossed, 0 lost); no result: time-out path with the pending item`,
	callAndWaitWorkflow,
	NODE,
	/** The time-out run: Max Wait 0.1 min; the main's wait tracker resumes it within about a minute after that. */
	async start(cluster) {
		cluster.sandbox.setDialOutcome({ dst: TIMEOUT_DST, dialstatus: 'NOANSWER', ringMs: 30 * 60 * 1000 });
		const { workflow, url } = await callAndWaitWorkflow(cluster, 'queue: call and wait, Max Wait passes', 0.1);
		state.timeout = { workflow, startedAt: Date.now() };
		const r = await waitForWebhook(url, { dst: TIMEOUT_DST });
		assert.equal(r.status, 200);
	},
	async run(cluster) {
		const { sandbox, main } = cluster;
		const dsts = numbers('1415630', WAITING);
		// Every call rings 15 s or more (all 50 are waiting before the first result), then talks 1..5 s; the results
		// arrive over about 10 s.
		dsts.forEach((dst, i) => sandbox.setDialOutcome({ dst, dialstatus: i % 3 === 2 ? 'BUSY' : 'ANSWER', ringMs: 15000 + i * 200, durationSec: (i % 5) + 1 }));
		const { workflow, url } = await callAndWaitWorkflow(cluster, 'queue: 50 calls and waits', 5);
		await waitForWebhook(url, { dst: dsts[0] });
		const answers = await pool(dsts.slice(1), 10, (dst) => post(url, { dst }));
		assert.ok(answers.every((r) => r.status === 200));

		// All 50 waiting at once, before any result arrived.
		let maxWaiting = 0;
		for (const started = Date.now(); Date.now() - started < 60000; await delay(300)) {
			const waiting = (await allExecutions(main, workflow.id, { status: 'waiting' })).length;
			maxWaiting = Math.max(maxWaiting, waiting);
			if (waiting === WAITING) break;
		}
		const resultsBefore = sandbox.callbacks.filter((c) => dsts.includes(sandbox.state.calls.get(String(c.internal_id))?.dst)).length;
		assert.equal(maxWaiting, WAITING, `at most ${maxWaiting} executions were waiting at once`);
		assert.equal(resultsBefore, 0, 'a result arrived before all were waiting');

		const done = await waitForFinished(main, workflow.id, WAITING, { what: 'case 3 (resumed)', timeoutMs: 120000 });
		const calls = new Map([...sandbox.state.calls.values()].filter((c) => dsts.includes(c.dst)).map((c) => [c.dst, c]));
		assert.equal(calls.size, WAITING, 'one call per number');
		let crossed = 0;
		for (const execution of done.list) {
			assert.equal(execution.status, 'success', errorOf(execution));
			const [result] = itemsOf(execution, NODE);
			const call = calls.get(result.dst);
			if (!call || String(result.internal_id) !== call.internalId || result.dialstatus !== call.dialstatus || result.duration !== call.durationSec) crossed++;
			assert.equal(result.resultSource, 'callback');
		}
		assert.equal(crossed, 0, 'results crossed');
		const resultPosts = sandbox.callbacks.filter((c) => c.kind === 'callResult' && [...calls.values()].some((call) => call.internalId === String(c.internal_id)));
		assert.equal(resultPosts.length, WAITING);
		const viaProcessor = resultPosts.filter((c) => c.url.startsWith(`${cluster.webhookUrl}/webhook-waiting/`) && c.status === 200).length;
		assert.equal(viaProcessor, WAITING, 'results not accepted at the webhook processor');

		// The time-out run (started before case 1).
		const timeout = await waitForFinished(main, state.timeout.workflow.id, 1, { what: 'case 3 (time-out path)', timeoutMs: 150000 });
		const [execution] = timeout.list;
		assert.equal(execution.status, 'success', errorOf(execution));
		const [item] = itemsOf(execution, NODE);
		assert.equal(item.resultSource, 'timeout');
		assert.equal(item.pending, true);
		assert.equal(item.dst, TIMEOUT_DST);
		const timeoutCall = [...sandbox.state.calls.values()].find((c) => c.dst === TIMEOUT_DST);
		assert.equal(String(item.internal_id), timeoutCall.internalId);
		const resumedAfterS = (Date.parse(execution.stoppedAt) - Date.parse(item.waitTill)) / 1000;

		return {
			measured:
				`${maxWaiting} waiting at once; ${done.list.length} resumed via the webhook processor, 0 crossed, 0 lost; ` +
				`no result: resumed ${resumedAfterS.toFixed(0)} s after Max Wait, resultSource timeout, pending, internal_id kept`,
			metrics: { timeoutResumeAfterMaxWaitS: resumedAfterS },
		};
	},
};
