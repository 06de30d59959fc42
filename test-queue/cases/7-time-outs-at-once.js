// Case 7, Max Wait passing for many executions at once: 50 Call and Wait executions get no call result; the main's
// wait tracker resumes them together (it looks once a minute and starts every due execution at that moment), each
// on a worker with the pending item. Every one must end in the database and also in the main: the main keeps each
// execution it resumed as running until it has seen its job finish, and hides running executions from its lists.
// With n8n's default queue retention (N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=0) a job that finishes before the
// main starts waiting for it is never seen finishing (Bull's job.finished() race, OptimalBits/bull#1906): the
// execution ends "success" in the database and stays running in the main, missing from every list, until restart.
'use strict';
const { errorOf } = require('../../test-e2e/support/workflows');
const { assert, allExecutions, itemsOf, numbers, pool, post, waitForWebhook } = require('../support');
const { callAndWaitWorkflow, NODE } = require('./3-call-and-wait');
const { delay } = require('../../scripts/n8n-runtime');

const COUNT = 50;
const ENDED = ['success', 'error', 'crashed', 'canceled'];

module.exports = {
	id: 7,
	title: 'Max Wait passing for 50 executions at once',
	expected: `${COUNT} executions without a result: each resumed by the main's wait tracker with the pending item; every one ended in the database and in the main's list (0 left running in the main)`,
	async run(cluster) {
		const { sandbox, main } = cluster;
		const dsts = numbers('1415670', COUNT);
		for (const dst of dsts) sandbox.setDialOutcome({ dst, dialstatus: 'NOANSWER', ringMs: 30 * 60 * 1000 });
		const { workflow, url } = await callAndWaitWorkflow(cluster, 'queue: 50 time-outs at once', 0.1);

		// Every execution of the workflow is seen at least once in the main's list while it waits (Max Wait is 6 s,
		// the list is read every 300 ms), so the ids are known even for one the main later hides.
		const seen = new Set();
		const look = async () => {
			for (const e of await allExecutions(main, workflow.id)) seen.add(String(e.id));
		};
		await waitForWebhook(url, { dst: dsts[0] });
		const posting = pool(dsts.slice(1), 10, (dst) => post(url, { dst }));
		let posted = false;
		posting.then(() => (posted = true), () => (posted = true));
		while (!posted) {
			await look();
			await delay(300);
		}
		assert.ok((await posting).every((r) => r.status === 200));
		const postedAt = Date.now();
		while (seen.size < COUNT && Date.now() - postedAt < 30000) {
			await look();
			await delay(300);
		}
		assert.equal(seen.size, COUNT, `${seen.size} of ${COUNT} executions seen`);

		// Each one as the database has it (a single read by id is not filtered by the main's running set).
		const read = (id) => main.api('GET', `/executions/${id}?includeData=true`);
		let ended = [];
		for (const started = Date.now(); ; await delay(1000)) {
			ended = (await Promise.all([...seen].map(read))).filter((e) => ENDED.includes(e.status));
			if (ended.length === COUNT) break;
			if (Date.now() - started > 150000) throw new Error(`${ended.length} of ${COUNT} executions ended after 150 s`);
		}
		const calls = new Map([...sandbox.state.calls.values()].filter((c) => dsts.includes(c.dst)).map((c) => [c.dst, c]));
		assert.equal(calls.size, COUNT, 'one call per number');
		for (const execution of ended) {
			assert.equal(execution.status, 'success', errorOf(execution));
			const [item] = itemsOf(execution, NODE);
			assert.equal(item.resultSource, 'timeout');
			assert.equal(item.pending, true);
			assert.equal(String(item.internal_id), calls.get(item.dst)?.internalId);
		}
		const spreadS = (Math.max(...ended.map((e) => Date.parse(e.stoppedAt))) - Math.min(...ended.map((e) => Date.parse(e.stoppedAt)))) / 1000;

		// The main's list: an execution the main still holds as running is left out of it. Ten seconds of grace for
		// the main to take in the last job's end.
		let hidden = [];
		for (const started = Date.now(); ; await delay(500)) {
			const listed = new Set((await allExecutions(main, workflow.id)).map((e) => String(e.id)));
			hidden = [...seen].filter((id) => !listed.has(id));
			if (hidden.length === 0 || Date.now() - started > 10000) break;
		}
		assert.equal(hidden.length, 0, `${hidden.length} of ${COUNT} executions ended in the database but are still running in the main (ids ${hidden.join(', ')})`);
		return {
			measured: `${COUNT} resumed by the wait tracker (all ended within ${spreadS.toFixed(1)} s of each other), resultSource timeout, pending, internal_id kept; 0 left running in the main`,
			metrics: { endedWithinS: spreadS, hidden: hidden.length },
		};
	},
};
