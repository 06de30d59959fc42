// Example 6 (examples/6-durable-campaign.json) at scale on the real n8n, for the end-to-end suite: a contacts data
// table whose numbers each behave as planned in the sandbox's telephone network, an n8n of its own that the case
// kills (SIGKILL) and starts again on the same database, the example split into the workflow that is run again and
// again (Dial Due Contacts) and the published one that records the results (Call Result -> Record Call Result), and
// the checks made from the sandbox's call journal and the table's rows.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { delay, startN8n } = require('../../scripts/n8n-runtime');
const { N8N_API_CREDENTIAL_TYPE, loadExamples, prepareExamples } = require('../../scripts/n8n-examples');
const { loadSandbox } = require('../../scripts/n8n-sandbox');
const { createSandboxCredentials } = require('./environment');
const { waitFor } = require('./wait');
const { errorOf, outputOf } = require('./workflows');
const { startApiGate } = require('./apiGate');

const EXAMPLE = '6-durable-campaign.json';
const TABLE = 'Assistant Platform campaign contacts';
/** Max Calls in Flight (the example's) and the account's limit in the sandbox. */
const CAP = 5;
/** Max Calls per Run of the runs (the example keeps the default, 20): lower than CAP, so both bounds show. */
const PER_RUN = 4;
const MAX_ATTEMPTS = 3;
/** The example retries BUSY and NOANSWER after 10 minutes; the run cannot wait that long: 6 seconds. */
const RETRY_MINUTES = 0.1;
/** Unconfirmed Claim After (minutes): its minimum, so a claim a crash left becomes unknown a minute later. */
const CLAIM_MINUTES = 1;
/**
 * Max Call Length (minutes): longer than any call of the plan at any clock the cases use (93 s at 1x), far shorter
 * than the default 30, so that a contact a crash left unknown gives its line back within the case.
 */
const MAX_CALL_MINUTES = 3;
const RETRIED = new Set(['BUSY', 'NOANSWER']);

const ANSWER = { dialstatus: 'ANSWER', ringMs: [3000, 8000], durationSec: [50, 85] };
const BUSY = { dialstatus: 'BUSY', ringMs: [2000, 5000] };
const NOANSWER = { dialstatus: 'NOANSWER', ringMs: [25000, 35000] };
const CHANUNAVAIL = { dialstatus: 'CHANUNAVAIL', ringMs: [1000, 3000] };
const DONTCALL = { dialstatus: 'DONTCALL', ringMs: 2000 };

/** Open zones (inside the calling hours for hours from the start) and one zone where the hours are closed. */
const OPEN_ZONES = ['UTC', 'Etc/GMT-1', 'Etc/GMT+1', 'Etc/GMT-2'];
const CLOSED_ZONE = 'Etc/GMT-12';

/** What each number does, by the contact's index: answered at once or later, never, unavailable, declined. */
function stepsFor(i) {
	switch (i % 10) {
		case 5:
			return [BUSY, ANSWER];
		case 6:
			return [NOANSWER];
		case 7:
			return [DONTCALL];
		case 8:
			return [BUSY, BUSY, BUSY, ANSWER]; // answered only at a 4th attempt: out of attempts at 3
		case 9:
			return i % 20 === 9 ? [NOANSWER, ANSWER] : [CHANUNAVAIL];
		default:
			return [ANSWER];
	}
}

/**
 * The calls a number gets under a Retry Policy: its steps in order, while the outcome is one the policy calls again
 * (`retried`), up to `maxAttempts` (default: example 6's, 3 attempts, BUSY and NOANSWER again, nothing else).
 */
function expectedCalls(steps, retried = RETRIED, maxAttempts = MAX_ATTEMPTS) {
	const statuses = [];
	for (let attempt = 1; attempt <= maxAttempts; attempt++) {
		const status = steps[Math.min(attempt, steps.length) - 1].dialstatus;
		statuses.push(status);
		if (status === 'ANSWER' || !retried.has(status)) break;
	}
	return statuses;
}

/** "HH:MM" of an instant in UTC. */
const clockUtc = (ms) => new Date(ms).toISOString().slice(11, 16);

/**
 * `count` contacts with unique numbers: every 30th in a zone where the calling hours are closed (never dialled; its
 * next attempt moves to when they open), every 75th with a number that cannot be dialled (failed, not dialled); the
 * others in zones where the hours (every day, from two hours before the start to four hours after, in UTC terms)
 * are open. `rules`: each dialable number's steps.
 */
