// Case 10, the durable campaign's crash suite on queue mode: example 6 (examples/6-durable-campaign.json) with 1,000
// contacts on Postgres, its dial runs and its results executed by the two workers, and the worker running a dial run
// killed (SIGKILL, its whole process group) at each moment the docs promise to survive, each twice:
//   claim   between a contact's claim and its POST: the claim is written in the table, and n8n's answer to it is held
//           by a gate in front of n8n's API (test-e2e/support/apiGate.js), so the node waits and sends no POST;
//   post    after the POST, before the call's id is stored: the platform holds the run's POST;
//   placed  while the run's calls are in flight: right after the platform accepted one of them;
// and, twice, while a dial run places calls, the other worker as it runs a Record Call Result execution (results
// reach the webhook processor, which queues each to a worker). Every killed worker is started again at once, as a
// service manager would; nothing else is done, as docs/campaigns.md says: the next dial run goes on. Dial runs are started one after another from
// the main (the editor's "Execute workflow", offloaded to a worker): the Schedule Trigger's minute, compressed.
// Checked from the sandbox's call journal and the table (checkDurableCampaign): no number in two calls at once, none
// called again after an ANSWER or beyond its attempts, no contact lost, each unknown contact marked "may have been
// placed" and at most one per killed dial run, at most CAP calls at once, 0 refusals; each held claim's contact
// unknown and not dialled at that attempt. Recorded: which worker ran what, and what n8n made of each killed job
// (n8n 2.41 fails a stalled job; a job run again on the other worker would be seen in that worker's log).
// A killed dial run holds the campaign's dial lease until a minute after its last renewal (docs/campaigns.md), and the
// runs started meanwhile end at once: a run is killed once it has placed AFTER calls, so that part of that minute has
// passed and most of its work is done; the rest of it is much of this case's time.
'use strict';
const { N8N_API_CREDENTIAL_TYPE } = require('../../scripts/n8n-examples');
const { delay } = require('../../scripts/n8n-runtime');
const { isClaim, startApiGate } = require('../../test-e2e/support/apiGate');
const {
	TABLE,
	applyNetwork,
	checkDurableCampaign,
	contactsTable,
	dialRun,
	durableWorkflows,
	placementsSince,
	planDurableCampaign,
	startDial,
	waitClosely,
} = require('../../test-e2e/support/durableCampaign');
const { waitFor } = require('../../test-e2e/support/wait');
const { errorOf, outputOf, publishTrigger } = require('../../test-e2e/support/workflows');
const { runningOnWorker, startsPerWorker, workerOf } = require('../cluster');
const { assert, allExecutions } = require('../support');

const CONTACTS = 1000;
/** Max Calls in Flight, Max Calls per Run and the account's limit: a run fills many lines, so 1,000 contacts take tens of runs. */
const CAP = 100;
const PER_RUN = 100;
/** The sandbox's clock runs SPEED times faster: a call rings and talks for about a second. */
const SPEED = 100;
/** A POST held this long by the platform: the worker is found and killed while it waits. */
const POST_HELD_MS = 20000;
/** A dial run is killed after it placed this many calls (its first AFTER claims pass). */
const AFTER = 60;

const MOMENTS = {
	claim: "between a contact's claim and its POST (the claim written, n8n's answer held)",
	post: 'after the POST, before the call id is stored (the POST held by the platform)',
	placed: "calls in flight: right after the platform accepted one of the run's calls",
	results: 'results arriving: the worker running Record Call Result executions',
};
/** The kills in order, each once the share `at` of the dialable numbers has been called. */
const KILLS = [
	{ at: 0.03, kind: 'claim' },
	{ at: 0.1, kind: 'post' },
	{ at: 0.18, kind: 'placed' },
	{ at: 0.25, kind: 'results' },
	{ at: 0.32, kind: 'claim' },
	{ at: 0.4, kind: 'post' },
	{ at: 0.48, kind: 'placed' },
	{ at: 0.55, kind: 'results' },
];
const DIAL_KINDS = new Set(['claim', 'post', 'placed']);
const FINAL = new Set(['answered', 'finished', 'failed', 'unknown']);

/** The worker whose log says it started `executionId` (its log is written a moment after the job starts). */
function runningOn(cluster, executionId) {
	return waitFor(`a worker to start execution ${executionId}`, () => workerOf(cluster, executionId), { timeoutMs: 60000, intervalMs: 25 });
}

/** The n8n credentials of example 6, the Data Tables API one pointing at the gate in front of the main's API. */
async function credentialsFor(cluster, gate) {
	const api = await cluster.main.api('POST', '/credentials', {
		name: 'Assistant Platform Data Tables API (queue, through the gate)',
		type: N8N_API_CREDENTIAL_TYPE,
		data: { baseUrl: `${gate.url}/api/v1`, apiKey: cluster.main.apiKey },
	});
	const { portal, outbound } = cluster.credentials;
	return { [portal.type]: portal, [outbound.type]: outbound, [N8N_API_CREDENTIAL_TYPE]: { id: api.id, name: api.name, type: N8N_API_CREDENTIAL_TYPE } };
}

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

