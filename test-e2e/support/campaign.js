// The campaign of examples/5-campaign-with-retries.json at scale, for the end-to-end and queue-mode suites: a
// contact list with what each number does on each attempt, the example patched to call it now (calling hours
// that open 45 to 105 s after the start in some contacts' time zones, retry delays of seconds), and the
// checks made from the sandbox's call journal and the results data table.
'use strict';
const assert = require('node:assert/strict');

const crypto = require('node:crypto');

const { EXAMPLE_DATA_TABLES, loadExamples, prepareExample } = require('../../scripts/n8n-examples');
const { loadSandbox } = require('../../scripts/n8n-sandbox');

const EXAMPLE = '5-campaign-with-retries.json';
const CAP = 5;
const MAX_ATTEMPTS = 3;
/** Retry delays of the run, in minutes (the example's are 10 and 60: a run cannot wait that long). */
const DELAYS = { busy: 0.1, noAnswer: 0.2, congestion: 0.1, chanUnavail: 0.1 };
const RETRIED = new Set(['BUSY', 'NOANSWER', 'CONGESTION', 'CHANUNAVAIL']);

const ANSWER = { dialstatus: 'ANSWER', ringMs: [3000, 8000], durationSec: [50, 85] };
const BUSY = { dialstatus: 'BUSY', ringMs: [2000, 5000] };
const NOANSWER = { dialstatus: 'NOANSWER', ringMs: [25000, 35000] };
const CHANUNAVAIL = { dialstatus: 'CHANUNAVAIL', ringMs: [1000, 3000] };
const DONTCALL = { dialstatus: 'DONTCALL', ringMs: 2000 };

/** What each number does, by the contact's index: answered at once, later, never; unavailable; declined. */
function stepsFor(i) {
	if (i % 100 === 99) return [DONTCALL];
	switch (i % 10) {
		case 4:
			return [BUSY, ANSWER];
		case 5:
			return [BUSY, BUSY, ANSWER];
		case 6:
			return [NOANSWER, NOANSWER, ANSWER];
		case 7:
			return [NOANSWER];
		case 8:
			return [CHANUNAVAIL];
		case 9:
			return [BUSY, BUSY, BUSY, ANSWER]; // reachable only at the 4th attempt: out of attempts at 3
		default:
			return [ANSWER];
	}
}

/**
 * The calls a number gets under a Retry Policy: its steps in order, while the outcome is one the policy calls again
 * (`retried`), up to `maxAttempts` (default: example 5's, 3 attempts, BUSY/NOANSWER/CONGESTION/CHANUNAVAIL again).
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

/** "HH:MM" of an instant in a time zone. */
function clockIn(ms, timeZone) {
	const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(ms));
	const get = (type) => parts.find((p) => p.type === type).value;
	return `${get('hour')}:${get('minute')}`;
}

const minutesOf = (hhmm) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The campaign: `count` contacts. Every 20th is on the do-not-call list; every 50th (from the 7th) has the
 * number of the contact before it (listed twice). Time zones: UTC, whose window opens 45 to 105 s after the
 * start (`from`, on a whole minute, as calling hours are set), and zones 1 to 3.5 hours ahead, inside the window
 * from the start (it closes 4 hours on).
 */
function planCampaign(count, start = Date.now()) {
	const opensAt = Math.ceil((start + 45_000) / 60_000) * 60_000;
	const window = { from: clockIn(opensAt, 'UTC'), to: clockIn(opensAt + 4 * 3600_000, 'UTC') };
	const zones = ['UTC', 'Etc/GMT-1', 'Europe/Berlin', 'Europe/Athens', 'Africa/Nairobi', 'Asia/Tehran'];
	const contacts = [];
	const dnc = [];
	for (let i = 0; i < count; i++) {
		const contact = {
			contactId: `C-${String(i).padStart(4, '0')}`,
			name: `Contact ${i}`,
			phone: `+1202555${String(i).padStart(4, '0')}`,
			timezone: zones[i % zones.length],
		};
		if (i % 50 === 7 && i > 0) Object.assign(contact, { phone: contacts[i - 1].phone, timezone: contacts[i - 1].timezone });
		if (i % 20 === 0) dnc.push(contact.phone);
		contacts.push(contact);
	}
	const rules = new Map();
	contacts.forEach((contact, i) => {
		if (!rules.has(contact.phone)) rules.set(contact.phone, stepsFor(i));
	});
	return { contacts, dnc, rules, window, opensAt, zones };
}

const DNC_TABLE = 'Assistant Platform do-not-call list';
const RESULTS_TABLE = 'Assistant Platform campaign results';

/**
 * Data tables of their own for one run (the example's two, named after `label`), the do-not-call list filled
 * with the plan's numbers. Resolves with { dnc, results } (each { id, name }).
 */
