// Example 6 (examples/6-durable-campaign.json) on the real n8n: a campaign of 1,000 contacts kept in its data table,
// worked through in short Dial Due Contacts runs, with n8n killed (SIGKILL) eight times, twice at each point where a
// crash can leave a contact half done, and started again on the same database; and two dial runs started at the same
// moment, again and again. Checked from the sandbox's call journal and the table's rows
// (test-e2e/support/durableCampaign.js). n8n 1.x: skipped (its public API has no data tables, the only way a
// community node reaches them).
//
// How the runs happen: the case runs the dial workflow (Every Minute -> Dial Due Contacts) through n8n's REST run
// endpoint, one run after the other (the Schedule Trigger's minute, compressed: a run starts when the one before has
// ended, as runs a minute apart do); results reach the published Call Result -> Record Call Result, and the dial runs'
// own status reads record those that do not (n8n down when the call ended). After a crash the case starts n8n again
// and goes on with the next run: nothing else, as the docs say. Time passes for real in n8n: a claim a crash left
// becomes unknown after Unconfirmed Claim After (1 minute, its minimum), a killed run's dial lease ends a minute
// after its last renewal (runs meanwhile end at once), and retry delays are 6 seconds.
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
} = require('../support/durableCampaign');
const { isClaim } = require('../support/apiGate');
const { loadSandbox } = require('../../scripts/n8n-sandbox');
const { assertNoSecrets } = require('../support/assertions');
const { waitFor } = require('../support/wait');
const { assistantPlatformNode, chain, errorOf, manualTrigger, outputOf, publishTrigger } = require('../support/workflows');
const { N8N_API_CREDENTIAL_TYPE } = require('../../scripts/n8n-examples');

const CONTACTS = 1000;
const SPEED = 100;
/**
 * The crash test's Max Calls in Flight (the account's limit too) and Max Calls per Run: more than the example's, so
 * that 1,000 contacts take fewer runs (each run costs n8n's execution and the campaign's reads); a run places fewer
 * than the lines, so both bounds show (calls of the run before still in flight fill the rest).
 */
const CRASH_CAP = 12;
const CRASH_PER_RUN = 10;
/** The clock's pace from a kill after a POST until the results of its calls in flight arrive: wall time. */
const SLOW = 1;
const NOT_ON_1X = "n8n 1.x: its public API has no data tables, and a community node reaches n8n's data tables only through it";

/** Where n8n is killed. */
const POINTS = {
	claim: "during a dial run, between a contact's claim and its POST (the claim written, n8n's answer held by the gate)",
	post: 'during a dial run, after its POST and before the call id is stored (the platform holds the POST; it places the call after n8n died)',
	inFlight: 'between dial runs, calls in flight',
	results: 'between dial runs, as a call result reaches Record Call Result',
};
/**
 * The kills in order, each once the share of dialable numbers called so far reaches `at`: the four points twice. The
 * kills after a POST slow the clock, so that the calls in flight then are still in flight (and their results still to
 * come) while the killed run's dial lease keeps the next runs from dialling: the next two kills happen meanwhile.
 */
const KILLS = [
	{ point: 'claim', at: 0.1 },
	{ point: 'post', at: 0.25 },
	{ point: 'inFlight', at: 0.25 },
	{ point: 'results', at: 0.25 },
	{ point: 'claim', at: 0.45 },
	{ point: 'post', at: 0.65 },
	{ point: 'inFlight', at: 0.65 },
	{ point: 'results', at: 0.65 },
];

/**
 * An execution once it has ended (polled every 250 ms: each read loads its data from the n8n that runs it; n8n 2.x
 * saves status and data together).
 */
async function ended(n8n, executionId, timeoutMs = 120000) {
	let last;
	return waitFor(
		`execution ${executionId} to end`,
		async () => {
			last = await readEnded(n8n, executionId);
			return last;
		},
		{ timeoutMs, intervalMs: 250, describe: () => String(last?.status) },
	);
}

