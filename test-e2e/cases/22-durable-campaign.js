// Example 6 (examples/6-durable-campaign.json) on the real n8n: a campaign kept in its contacts' data table, worked
// through in short Dial Due Contacts runs, with n8n killed (SIGKILL) three times while calls are in flight and started
// again on the same database; and two dial runs started at the same moment, again and again. Checked from the
// sandbox's call journal and the table's rows (test-e2e/support/durableCampaign.js). n8n 1.x: skipped (its public API
// has no data tables, the only way a community node reaches them).
//
// How the runs happen: the case runs the dial workflow (Every Minute -> Dial Due Contacts) through n8n's REST run
// endpoint, one run after the other (the Schedule Trigger's minute, compressed: a run starts when the one before has
// ended, as runs a minute apart do); results reach the published Call Result -> Record Call Result, and the dial runs'
// own status reads record those that do not (n8n down when the call ended). After a crash the case starts n8n again
// and goes on with the next run: nothing else, as the docs say. Time passes for real: a claim a crash left becomes
// unknown after Unconfirmed Claim After (1 minute, its minimum), and retry delays are 6 seconds.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, before, describe, test } = require('node:test');

const {
	CAP,
	PER_RUN,
	TABLE,
	applyNetwork,
	callsByNumber,
	checkDurableCampaign,
	checkNumber,
	contactsTable,
	delay,
	dialRun,
	durableWorkflows,
	placementsSince,
	planDurableCampaign,
	startCampaignN8n,
	startDial,
	waitClosely,
} = require('../support/durableCampaign');
const { loadSandbox } = require('../../scripts/n8n-sandbox');
const { assertNoSecrets } = require('../support/assertions');
const { waitFor } = require('../support/wait');
const { errorOf, outputOf, publishTrigger } = require('../support/workflows');

const CONTACTS = 320;
const SPEED = 100;
const NOT_ON_1X = "n8n 1.x: its public API has no data tables, and a community node reaches n8n's data tables only through it";

/** The three moments n8n is killed, by the share of the dialable numbers called so far. */
const CRASHES = [
	{ at: 0.2, kind: 'post', moment: 'during a dial run, its POST held by the platform (a contact claimed, its call being placed)' },
	{ at: 0.45, kind: 'placed', moment: 'during a dial run, right after the platform accepted one of its calls' },
	{ at: 0.7, kind: 'results', moment: 'between dial runs, calls in flight and their results arriving at Record Call Result' },
];

/** An execution once it has ended (polled every 100 ms; n8n 2.x saves status and data together). */
async function ended(n8n, executionId, timeoutMs = 120000) {
	let last;
	return waitFor(
		`execution ${executionId} to end`,
		async () => {
			last = await n8n.api('GET', `/executions/${executionId}?includeData=true`, undefined, { expect: [200, 404] });
			return last?.id !== undefined && !['new', 'running', 'waiting'].includes(last.status) && last.data ? last : undefined;
		},
		{ timeoutMs, intervalMs: 100, describe: () => String(last?.status) },
	);
}