function summaryText(f) {
	const byKind = Object.keys(MOMENTS)
		.map((kind) => {
			const list = f.kills.filter((k) => k.kind === kind);
			return `${kind} x${list.length} (${list.map((k) => `${k.worker}: ${k.fate}${k.startedAgain ? ', started again' : ''}`).join('; ')})`;
		})
		.join('; ');
	return (
		`${f.contacts} contacts, ${f.calls} calls to ${f.numbersDialled} numbers in ${f.dialRuns} dial runs (${f.blockedRuns} found the lease held); ` +
		`kills: ${byKind}; killed jobs started again: ${f.rerunElsewhere}; ` +
		`${f.answered} answered, ${f.finished} finished, ${f.failed} failed, ${f.unknown} unknown (each marked; held claims not dialled: ${f.heldClaimsNotDialled}/${f.heldClaims}), ` +
		`${f.waitingForHours} waiting for their hours; 0 double dials, 0 after ANSWER, 0 lost; at most ${f.maxInFlight} in flight (cap ${CAP}), ${f.refusals} refused; ` +
		`dial runs per worker ${JSON.stringify(f.dialRunsPerWorker)}, Record Call Result per worker ${JSON.stringify(f.recordsPerWorker)} ` +
		`(${f.recordsFailed} ended failed/crashed); worker restarts ${f.restartS.join('/')} s; campaign ${seconds(f.runMs)}`
	);
}