/** The execution with its data once it has ended, else undefined. */
async function readEnded(n8n, executionId) {
	const execution = await n8n.api('GET', `/executions/${executionId}?includeData=true`, undefined, { expect: [200, 404] });
	return execution?.id !== undefined && !['new', 'running', 'waiting'].includes(execution.status) && execution.data ? execution : undefined;
}

/**
 * Whichever comes first: `hit()` true (checked every few milliseconds: the sandbox and the gate live in this process,
 * and a kill must land while the node waits) or the end of execution `executionId` (read every 250 ms).
 */
async function hitOrEnd(n8n, executionId, hit, timeoutMs = 120000) {
	const started = Date.now();
	let nextRead = 0;
	for (;;) {
		const found = hit();
		if (found) return { hit: found };
		if (Date.now() >= nextRead) {
			const execution = await readEnded(n8n, executionId);
			if (execution) return hit() ? { hit: hit() } : { execution };
			nextRead = Date.now() + 250;
		}
		assert.ok(Date.now() - started < timeoutMs, `dial run ${executionId} neither reached the moment to kill nor ended in ${timeoutMs / 1000} s`);
		await delay(3);
	}
}

function register(env) {
	describe('example 6: a durable campaign, n8n killed mid-run', () => {
		let campaign;

		before(async () => {
			if (env.n8n.majorVersion >= 2) campaign = await startCampaignN8n(env, { apiGate: true });
		}, { timeout: 5 * 60 * 1000 });

		after(async () => {
			await campaign?.stop();
		});

		test(`${CONTACTS} contacts in short runs, n8n killed ${KILLS.length} times (twice at each point: between claim and POST, after the POST, calls in flight, results arriving): each answered, out of attempts, failed or unknown; nobody dialled twice for an attempt, after an answer or after a claim a kill left; never more than ${CRASH_CAP} at once`, { timeout: 45 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			assert.ok(campaign, "the durable campaign's n8n did not start");
			const gate = campaign.gate;
			env.sandbox.reset();
			try {
				const plan = planDurableCampaign(CONTACTS);
				const table = await contactsTable(campaign.n8n, TABLE, plan.contacts);
				const workflows = durableWorkflows(campaign.n8n, campaign.byType, { table, window: plan.window, label: 'killed again and again', maxInFlight: CRASH_CAP, perRun: CRASH_PER_RUN });
				const results = await campaign.n8n.createWorkflow(workflows.results);
				const dial = await campaign.n8n.createWorkflow(workflows.dial);

				// Set Up Once, as the sticky note says: Prepare Contacts Table, then Get Summary (every contact new, due now).
				const setUp = await campaign.n8n.runWorkflow(results.id);
				assert.equal(setUp.status, 'success', errorOf(setUp));
				assert.deepEqual(outputOf(setUp, 'Prepare Contacts Table'), [{ campaign: TABLE, prepared: true, status: 'running' }]);
				assert.ok(outputOf(setUp, 'Get Summary')[0].new === CONTACTS, JSON.stringify(outputOf(setUp, 'Get Summary')));
				await publishTrigger(campaign.n8n, results.id, workflows.trigger);
				applyNetwork(env.sandbox, plan.rules, SPEED, CRASH_CAP);

				const started = Date.now();
				const deadline = started + 40 * 60 * 1000;
				const runs = [];
				const killed = [];
				let rows = [];
				const dialled = () => new Set(env.sandbox.callJournal.calls.map((c) => c.dst)).size / plan.rules.size;
				const settled = (row) => ['answered', 'finished', 'failed', 'unknown'].includes(row.campaignState) || /outside calling hours/.test(row.reason ?? '');
				const done = (all) => all.length === CONTACTS && all.every(settled);
				let callbacksAtRestart = 0;
				const normalSpeed = () => {
					if (env.sandbox.clock.speed !== SPEED) env.sandbox.clock.setSpeed(SPEED);
				};
				const kill = async (next, { executionId, phone, slow = false, resultOf } = {}) => {
					killed.push({ point: next.point, at: Date.now(), progress: Math.round(dialled() * 1000) / 1000, executionId, phone, dialRun: Boolean(executionId), resultOf });
					await campaign.crash(POINTS[next.point]);
					if (slow) env.sandbox.clock.setSpeed(SLOW);
					gate.release(); // the held answer has nobody left to receive it
					env.sandbox.clearFaults();
					await campaign.restart();
					callbacksAtRestart = env.sandbox.callbacks.length;
				};

				for (;;) {
					assert.ok(Date.now() < deadline, `the campaign did not end within 40 minutes (${killed.length} kills): ${JSON.stringify(rows.filter((r) => !settled(r)).slice(0, 5))}`);
					const n8n = campaign.n8n;
					const next = KILLS[killed.length];
					const due = next && dialled() >= next.at;
					if (!due || !['inFlight', 'results'].includes(next.point)) normalSpeed();
					let execution;
					if (due && next.point === 'claim') {
						// The next claim's answer is held by the gate: the row says claimed, the node waits, no POST is sent.
						let claimed;
						const holding = gate.hold(isClaim).then((request) => (claimed = request));
						const executionId = await startDial(n8n, dial.id);
						const outcome = await hitOrEnd(n8n, executionId, () => claimed);
						if (outcome.hit) {
							const row = (Array.isArray(claimed.answer) ? claimed.answer : claimed.answer.data).find((r) => r.claimToken === claimed.body.data.claimToken);
							await kill(next, { executionId, phone: row.phone });
							continue;
						}
						gate.cancel(); // nothing was claimed (no line free, nobody due): an ordinary run; try again after it
						void holding;
						execution = outcome.execution;
					} else if (due && next.point === 'post') {
						// The next placement is held 10 s by the platform: n8n dies with the contact claimed and its POST sent.
						env.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 10000, times: 1 });
						const from = env.sandbox.journal.length;
						const executionId = await startDial(n8n, dial.id);
						const outcome = await hitOrEnd(n8n, executionId, () => placementsSince(env.sandbox, from).find((e) => e.fault === 'latency' && e.status === null));
						if (outcome.hit) {
							await kill(next, { executionId, phone: outcome.hit.body?.dst ?? outcome.hit.body?.fields?.dst, slow: true });
							continue;
						}
						env.sandbox.clearFaults(); // no line was free: an ordinary run; try again after it
						execution = outcome.execution;
					} else if (due && next.point === 'inFlight' && env.sandbox.callsInFlight > 0) {
						await kill(next);
						continue;
					} else if (due && next.point === 'results' && env.sandbox.callsInFlight > 0) {
						// The next result delivered: n8n has answered the trigger's webhook, Record Call Result is running.
						const from = env.sandbox.callbacks.length;
						const slowed = env.sandbox.clock.speed !== SPEED;
						const arrived = await waitFor('a call result delivered to Call Result', () => env.sandbox.callbacks.slice(from).find((c) => c.kind === 'callResult' && c.status === 200), { timeoutMs: slowed ? 120000 : 5000, intervalMs: 3 }).catch(() => false);
						if (arrived) {
							await kill(next, { resultOf: arrived.internal_id });
							normalSpeed();
							continue;
						}
					}
					if (due && ['inFlight', 'results'].includes(next.point) && env.sandbox.callsInFlight === 0) normalSpeed(); // nothing left to wait for: on at the usual pace
					runs.push(dialRun(execution ?? (await ended(n8n, await startDial(n8n, dial.id)))));
					const last = runs[runs.length - 1];
					assert.ok(last.items <= CRASH_PER_RUN + 1, `dial run ${last.id}: ${last.items} items (Max Calls per Run ${CRASH_PER_RUN}): ${JSON.stringify(last.output)}`);
					assertNoSecrets(env.sandbox, last.output, `dial run ${last.id}`);
					delete last.output;
					if (killed.length === KILLS.length && (last.summary.placed === 0 || runs.length % 10 === 0)) {
						rows = await campaign.n8n.allDataTableRows(table.id);
						if (done(rows)) break;
					}
					// Nothing to place (lines held, contacts waiting for their retry, another run's lease): the next run a moment later.
					if (last.summary.placed === 0) await delay(1000);
				}
				const runMs = Date.now() - started;
				const n8n = campaign.n8n;

				const figures = checkDurableCampaign(plan, env.sandbox.callJournal, rows, { dialKillTimes: killed.filter((k) => k.dialRun).map((k) => k.at), cap: CRASH_CAP });
				// Only a kill inside a dial run leaves a contact unknown: after a kill between claim and POST the contact is
				// unknown and was never dialled at that attempt (nor after). After a kill after its POST the platform placed
				// the call, but the id its POST returned never reached the table: no result can be judged to be that call's
				// (anybody holding the Call Result URL could post one), so the contact is unknown, dialled once at that
				// attempt and never again; a result posted for its claim while it was still claimed is kept in its row.
				const byPhone = new Map(rows.map((row) => [row.phone, row]));
				const calls = callsByNumber(env.sandbox.callJournal.calls);
				for (const k of killed) {
					if (!k.dialRun) continue;
					const row = byPhone.get(k.phone);
					assert.ok(row, `the contact of the kill ${k.point} (${k.phone}) is not in the table`);
					const made = (calls.get(k.phone) ?? []).length;
					assert.equal(row.campaignState, 'unknown', `${k.phone}, claimed when n8n was killed ${POINTS[k.point]}: ${row.campaignState} (${row.reason})`);
					assert.equal(made, k.point === 'claim' ? row.attempt - 1 : row.attempt, `${k.phone} (killed ${k.point}): ${made} call(s) for attempt ${row.attempt}`);
					Object.assign(k, { attempt: row.attempt, calls: made, unknown: 1, heldResult: row.heldResult || null, dialledAtClaimedAttempt: made === row.attempt });
					if (k.point === 'post') {
						// Whether the held POST's result was delivered, and what n8n answered: kept for the report.
						const call = (calls.get(k.phone) ?? [])[row.attempt - 1];
						const deliveries = env.sandbox.callbacks.filter((c) => c.kind === 'callResult' && call && c.internal_id === call.internal_id);
						k.resultDeliveries = deliveries.map((c) => ({ status: c.status, error: c.error ?? null, url: c.url.replace(/^.*\?/, '?') }));
					}
				}
				for (const k of killed) if (!k.dialRun) Object.assign(k, { unknown: 0, dialledAtClaimedAttempt: null });
				assert.deepEqual(figures.unknownContacts.map((u) => u.phone).sort(), killed.filter((k) => k.dialRun && k.unknown === 1).map((k) => k.phone).sort(), 'unknown contacts other than those of the killed dial runs');

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
					maxCallsInFlight: CRASH_CAP,
					maxCallsPerRun: CRASH_PER_RUN,
					runMs,
					...figures,
					killsByPoint: Object.keys(POINTS).map((point) => {
						const at = killed.filter((k) => k.point === point);
						return { point, moment: POINTS[point], kills: at.length, unknown: at.reduce((sum, k) => sum + k.unknown, 0), resultsHeld: at.filter((k) => k.heldResult).length, dialledAtClaimedAttempt: at.some((k) => k.dialledAtClaimedAttempt === true) };
					}),
					kills: killed.map((k, i) => ({
						point: k.point,
						progress: k.progress,
						signal: campaign.crashes[i].signal,
						restartMs: campaign.crashes[i].restartMs,
						killedDialRun: k.status,
						...(k.resultOf ? { resultOf: k.resultOf } : {}),
						...(k.dialRun ? { phone: k.phone, attempt: k.attempt, calls: k.calls, unknown: k.unknown, heldResult: k.heldResult, resultDeliveries: k.resultDeliveries, dialledAtClaimedAttempt: k.dialledAtClaimedAttempt } : { unknown: 0 }),
					})),
					dialRuns: runs.length,
					dialRunsBlockedByALease: runs.filter((r) => /Another run/.test(r.summary.message ?? '')).length,
					maxItemsPerRun: Math.max(...runs.map((r) => r.items)),
					maxExecutionBytes: Math.max(...runs.map((r) => r.bytes)),
					resultsReadByDialRuns: runs.reduce((sum, r) => sum + (r.summary.resultsRead ?? 0), 0),
					unconfirmedClaimsMarked: runs.reduce((sum, r) => sum + (r.summary.unconfirmedClaims ?? 0), 0),
					callResultsAccepted: delivered.filter((c) => c.status === 200).length,
					callResultsLost: delivered.filter((c) => c.status !== 200).length,
				};
				writeFigures(report);
				assert.deepEqual(report.killsByPoint.map((p) => p.kills), Object.keys(POINTS).map(() => 2), `kills per point: ${JSON.stringify(report.killsByPoint)}`);
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

		test('Stop while a dial run places calls: once the Stop execution has returned, no POST is sent; the run says the campaign was stopped', { timeout: 5 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			assert.ok(campaign, "the durable campaign's n8n did not start");
			env.sandbox.reset();
			try {
				const n8n = campaign.n8n;
				const plan = planDurableCampaign(60);
				const contacts = plan.contacts.filter((c) => plan.rules.has(c.phone));
				const answering = new Map(contacts.map((c) => [c.phone, [{ dialstatus: 'ANSWER', ringMs: [3000, 8000], durationSec: [20, 40] }]]));
				const table = await contactsTable(n8n, `${TABLE} (stop)`, contacts);
				const workflows = durableWorkflows(n8n, campaign.byType, { table, window: plan.window, label: 'stop', callResults: false, maxInFlight: 4, perRun: 60 });
				const dialNode = workflows.dial.nodes.find((node) => node.name === 'Dial Due Contacts');
				Object.assign(dialNode.parameters.campaignOptions, { keepDiallingSeconds: 120, checkIntervalSeconds: 0.2 });
				const results = await n8n.createWorkflow(workflows.results);
				const dial = await n8n.createWorkflow(workflows.dial);
				const steer = await n8n.createWorkflow(
					chain('e2e: stop the campaign', [manualTrigger(), assistantPlatformNode('Stop', { resource: 'campaign', operation: 'stop', contactsTable: table.name }, campaign.byType[N8N_API_CREDENTIAL_TYPE])]),
				);
				const setUp = await n8n.runWorkflow(results.id);
				assert.equal(setUp.status, 'success', errorOf(setUp));
				applyNetwork(env.sandbox, answering, SPEED, 4);
				// Every POST is answered a quarter of a second after it arrives: claims and POSTs are under way when Stop lands.
				env.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 250 });
				const executionId = await startDial(n8n, dial.id);
				await waitFor('eight POSTs', () => placementsSince(env.sandbox, 0).length >= 8, { timeoutMs: 60000, intervalMs: 20 });
				const stopped = await n8n.runWorkflow(steer.id);
				const atReturn = placementsSince(env.sandbox, 0).length;
				assert.equal(stopped.status, 'success', errorOf(stopped));
				const [stopOutput] = outputOf(stopped, 'Stop');
				assert.equal(stopOutput.status, 'stopped');
				assert.equal(stopOutput.claimsSettled, true, JSON.stringify(stopOutput));
				const run = dialRun(await ended(n8n, executionId));
				await delay(2000);
				const after = placementsSince(env.sandbox, 0).length;
				assert.equal(after, atReturn, `${after - atReturn} POST(s) after Stop's execution had returned`);
				assert.equal(run.summary.status, 'stopped', JSON.stringify(run.summary));
				assert.match(run.summary.message, /was stopped during this run/);
				const rows = await n8n.allDataTableRows(table.id);
				assert.deepEqual(rows.filter((row) => row.campaignState === 'claimed'), [], 'contacts left claimed');
				writeFigures({ stop: { postsBeforeStopReturned: atReturn, postsAfter: after - atReturn, stopWaitedMs: stopOutput.waitedMs, placedByTheRun: run.summary.placed } }, { merge: true });
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