async function campaignTables(n8n, plan, label) {
	const tables = {};
	for (const [key, name] of [['dnc', DNC_TABLE], ['results', RESULTS_TABLE]]) {
		const { columns } = EXAMPLE_DATA_TABLES.find((t) => t.name === name);
		tables[key] = await n8n.dataTables('POST', '', { name: `${name} (${label})`, columns });
	}
	await n8n.dataTables('POST', `/${tables.dnc.id}/insert`, { data: plan.dnc.map((phone) => ({ phone, note: 'test' })), returnType: 'count' });
	return tables;
}

/**
 * Example 5 as imported for the run: the given credentials and tables (picked by id); the Contacts node
 * returns the plan's contacts; Place Call's calling hours are every day from `window.from` to `window.to`;
 * retry delays of seconds; a status check every `intervalSeconds` (the sandbox clock runs faster than n8n's).
 */
function campaignWorkflow(plan, { byType, tables, intervalSeconds, name }) {
	const example = loadExamples().find((e) => e.file === EXAMPLE);
	assert.ok(example, `${EXAMPLE} is missing`);
	const workflow = prepareExample(example.workflow, byType, { rename: name });
	const node = (nodeName) => workflow.nodes.find((n) => n.name === nodeName);
	for (const n of workflow.nodes) if ('webhookId' in n) n.webhookId = crypto.randomUUID();
	const pick = (table) => ({ __rl: true, mode: 'list', value: table.id, cachedResultName: table.name });
	assert.equal(node('Not on Do-Not-Call List').parameters.dataTableId.value, DNC_TABLE);
	assert.equal(node('Record Result').parameters.dataTableId.value, RESULTS_TABLE);
	node('Not on Do-Not-Call List').parameters.dataTableId = pick(tables.dnc);
	node('Record Result').parameters.dataTableId = pick(tables.results);
	node('Contacts').parameters.jsCode = `return ${JSON.stringify(plan.contacts)}.map((contact) => ({ json: contact }));`;
	const placeCall = node('Place Call').parameters;
	assert.equal(placeCall.campaign.maxCallsInFlight, CAP);
	assert.equal(placeCall.retryPolicy.maxAttempts, MAX_ATTEMPTS);
	placeCall.campaign.callingHours.window = {
		...placeCall.campaign.callingHours.window,
		days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
		from: plan.window.from,
		to: plan.window.to,
	};
	placeCall.campaign.statusCheckInterval = intervalSeconds;
	Object.assign(placeCall.retryPolicy, DELAYS);
	return workflow;
}

/** Sets the sandbox network: what each number does, the account's limit at the cap, the clock `speed` times faster. */
function applyCampaignNetwork(sandbox, plan, speed) {
	for (const [dst, attempts] of plan.rules) sandbox.setDialOutcome({ dst, attempts, persistDelayMs: 0 });
	sandbox.setAccountLimit(CAP);
	sandbox.clock.setSpeed(speed);
	sandbox.clearCallJournal();
}

/**
 * Checks the run from the sandbox's call journal and the results table, and returns the figures:
 * every contact answered or out of attempts as its number's steps say; nobody on the do-not-call list
 * called; 0 calls outside the calling hours; never more than CAP calls at once and no refusal; nothing
 * dialled after an answer; no number dialled twice for an attempt; every row names its last call.
 */
