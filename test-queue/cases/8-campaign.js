// Case 8, example 5 on queue mode: the campaign of test-e2e's case 21 (1,000 contacts, each number's outcome per
// attempt, calls of 50 to 85 s on a sandbox clock 100 times faster, an account that allows 5 calls at once) run
// from the editor's "Execute workflow" (offloaded to a worker), through its retry loop (Wait) to completion, on
// Postgres. The checks are the end-to-end suite's (test-e2e/support/campaign.js); the cap holds per execution.
'use strict';
const { applyCampaignNetwork, campaignTables, campaignWorkflow, checkCampaign, planCampaign } = require('../../test-e2e/support/campaign');
const { errorOf } = require('../../test-e2e/support/workflows');
const { workerOf } = require('../cluster');
const { assert } = require('../support');

const CONTACTS = 1000;
const SPEED = 100;

module.exports = {
	id: 8,
	title: 'Campaign with retries (example 5) on a worker',
	expected: `${CONTACTS} contacts: each answered or out of attempts as its number behaves, 0 calls outside calling hours, at most 5 at once, 0 refused, 0 twice`,
	async run(cluster) {
		const { sandbox, main } = cluster;
		sandbox.reset();
		try {
			const plan = planCampaign(CONTACTS);
			const tables = await campaignTables(main, plan, `queue ${Date.now()}`);
			const byType = { [cluster.credentials.outbound.type]: cluster.credentials.outbound, [cluster.credentials.portal.type]: cluster.credentials.portal };
			const workflow = await main.createWorkflow(campaignWorkflow(plan, { byType, tables, intervalSeconds: 0.1, name: 'queue: example 5 with 1,000 contacts' }));
			applyCampaignNetwork(sandbox, plan, SPEED);
			const started = Date.now();
			const execution = await main.runWorkflow(workflow.id, { timeoutMs: 18 * 60 * 1000 });
			const ms = Date.now() - started;
			assert.equal(execution.status, 'success', errorOf(execution));
			const worker = workerOf(cluster, execution.id);
			assert.ok(worker, `no worker's log says it started execution ${execution.id}`);
			const rows = await main.allDataTableRows(tables.results.id);
			const figures = checkCampaign(plan, sandbox.callJournal, rows, execution);
			return {
				measured:
					`${figures.calls} calls for ${CONTACTS} contacts (${figures.dnc} on the do-not-call list, ${figures.skipped} listed twice): ` +
					`${figures.answered} answered (all ${figures.reachable} reachable within 3 attempts), ${figures.outOfAttempts} out of attempts; ` +
					`${figures.deferred} held for their calling hours, 0 outside them; at most ${figures.maxInFlight} at once, ${figures.refusals} refused; ` +
					`on ${worker.name}, ${(ms / 1000).toFixed(0)} s`,
				metrics: { ...figures, runMs: ms },
			};
		} finally {
			sandbox.reset();
		}
	},
};