function planDurableCampaign(count, start = Date.now()) {
	const window = { from: clockUtc(start - 2 * 3600_000), to: clockUtc(start + 4 * 3600_000) };
	const contacts = [];
	const rules = new Map();
	for (let i = 0; i < count; i++) {
		const contact = { phone: `+1303555${String(i).padStart(4, '0')}`, name: `Contact ${i}`, timezone: OPEN_ZONES[i % OPEN_ZONES.length] };
		if (i % 75 === 74) Object.assign(contact, { phone: `n/a ${i}`, invalid: true });
		else if (i % 30 === 29) Object.assign(contact, { timezone: CLOSED_ZONE, closed: true });
		else rules.set(contact.phone, stepsFor(i));
		contacts.push(contact);
	}
	return { contacts, rules, window };
}

/**
 * Sets the sandbox network: each number's steps, the account's limit at `cap` (the runs' Max Calls in Flight), the
 * clock `speed` times faster.
 */
function applyNetwork(sandbox, rules, speed, cap = CAP) {
	for (const [dst, attempts] of rules) sandbox.setDialOutcome({ dst, attempts, persistDelayMs: 0 });
	sandbox.setAccountLimit(cap);
	sandbox.clock.setSpeed(speed);
	sandbox.clearCallJournal();
	sandbox.clearJournal();
	sandbox.clearCallbacks();
}

// ------------------------------------------------------------------------------------------------ its own n8n

const quiet = () => {};

/**
 * An n8n of the case's own (its own user folder; the package from the suite's tarball), so that killing it leaves the
 * suite's n8n alone, with the sandbox's credentials and an Assistant Platform Data Tables API credential (its own
 * /api/v1 and the API key the runtime made). `crash()` SIGKILLs n8n and its task runner; `restart()` starts it on the
 * same database, port and encryption key, as a service manager would. `apiGate`: the credential reaches n8n's API
 * through a gate (support/apiGate.js, `handle.gate`) that can hold n8n's answer to one request, e.g. a claim.
 */
async function startCampaignN8n(env, { apiGate = false } = {}) {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-durable-'));
	const handle = { userFolder, crashes: [] };
	const killOnExit = () => handle.n8n?.killNow();
	process.once('exit', killOnExit);
	try {
		handle.n8n = await startN8n({ userFolder, tarball: env.tarball, install: false, log: quiet });
	} catch (error) {
		fs.rmSync(userFolder, { recursive: true, force: true });
		throw error;
	}
	// The gate follows n8n's current URL (a restart keeps the port).
	if (apiGate) handle.gate = await startApiGate(() => handle.n8n.url);
	const { portal, outbound } = await createSandboxCredentials(handle.n8n, env.sandbox);
	const api = await handle.n8n.api('POST', '/credentials', {
		name: 'Assistant Platform Data Tables API (e2e)',
		type: N8N_API_CREDENTIAL_TYPE,
		data: { baseUrl: `${handle.gate?.url ?? handle.n8n.url}/api/v1`, apiKey: handle.n8n.apiKey },
	});
	handle.byType = { [portal.type]: portal, [outbound.type]: outbound, [N8N_API_CREDENTIAL_TYPE]: { id: api.id, name: api.name, type: N8N_API_CREDENTIAL_TYPE } };

	handle.crash = async (moment) => {
		const n8n = handle.n8n;
		const at = Date.now();
		n8n.killNow();
		const exit = await n8n.exited;
		handle.crashes.push({ moment, at, signal: exit.signal });
	};
	handle.restart = async () => {
		const old = handle.n8n;
		const started = Date.now();
		handle.n8n = await startN8n({
			userFolder,
			port: old.port,
			install: false,
			log: quiet,
			env: { N8N_ENCRYPTION_KEY: old.env.N8N_ENCRYPTION_KEY },
		});
		handle.crashes[handle.crashes.length - 1].restartMs = Date.now() - started;
		return handle.n8n;
	};
	handle.stop = async () => {
		process.removeListener('exit', killOnExit);
		await handle.n8n?.stop();
		await handle.gate?.close();
		if (process.env.E2E_KEEP) process.stderr.write(`[e2e] kept the durable campaign's n8n user folder: ${userFolder}\n`);
		else fs.rmSync(userFolder, { recursive: true, force: true });
	};
	return handle;
}

// ------------------------------------------------------------------------------------------------ table, workflows