function register(env) {
	describe('example 6: a durable campaign, n8n killed mid-run', () => {
		let campaign;

		before(async () => {
			if (env.n8n.majorVersion >= 2) campaign = await startCampaignN8n(env);
		}, { timeout: 5 * 60 * 1000 });

		after(async () => {
			await campaign?.stop();
		});

		test(`${CONTACTS} contacts in short runs, n8n killed three times while calling: each answered, out of attempts, failed or unknown; nobody dialled twice for an attempt or after an answer; never more than ${CAP} at once`, { timeout: 25 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			assert.ok(campaign, "the durable campaign's n8n did not start");
			env.sandbox.reset();
			try {
				const plan = planDurableCampaign(CONTACTS);
				const table = await contactsTable(campaign.n8n, TABLE, plan.contacts);
				const workflows = durableWorkflows(campaign.n8n, campaign.byType, { table, window: plan.window, label: 'killed three times' });
				const results = await campaign.n8n.createWorkflow(workflows.results);
				const dial = await campaign.n8n.createWorkflow(workflows.dial);

				// Set Up Once, as the sticky note says: Prepare Contacts Table, then Get Summary (every contact new, due now).
				const setUp = await campaign.n8n.runWorkflow(results.id);
				assert.equal(setUp.status, 'success', errorOf(setUp));
				assert.deepEqual(outputOf(setUp, 'Prepare Contacts Table'), [{ campaign: TABLE, prepared: true }]);
				assert.ok(outputOf(setUp, 'Get Summary')[0].new === CONTACTS, JSON.stringify(outputOf(setUp, 'Get Summary')));
				await publishTrigger(campaign.n8n, results.id, workflows.trigger);
				applyNetwork(env.sandbox, plan.rules, SPEED);

				const started = Date.now();
				const deadline = started + 20 * 60 * 1000;
				const runs = [];
				const killed = [];
				let rows = [];
				const dialled = () => new Set(env.sandbox.callJournal.calls.map((c) => c.dst)).size / plan.rules.size;
				const done = (all) => all.length === CONTACTS && all.every((row) => ['answered', 'finished', 'failed', 'unknown'].includes(row.campaignState) || /outside calling hours/.test(row.reason ?? ''));
				let callbacksAtRestart = 0;
				let tries = 0;
				const kill = async (crash, executionId) => {
					killed.push({ ...crash, executionId, dialRun: crash.kind !== 'results' });
					await campaign.crash(crash.moment);
					env.sandbox.clearFaults();
					await campaign.restart();
					callbacksAtRestart = env.sandbox.callbacks.length;
					tries = 0;
				};

				for (let round = 0; ; round++) {
					assert.ok(Date.now() < deadline, `the campaign did not end within 20 minutes: ${JSON.stringify(rows.filter((r) => !done([r])).slice(0, 5))}`);
					const n8n = campaign.n8n;
					const crash = CRASHES[killed.length];
					const crashNow = crash && dialled() >= crash.at;
					if (crashNow) tries++;
					if (crashNow && crash.kind === 'post') {
						// The next placement is held 3 s by the platform: n8n dies with the contact claimed and its POST sent.
						env.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 3000, times: 1 });
						const from = env.sandbox.journal.length;
						const executionId = await startDial(n8n, dial.id);
						const held = await waitClosely('a held POST', () => placementsSince(env.sandbox, from).some((e) => e.fault === 'latency'), 15000).catch(() => false);
						if (held) {
							await kill(crash, executionId);
							continue;
						}
						env.sandbox.clearFaults(); // no line was free: an ordinary run; try again after it
						runs.push(dialRun(await ended(n8n, executionId)));
					} else if (crashNow && crash.kind === 'placed') {
						const from = env.sandbox.journal.length;
						const executionId = await startDial(n8n, dial.id);
						const accepted = await waitClosely('an accepted POST', () => placementsSince(env.sandbox, from).some((e) => e.status === 200), 15000).catch(() => false);
						if (accepted) {
							await kill(crash, executionId);
							continue;
						}
						runs.push(dialRun(await ended(n8n, executionId)));
					} else {
						runs.push(dialRun(await ended(n8n, await startDial(n8n, dial.id))));
						// Calls still in flight after the run: n8n is killed as the next result reaches Record Call Result (after
						// 20 runs without one in flight, between runs all the same).
						if (crashNow && crash.kind === 'results' && (env.sandbox.callsInFlight > 0 || tries > 20)) {
							const from = env.sandbox.callbacks.length;
							const arrived = await waitClosely('a call result delivered to Call Result', () => env.sandbox.callbacks.slice(from).some((c) => c.kind === 'callResult' && c.status === 200), 5000).catch(() => tries > 20);
							if (arrived) {
								await kill(crash);
								continue;
							}
						}
					}
					const last = runs[runs.length - 1];
					assert.ok(last.items <= PER_RUN + 1, `dial run ${last.id}: ${last.items} items (Max Calls per Run ${PER_RUN}): ${JSON.stringify(last.output)}`);
					assertNoSecrets(env.sandbox, last.output, `dial run ${last.id}`);
					delete last.output;
					if (killed.length === CRASHES.length && (last.summary.placed === 0 || round % 4 === 0)) {
						rows = await campaign.n8n.allDataTableRows(table.id);
						if (done(rows)) break;
					}
					// Nothing to place (lines held, contacts waiting for their retry): the next run a moment later.
					if (last.summary.placed === 0) await delay(1000);
				}
				const runMs = Date.now() - started;
				const n8n = campaign.n8n;

				const figures = checkDurableCampaign(plan, env.sandbox.callJournal, rows, { killedDialRuns: killed.filter((k) => k.dialRun).length });
				// Every unknown contact was in a dial run n8n was killed in: the call of a crash's claim.
				assert.ok(figures.unknown >= 1, 'the POST held while n8n was killed left no unknown contact');

				// Get Summary (Set Up Once again: Prepare changes nothing) counts what the rows say.
				const closing = await n8n.runWorkflow(results.id);
				assert.equal(closing.status, 'success', errorOf(closing));
				const [summary] = outputOf(closing, 'Get Summary');
				assert.deepEqual(
					{ contacts: summary.contacts, answered: summary.answered, finished: summary.finished, failed: summary.failed, unknown: summary.unknown, pending: summary.pending, inFlight: summary.inFlight, dueNow: summary.dueNow },
					{ contacts: CONTACTS, answered: figures.answered, finished: figures.finished, failed: figures.failed, unknown: figures.unknown, pending: figures.waitingForHours, inFlight: 0, dueNow: 0 },
				);

				// What n8n made of the killed dial runs (2.41: crashed), and of Record Call Result's executions (none failed).
				for (const k of killed) k.status = k.executionId ? (await n8n.api('GET', `/executions/${k.executionId}`)).status : null;
				const failedRecords = (await n8n.api('GET', `/executions?workflowId=${results.id}&status=error&limit=100`)).data;
				assert.deepEqual(failedRecords.map((e) => e.id), [], 'Record Call Result executions failed');
				const delivered = env.sandbox.callbacks.filter((c) => c.kind === 'callResult');
				const acceptedAfterRestart = env.sandbox.callbacks.slice(callbacksAtRestart).filter((c) => c.kind === 'callResult' && c.status === 200);
				assert.ok(acceptedAfterRestart.length > 0, 'no call result reached the published trigger after n8n was started again');

				const report = {
					n8n: n8n.version,
					contacts: CONTACTS,
					speed: SPEED,
					maxCallsInFlight: CAP,
					maxCallsPerRun: PER_RUN,
					runMs,
					...figures,
					crashes: campaign.crashes.map((c, i) => ({ moment: c.moment, signal: c.signal, restartMs: c.restartMs, killedDialRun: killed[i].status })),
					dialRuns: runs.length,
					maxItemsPerRun: Math.max(...runs.map((r) => r.items)),
					maxExecutionBytes: Math.max(...runs.map((r) => r.bytes)),
					resultsReadByDialRuns: runs.reduce((sum, r) => sum + (r.summary.resultsRead ?? 0), 0),
					unconfirmedClaimsMarked: runs.reduce((sum, r) => sum + (r.summary.unconfirmedClaims ?? 0), 0),
					callResultsAccepted: delivered.filter((c) => c.status === 200).length,
					callResultsLost: delivered.filter((c) => c.status !== 200).length,
				};
				writeFigures(report);
			} finally {
				env.sandbox.reset();
			}
		});

		test(`two dial runs started at the same moment, again and again: no contact claimed twice (${CAP} in flight, account limit ${CAP})`, { timeout: 10 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			assert.ok(campaign, "the durable campaign's n8n did not start");
			env.sandbox.reset();
			try {
				const n8n = campaign.n8n;
				const plan = planDurableCampaign(40);
				const contacts = plan.contacts.filter((c) => plan.rules.has(c.phone));
				const answering = new Map(contacts.map((c) => [c.phone, [{ dialstatus: 'ANSWER', ringMs: [3000, 8000], durationSec: [50, 85] }]]));
				// A name with parentheses, as people name tables: n8n's API wants them percent-encoded in a filter.
				const table = await contactsTable(n8n, `${TABLE} (two at once)`, contacts);
				// No Call Result URL: the dial runs' own status reads record every result.
				const workflows = durableWorkflows(n8n, campaign.byType, { table, window: plan.window, label: 'two at once', callResults: false });
				const results = await n8n.createWorkflow(workflows.results);
				const dial = await n8n.createWorkflow(workflows.dial);
				const setUp = await n8n.runWorkflow(results.id);
				assert.equal(setUp.status, 'success', errorOf(setUp));
				applyNetwork(env.sandbox, answering, SPEED);

				const pairs = [];
				let rows = [];
				for (let round = 0; round < 25; round++) {
					const ids = await Promise.all([startDial(n8n, dial.id), startDial(n8n, dial.id)]);
					const pair = await Promise.all(ids.map((id) => ended(n8n, id)));
					pairs.push(pair.map((execution) => ({ ...dialRun(execution), startedAt: Date.parse(execution.startedAt), stoppedAt: Date.parse(execution.stoppedAt) })));
					for (const run of pairs[pairs.length - 1]) assert.ok(run.items <= PER_RUN + 1, `dial run ${run.id}: ${run.items} items: ${JSON.stringify(run.output)}`);
					rows = await n8n.allDataTableRows(table.id);
					if (rows.every((row) => row.campaignState === 'answered')) break;
					// The calls end (a fraction of a second at this speed) before the next pair reads their status.
					await waitFor('the calls to end', () => env.sandbox.callsInFlight === 0, { timeoutMs: 30000 });
				}

				const { calls, refusals } = env.sandbox.callJournal;
				const byDst = callsByNumber(calls);
				for (const [dst, made] of byDst) {
					checkNumber(dst, made);
					assert.equal(made.length, 1, `${dst} was dialled ${made.length} times`);
				}
				assert.equal(rows.length, contacts.length);
				for (const row of rows) {
					const made = byDst.get(row.phone) ?? [];
					assert.equal(row.campaignState, 'answered', `${row.phone}: ${row.campaignState} (${row.reason})`);
					assert.equal(row.attempt, made.length, `${row.phone}: attempt ${row.attempt}, ${made.length} call(s)`);
					assert.equal(row.internalId, made[0].internal_id, row.phone);
				}
				const overlapping = pairs.filter(([a, b]) => a.startedAt < b.stoppedAt && b.startedAt < a.stoppedAt).length;
				assert.ok(overlapping >= pairs.length / 2, `only ${overlapping} of ${pairs.length} pairs of runs overlapped in time`);
				writeFigures({
					twoAtOnce: {
						contacts: contacts.length,
						pairs: pairs.length,
						overlappingPairs: overlapping,
						calls: calls.length,
						// Both runs of a pair count the lines before either claims: together they may try more than Max Calls
						// in Flight; the account's limit refuses the excess (429) and the run gives the claim back.
						refusedAtAccountLimit: refusals.length,
						maxInFlight: loadSandbox().module.maxInFlight(calls, 'wall'),
						placedPerPair: pairs.map((pair) => pair.reduce((sum, run) => sum + run.summary.placed, 0)),
					},
				}, { merge: true });
			} finally {
				env.sandbox.reset();
			}
		});
	});
}

/** Writes `figures` to .build/durable-campaign-e2e.json (`merge`: into what the first test wrote). */
function writeFigures(figures, { merge = false } = {}) {
	const dir = path.join(__dirname, '..', '..', '.build');
	fs.mkdirSync(dir, { recursive: true });
	const target = path.join(dir, 'durable-campaign-e2e.json');
	let previous = {};
	try {
		if (merge) previous = JSON.parse(fs.readFileSync(target, 'utf8'));
	} catch {
		// the first test did not write
	}
	fs.writeFileSync(target, `${JSON.stringify({ ...previous, ...figures }, null, 2)}\n`);
}

module.exports = { register };
