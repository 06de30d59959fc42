// Example 5 (examples/5-campaign-with-retries.json) at scale on the real n8n: 1,000 contacts against the sandbox's
// telephone network (each number's outcome per attempt, calls of 50 to 85 s on a clock 200 times faster, an
// account that allows 5 calls at once), run to completion, checked from the sandbox's call journal and the
// results data table (test-e2e/support/campaign.js).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test } = require('node:test');

const { applyCampaignNetwork, campaignTables, campaignWorkflow, checkCampaign, planCampaign } = require('../support/campaign');
const { assertNoSecrets } = require('../support/assertions');
const { errorOf } = require('../support/workflows');

const CONTACTS = 1000;
const SPEED = 200;

function register(env) {
	describe('example 5: a campaign of 1,000 contacts runs to completion', () => {
		test('answered or out of attempts as each number behaves; inside calling hours; never more than 5 calls at once', { timeout: 20 * 60 * 1000 }, async () => {
			env.sandbox.reset();
			try {
				const plan = planCampaign(CONTACTS);
				const tables = await campaignTables(env.n8n, plan, `e2e ${Date.now()}`);
				const workflow = campaignWorkflow(plan, { byType: env.byType, tables, intervalSeconds: 0.1, name: 'e2e: example 5 with 1,000 contacts' });
				const created = await env.n8n.createWorkflow(workflow);
				applyCampaignNetwork(env.sandbox, plan, SPEED);
				const started = Date.now();

				const execution = await env.n8n.runWorkflow(created.id, { timeoutMs: 18 * 60 * 1000 });

				assert.equal(execution.status, 'success', errorOf(execution));
				const rows = await env.n8n.allDataTableRows(tables.results.id);
				const figures = checkCampaign(plan, env.sandbox.callJournal, rows, execution);
				assertNoSecrets(env.sandbox, execution.data, 'the execution data');
				const report = { n8n: env.n8n.version, contacts: CONTACTS, speed: SPEED, runMs: Date.now() - started, ...figures };
				fs.mkdirSync(path.join(__dirname, '..', '..', '.build'), { recursive: true });
				fs.writeFileSync(path.join(__dirname, '..', '..', '.build', `campaign-e2e-${env.n8n.majorVersion}.json`), `${JSON.stringify(report, null, 2)}\n`);
			} finally {
				env.sandbox.reset();
			}
		});
	});
}

module.exports = { register };