/** A contacts table as a CSV import makes it (phone, name, timezone), with the plan's contacts. */
async function contactsTable(n8n, name, contacts) {
	const columns = ['phone', 'name', 'timezone'].map((column) => ({ name: column, type: 'string' }));
	const table = await n8n.dataTables('POST', '', { name, columns });
	const data = contacts.map(({ phone, name: contactName, timezone }) => ({ phone, name: contactName, timezone }));
	for (let start = 0; start < data.length; start += 100) {
		await n8n.dataTables('POST', `/${table.id}/insert`, { data: data.slice(start, start + 100), returnType: 'count' });
	}
	return table;
}

/**
 * Example 6 as imported into `n8n` (scripts/n8n-examples.js: credentials, a fresh webhook id and secret, Dial Due
 * Contacts' Call Result URL = its own trigger's Production URL), for `table`, with calling hours every day in
 * `window`, retry delays of seconds, Max Calls per Run PER_RUN, claims confirmed unknown after CLAIM_MINUTES and Max
 * Call Length MAX_CALL_MINUTES. Split
 * in two: `dial` (Every Minute -> Dial Due Contacts, run by the case again and again, never published: a Schedule
 * Trigger firing while a run the case started still claims would be two runs at once, the second test's subject) and
 * `results` (Call Result -> Record Call Result, published; and Set Up Once -> Prepare Contacts Table -> Get Summary).
 * `callResults: false` leaves out the Call Result URL: the dial runs' own status reads record every result.
 * `maxInFlight` and `perRun` replace CAP and PER_RUN as the runs' Max Calls in Flight and Max Calls per Run.
 */
