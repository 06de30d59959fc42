// The guards of a campaign on the real n8n (example 6's Dial Due Contacts as written: its Do-Not-Call List checked
// before every claim), read from the sandbox's call journal and the tables' rows:
//  - a list where some numbers are on the do-not-call list and one more is added while the campaign runs: none of
//    them is called, each ends doNotCall; the others are answered;
//  - two campaigns over lists that share numbers, both with Max Calls per Number 1 per 24 hours: every shared number
//    is called once in all, the other campaign defers it;
//  - a campaign that reaches its Spending Limit: the run stops with nobody moved, the recorded costs free room as
//    the calls' records come in, no more is placed than the limit allows, and Get Summary reports the spend.
// What each guard costs is counted at the gate in front of n8n's API (requests per accepted call, with and without
// the guard) and written to .build/campaign-guards-e2e.json. n8n 1.x: skipped (no data tables in its public API).
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, test } = require('node:test');

const { applyNetwork, callsByNumber, contactsTable, delay, dialRun, durableWorkflows, startCampaignN8n, startDial } = require('../support/durableCampaign');
const { waitFor } = require('../support/wait');
const { assistantPlatformNode, chain, errorOf, manualTrigger, outputOf } = require('../support/workflows');
const { N8N_API_CREDENTIAL_TYPE } = require('../../scripts/n8n-examples');

const NOT_ON_1X = "n8n 1.x: its public API has no data tables, and a community node reaches n8n's data tables only through it";
const LIST = 'Assistant Platform Do-Not-Call List';
/** The calling window of every test: the whole day, every day (hours are not what these show). */
const ALL_DAY = { from: '00:00', to: '24:00' };
/** Every number answers after a short ring and talks 8 billed seconds: 0.1 in the sandbox's currency (0.0125 a second). */
const ANSWER = [{ dialstatus: 'ANSWER', ringMs: [500, 1500], durationSec: 8 }];

const numbers = (prefix, count) => Array.from({ length: count }, (_, i) => `+1303${prefix}${String(i).padStart(4, '0')}`);
const people = (phones) => phones.map((phone, i) => ({ phone, name: `Person ${i}`, timezone: 'UTC' }));

async function ended(n8n, executionId, timeoutMs = 120000) {
	return waitFor(
		`execution ${executionId} to end`,
		async () => {
			const execution = await n8n.api('GET', `/executions/${executionId}?includeData=true`, undefined, { expect: [200, 404] });
			return execution?.id !== undefined && !['new', 'running', 'waiting'].includes(execution.status) && execution.data ? execution : undefined;
		},
		{ timeoutMs, intervalMs: 250 },
	);
}

/** One dial run of `workflowId`, to its end: its summary item and the items after it. */
async function runDial(n8n, workflowId) {
	return dialRun(await ended(n8n, await startDial(n8n, workflowId)));
}

function writeFigures(figures) {
	const dir = path.join(__dirname, '..', '..', '.build');
	fs.mkdirSync(dir, { recursive: true });
	const target = path.join(dir, 'campaign-guards-e2e.json');
	const previous = fs.existsSync(target) ? JSON.parse(fs.readFileSync(target, 'utf8')) : {};
	fs.writeFileSync(target, `${JSON.stringify({ ...previous, ...figures, measuredAt: new Date().toISOString() }, null, 2)}\n`);
}

