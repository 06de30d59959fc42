// Example 6 (examples/6-durable-campaign.json) on the real n8n with a platform that misbehaves: every call result it
// delivered to the example's real Production Call Result URL is delivered a second time (half at once, half late:
// after the contact's next call was placed or after its row reached a final state), out of order; a share of the
// results is posted before the call has ended (before the platform's status record exists) and a share again with a
// garbled Result Context query; for some numbers the platform itself garbles the Call Result URL of every result
// (the trigger refuses them: only the dial runs' status reads can record those); the true result of every later
// attempt is posted again with `ctx_attempt=1` in its URL; each answered contact gets forged results (BUSY with
// `ctx_attempt=1`, another call's internal_id, an earlier call's internal_id, an internal_id nobody placed, one made
// to slip through the table's filter, a garbled query); and a third of all status reads are answered `200 {}`.
// What must hold: nobody dialled again after an answer or beyond the Retry Policy, each call's result applied
// exactly once (by Record Call Result or by a dial run's status read), no row written again once it was final, every
// Record Call Result execution ended without an error, and never more calls at once than the lines.
// n8n 1.x: skipped (its public API has no data tables, the only way a community node reaches them).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { after, describe, test } = require('node:test');

const {
	TABLE,
	applyNetwork,
	checkDurableCampaign,
	contactsTable,
	delay,
	dialRun,
	durableWorkflows,
	planDurableCampaign,
	startCampaignN8n,
	startDial,
} = require('../support/durableCampaign');
const { allExecutions, errorOf, outputOf, publishTrigger, triggerUrl } = require('../support/workflows');

const CONTACTS = 60;
const SPEED = 100;
const NOT_ON_1X = "n8n 1.x: its public API has no data tables, and a community node reaches n8n's data tables only through it";
const FINAL = new Set(['answered', 'finished', 'failed', 'unknown']);
/** Context queries the trigger must refuse (a repeated attempt, an attempt that is no number, a repeated claim). */
/**
 * Queries a garbling platform appends to the Call Result URL (which carries the contact's claim): a second claim, a
 * context name no placement makes, a line break in a value. Each makes the URL's Result Context invalid.
 */
const GARBLED = ['ctx_campaignClaim=7%3Aforged&ctx_campaignClaim=8%3Aforged', 'ctx_first-name=Ada', 'ctx_note=a%0Ab'];
/** Forged internal_ids meant to reach a row through the table's filter: a wildcard, a quote, a call's id as a prefix. */
const ODD_IDS = [(id) => '%', (id) => `${id}' OR '1'='1`, (id) => `${id.slice(0, 8)}%`, (id) => `"(${id})"&filter={}#ü✓`];
/** The numbers whose every result the platform posts with a garbled query (busy then answered; some answered at once). */
const mangled = (index) => index % 10 === 5 || index % 20 === 0;
/** Every STATUS_FAULT_EVERY-th status read is answered 200 {}. */
const STATUS_FAULT_EVERY = 3;