module.exports = {
	id: 10,
	title: 'Durable campaign crash suite on queue mode (workers killed)',
	expected:
		`example 6, ${CONTACTS} contacts, ${CAP} in flight: the worker running a dial run killed twice at each moment (claim written, no POST; POST sent, id not stored; ` +
		`calls in flight) and twice while Record Call Result runs, restarted, nothing else done: 0 numbers dialled twice at once, 0 after ANSWER, 0 lost contacts, ` +
		`each unknown claimed by a killed dial run before it died and marked, at most ${CAP} in flight, 0 refused`,
	async run(cluster) {
		const { sandbox, main } = cluster;
		sandbox.reset();
		const gate = await startApiGate(() => main.url);
		let restarting = Promise.resolve();
		try {
			const byType = await credentialsFor(cluster, gate);
			const plan = planDurableCampaign(CONTACTS);
			const table = await contactsTable(main, `${TABLE} (queue, workers killed)`, plan.contacts);
			const workflows = durableWorkflows(main, byType, { table, window: plan.window, label: 'queue, workers killed' });
			Object.assign(workflows.dial.nodes.find((n) => n.name === 'Dial Due Contacts').parameters, { maxCallsInFlight: CAP, maxCallsPerRun: PER_RUN });
			const results = await main.createWorkflow(workflows.results);
			const dial = await main.createWorkflow(workflows.dial);

			// Set Up Once, as the sticky note says: Prepare Contacts Table, then Get Summary.
			const setUp = await main.runWorkflow(results.id, { timeoutMs: 120000 });
			assert.equal(setUp.status, 'success', errorOf(setUp));
			assert.ok(outputOf(setUp, 'Get Summary')[0]?.new === CONTACTS, JSON.stringify(outputOf(setUp, 'Get Summary')));
			await publishTrigger(main, results.id, workflows.trigger);
			applyNetwork(sandbox, plan.rules, SPEED);
			sandbox.setAccountLimit(CAP);

			const started = Date.now();
			const deadline = started + 40 * 60 * 1000;
			const runs = [];
			const dialIds = [];
			const kills = [];
			const restartMs = [];
			let rows = [];
			const dialled = () => new Set(sandbox.callJournal.calls.map((c) => c.dst)).size / plan.rules.size;
			const isDone = (row) => FINAL.has(row.campaignState) || /outside calling hours/.test(row.reason ?? '');
			const done = (all) => all.length === CONTACTS && all.every(isDone);

			/** SIGKILL to `worker`, then it is started again in the background (the next kill waits for it). */
			const kill = async (kind, worker, extra = {}) => {
				await restarting;
				const at = Date.now();
				worker.killNow();
				await worker.exited;
				kills.push({ kind, worker: worker.name, at: at - started, dialledShare: Number(dialled().toFixed(3)), ...extra });
				gate.release();
				sandbox.clearFaults();
				restarting = cluster.restartWorker(worker).then(() => restartMs.push(Date.now() - at));
			};
			/** Runs the dial workflow to its end and keeps what it shows. */
			const finish = async (executionId) => {
				const run = dialRun(await main.waitForExecution(executionId, { timeoutMs: 180000 }));
				assert.ok(run.items <= PER_RUN + 1, `dial run ${run.id}: ${run.items} items (Max Calls per Run ${PER_RUN})`);
				delete run.output;
				runs.push(run);
				return run;
			};

			for (let round = 0; ; round++) {
				assert.ok(Date.now() < deadline, `the campaign did not end within 40 minutes: ${JSON.stringify(rows.filter((r) => !isDone(r)).slice(0, 5))}`);
				const next = KILLS[kills.length];
				const killNow = next && dialled() >= next.at;
				let last;
				// A worker being started again after the last kill is waited for: the next kill needs both.
				if (killNow) await restarting;
				if (killNow && DIAL_KINDS.has(next.kind)) {
					// A run that has placed AFTER calls is killed at its next call's moment: most of its work is done, and the
					// minute of its lease has partly passed.
					let claims = 0;
					const held = next.kind === 'claim' ? gate.hold((request) => isClaim(request) && ++claims > AFTER) : undefined;
					const from = sandbox.journal.length;
					const executionId = await startDial(main, dial.id);
					dialIds.push(String(executionId));
					let over = false;
					const end = main.waitForExecution(executionId, { timeoutMs: 180000 }).finally(() => (over = true));
					end.catch(() => undefined);
					const worker = await runningOn(cluster, executionId);
					const posts = () => placementsSince(sandbox, from);
					let moment;
					if (next.kind === 'claim') {
						// The claim is written and answered by n8n; the gate holds the answer, so the node sends no POST.
						const claim = await Promise.race([held, end.then(() => undefined, () => undefined)]);
						if (claim) {
							const row = (Array.isArray(claim.answer) ? claim.answer : (claim.answer?.data ?? [])).find((r) => r.claimToken === claim.body.data.claimToken);
							moment = { rowId: row?.id, phone: row?.phone, attempt: row?.attempt };
						} else gate.cancel();
					} else if (next.kind === 'post') {
						// The platform holds the run's next POST (received, not yet answered): the call's id never comes back.
						await waitFor(`${AFTER} calls of dial run ${executionId}`, () => over || posts().length >= AFTER, { timeoutMs: 170000, intervalMs: 20 });
						if (!over) {
							sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: POST_HELD_MS, times: 1 });
							const heldPost = await waitClosely('a held POST', () => (over ? 'over' : posts().find((e) => e.fault === 'latency')), 170000);
							if (heldPost !== 'over') moment = { phone: heldPost.body?.dst };
						}
					} else {
						// Right after the platform accepted one of its calls: the run's calls are in flight.
						const accepted = () => posts().filter((e) => e.status === 200).length;
						await waitFor(`${AFTER} calls of dial run ${executionId} accepted`, () => over || accepted() >= AFTER, { timeoutMs: 170000, intervalMs: 20 });
						await waitClosely(`${AFTER + 1} calls of dial run ${executionId} accepted`, () => over || accepted() > AFTER, 170000);
						if (!over) moment = { phone: posts().filter((e) => e.status === 200)[AFTER].body?.dst };
					}
					if (moment && !over) {
						await kill(next.kind, worker, { execution: executionId, postsOfTheRun: posts().length, ...moment });
						continue;
					}
					// The run ended before that moment (fewer lines free, or the lease held): an ordinary run; again with the next.
					sandbox.clearFaults();
					last = await finish(executionId);
				} else if (killNow && next.kind === 'results') {
					// While a dial run places calls, their results arrive and are queued to the workers: the worker not running
					// the dial run is killed once its log shows a Record Call Result execution started and not finished. The
					// dial run goes on on its own worker. A run that places nothing (the lease held) is an ordinary run.
					const executionId = await startDial(main, dial.id);
					dialIds.push(String(executionId));
					let over = false;
					const end = main.waitForExecution(executionId, { timeoutMs: 180000 }).finally(() => (over = true));
					end.catch(() => undefined);
					const dialWorker = await runningOn(cluster, executionId);
					const recordsOn = cluster.workers.find((worker) => worker !== dialWorker);
					const running = await waitFor(
						'a Record Call Result execution running on the worker without the dial run',
						() => runningOnWorker(recordsOn).find((id) => !dialIds.includes(id)) ?? (over ? 'over' : undefined),
						{ timeoutMs: 180000, intervalMs: 50 },
					).catch(() => undefined);
					if (running && running !== 'over') await kill('results', recordsOn, { recordExecution: running, duringDialRun: String(executionId) });
					last = await finish(executionId);
				} else {
					const executionId = await startDial(main, dial.id);
					dialIds.push(String(executionId));
					last = await finish(executionId);
				}
				if (kills.length === KILLS.length && (last.summary.placed === 0 || round % 4 === 0)) {
					rows = await main.allDataTableRows(table.id);
					if (done(rows)) break;
				}
				// Nothing placed: lines held or contacts waiting for a retry (the next run a second later), or a killed run's
				// lease not yet over (up to its minute: the next run 3 s later, so that dialling goes on soon after it ends).
				if (last.summary.placed === 0) await delay(/Another run/.test(last.summary.message ?? '') ? 3000 : 1000);
			}
			const runMs = Date.now() - started;
			await restarting;

			// What n8n made of each killed job: its final status, and whether a worker's log shows it started again.
			for (const k of kills) {
				const id = k.execution ?? k.recordExecution;
				const ended = await main.waitForExecution(id, { timeoutMs: 180000 });
				k.fate = ended.status;
				k.error = String(ended.data?.resultData?.error?.message ?? '').slice(0, 80);
				k.startedAgain = Object.values(startsPerWorker(cluster, [String(id)])).reduce((a, b) => a + b, 0) > 1;
			}
			const records = await allExecutions(main, results.id);
			const killedDialRuns = kills.filter((k) => DIAL_KINDS.has(k.kind));
			const heldClaims = kills.filter((k) => k.kind === 'claim');
			const calledAt = (phone, attempt) => sandbox.callJournal.calls.filter((c) => c.dst === phone && c.attempt === attempt).length;
			const f = {
				contacts: CONTACTS,
				calls: sandbox.callJournal.calls.length,
				dialRuns: runs.length + killedDialRuns.length,
				blockedRuns: runs.filter((r) => r.summary.placed === 0 && /Another run/.test(r.summary.message ?? '')).length,
				unconfirmedClaimsMarked: runs.reduce((sum, r) => sum + (r.summary.unconfirmedClaims ?? 0), 0),
				resultsReadByDialRuns: runs.reduce((sum, r) => sum + (r.summary.resultsRead ?? 0), 0),
				kills,
				heldClaims: heldClaims.length,
				heldClaimsNotDialled: heldClaims.filter((k) => calledAt(k.phone, k.attempt) === 0).length,
				rerunElsewhere: kills.filter((k) => k.startedAgain).length,
				dialRunsPerWorker: startsPerWorker(cluster, dialIds),
				recordsPerWorker: startsPerWorker(cluster, records.map((e) => String(e.id))),
				records: records.length,
				recordsFailed: records.filter((e) => ['error', 'crashed'].includes(e.status)).length,
				callResults: sandbox.callbacks.filter((c) => c.kind === 'callResult').length,
				callResultsNot200: sandbox.callbacks.filter((c) => c.kind === 'callResult' && c.status !== 200).length,
				restartS: restartMs.map((ms) => Math.round(ms / 1000)),
				runMs,
			};
			try {
				Object.assign(f, checkDurableCampaign(plan, sandbox.callJournal, rows, { dialKillTimes: killedDialRuns.map((k) => started + k.at), cap: CAP }));
				// Each held claim: its contact unknown, and not dialled at that attempt (no POST was sent for it).
				const byPhone = new Map(rows.map((row) => [row.phone, row]));
				for (const k of heldClaims) {
					assert.equal(byPhone.get(k.phone)?.campaignState, 'unknown', `the contact whose claim was held (${k.phone}): ${JSON.stringify(byPhone.get(k.phone))}`);
					assert.equal(calledAt(k.phone, k.attempt), 0, `${k.phone} was dialled at attempt ${k.attempt}, whose claim was held when its worker was killed`);
				}
				// Each held POST: the call's id never came back to its run, so no result can be judged to be its call's: its
				// contact is unknown, dialled once at that attempt (a result posted for its claim meanwhile is kept in its row).
				f.heldPostsWithAResultKept = 0;
				for (const k of kills.filter((x) => x.kind === 'post')) {
					const row = byPhone.get(k.phone);
					assert.equal(row?.campaignState, 'unknown', `the contact whose POST was held (${k.phone}): ${JSON.stringify(row)}`);
					if (row.heldResult) f.heldPostsWithAResultKept++;
				}
				for (const kind of Object.keys(MOMENTS)) assert.ok(kills.filter((k) => k.kind === kind).length >= 2, `${kind}: killed fewer than twice`);
			} catch (error) {
				error.measured = `${f.calls} calls, ${kills.length} kills (${kills.map((k) => `${k.kind} ${k.worker} ${k.fate}`).join(', ')}), ${f.dialRuns} dial runs, ${seconds(runMs)}`;
				process.stderr.write(`\ncase 10 figures: ${JSON.stringify(f, null, 1)}\n`);
				throw error;
			}
			delete f.unknownContacts;
			return { measured: summaryText(f), metrics: f };
		} finally {
			await restarting.catch(() => undefined);
			await gate.close();
			sandbox.reset();
		}
	},
};