function checkCampaign(plan, { calls, refusals }, rows, execution) {
	const byDst = new Map();
	for (const call of calls) {
		if (!byDst.has(call.dst)) byDst.set(call.dst, []);
		byDst.get(call.dst).push(call);
	}
	for (const list of byDst.values()) list.sort((a, b) => a.startedWallAt - b.startedWallAt);

	const dnc = new Set(plan.dnc);
	let answered = 0;
	let outOfAttempts = 0;
	let reachable = 0;
	for (const [dst, steps] of plan.rules) {
		const made = byDst.get(dst) ?? [];
		if (dnc.has(dst)) {
			assert.equal(made.length, 0, `${dst} is on the do-not-call list and was called`);
			continue;
		}
		const expected = expectedCalls(steps);
		assert.deepEqual(
			made.map((c) => c.dialstatus),
			expected,
			`${dst}: the calls made do not follow its steps ${JSON.stringify(steps.map((s) => s.dialstatus))}`,
		);
		// No number twice for an attempt: the sandbox counts each number's calls; they run 1, 2, 3 in order.
		assert.deepEqual(made.map((c) => c.attempt), expected.map((_, k) => k + 1), `${dst}: attempts`);
		const answeredAt = made.findIndex((c) => c.dialstatus === 'ANSWER');
		assert.ok(answeredAt === -1 || answeredAt === made.length - 1, `${dst} was called again after an answer`);
		if (steps.slice(0, MAX_ATTEMPTS).some((s) => s.dialstatus === 'ANSWER')) reachable++;
		if (expected[expected.length - 1] === 'ANSWER') answered++;
		else outOfAttempts++;
	}
	for (const dst of byDst.keys()) assert.ok(plan.rules.has(dst), `${dst} is not a contact's number`);

	// Calling hours: every call started inside its contact's window (wall time, in its time zone).
	const zoneOf = new Map(plan.contacts.map((c) => [c.phone, c.timezone]));
	const from = minutesOf(plan.window.from);
	const to = minutesOf(plan.window.to);
	const outside = calls.filter((call) => {
		const minute = minutesOf(clockIn(call.startedWallAt, zoneOf.get(call.dst)));
		return from < to ? minute < from || minute >= to : minute < from && minute >= to;
	});
	assert.equal(outside.length, 0, `calls outside their calling hours: ${JSON.stringify(outside.slice(0, 3))}`);

	const { maxInFlight } = loadSandbox().module;
	const inFlight = maxInFlight(calls, 'wall');
	assert.ok(inFlight <= CAP, `${inFlight} calls in flight at once (cap ${CAP})`);
	assert.equal(refusals.length, 0, `the account's limit refused ${refusals.length} placements`);

	// The results table: one row per contact not on the do-not-call list, each with its last call.
	const byContact = new Map(rows.map((row) => [row.contactId, row]));
	const callById = new Map(calls.map((call) => [call.internal_id, call]));
	let skipped = 0;
	const firstWithPhone = new Map();
	for (const contact of plan.contacts) {
		if (dnc.has(contact.phone)) {
			assert.ok(!byContact.has(contact.contactId), `${contact.contactId} is on the do-not-call list and has a row`);
			continue;
		}
		const row = byContact.get(contact.contactId);
		assert.ok(row, `no row for ${contact.contactId}`);
		assert.equal(row.phone, contact.phone, `${contact.contactId}: phone`);
		const first = firstWithPhone.get(contact.phone);
		if (first) {
			skipped++;
			assert.equal(row.outcome, 'skipped', `${contact.contactId} has the number of ${first} and was not skipped`);
			assert.equal(row.status, 'finished');
			continue;
		}
		firstWithPhone.set(contact.phone, contact.contactId);
		const made = byDst.get(contact.phone);
		const last = made[made.length - 1];
		assert.equal(row.internal_id, last.internal_id, `${contact.contactId}: the row does not name its last call`);
		assert.equal(callById.get(row.internal_id).dst, contact.phone);
		assert.equal(row.attempt, made.length, `${contact.contactId}: attempt`);
		assert.equal(row.outcome, last.dialstatus, `${contact.contactId}: outcome`);
		assert.equal(row.status, last.dialstatus === 'ANSWER' ? 'answered' : 'finished', `${contact.contactId}: ${row.reason}`);
	}
	assert.equal(rows.length, byContact.size, 'two rows for one contact');

	// Place Call's runs: items held for their calling hours went round the loop and were called in their window.
	const runs = execution.data.resultData.runData['Place Call'] ?? [];
	const outputs = runs.flatMap((run) => (run.data?.main?.[0] ?? []).map((item) => item.json));
	const deferred = outputs.filter((item) => item.outcome === 'deferred');
	assert.ok(deferred.length > 0, 'no contact was outside its calling hours: the case does not test them');
	assert.ok(deferred.every((item) => item.nextCall.callAgain && Date.parse(item.nextCall.at) >= plan.opensAt), 'a held item has no time to call');
	// Every result names its contact and attempt: each ended call's output matches the sandbox's call.
	const contactOf = new Map(plan.contacts.map((c) => [c.contactId, c]));
	const ended = outputs.filter((item) => item.resultSource === 'status');
	assert.equal(ended.length, calls.length, 'a call with no output naming it');
	for (const item of ended) {
		const call = callById.get(String(item.internal_id));
		assert.ok(call, `${item.internal_id} is not a call of the sandbox`);
		assert.equal(contactOf.get(item.context.contactId).phone, call.dst, `${item.internal_id}: contact`);
		assert.equal(item.attempt, call.attempt, `${item.internal_id}: attempt`);
		assert.equal(item.dialStatus, call.dialstatus, `${item.internal_id}: outcome`);
	}
	const wallStart = Math.min(...calls.map((c) => c.startedWallAt));
	const wallEnd = Math.max(...calls.map((c) => c.endedWallAt ?? 0));
	const busyMs = calls.reduce((sum, c) => sum + ((c.endedWallAt ?? wallEnd) - c.startedWallAt), 0);
	return {
		calls: calls.length,
		answered,
		reachable,
		outOfAttempts,
		skipped,
		dnc: plan.dnc.length,
		deferred: deferred.length,
		placeCallRuns: runs.length,
		maxInFlight: inFlight,
		refusals: refusals.length,
		callingWallMs: wallEnd - wallStart,
		lineUse: Number((busyMs / (CAP * (wallEnd - wallStart))).toFixed(2)),
	};
}

module.exports = { EXAMPLE, CAP, planCampaign, campaignTables, campaignWorkflow, applyCampaignNetwork, checkCampaign, expectedCalls };