function register(env) {
	describe('a campaign under its guards (do-not-call list, calls per number, spending limit)', () => {
		let campaign;
		let n8n;
		let apiCredential;

		before(async () => {
			if (env.n8n.majorVersion < 2) return;
			campaign = await startCampaignN8n(env, { apiGate: true });
			n8n = campaign.n8n;
			apiCredential = campaign.byType[N8N_API_CREDENTIAL_TYPE];
		}, { timeout: 5 * 60 * 1000 });

		after(async () => {
			await campaign?.stop();
		});

		/** Puts `number` on the do-not-call list as a workflow does: Do-Not-Call List > Add Number. */
		async function addToList(number) {
			const workflow = await n8n.createWorkflow(
				chain(`e2e: ${number} asked not to be called`, [manualTrigger(), assistantPlatformNode('Add Number', { resource: 'doNotCallList', operation: 'add', number, source: 'asked during a call' }, apiCredential)]),
			);
			const added = await n8n.runWorkflow(workflow.id);
			assert.equal(added.status, 'success', errorOf(added));
			assert.equal(outputOf(added, 'Add Number')[0].phone, number);
		}

		/** Example 6's workflows on `table` (open all day), `guardrails` added to those it ships with; created, set up once. */
		async function campaignOf(table, label, { guardrails = {}, maxInFlight = 3, perRun = 20 } = {}) {
			const workflows = durableWorkflows(n8n, campaign.byType, { table, window: ALL_DAY, label, callResults: false, maxInFlight, perRun });
			const dial = workflows.dial.nodes.find((node) => node.name === 'Dial Due Contacts');
			dial.parameters.campaignGuardrails = { ...dial.parameters.campaignGuardrails, ...guardrails };
			const results = await n8n.createWorkflow(workflows.results);
			const created = await n8n.createWorkflow(workflows.dial);
			const setUp = await n8n.runWorkflow(results.id);
			assert.equal(setUp.status, 'success', errorOf(setUp));
			return { dialId: created.id, resultsId: results.id };
		}

		test('numbers on the do-not-call list, one added while the campaign runs: none of them is called, each ends doNotCall; the others are answered', { timeout: 10 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			env.sandbox.reset();
			try {
				const phones = numbers('556', 12);
				const listedBefore = [phones[1], phones[5], phones[9]];
				const addedLater = phones[10];
				for (const number of listedBefore) await addToList(number);
				const table = await contactsTable(n8n, 'Contacts under a do-not-call list', people(phones));
				const { dialId } = await campaignOf(table, 'do-not-call');
				applyNetwork(env.sandbox, new Map(phones.map((phone) => [phone, ANSWER])), 20, 3);
				const gateFrom = campaign.gate.log.length;

				const runs = [await runDial(n8n, dialId)];
				assert.ok(!env.sandbox.callJournal.calls.some((c) => c.dst === addedLater), 'the number added later was called by the first run');
				await addToList(addedLater);
				for (let round = 0; round < 20; round++) {
					await waitFor('the calls to end', () => env.sandbox.callsInFlight === 0, { timeoutMs: 60000 });
					runs.push(await runDial(n8n, dialId));
					const rows = await n8n.allDataTableRows(table.id);
					if (rows.every((row) => ['answered', 'doNotCall'].includes(row.campaignState))) break;
				}
				const rows = await n8n.allDataTableRows(table.id);
				const called = callsByNumber(env.sandbox.callJournal.calls);
				for (const number of [...listedBefore, addedLater]) {
					assert.equal(called.get(number)?.length ?? 0, 0, `${number} is on the do-not-call list and was called`);
					const row = rows.find((r) => r.phone === number);
					assert.equal(row.campaignState, 'doNotCall', `${number}: ${row.campaignState} (${row.reason})`);
					assert.match(row.reason, /must not be called: it is on the do-not-call list since \S+ \(asked during a call\)/);
				}
				for (const row of rows.filter((r) => ![...listedBefore, addedLater].includes(r.phone))) {
					assert.equal(row.campaignState, 'answered', `${row.phone}: ${row.campaignState} (${row.reason})`);
					assert.equal(called.get(row.phone)?.length, 1, row.phone);
				}
				const accepted = env.sandbox.callJournal.calls.length;
				writeFigures({
					doNotCall: {
						contacts: phones.length,
						listed: listedBefore.length + 1,
						calls: accepted,
						dialRuns: runs.length,
						n8nApiRequestsPerAcceptedCall: Math.round(((campaign.gate.log.length - gateFrom) / accepted) * 100) / 100,
					},
				});
			} finally {
				env.sandbox.reset();
			}
		});

		test('two campaigns over lists that share numbers, Max Calls per Number 1 per 24 hours: every shared number is called once in all', { timeout: 10 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			env.sandbox.reset();
			try {
				const shared = numbers('557', 6);
				const ownA = numbers('558', 2);
				const ownB = numbers('559', 2);
				const guardrails = { callsPerNumber: { limit: { max: 1, hours: 24 } } };
				const tableA = await contactsTable(n8n, 'Spring list (shared numbers)', people([...shared, ...ownA]));
				const tableB = await contactsTable(n8n, 'Autumn list (shared numbers)', people([...ownB, ...shared].reverse()));
				const a = await campaignOf(tableA, 'shared A', { guardrails, maxInFlight: 4 });
				const b = await campaignOf(tableB, 'shared B', { guardrails, maxInFlight: 4 });
				applyNetwork(env.sandbox, new Map([...shared, ...ownA, ...ownB].map((phone) => [phone, ANSWER])), 20, 8);
				for (let round = 0; round < 12; round++) {
					// Both campaigns' runs at the same moment: the count per number is taken by one of them only.
					await Promise.all([runDial(n8n, a.dialId), runDial(n8n, b.dialId)]);
					await waitFor('the calls to end', () => env.sandbox.callsInFlight === 0, { timeoutMs: 60000 });
					const rows = [...(await n8n.allDataTableRows(tableA.id)), ...(await n8n.allDataTableRows(tableB.id))];
					if (rows.every((row) => row.campaignState === 'answered' || (row.campaignState === 'pending' && Number(row.nextAttemptAt) > Date.now() + 3_600_000))) break;
				}
				const called = callsByNumber(env.sandbox.callJournal.calls);
				for (const number of shared) assert.equal(called.get(number)?.length, 1, `${number} was called ${called.get(number)?.length ?? 0} times`);
				for (const number of [...ownA, ...ownB]) assert.equal(called.get(number)?.length, 1, number);
				const rowsA = await n8n.allDataTableRows(tableA.id);
				const rowsB = await n8n.allDataTableRows(tableB.id);
				for (const number of shared) {
					const states = [rowsA.find((r) => r.phone === number), rowsB.find((r) => r.phone === number)].map((r) => r.campaignState).sort();
					assert.deepEqual(states, ['answered', 'pending'], number);
					const deferred = [...rowsA, ...rowsB].find((r) => r.phone === number && r.campaignState === 'pending');
					assert.match(deferred.reason, /the most Max Calls per Number allows \(1\)/);
					assert.equal(deferred.attempt, 0, 'a deferred contact spent no attempt');
				}
				writeFigures({ callsPerNumber: { sharedNumbers: shared.length, calls: env.sandbox.callJournal.calls.length, campaigns: 2 } });
			} finally {
				env.sandbox.reset();
			}
		});

		test('a campaign that reaches its Spending Limit stops placing calls; the recorded costs free room; Get Summary reports the spend', { timeout: 10 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			env.sandbox.reset();
			try {
				const phones = numbers('560', 10);
				const table = await contactsTable(n8n, 'Contacts under a spending limit', people(phones));
				// 0.5 in all, 0.2 reserved per call in flight; each answered call costs 0.1 once its record is read.
				const { dialId, resultsId } = await campaignOf(table, 'spending limit', { guardrails: { spendingLimit: { limit: { amount: 0.5, perCall: 0.2 } } }, maxInFlight: 3 });
				applyNetwork(env.sandbox, new Map(phones.map((phone) => [phone, ANSWER])), 20, 3);
				const first = await runDial(n8n, dialId);
				assert.equal(first.summary.placed, 2, JSON.stringify(first.summary));
				assert.match(first.summary.stoppedBecause, /the spending limit of this campaign is reached \(0 spent and 0\.4 reserved by calls in flight, of 0\.5; a call reserves 0\.2\)/);
				let stopped = first;
				for (let round = 0; round < 12; round++) {
					await waitFor('the calls to end', () => env.sandbox.callsInFlight === 0, { timeoutMs: 60000 });
					// A reservation is settled from its call's record once the call may have ended (15 s after it was made).
					await delay(16000);
					stopped = await runDial(n8n, dialId);
					if (stopped.summary.placed === 0 && /spending limit/.test(stopped.summary.stoppedBecause ?? '') && env.sandbox.callsInFlight === 0) break;
				}
				const calls = env.sandbox.callJournal.calls.length;
				// 0.1 a call once recorded, 0.2 reserved while in flight: 4 calls leave 0.4 spent and no room for a fifth.
				assert.equal(calls, 4, `${calls} calls under a limit of 0.5`);
				assert.match(stopped.summary.stoppedBecause, /the spending limit of this campaign is reached \(0\.4 spent and 0 reserved/);
				const rows = await n8n.allDataTableRows(table.id);
				assert.equal(rows.filter((row) => row.campaignState === 'pending' && row.attempt === 0).length, 6, 'the others are untouched');
				const summaryRun = await n8n.runWorkflow(resultsId);
				const [summary] = outputOf(summaryRun, 'Get Summary');
				assert.equal(summary.spent, 0.4, JSON.stringify(summary));
				assert.equal(summary.spendReserved, 0);
				writeFigures({ spendingLimit: { amount: 0.5, perCall: 0.2, calls, spent: summary.spent } });
			} finally {
				env.sandbox.reset();
			}
		});

		test('what each guard costs a call, in requests to n8n\'s API (Place Call, 10 calls one after another, each guard alone, then all)', { timeout: 10 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			env.sandbox.reset();
			try {
				const CALLS = 10;
				const variants = {
					none: {},
					doNotCallList: { doNotCallList: LIST },
					callsPerNumber: { callsPerNumber: { limit: { max: 3, hours: 24 } } },
					callLimit: { callLimit: { limit: { max: 1000, minutes: 60 } } },
					spendingLimit: { spendingLimit: { limit: { amount: 1000, perCall: 0.5 } } },
				};
				variants.all = Object.assign({}, ...Object.values(variants));
				const perCall = {};
				let prefix = 561;
				for (const [name, guardrails] of Object.entries(variants)) {
					const phones = numbers(String(prefix++), CALLS);
					applyNetwork(env.sandbox, new Map(phones.map((phone) => [phone, ANSWER])), 20, CALLS);
					const leads = { id: crypto.randomUUID(), name: 'Leads', type: 'n8n-nodes-base.code', typeVersion: 2, position: [0, 0], parameters: { jsCode: `return ${JSON.stringify(phones.map((dst) => ({ json: { dst } })))};` } };
					const placeCall = assistantPlatformNode('Place Call', { resource: 'outboundCall', operation: 'placeCall', dst: '={{ $json.dst }}', callerId: '+390200001001', guardrails }, campaign.byType['assistantPlatformOutboundApi']);
					placeCall.credentials = { ...placeCall.credentials, [N8N_API_CREDENTIAL_TYPE]: { id: String(apiCredential.id), name: apiCredential.name } };
					const workflow = await n8n.createWorkflow(chain(`e2e: guard cost, ${name}`, [manualTrigger(), leads, placeCall]));
					// The first run creates the guards' tables; the second is what every later call costs.
					for (const run of ['first', 'measured']) {
						if (run === 'measured') applyNetwork(env.sandbox, new Map(phones.map((phone) => [phone, ANSWER])), 20, CALLS);
						const from = campaign.gate.log.length;
						const execution = await n8n.runWorkflow(workflow.id, { timeoutMs: 120000 });
						assert.equal(execution.status, 'success', errorOf(execution));
						const placed = outputOf(execution, 'Place Call').filter((item) => item.internal_id);
						assert.equal(placed.length, CALLS, `${name}: ${JSON.stringify(outputOf(execution, 'Place Call').find((item) => !item.internal_id))}`);
						if (run === 'measured') perCall[name] = Math.round(((campaign.gate.log.length - from) / CALLS) * 100) / 100;
						await waitFor('the calls to end', () => env.sandbox.callsInFlight === 0, { timeoutMs: 60000 });
					}
				}
				assert.equal(perCall.none, 0, 'Place Call without a guard asks n8n\'s API nothing');
				writeFigures({ placeCallRequestsPerCall: { calls: CALLS, settings: 'Place Call, one call at a time, 10 items, the second run of each workflow (its tables exist)', ...perCall } });
			} finally {
				env.sandbox.reset();
			}
		});
	});
}

module.exports = { register };
