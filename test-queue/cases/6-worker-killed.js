// Case 6, a worker killed mid-campaign: a production campaign of 300 numbers (one call every ~40 ms) runs on a
// worker; when about half are placed that worker gets SIGKILL (its whole process group). Counted: POSTs per
// destination afterwards. n8n 2.41 fixes Bull's maxStalledCount at 0 (QUEUE_WORKER_MAX_STALLED_COUNT was
// removed in 2.0): the stalled job is failed, not handed to the other worker, and the process that enqueued it
// saves the execution as failed ("failed to be processed too many times") with no node left to run. A retry of that
// execution (the editor's Retry button) therefore runs nothing: it must place 0 calls.
'use strict';
const { waitFor } = require('../../test-e2e/support/wait');
const { delay } = require('../../scripts/n8n-runtime');
const { workerOf } = require('../cluster');
const { assert, allExecutions, campaignWorkflow, countPlacements, numbers, placements, waitForWebhook } = require('../support');

const CALLER_ID = '+390200001001';
const COUNT = 300;

module.exports = {
	id: 6,
	title: 'A worker killed mid-campaign (SIGKILL)',
	expected: 'no number dialled twice (the other worker does not re-run the job); the execution ends failed; a retry places 0 calls',
	async run(cluster) {
		const { sandbox, main } = cluster;
		const { workflow, url } = await campaignWorkflow(cluster, 'queue: campaign with a worker killed', {
			callerId: CALLER_ID,
			batch: { batchSize: 1, batchInterval: 40 },
		});
		const dsts = numbers('1415650', COUNT);
		sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 60 * 60 * 1000 });
		sandbox.clearJournal();
		const answer = await waitForWebhook(url, { calls: dsts.map((dst) => ({ dst })) });
		assert.equal(answer.status, 200);

		await waitFor('half of the campaign placed', () => countPlacements(sandbox, dsts).posts >= COUNT / 2, { timeoutMs: 60000, intervalMs: 20 });
		const [execution] = await allExecutions(main, workflow.id);
		const worker = workerOf(cluster, execution.id);
		assert.ok(worker, `no worker log names execution ${execution.id}`);
		worker.killNow();
		const atKill = countPlacements(sandbox, dsts).posts;
		await worker.exited;
		const killedAt = Date.now();

		// Crashed: the lock expires (10 s here, 60 s by default), the stalled job is failed, the recovery marks it.
		const crashed = await waitFor(
			'the execution to end (crashed or error)',
			async () => {
				const [e] = await allExecutions(main, workflow.id, { includeData: true });
				return ['crashed', 'error'].includes(e.status) ? e : null;
			},
			{ timeoutMs: 150000, intervalMs: 1000 },
		);
		const crashedAfterS = (Date.now() - killedAt) / 1000;
		// Nothing may place a call now. A re-run of the job would place one every 40 ms and would have started when the
		// lock expired, before the execution was marked: a second of quiet shows about 25 of its calls.
		await delay(1000);
		const after = countPlacements(sandbox, dsts);
		assert.equal(after.twice.length, 0, `dialled twice: ${after.twice.slice(0, 5).join(', ')}`);
		assert.ok(after.posts < COUNT, 'the campaign finished although its worker was killed');
		const otherWorker = cluster.workers.find((w) => w !== worker);
		assert.ok(!workerOf({ workers: [otherWorker] }, execution.id), 'the other worker ran the killed job again');

		// A retry of the failed execution (the editor's Retry button).
		const before = placements(sandbox).length;
		const retry = await main.rest('POST', `/executions/${crashed.id}/retry`, { loadWorkflow: false }, { expect: 'any' });
		const retried = await waitFor(
			'the retry to finish',
			async () => (await allExecutions(main, workflow.id, { includeData: true })).find((e) => String(e.retryOf) === String(crashed.id) && !['new', 'running'].includes(e.status)),
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		const retryPosts = placements(sandbox).length - before;
		const crashedError = crashed.data?.resultData?.error?.message ?? '';
		assert.equal(retryPosts, 0, `the retry placed ${retryPosts} calls`);
		assert.equal(retried.status, 'error');
		assert.deepEqual(Object.keys(retried.data?.resultData?.runData ?? {}), [], 'the retry ran nodes');
		return {
			measured:
				`killed ${worker.name} at ${atKill}/${COUNT} POSTs; afterwards ${after.posts} POSTs, 0 numbers twice, ` +
				`other worker did not take the job; execution ${crashed.status} ${crashedAfterS.toFixed(0)} s after the kill; ` +
				`its error: "${crashedError.slice(0, 70)}..."; retry: ${retryPosts} POSTs (n8n saved it with no node left to run)`,
			metrics: { atKill, after: after.posts, crashedAfterS, retryStatus: retry?.status },
		};
	},
};