/** A shuffled copy (Fisher-Yates with a small seeded generator: the same order for the same seed). */
function shuffled(list, seed) {
	const out = [...list];
	let s = (seed * 2654435761) >>> 0 || 1;
	for (let i = out.length - 1; i > 0; i--) {
		s = (s * 1103515245 + 12345) >>> 0;
		const j = s % (i + 1);
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/** What a row was once it was final: any later write changes its version and write token. */
const snapshot = (row) => ({
	campaignState: row.campaignState,
	attempt: row.attempt,
	internalId: row.internalId,
	dialStatus: row.dialStatus,
	reason: row.reason,
	version: row.version,
	writeToken: row.writeToken,
});

/**
 * The misbehaving platform's second hand: posts to the real Call Result URL, on top of what the sandbox delivers.
 * `tick()` looks at what happened since the last tick (new calls in the journal, new deliveries, the table's rows)
 * and posts: early copies of some results while their calls are live, garbled copies, a repeat of every delivered
 * result (now or late), forgeries for each answered contact. Every post and its answer is kept in `posts`.
 */
function misbehavingPlatform(env, n8n, url, garbledNumbers) {
	const sandbox = env.sandbox;
	const posts = [];
	const late = []; // { callback, dst, attempt }
	const forged = new Set();
	const finalAt = new Map(); // row id -> snapshot when first seen final
	let callsSeen = 0;
	let callbacksSeen = 0;
	let round = 0;
	const post = async (kind, target, body, meta = {}) => {
		const response = await n8n.callWebhook(target, { body, retryMs: 0 });
		posts.push({ kind, internal_id: body.internal_id, dialstatus: body.dialstatus, status: response.status, response: response.body, ...meta });
	};
	const sendAll = async (batch) => {
		for (let i = 0; i < batch.length; i += 8) await Promise.all(batch.slice(i, i + 8).map((send) => send()));
	};
	const resultOf = (call) => ({ internal_id: call.internal_id, dialstatus: call.dialstatus, duration: call.durationSec });

	/** `rows`: the table as just read (late repeats and forgeries wait for it), or undefined (calls and deliveries only). */
	async function tick(rows, { flush = false } = {}) {
		round++;
		const batch = [];
		const calls = sandbox.callJournal.calls;
		// Results posted while their calls are live (every 3rd call: the same result; every 4th: with a garbled query).
		for (; callsSeen < calls.length; callsSeen++) {
			const call = calls[callsSeen];
			if (garbledNumbers.has(call.dst)) continue; // their results reach nobody but the status reads
			if (callsSeen % 3 === 0) batch.push(() => post('early', url, resultOf(call), { live: call.endedWallAt === null }));
			if (callsSeen % 4 === 1) {
				const query = GARBLED[callsSeen % GARBLED.length];
				batch.push(() => post('garbledEarly', `${url}?${query}`, resultOf(call), { query }));
			}
		}
		// A second delivery of every result the sandbox delivered: half now, half once its contact moved on.
		const delivered = sandbox.callbacks;
		for (; callbacksSeen < delivered.length; callbacksSeen++) {
			const callback = delivered[callbacksSeen];
			if (callback.kind !== 'callResult') continue;
			const call = calls.find((c) => c.internal_id === callback.internal_id);
			const garbled = garbledNumbers.get(call.dst);
			// The example's own Call Result URL with the contact's claim the dial run added (and what a garbling
			// platform appended to it).
			const own = new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?ctx_campaignClaim=[0-9]+%3A[^&]+${garbled ? `&${garbled.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` : ''}$`);
			assert.match(callback.url, own, 'the platform delivered a call result elsewhere than the example\'s own Call Result URL');
			if (callbacksSeen % 2 === 0) batch.push(() => post('repeat', callback.url, callback.body, { firstStatus: callback.status }));
			else late.push({ callback, dst: call.dst, attempt: call.attempt });
			// A later attempt's true result, its URL claiming attempt 1 (a context field like any other): applied (once)
			// with the table's attempt, or ignored.
			if (call.attempt >= 2 && !garbled) batch.push(() => post('attemptOneInUrl', `${url}?ctx_attempt=1`, callback.body, { attempt: call.attempt }));
		}
		if (!rows) return sendAll(shuffled(batch, round));
		const byPhone = new Map(rows.map((row) => [row.phone, row]));
		for (let i = late.length - 1; i >= 0; i--) {
			const { callback, dst, attempt } = late[i];
			const row = byPhone.get(dst);
			const movedOn = calls.some((c) => c.dst === dst && c.attempt > attempt) || (row && FINAL.has(row.campaignState));
			if (!flush && !movedOn) continue;
			late.splice(i, 1);
			batch.push(() => post('lateRepeat', callback.url, callback.body, { firstStatus: callback.status, afterNextCall: calls.some((c) => c.dst === dst && c.attempt > attempt) }));
		}
		// Rows once final are kept as they were; answered contacts get their forgeries.
		const finalIds = rows.filter((row) => FINAL.has(row.campaignState) && row.internalId).map((row) => row.internalId);
		for (const row of rows) {
			if (FINAL.has(row.campaignState) && !finalAt.has(row.id)) finalAt.set(row.id, snapshot(row));
			if (row.campaignState !== 'answered' || forged.has(row.id)) continue;
			forged.add(row.id);
			const id = row.internalId;
			const earlier = calls.filter((c) => c.dst === row.phone && c.internal_id !== id).map((c) => c.internal_id);
			const other = finalIds.find((x) => x !== id);
			batch.push(() => post('forgedBusyAttempt1', `${url}?ctx_attempt=1`, { internal_id: id, dialstatus: 'BUSY', duration: 0 }, { target: id }));
			if (earlier.length > 0) batch.push(() => post('forgedEarlierCall', `${url}?ctx_attempt=1`, { internal_id: earlier[0], dialstatus: 'ANSWER', duration: 42 }, { target: earlier[0] }));
			// One more per answered contact, in turn: another final call's id, an id nobody placed, an id made for the filter.
			const variant = row.id % 3;
			if (variant === 0 && other) batch.push(() => post('forgedOtherCall', `${url}?ctx_attempt=1`, { internal_id: other, dialstatus: 'ANSWER', duration: 61 }, { target: other }));
			if (variant === 1) batch.push(() => post('forgedUnknownId', url, { internal_id: `forged-${row.id}-${round}`, dialstatus: 'ANSWER', duration: 30 }));
			if (variant === 2) batch.push(() => post('forgedOddId', url, { internal_id: ODD_IDS[Math.floor(row.id / 3) % ODD_IDS.length](id), dialstatus: 'BUSY', duration: 0 }));
			const query = GARBLED[row.id % GARBLED.length];
			batch.push(() => post('forgedGarbled', `${url}?${query}`, { internal_id: id, dialstatus: 'NOANSWER', duration: 0 }, { query }));
		}
		await sendAll(shuffled(batch, round));
	}
	return { posts, late, finalAt, tick };
}

function register(env) {
	describe('example 6: a durable campaign, the platform misbehaving', () => {
		let campaign;

		after(async () => {
			await campaign?.stop();
		});

		test(`${CONTACTS} contacts; every result delivered twice, late and out of order, forged for each answered call, status reads answered {}: nobody dialled again, no final row written again, each result applied once`, { timeout: 12 * 60 * 1000 }, async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			// Its own n8n, started here rather than in a hook: a run that filters this test out does not boot it.
			campaign = await startCampaignN8n(env);
			env.sandbox.reset();
			try {
				const n8n = campaign.n8n;
				const plan = planDurableCampaign(CONTACTS);
				const table = await contactsTable(n8n, TABLE, plan.contacts);
				const workflows = durableWorkflows(n8n, campaign.byType, { table, window: plan.window, label: 'misbehaving platform' });
				const results = await n8n.createWorkflow(workflows.results);
				const dial = await n8n.createWorkflow(workflows.dial);
				const setUp = await n8n.runWorkflow(results.id);
				assert.equal(setUp.status, 'success', errorOf(setUp));
				await publishTrigger(n8n, results.id, workflows.trigger);
				const url = triggerUrl(n8n, workflows.trigger, 'call-result');
				applyNetwork(env.sandbox, plan.rules, SPEED);
				const garbledNumbers = new Map();
				plan.contacts.forEach((contact, i) => {
					if (!mangled(i) || !plan.rules.has(contact.phone)) return;
					garbledNumbers.set(contact.phone, GARBLED[i % GARBLED.length]);
					env.sandbox.setDialOutcome({ dst: contact.phone, attempts: plan.rules.get(contact.phone), persistDelayMs: 0, resultQuery: GARBLED[i % GARBLED.length] });
				});
				env.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'answer', body: {}, every: STATUS_FAULT_EVERY });

				const platform = misbehavingPlatform(env, n8n, url, garbledNumbers);
				const started = Date.now();
				const deadline = started + 6 * 60 * 1000;
				const runs = [];
				let rows = [];
				const done = () =>
					rows.length === CONTACTS && rows.every((row) => FINAL.has(row.campaignState) || (row.campaignState === 'pending' && /outside calling hours/.test(row.reason ?? '')));

				// The dial runs, one after the other (the Schedule Trigger's minute, compressed), and the misbehaving
				// platform's posts between them.
				while (!done()) {
					assert.ok(Date.now() < deadline, `the campaign did not end within 6 minutes: ${JSON.stringify(rows.filter((r) => !FINAL.has(r.campaignState)).slice(0, 5))}`);
					const run = dialRun(await dialWhileMisbehaving(n8n, await startDial(n8n, dial.id), platform));
					delete run.output;
					runs.push(run);
					rows = await n8n.allDataTableRows(table.id);
					await platform.tick(rows);
					if (run.summary.placed === 0) await delay(500);
				}
				// What is still held back goes now, shuffled; then one more look at the table (answered rows' forgeries).
				await platform.tick(rows, { flush: true });
				await delay(1000);
				rows = await n8n.allDataTableRows(table.id);
				await platform.tick(rows, { flush: true });
				const runMs = Date.now() - started;

				// Every post started its execution (the trigger answers once it has); wait until they all ended.
				const accepted = platform.posts.filter((p) => p.status === 200).length + env.sandbox.callbacks.filter((c) => c.kind === 'callResult' && c.status === 200).length;
				const executions = await waitForAll(n8n, results.id, accepted + 1); // + Set Up Once
				rows = await n8n.allDataTableRows(table.id);

				const { calls } = env.sandbox.callJournal;
				const figures = checkDurableCampaign(plan, env.sandbox.callJournal, rows);
				assert.equal(figures.unknown, 0, 'a repeated, late or forged result made a contact unknown');

				const callById = new Map(calls.map((c) => [c.internal_id, c]));
				// No row written again once it was final: same version, same write token, same fields.
				const byId = new Map(rows.map((row) => [row.id, row]));
				for (const [id, was] of platform.finalAt) assert.deepEqual(snapshot(byId.get(id)), was, `row ${id} was written again after it was ${was.campaignState}`);

				// Every result the platform delivered was delivered a second time, once.
				const again = platform.posts.filter((p) => p.kind === 'repeat' || p.kind === 'lateRepeat').map((p) => p.internal_id).sort();
				assert.deepEqual(again, env.sandbox.callbacks.filter((c) => c.kind === 'callResult').map((c) => c.internal_id).sort());
				// The posts: garbled context refused (400) and nothing started; everything else accepted.
				const garbledDeliveries = env.sandbox.callbacks.filter((c) => c.kind === 'callResult' && garbledNumbers.has(callById.get(c.internal_id)?.dst));
				// (400; or no answer within the sandbox's 5 s on a machine that slow: never accepted either way)
				for (const c of garbledDeliveries) assert.ok(c.status === 400 || (c.status === null && c.error), `${c.url}: answered ${c.status} to a garbled context`);
				for (const p of platform.posts) {
					if (p.kind === 'garbledEarly' || p.kind === 'forgedGarbled' || (['repeat', 'lateRepeat'].includes(p.kind) && garbledNumbers.has(callById.get(p.internal_id)?.dst))) {
						assert.equal(p.status, 400, `${p.kind} ${p.query}: ${JSON.stringify(p.response)}`);
						assert.match(JSON.stringify(p.response), /Result Context in the URL is not valid/);
					} else assert.equal(p.status, 200, `${p.kind} ${p.internal_id}: ${JSON.stringify(p.response)}`);
				}

				// Record Call Result: every execution ended without an error; each call's result applied exactly once.
				const webhookRuns = executions.filter((e) => e.mode === 'webhook');
				const appliedBy = new Map();
				let appliedDespiteUrlAttempt = 0;
				const outcomes = {};
				for (const execution of webhookRuns) {
					assert.equal(execution.status, 'success', `Record Call Result execution ${execution.id}: ${errorOf(execution)}`);
					const [event] = outputOf(execution, 'Call Result');
					const [recorded] = outputOf(execution, 'Record Call Result');
					const call = callById.get(String(event.internal_id));
					// Forged: a call nobody placed, or a dial status the call did not have. A true result may still carry a
					// forged attempt in its URL: it counts like any other delivery of that result.
					const forgedPost = !call || event.dialStatus !== call.dialstatus;
					const urlAttempt = !forgedPost && event.context?.attempt !== undefined && Number(event.context.attempt) !== call.attempt;
					const what = `${forgedPost ? 'forged' : urlAttempt ? 'true, another attempt in its URL' : 'genuine'}: ${recorded.recorded ? `recorded ${recorded.campaignState}` : recorded.reason.replace(/\(.*?\)|"[^"]*"/g, '…')}`;
					outcomes[what] = (outcomes[what] ?? 0) + 1;
					if (forgedPost) {
						assert.equal(recorded.recorded, false, `a forged result was recorded: ${JSON.stringify({ event, recorded })}`);
						assert.match(recorded.reason, /^already recorded: the contact is (answered|finished)|^no contact of the campaign/, JSON.stringify({ event, recorded }));
						continue;
					}
					if (!recorded.recorded) {
						// (held: posted while its contact's POST was unanswered; the dial run's status read records it.)
						assert.match(recorded.reason, /^already recorded|^no status record yet|^the status read answered|^no contact of the campaign|^held: /, JSON.stringify({ event, recorded }));
					} else {
						assert.ok(!appliedBy.has(call.internal_id), `the result of ${call.internal_id} was applied twice (executions ${appliedBy.get(call.internal_id)} and ${execution.id})`);
						appliedBy.set(call.internal_id, execution.id);
						if (urlAttempt) appliedDespiteUrlAttempt++;
						assert.equal(recorded.dialStatus, call.dialstatus);
						assert.equal(recorded.attempt, call.attempt, `${call.internal_id}: applied to attempt ${recorded.attempt}, the call was attempt ${call.attempt}`);
					}
				}
				const readByDialRuns = runs.reduce((sum, r) => sum + (r.summary.resultsRead ?? 0), 0);
				// The results the platform only ever posted with a garbled query were not lost: the status reads recorded them
				// (checkDurableCampaign: their contacts called as the policy says, final, naming their last call).
				const garbledCalls = calls.filter((c) => garbledNumbers.has(c.dst));
				assert.ok(garbledCalls.length > 0);
				for (const c of garbledCalls) assert.ok(!appliedBy.has(c.internal_id), `${c.internal_id}: its garbled result reached Record Call Result`);
				assert.ok(readByDialRuns >= garbledCalls.length, `${garbledCalls.length} results posted only garbled, ${readByDialRuns} read by dial runs`);
				assert.equal(appliedBy.size + readByDialRuns, calls.length, `${calls.length} calls, ${appliedBy.size} results applied by Record Call Result and ${readByDialRuns} by dial runs' status reads`);

				// Status reads answered {}: some while the call was live; none freed a line (checked above: at most Max Calls in Flight at once, 0 refused).
				const emptyReads = env.sandbox.journal.filter((e) => e.method === 'GET' && e.path.startsWith('/getDialstatus/') && e.fault === 'answer');
				const emptyWhileLive = emptyReads.filter((e) => {
					const call = callById.get(e.path.split('/').pop());
					return call && Date.parse(e.at) < call.endedAt;
				}).length;
				assert.ok(emptyReads.length > 0, 'no status read was answered {}');

				const countBy = (list, key) => list.reduce((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});
				writeFigures({
					n8n: n8n.version,
					contacts: CONTACTS,
					speed: SPEED,
					runMs,
					...figures,
					dialRuns: runs.length,
					deliveredBySandbox: countBy(env.sandbox.callbacks.filter((c) => c.kind === 'callResult'), (c) => String(c.status)),
					posts: countBy(platform.posts, (p) => `${p.kind} -> ${p.status}`),
					earlyPostsWhileLive: platform.posts.filter((p) => p.kind === 'early' && p.live).length,
					lateRepeatsAfterNextCall: platform.posts.filter((p) => p.kind === 'lateRepeat' && p.afterNextCall).length,
					recordCallResultExecutions: webhookRuns.length,
					recordCallResultOutcomes: outcomes,
					resultsAppliedByRecordCallResult: appliedBy.size,
					resultsAppliedByDialRunReads: readByDialRuns,
					numbersWhoseResultsThePlatformGarbled: garbledNumbers.size,
					resultsPostedOnlyGarbled: garbledCalls.length,
					resultsAppliedFromAUrlClaimingAttempt1: appliedDespiteUrlAttempt,
					statusReads: env.sandbox.journal.filter((e) => e.method === 'GET' && e.path.startsWith('/getDialstatus/')).length,
					statusReadsAnsweredEmpty: emptyReads.length,
					statusReadsAnsweredEmptyWhileLive: emptyWhileLive,
					finalRowsWatched: platform.finalAt.size,
				});
			} finally {
				env.sandbox.reset();
			}
		});
	});
}

