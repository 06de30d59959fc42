// Case 9, the durable features on Postgres with two workers: n8n's data tables live in Postgres in queue mode, and
// every compare-and-set of the package (dataTables.ts, through n8n's public API on the main) must hold while
// executions run at the same moment on both workers.
// 1. Limit Calls Across Executions: Place Call with Max Calls 3 per workflow (Continue On Fail), started 20 times at
//    once. Twice: on first use (the table "Assistant Platform Call Limits" does not exist yet: every execution tries to
//    create it) and with the table there (a second workflow: its own key in the same row).
// 2. A durable campaign (Campaign resource): 200 contacts set up as example 6's Set Up Once does (Prepare Contacts
//    Table, then Get Summary, which creates the campaigns' control table), then Dial Due Contacts (Max Calls in Flight
//    20, Max Calls per Run 20, the sandbox account's limit 20, calls that ring for hours) started 10 times at once:
//    no contact claimed twice, each dialled number's row placed with attempt 1 and its call's internal_id, at most 20
//    calls, no refusal at the account's limit.
// Executions are started as the editor's "Execute workflow" (offloaded to the workers, one job each), all at once;
// the case checks that they ran on both workers and counts how many ran at the same moment (startedAt/stoppedAt).
// Every figure is measured before any check, so a failure still reports them (error.measured; all of them on stderr).
'use strict';
const crypto = require('node:crypto');

const { assistantPlatformNode, chain, errorOf } = require('../../test-e2e/support/workflows');
const { startsPerWorker } = require('../cluster');
const { assert, countPlacements, itemsOf, placements, waitForFinished } = require('../support');

const N8N_API_TYPE = 'assistantPlatformN8nApi';
const LIMIT_TABLE = 'Assistant Platform Call Limits';
const CONTROL_TABLE = 'Assistant Platform Campaign Control';
const CALLER_ID = '+390200001001';
/** Calls ring for hours on the sandbox's (real, speed 1) clock: nothing ends, no line frees up, during the case. */
const LONG_RING_MS = 6 * 60 * 60 * 1000;

const LIMIT = { max: 3, runs: 20 };
const CAMPAIGN = { contacts: 200, runs: 10, cap: 20 };

const manualTrigger = (name) => ({ id: crypto.randomUUID(), name, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} });

/** Our node with the Outbound credential and the Data Tables API credential (n8n's public API on the main). */
function durableNode(cluster, name, parameters) {
	const node = assistantPlatformNode(name, parameters, cluster.credentials.outbound);
	const api = cluster.credentials.n8nApi;
	node.credentials[api.type] = { id: String(api.id), name: api.name };
	return node;
}

async function n8nApiCredential(cluster) {
	cluster.credentials.n8nApi ??= await (async () => {
		const created = await cluster.main.api('POST', '/credentials', {
			name: 'Assistant Platform Data Tables API (queue)',
			type: N8N_API_TYPE,
			data: { baseUrl: `${cluster.main.url}/api/v1`, apiKey: cluster.main.apiKey },
		});
		return { id: created.id, name: created.name, type: N8N_API_TYPE };
	})();
	return cluster.credentials.n8nApi;
}

