// Case 4, early callback: the sandbox posts the call result 0, 50 and 200 ms after accepting the call, while the
// worker may not have saved the execution as waiting yet. Measured: what n8n answers (200, or 409 "running
// already"). The result must not be lost: a refused result leaves the execution waiting until Max Wait; it then
// continues on the time-out path with the pending item (internal_id), and the next step, Call Status -> Get with
// Wait for Call Record, reads the outcome (docs/assumptions.md, "Queue mode"). Every execution must end with its
// call's outcome, from the callback or from that read.
'use strict';
const { assistantPlatformNode, errorOf } = require('../../test-e2e/support/workflows');
const { assert, itemsOf, numbers, pool, post, waitForFinished, waitForWebhook } = require('../support');
const { callAndWaitWorkflow, NODE } = require('./3-call-and-wait');

const DELAYS = [0, 50, 200];
const PER_DELAY = 10;
const state = {};

module.exports = {
	id: 4,
	title: 'Early callback (0 / 50 / 200 ms)',
	expected: `${DELAYS.length} x ${PER_DELAY} calls: no result lost (refused results recovered by the time-out path + Call Status)`,
	async start(cluster) {
		const { sandbox } = cluster;
		const statusRead = assistantPlatformNode(
			'Read Outcome',
			{ resource: 'callStatus', operation: 'get', waitForRecord: true, maxWait: 60, initialDelay: 500 },
			cluster.credentials.outbound,
		);
		const { workflow, url } = await callAndWaitWorkflow(cluster, 'queue: early call results', 0.1, [statusRead]);
		state.workflow = workflow;
		state.runs = DELAYS.flatMap((delayMs, d) => numbers(`141564${d}`, PER_DELAY).map((dst) => ({ dst, delayMs })));
		for (const { dst, delayMs } of state.runs) sandbox.setDialOutcome({ dst, dialstatus: 'BUSY', ringMs: delayMs, persistDelayMs: 300 });
		await waitForWebhook(url, { dst: state.runs[0].dst });
		const answers = await pool(state.runs.slice(1), 5, ({ dst }) => post(url, { dst }));
		assert.ok(answers.every((r) => r.status === 200));
	},
	async run(cluster) {
		const { sandbox, main } = cluster;
		const done = await waitForFinished(main, state.workflow.id, state.runs.length, { what: 'case 4', timeoutMs: 180000 });
		const byDst = new Map([...sandbox.state.calls.values()].map((c) => [c.dst, c]));
		const rows = DELAYS.map((delayMs) => ({ delayMs, answers: {}, viaCallback: 0, viaTimeout: 0, lost: 0 }));
		const row = (dst) => rows[DELAYS.indexOf(state.runs.find((r) => r.dst === dst).delayMs)];
		for (const { dst } of state.runs) {
			const call = byDst.get(dst);
			assert.ok(call, `no call to ${dst}`);
			const [callback] = sandbox.callbacks.filter((c) => String(c.internal_id) === call.internalId);
			assert.ok(callback, `no callback for ${dst}`);
			const answer = callback.status ?? String(callback.error ?? 'no answer').split(':')[0];
			row(dst).answers[answer] = (row(dst).answers[answer] ?? 0) + 1;
		}
		for (const execution of done.list) {
			assert.equal(execution.status, 'success', errorOf(execution));
			const [waited] = itemsOf(execution, NODE);
			const [outcome] = itemsOf(execution, 'Read Outcome');
			const call = byDst.get(waited.dst);
			assert.equal(String(waited.internal_id), call.internalId);
			const r = row(waited.dst);
			if (waited.resultSource === 'callback') r.viaCallback++;
			else if (waited.resultSource === 'timeout') r.viaTimeout++;
			const known = waited.resultSource === 'callback' ? waited.dialstatus : outcome?.dialStatus;
			if (known !== 'BUSY' || String(outcome?.internal_id) !== call.internalId) r.lost++;
		}
		const lost = rows.reduce((n, r) => n + r.lost, 0);
		assert.equal(lost, 0, `results lost: ${JSON.stringify(rows)}`);
		for (const r of rows) assert.equal(r.viaCallback + r.viaTimeout, PER_DELAY, JSON.stringify(r));
		return {
			measured: rows
				.map((r) => `${r.delayMs} ms: n8n answered ${Object.entries(r.answers).map(([k, n]) => `${k} x${n}`).join(', ')}; resumed by callback ${r.viaCallback}, by time-out ${r.viaTimeout} (outcome read by Call Status); lost ${r.lost}`)
				.join(' | '),
			metrics: { rows },
		};
	},
};