function durableWorkflows(n8n, byType, { table, window, label, callResults = true, maxInFlight = CAP, perRun = PER_RUN }) {
	const example = loadExamples().find((e) => e.file === EXAMPLE);
	assert.ok(example, `${EXAMPLE} is missing`);
	const [prepared] = prepareExamples([example], byType, { baseUrl: n8n.url });
	const workflow = prepared.workflow;
	const node = (name) => {
		const found = workflow.nodes.find((n) => n.name === name);
		assert.ok(found, `${EXAMPLE} has no node "${name}"`);
		return found;
	};
	const dial = node('Dial Due Contacts').parameters;
	const record = node('Record Call Result').parameters;
	const trigger = node('Call Result');
	const ownUrl = `${n8n.url}/webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}/call-result`;
	// As written: the table, 5 in flight, Mon-Fri 09:00-20:00 in each contact's `timezone`, BUSY/NOANSWER after 10 min, 3
	// attempts, each run dialling for its minute; the Retry Policy set once, on Dial Due Contacts.
	assert.equal(dial.contactsTable, TABLE);
	assert.deepEqual(dial.campaignOptions, { keepDiallingSeconds: 60 });
	assert.equal(dial.maxCallsInFlight, CAP);
	assert.deepEqual(dial.callingHours, { window: [{ days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], from: '09:00', to: '20:00' }], timeZone: [{ timeZoneColumn: 'timezone' }] });
	assert.deepEqual(dial.campaignGuardrails, { doNotCallList: 'Assistant Platform Do-Not-Call List' });
	assert.deepEqual(dial.retryPolicy, { maxAttempts: MAX_ATTEMPTS, busy: 10, noAnswer: 10 });
	assert.equal(record.retryPolicy, undefined, 'Record Call Result applies the Retry Policy its contact carries: the example sets none on it');
	assert.equal(dial.options.callResultUrl, ownUrl, 'the Call Result URL is not the Production URL of the example\'s own trigger');
	assert.doesNotMatch(JSON.stringify(workflow.nodes), /__[A-Z_]+__/, 'a placeholder was not filled in');

	const policy = { maxAttempts: MAX_ATTEMPTS, busy: RETRY_MINUTES, noAnswer: RETRY_MINUTES };
	for (const parameters of [dial, record, node('Prepare Contacts Table').parameters, node('Get Summary').parameters]) parameters.contactsTable = table.name;
	Object.assign(dial, {
		maxCallsInFlight: maxInFlight,
		maxCallsPerRun: perRun,
		retryPolicy: policy,
		callingHours: { ...dial.callingHours, window: [{ ...dial.callingHours.window[0], days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'], ...window }] },
		campaignOptions: { claimMinutes: CLAIM_MINUTES, maxCallMinutes: MAX_CALL_MINUTES },
	});
	if (!callResults) delete dial.options.callResultUrl;

	const pick = (names) => ({
		nodes: workflow.nodes.filter((n) => names.includes(n.name)),
		connections: Object.fromEntries(Object.entries(workflow.connections).filter(([from]) => names.includes(from))),
		settings: workflow.settings,
	});
	return {
		trigger,
		dial: { name: `e2e: example 6, dial (${label})`, ...pick(['Every Minute', 'Dial Due Contacts']) },
		results: { name: `e2e: example 6, results and set-up (${label})`, ...pick(['Call Result', 'Record Call Result', 'Set Up Once', 'Prepare Contacts Table', 'Get Summary']) },
	};
}

/** Dial Due Contacts' parameters as example 6 ships them (credentials and the Call Result URL aside). */
function shippedDialParameters() {
	const example = loadExamples().find((e) => e.file === EXAMPLE);
	return structuredClone(example.workflow.nodes.find((n) => n.name === 'Dial Due Contacts').parameters);
}

/** Starts the dial workflow from its Schedule Trigger as the editor's "Execute workflow" does; resolves with the execution id. */
async function startDial(n8n, workflowId) {
	const started = await n8n.rest('POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: 'Every Minute' } });
	assert.ok(started?.executionId, `the dial workflow did not start: ${JSON.stringify(started)}`);
	return started.executionId;
}

/** What a finished dial run shows: its summary item, its item count and the size of its execution data. */
function dialRun(execution) {
	assert.equal(execution.status, 'success', `dial run ${execution.id}: ${errorOf(execution)}`);
	const items = outputOf(execution, 'Dial Due Contacts');
	return { id: execution.id, summary: items[0], items: items.length, bytes: JSON.stringify(execution.data).length, output: items };
}

/** The POSTs of placements the sandbox received since `from` (index into its journal). */
const placementsSince = (sandbox, from) =>
	sandbox.journal.slice(from).filter((entry) => entry.method === 'POST' && entry.path === '/webhook/outbound_call');

/** Polls `check` every few milliseconds (the sandbox lives in this process): for moments a crash must hit. */
async function waitClosely(what, check, timeoutMs = 30000) {
	return waitFor(what, check, { timeoutMs, intervalMs: 3 });
}

// ------------------------------------------------------------------------------------------------ checks

const FINAL = new Set(['answered', 'finished', 'failed', 'unknown', 'doNotCall']);

/** Calls by number, oldest first. */
function callsByNumber(calls) {
	const byDst = new Map();
	for (const call of calls) {
		if (!byDst.has(call.dst)) byDst.set(call.dst, []);
		byDst.get(call.dst).push(call);
	}
	for (const list of byDst.values()) list.sort((a, b) => a.startedWallAt - b.startedWallAt);
	return byDst;
}

/** No number in two calls at once, none called again after an answer, attempts 1, 2, 3 in order, at most Max Attempts. */
function checkNumber(dst, made) {
	assert.ok(made.length <= MAX_ATTEMPTS, `${dst} was dialled ${made.length} times (Max Attempts ${MAX_ATTEMPTS})`);
	made.forEach((call, k) => {
		assert.equal(call.attempt, k + 1, `${dst}: the sandbox counted call ${k + 1} as attempt ${call.attempt}`);
		if (k === 0) return;
		const before = made[k - 1];
		assert.notEqual(before.dialstatus, 'ANSWER', `${dst} was dialled again after an ANSWER`);
		assert.ok(before.endedWallAt !== null && before.endedWallAt <= call.startedWallAt, `${dst}: two calls at once (${before.internal_id}, ${call.internal_id})`);
	});
}

/**
 * The campaign checked from the sandbox's call journal and the contacts table: every number called as its steps and
 * the Retry Policy say (unknown contacts: the calls before the crash, a prefix of those), never two calls to a number
 * at once or after an answer, never more calls than the row's attempt, at most Max Attempts; no contact lost (each
 * final with a reason, or waiting for its calling hours with a time); unknown contacts at most one per killed dial
 * run, each possibly dialled; at most `cap` calls at once (Max Calls in Flight and the account's limit: CAP unless a
 * case set others), no refusal. Returns the figures.
 */
/** How long before its kill a dial run may have claimed a contact that the kill leaves unknown (a held POST, its claim's go). */
const KILLED_CLAIM_MS = 60_000;

function checkDurableCampaign(plan, { calls, refusals }, rows, { dialKillTimes = [], now = Date.now(), cap = CAP } = {}) {
	assert.equal(rows.length, plan.contacts.length, 'the contacts table has another number of rows than contacts');
	const byPhone = new Map(rows.map((row) => [row.phone, row]));
	const byDst = callsByNumber(calls);
	for (const dst of byDst.keys()) assert.ok(plan.rules.has(dst), `${dst} is not a dialable contact's number and was dialled`);

	const counts = { answered: 0, finished: 0, failed: 0, unknown: 0, waitingForHours: 0 };
	const unknown = [];
	for (const contact of plan.contacts) {
		const row = byPhone.get(contact.phone);
		assert.ok(row, `no row for ${contact.phone}`);
		const made = byDst.get(contact.phone) ?? [];
		checkNumber(contact.phone, made);
		const state = row.campaignState;
		const where = `${contact.phone} (row ${row.id}, ${state}, attempt ${row.attempt}, ${JSON.stringify(row.reason)})`;
		assert.ok(typeof row.reason === 'string' && row.reason !== '', `${where}: no reason`);
		if (contact.closed) {
			counts.waitingForHours++;
			assert.equal(made.length, 0, `${where}: dialled outside its calling hours`);
			assert.equal(state, 'pending', where);
			assert.match(row.reason, /outside calling hours/, where);
			assert.ok(Number(row.nextAttemptAt) > now, `${where}: no time to call when the hours open`);
			continue;
		}
		assert.ok(FINAL.has(state), `${where}: not final (lost)`);
		counts[state]++;
		if (contact.invalid) {
			assert.equal(made.length, 0, where);
			assert.equal(state, 'failed', where);
			assert.match(row.reason, /not dialled/, where);
			continue;
		}
		const expected = expectedCalls(plan.rules.get(contact.phone));
		const statuses = made.map((call) => call.dialstatus);
		if (state === 'unknown') {
			// A claim a crash left: its call may have been placed (then it is in the journal) or not; never dialled again.
			assert.deepEqual(statuses, expected.slice(0, made.length), `${where}: the calls made do not follow its steps`);
			assert.ok(row.attempt === made.length || row.attempt === made.length + 1, `${where}: ${made.length} call(s) for attempt ${row.attempt}`);
			assert.match(row.reason, /may have been placed/, where);
			unknown.push({ phone: contact.phone, attempt: row.attempt, calls: made.length, dialledAtThatAttempt: made.length === row.attempt, reason: row.reason });
			continue;
		}
		assert.deepEqual(statuses, expected, `${where}: the calls made do not follow its steps ${JSON.stringify(plan.rules.get(contact.phone).map((s) => s.dialstatus))}`);
		assert.equal(row.attempt, made.length, `${where}: attempt`);
		const last = made[made.length - 1];
		assert.equal(state, last.dialstatus === 'ANSWER' ? 'answered' : 'finished', where);
		assert.equal(row.dialStatus, last.dialstatus, where);
		assert.equal(row.internalId, last.internal_id, `${where}: the row does not name its last call`);
	}
	// A run claims its next contact while its earlier POSTs are out, so a kill may leave each claim it held unknown:
	// every unknown contact must be one of those, claimed by a run in the minute before it was killed (none without kills).
	const claimedAt = (reason) => Date.parse(/claimed at (\S+Z)/.exec(reason)?.[1] ?? '');
	const unexplained = unknown.filter((u) => !dialKillTimes.some((k) => claimedAt(u.reason) >= k - KILLED_CLAIM_MS && claimedAt(u.reason) <= k + 2000));
	assert.deepEqual(unexplained, [], `unknown contacts that no killed dial run had claimed (${dialKillTimes.length} dial run(s) killed, at ${dialKillTimes.map((k) => new Date(k).toISOString()).join(', ') || 'no time'})`);

	const { maxInFlight } = loadSandbox().module;
	const inFlight = maxInFlight(calls, 'wall');
	assert.ok(inFlight <= cap, `${inFlight} calls in flight at once (Max Calls in Flight ${cap})`);
	assert.equal(refusals.length, 0, `the account's limit refused ${refusals.length} placements: ${JSON.stringify(refusals.slice(0, 3))}`);
	return { ...counts, unknownContacts: unknown, calls: calls.length, numbersDialled: byDst.size, maxInFlight: inFlight, refusals: refusals.length };
}

module.exports = {
	CAP,
	CLAIM_MINUTES,
	EXAMPLE,
	MAX_ATTEMPTS,
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
	expectedCalls,
	placementsSince,
	planDurableCampaign,
	shippedDialParameters,
	startCampaignN8n,
	startDial,
	waitClosely,
};