/** Starts a saved workflow `count` times at once from its Manual Trigger (the editor's "Execute workflow"). */
async function startAtOnce(main, workflowId, count) {
	const started = await Promise.all(
		Array.from({ length: count }, () => main.rest('POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: 'Start' } })),
	);
	for (const s of started) assert.ok(s?.executionId, `a run did not start: ${JSON.stringify(s)}`);
	return started.map((s) => String(s.executionId));
}

/** The most executions that were running at the same moment (from their startedAt / stoppedAt). */
function mostAtOnce(executions) {
	const edges = executions.flatMap((e) => [
		[Date.parse(e.startedAt), 1],
		[Date.parse(e.stoppedAt), -1],
	]);
	edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let now = 0;
	let most = 0;
	for (const [, step] of edges) most = Math.max(most, (now += step));
	return most;
}

/** Runs of a workflow started at once, waited for; checks they spread over both workers. */
async function runAtOnce(cluster, workflowId, count, what) {
	const ids = await startAtOnce(cluster.main, workflowId, count);
	const { list, ms } = await waitForFinished(cluster.main, workflowId, count, { timeoutMs: 180000, what });
	const executions = list.filter((e) => ids.includes(String(e.id)));
	assert.equal(executions.length, count, `${what}: ${executions.length} of ${count} executions found`);
	const spread = startsPerWorker(cluster, ids);
	assert.equal(Object.values(spread).reduce((a, b) => a + b, 0), count, `${what}: starts per worker ${JSON.stringify(spread)}`);
	// Which worker takes a job is Bull's choice (in a full run, after the heavy cases, one worker may take them all):
	// the spread is reported; what the case needs is executions writing at the same moment, checked here.
	const atOnce = mostAtOnce(executions);
	assert.ok(atOnce >= 2, `${what}: the executions did not run at the same moment (at most ${atOnce} at once)`);
	return { executions, spread, atOnce, ms };
}

/** Data tables named `name` (public API). */
async function tablesNamed(main, name) {
	const { data } = await main.api('GET', `/data-tables?limit=100&filter=${encodeURIComponent(JSON.stringify({ name }))}`);
	return data.filter((t) => t.name === name);
}

const short = (text, n = 160) => (String(text).length > n ? `${String(text).slice(0, n)}...` : String(text));

// ------------------------------------------------------------------------------------------- 1. the call limit

/** One round: a new workflow (its own key), started LIMIT.runs times at once; returns the figures. */
async function limitRound(cluster, label, numberPrefix) {
	const { sandbox, main } = cluster;
	const place = durableNode(cluster, 'Place Call', {
		resource: 'outboundCall',
		operation: 'placeCall',
		route: 'trunk',
		// One number per execution: which executions placed a call shows in the journal.
		dst: `={{ '+${numberPrefix}' + String($execution.id).padStart(7, '0') }}`,
		callerId: CALLER_ID,
		guardrails: { callLimit: { limit: { max: LIMIT.max, minutes: 60, countPer: 'workflow' } } },
		options: {},
	});
	place.onError = 'continueRegularOutput';
	const workflow = await main.createWorkflow(chain(`queue: call limit ${LIMIT.max}, ${label}`, [manualTrigger('Start'), place]));
	const before = placements(sandbox).length;
	const run = await runAtOnce(cluster, workflow.id, LIMIT.runs, `case 9 (call limit, ${label})`);
	const posts = placements(sandbox).slice(before).filter((p) => p.dst?.startsWith(`+${numberPrefix}`));

	const items = run.executions.map((execution) => {
		assert.equal(execution.status, 'success', errorOf(execution));
		const out = itemsOf(execution, 'Place Call');
		assert.equal(out.length, 1, `execution ${execution.id}: ${out.length} items`);
		return { id: String(execution.id), ...out[0] };
	});
	const placed = items.filter((item) => item.internal_id !== undefined);
	const refused = items.filter((item) => item.internal_id === undefined);
	const byLimit = refused.filter((item) => String(item.error).includes(`the most Limit Calls Across Executions allows (${LIMIT.max})`));
	const other = refused.filter((item) => !byLimit.includes(item));
	const noCall = refused.filter((item) => String(item.error).includes('No call was placed') && item.placed === false);
	const [table, ...extra] = await tablesNamed(main, LIMIT_TABLE);
	const rows = table ? (await main.api('GET', `/data-tables/${table.id}/rows?limit=250`)).data : [];
	const countRow = rows.reduce((a, b) => (a && a.id < b.id ? a : b), undefined);
	const ledger = countRow ? JSON.parse(countRow.ledger || '{}') : {};
	return {
		label,
		workflowId: workflow.id,
		posts: posts.length,
		accepted: posts.filter((p) => p.status === 200).length,
		placed: placed.length,
		placedMatch: placed.every((item) => posts.some((p) => p.dst === item.dst)),
		refused: refused.length,
		noCall: noCall.length,
		byLimit: byLimit.length,
		otherErrors: [...new Set(other.map((item) => short(item.error)))],
		counted: (ledger[`workflow:${workflow.id}`] ?? []).length,
		tables: table ? 1 + extra.length : 0,
		rows: rows.length,
		version: countRow?.version,
		spread: run.spread,
		atOnce: run.atOnce,
		ms: run.ms,
	};
}

function checkLimitRound(r) {
	const where = `call limit, ${r.label}`;
	assert.equal(r.posts, LIMIT.max, `${where}: ${r.posts} POSTs reached the platform (Max Calls ${LIMIT.max})`);
	assert.equal(r.accepted, LIMIT.max, `${where}: ${r.accepted} accepted`);
	assert.ok(r.placedMatch && r.placed === LIMIT.max, `${where}: ${r.placed} items with an internal_id`);
	assert.equal(r.noCall, LIMIT.runs - LIMIT.max, `${where}: ${r.noCall} items say "No call was placed"`);
	assert.deepEqual(
		{ refusedByTheLimit: r.byLimit, otherErrors: r.otherErrors },
		{ refusedByTheLimit: LIMIT.runs - LIMIT.max, otherErrors: [] },
		`${where}: refusals other than the limit's`,
	);
	assert.equal(r.counted, LIMIT.max, `${where}: the ledger counts ${r.counted} calls for this workflow`);
	assert.equal(r.tables, 1, `${where}: ${r.tables} tables named "${LIMIT_TABLE}"`);
}

const limitText = (r) =>
	`${r.label}: ${r.posts} POSTs, ${r.noCall} "No call was placed" (${r.byLimit} by the limit${r.otherErrors.length ? `, others: ${r.otherErrors.join(' / ')}` : ''}), ` +
	`ledger ${r.counted}, ${r.tables} table/${r.rows} row(s), per worker ${JSON.stringify(r.spread)}, ${r.atOnce} at once, ${(r.ms / 1000).toFixed(1)} s`;

// ------------------------------------------------------------------------------------------- 2. the campaign

async function contactsTable(main, name, phones) {
	const columns = ['phone', 'name'].map((column) => ({ name: column, type: 'string' }));
	const table = await main.dataTables('POST', '', { name, columns });
	const data = phones.map((phone, i) => ({ phone, name: `Contact ${i}` }));
	for (let start = 0; start < data.length; start += 100) {
		await main.dataTables('POST', `/${table.id}/insert`, { data: data.slice(start, start + 100), returnType: 'count' });
	}
	return table;
}

async function campaignRound(cluster) {
	const { sandbox, main } = cluster;
	const phones = Array.from({ length: CAMPAIGN.contacts }, (_, i) => `+1303556${String(i).padStart(4, '0')}`);
	const name = `queue contacts ${Date.now()}`;
	const table = await contactsTable(main, name, phones);

	// Set Up Once, as example 6 does: Prepare Contacts Table, then Get Summary (which creates the campaigns' control
	// table: the dial runs below find it there, as they do after the example's set-up).
	const setUp = await main.createWorkflow(
		chain('queue: set up the campaign once', [
			manualTrigger('Start'),
			durableNode(cluster, 'Prepare', { resource: 'campaign', operation: 'prepare', contactsTable: name }),
			durableNode(cluster, 'Summary', { resource: 'campaign', operation: 'summary', contactsTable: name }),
		]),
	);
	const prepared = await main.runWorkflow(setUp.id, { timeoutMs: 120000 });
	assert.equal(prepared.status, 'success', errorOf(prepared));
	assert.deepEqual(itemsOf(prepared, 'Prepare'), [{ campaign: name, prepared: true, status: 'running' }]);
	const [summary] = itemsOf(prepared, 'Summary');
	assert.ok(summary?.new === CAMPAIGN.contacts && summary.status === 'running', `Get Summary after Prepare: ${JSON.stringify(summary)}`);

	const dial = await main.createWorkflow(
		chain('queue: dial due contacts, 10 at once', [
			manualTrigger('Start'),
			durableNode(cluster, 'Dial Due Contacts', {
				resource: 'campaign',
				operation: 'dial',
				contactsTable: name,
				phoneColumn: 'phone',
				maxCallsInFlight: CAMPAIGN.cap,
				maxCallsPerRun: CAMPAIGN.cap,
				retryPolicy: { maxAttempts: 3, busy: 10, noAnswer: 10 },
				route: 'trunk',
				callerId: CALLER_ID,
				options: {},
			}),
		]),
	);
	sandbox.setAccountLimit(CAMPAIGN.cap);
	sandbox.clearCallJournal();
	const before = placements(sandbox).length;
	const run = await runAtOnce(cluster, dial.id, CAMPAIGN.runs, 'case 9 (campaign)');

	const posts = placements(sandbox).slice(before);
	const count = countPlacements(sandbox, phones);
	const { calls, refusals } = sandbox.callJournal;
	const rows = await main.allDataTableRows(table.id);
	const byPhone = new Map(rows.map((row) => [row.phone, row]));
	const states = {};
	for (const row of rows) states[row.campaignState ?? '(empty)'] = (states[row.campaignState ?? '(empty)'] ?? 0) + 1;
	const failedRuns = run.executions.filter((e) => e.status !== 'success').map((e) => `${e.id}: ${short(errorOf(e), 200)}`);
	const summaries = run.executions.filter((e) => e.status === 'success').map((e) => itemsOf(e, 'Dial Due Contacts')[0] ?? {});
	// Rows each run says it placed: a row in two runs' outputs was claimed twice.
	const placedRows = run.executions.flatMap((e) => itemsOf(e, 'Dial Due Contacts').slice(1).filter((o) => o.campaignState === 'placed').map((o) => o.rowId));
	const stopped = summaries.filter((s) => s.stoppedBecause).map((s) => short(s.stoppedBecause, 80));
	const badRows = calls
		.map((call) => ({ call, row: byPhone.get(call.dst) }))
		.filter(({ call, row }) => !row || row.campaignState !== 'placed' || Number(row.attempt) !== 1 || row.internalId !== call.internal_id)
		.map(({ call, row }) => `${call.dst}: ${row ? `${row.campaignState}, attempt ${row.attempt}, internalId ${row.internalId}` : 'no row'}`);
	return {
		posts: posts.length,
		accepted: count.accepted,
		twice: count.twice,
		calls: calls.length,
		refusals: refusals.length,
		placedRows: placedRows.length,
		claimedTwice: placedRows.length - new Set(placedRows).size,
		badRows,
		states,
		failedRuns,
		perRun: summaries.map((s) => s.placed ?? 0),
		inFlightBefore: summaries.map((s) => s.inFlightBefore),
		stopped: [...new Set(stopped)],
		stoppedRuns: stopped.length,
		controlTables: (await tablesNamed(main, CONTROL_TABLE)).length,
		spread: run.spread,
		atOnce: run.atOnce,
		ms: run.ms,
	};
}

function checkCampaign(c) {
	assert.deepEqual(c.failedRuns, [], 'dial runs that failed');
	assert.deepEqual(c.twice, [], 'numbers dialled twice');
	assert.equal(c.claimedTwice, 0, 'rows placed by two runs');
	assert.deepEqual(c.badRows, [], "dialled numbers whose row is not 'placed' with attempt 1 and the call's internal_id");
	assert.ok(c.calls <= CAMPAIGN.cap, `${c.calls} calls accepted (Max Calls in Flight ${CAMPAIGN.cap})`);
	assert.equal(c.refusals, 0, `${c.refusals} placements refused at the account's limit of ${CAMPAIGN.cap} (429), ${c.posts} POSTs in all; runs stopped: ${c.stopped.join(' / ')}`);
	assert.equal(c.posts, c.calls, `${c.posts} POSTs for ${c.calls} calls`);
	assert.equal(c.states.placed, c.calls, `rows by state ${JSON.stringify(c.states)}`);
	assert.equal(c.states.claimed ?? 0, 0, `rows left claimed ${JSON.stringify(c.states)}`);
	assert.equal(c.controlTables, 1, `${c.controlTables} tables named "${CONTROL_TABLE}"`);
}

const campaignText = (c) =>
	`${CAMPAIGN.contacts} contacts, ${CAMPAIGN.runs} runs (per worker ${JSON.stringify(c.spread)}, ${c.atOnce} at once): ` +
	(c.failedRuns.length > 0 ? `${c.failedRuns.length} runs failed (${[...new Set(c.failedRuns.map((f) => short(f.replace(/^\d+: /, ''), 130)))].join(' / ')}); ` : '') +
	`${c.posts} POSTs, ${c.calls} calls, ` +
	`${c.refusals} refused (429), ${c.twice.length} numbers twice, ${c.claimedTwice} rows claimed twice; calls per run [${c.perRun.join(', ')}]; ` +
	`rows ${JSON.stringify(c.states)}; ${(c.ms / 1000).toFixed(1)} s`;

module.exports = {
	id: 9,
	title: 'Durable state on Postgres: call limit and campaign claims',
	expected:
		`call limit ${LIMIT.max} per workflow, ${LIMIT.runs} executions at once on both workers (table new, then existing): ${LIMIT.max} POSTs, ` +
		`${LIMIT.runs - LIMIT.max} "No call was placed" by the limit; campaign of ${CAMPAIGN.contacts} contacts, ${CAMPAIGN.runs} dial runs at once ` +
		`(${CAMPAIGN.cap} in flight, account limit ${CAMPAIGN.cap}): 0 claimed twice, at most ${CAMPAIGN.cap} calls, 0 refused`,
	async run(cluster) {
		const { sandbox, main } = cluster;
		sandbox.reset();
		try {
			await n8nApiCredential(cluster);
			sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: LONG_RING_MS });
			assert.equal((await tablesNamed(main, LIMIT_TABLE)).length, 0, `"${LIMIT_TABLE}" exists before the case`);
			const first = await limitRound(cluster, 'table new', '1415690');
			const second = await limitRound(cluster, 'table there', '1415691');
			// The limit rounds' calls still ring: the account's lines are all the campaign's.
			sandbox.reset();
			sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: LONG_RING_MS });
			const campaign = await campaignRound(cluster);
			const measured = `call limit: ${limitText(first)}; ${limitText(second)}. Campaign: ${campaignText(campaign)}`;
			try {
				checkLimitRound(first);
				checkLimitRound(second);
				checkCampaign(campaign);
			} catch (error) {
				// The figures go into the summary table beside the failure, all of them to the log.
				error.measured = measured;
				process.stderr.write(`\ncase 9 figures: ${JSON.stringify({ first, second, campaign }, null, 2)}\n`);
				throw error;
			}
			return { measured, metrics: { first, second, campaign } };
		} finally {
			sandbox.reset();
		}
	},
};