/** Waits for a dial run to end (polled every 150 ms), the platform posting what it has to post meanwhile. */
async function dialWhileMisbehaving(n8n, executionId, platform, timeoutMs = 120000) {
	const until = Date.now() + timeoutMs;
	for (;;) {
		await platform.tick();
		const execution = await n8n.api('GET', `/executions/${executionId}?includeData=true`, undefined, { expect: [200, 404] });
		if (execution?.id !== undefined && !['new', 'running', 'waiting'].includes(execution.status) && execution.data) return execution;
		assert.ok(Date.now() < until, `dial run ${executionId} still ${execution?.status} after ${timeoutMs / 1000} s`);
		await delay(150);
	}
}

/** Every execution of the workflow once at least `count` exist and none is still running. */
async function waitForAll(n8n, workflowId, count, timeoutMs = 180000) {
	const until = Date.now() + timeoutMs;
	let all = [];
	for (;;) {
		all = await allExecutions(n8n, workflowId);
		if (all.length >= count && all.every((e) => !['new', 'running', 'waiting'].includes(e.status))) return all;
		assert.ok(Date.now() < until, `${all.length} of ${count} executions of the results workflow, ${all.filter((e) => e.status === 'running').length} running`);
		await delay(1000);
	}
}

function writeFigures(figures) {
	const dir = path.join(__dirname, '..', '..', '.build');
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(dir, 'durable-campaign-hostile-e2e.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

module.exports = { register };
