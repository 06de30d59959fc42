// Case 1, campaign on workers: 1,000 items -> Place Call (with Batching) in one production execution, then the
// same 1,000 numbers' worth again as ten production executions of 100 posted at once, which n8n hands to both
// workers (one execution is one job: it runs on one worker). Counts from the sandbox journal and n8n's executions.
'use strict';
const { errorOf } = require('../../test-e2e/support/workflows');
const { startsPerWorker } = require('../cluster');
const { assert, campaignWorkflow, countPlacements, itemsOf, numbers, pool, post, rate, waitForFinished, waitForWebhook } = require('../support');

const CAMPAIGN = { callerId: '+390200001001', batch: { batchSize: 50, batchInterval: 10 } };

/** Every execution succeeded and output one accepted call per number, each internal_id a call of the sandbox. */
function checkOutputs(cluster, executions, dsts) {
	const out = executions.flatMap((execution) => {
		assert.equal(execution.status, 'success', errorOf(execution));
		assert.equal(execution.mode, 'webhook');
		return itemsOf(execution, 'Place Call');
	});
	assert.equal(out.length, dsts.length, 'Place Call output items');
	assert.deepEqual(out.map((item) => item.dst).sort(), [...dsts].sort());
	const ids = new Set(out.map((item) => String(item.internal_id)));
	assert.equal(ids.size, dsts.length, 'distinct internal_ids');
	for (const id of ids) assert.ok(cluster.sandbox.state.calls.has(id), `internal_id ${id} is not a call of the sandbox`);
	// The spec's acceptance is {internal_id}: Place Call's status is null when the platform sends none.
	assert.ok(out.every((item) => item.status === null));
}

module.exports = {
	id: 1,
	title: 'Campaign on workers',
	expected: '1,000 POSTs, 1,000 accepted, each number once, in one production execution; 10 x 100 spread over both workers',
	async run(cluster) {
		const { sandbox } = cluster;
		sandbox.clearJournal();
		sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 60 * 60 * 1000 }); // nothing ends during the case

		// One execution, 1,000 items.
		const one = await campaignWorkflow(cluster, 'queue: campaign of 1,000 in one execution', CAMPAIGN);
		const dstsA = numbers('1415600', 1000);
		let t = Date.now();
		const answer = await waitForWebhook(one.url, { calls: dstsA.map((dst) => ({ dst })) });
		assert.equal(answer.status, 200, JSON.stringify(answer.body));
		const a = await waitForFinished(cluster.main, one.workflow.id, 1, { what: 'case 1 (one execution)' });
		const oneMs = Date.now() - t;
		assert.equal(a.list.length, 1);
		checkOutputs(cluster, a.list, dstsA);
		const countA = countPlacements(sandbox, dstsA);
		assert.deepEqual([countA.posts, countA.accepted, countA.twice.length, countA.missing.length], [1000, 1000, 0, 0]);

		// Ten executions of 100, posted at once.
		const ten = await campaignWorkflow(cluster, 'queue: campaign of 1,000 as 10 executions', CAMPAIGN);
		const dstsB = numbers('1415610', 1000);
		const chunks = Array.from({ length: 10 }, (_, i) => dstsB.slice(i * 100, (i + 1) * 100));
		await waitForWebhook(ten.url, { calls: [] }); // an empty campaign: splits into nothing
		t = Date.now();
		const answers = await pool(chunks, 10, (chunk) => post(ten.url, { calls: chunk.map((dst) => ({ dst })) }));
		assert.ok(answers.every((r) => r.status === 200), JSON.stringify(answers.map((r) => r.status)));
		const b = await waitForFinished(cluster.main, ten.workflow.id, 11, { what: 'case 1 (ten executions)' });
		const tenMs = Date.now() - t;
		const withCalls = b.list.filter((e) => itemsOf(e, 'Place Call').length > 0);
		assert.equal(withCalls.length, 10);
		checkOutputs(cluster, withCalls, dstsB);
		const countB = countPlacements(sandbox, dstsB);
		assert.deepEqual([countB.posts, countB.accepted, countB.twice.length, countB.missing.length], [1000, 1000, 0, 0]);
		const spread = startsPerWorker(cluster, withCalls.map((e) => e.id));
		const perWorker = Object.values(spread);
		assert.equal(perWorker.reduce((x, y) => x + y, 0), 10, `starts per worker ${JSON.stringify(spread)}`);
		assert.ok(perWorker.every((n) => n > 0), `not spread over both workers: ${JSON.stringify(spread)}`);

		return {
			measured:
				`one execution: ${countA.posts} POSTs, ${countA.accepted} accepted, 0 twice, ${(oneMs / 1000).toFixed(1)} s; ` +
				`10 x 100: ${countB.posts} POSTs, ${countB.accepted} accepted, 0 twice, executions per worker ${JSON.stringify(spread)}, ${(tenMs / 1000).toFixed(1)} s`,
			metrics: { callsPerSecondOneExecution: rate(1000, oneMs), callsPerSecondTenExecutions: rate(1000, tenMs), spread },
		};
	},
};
