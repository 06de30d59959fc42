/** Case 8 of `npm run bench` (docs/performance.md, "Durable campaign at scale"): example 6 on one real n8n per size. */
import { maxInFlight } from '../sandbox';
import type { PlatformSandbox } from '../sandbox';
import { lineUse, listExecutions, n8nUsage } from './n8n';
import { fromRoot, logger, options } from './paths';
import { round } from './report';

const dc = fromRoot('test-e2e/support/durableCampaign.js');
const { buildAndPack, delay } = fromRoot('scripts/n8n-runtime.js');
const { publishTrigger } = fromRoot('test-e2e/support/workflows.js');
const { LINES, SPEED, CHECK, MAX_MINUTES, LATENCY } = options('BENCH_DURABLE_', { LINES: 10, SPEED: 4, CHECK: 0, MAX_MINUTES: 50, LATENCY: 0 });
const CHECK_SECONDS = CHECK || Math.max(0.1, Math.round(10 / SPEED) / 10); // default: 1 s of sandbox time
const log = logger('bench durable');
/** The largest execution data (bytes of its JSON) among the newest `limit` executions of a workflow. */
const largestExecution = async (n8n: any, workflowId: string, limit: number): Promise<number> =>
	Math.max(0, ...(await listExecutions(n8n, workflowId, { limit, data: true })).map((e) => JSON.stringify(e.data ?? {}).length));
export async function caseDurable(sandbox: PlatformSandbox, sizes: number[]): Promise<Array<Record<string, unknown>>> {
	const tarball = process.env.E2E_TARBALL || buildAndPack({ log });
	const results: Array<Record<string, unknown>> = [];
	for (const size of sizes) {
		sandbox.reset();
		// The nodes reach n8n's API through a pass-through gate that counts their requests.
		const campaign = await dc.startCampaignN8n({ tarball, sandbox }, { apiGate: true });
		sandbox.setLatency(LATENCY);
		results.push(await measureSize(sandbox, campaign, size).finally(() => campaign.stop()));
	}
	return results;
}
/** One size: the contacts, both workflows as measured here, the network as planned; the dial workflow published and n8n sampled until every expected call has ended (or MAX_MINUTES); then the figures. */
async function measureSize(sandbox: PlatformSandbox, { n8n, byType, gate }: any, size: number) {
	const [plan, t0] = [dc.planDurableCampaign(size), Date.now()];
	const table = await dc.contactsTable(n8n, dc.TABLE, plan.contacts);
	log(`${size} contacts inserted in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	const workflows = dc.durableWorkflows(n8n, byType, { table, window: plan.window, label: `${size}`, maxInFlight: LINES, perRun: 1000 });
	const parameters = (workflow: any, name: string) => workflow.nodes.find((n: any) => n.name === name).parameters;
	const dialNode = parameters(workflows.dial, 'Dial Due Contacts');
	const retryPolicy = { ...dialNode.retryPolicy, busy: 10 / SPEED, noAnswer: 10 / SPEED };
	Object.assign(dialNode, { retryPolicy, campaignOptions: { keepDiallingSeconds: 60, checkIntervalSeconds: CHECK_SECONDS } });
	const [{ id: results }, { id: dial }] = [await n8n.createWorkflow(workflows.results), await n8n.createWorkflow(workflows.dial)];
	const setUpOnce = await n8n.runWorkflow(results);
	if (setUpOnce.status !== 'success') throw new Error(`Set Up Once failed: ${JSON.stringify(setUpOnce.data?.resultData?.error)}`);
	await publishTrigger(n8n, results, workflows.trigger);
	dc.applyNetwork(sandbox, plan.rules, SPEED, LINES);
	const expected = [...plan.rules.values()].reduce((sum: number, steps: unknown) => sum + dc.expectedCalls(steps).length, 0);
	const started = Date.now();
	await n8n.api('POST', `/workflows/${dial}/publish`);
	const pid = n8n.child.pid; // the leader of n8n's process group
	const cpuAtStart = (await n8nUsage(pid, true)).cpuMs;
	const requestsAtStart: number = Object.values(gate.counts as Record<string, number>).reduce((a, b) => a + b, 0);
	let [rssMB, resultBytes, stopped] = [0, 0, false];
	for (let tick = 0; ; tick++) {
		rssMB = Math.max(rssMB, (await n8nUsage(pid, true)).rssMB);
		if (tick % 15 === 0) resultBytes = Math.max(resultBytes, await largestExecution(n8n, results, 20));
		const { calls } = sandbox.callJournal;
		if (calls.length >= expected && calls.every((c) => c.endedWallAt !== null)) break;
		if ((stopped = Date.now() - started > MAX_MINUTES * 60_000)) break;
		if (tick % 30 === 0) log(`${size}: ${calls.length} of ${expected} calls, RSS ${Math.round(rssMB)} MB`); // the time of day in the prefix
		await delay(2000);
	}
	await n8n.api('POST', `/workflows/${dial}/unpublish`).catch(() => undefined);
	const wallMs = Date.now() - started;
	await delay(3000); // the last results are recorded
	const cpuMs = (await n8nUsage(pid, true)).cpuMs - cpuAtStart;
	const requests = Object.values(gate.counts as Record<string, number>).reduce((a, b) => a + b, 0) - requestsAtStart;
	const dialBytes = await largestExecution(n8n, dial, 250);
	resultBytes = Math.max(resultBytes, await largestExecution(n8n, results, 50));
	const { calls, refusals } = sandbox.callJournal;
	const ended = calls.filter((c) => c.endedWallAt !== null);
	for (const [dst, made] of dc.callsByNumber(ended)) dc.checkNumber(dst, made);
	const most = maxInFlight(ended, 'wall');
	if (most > LINES) throw new Error(`${most} calls at once on ${LINES} lines`);
	// A size that ran to its end: every contact in its final state, its row naming its last call, nobody dialled twice
	// or lost (the e2e suite's check of the whole table).
	const final = stopped ? undefined : dc.checkDurableCampaign(plan, sandbox.callJournal, await n8n.allDataTableRows(table.id), { cap: LINES });
	const spans = ended.map((c): [number, number] => [c.startedWallAt, c.endedWallAt ?? NaN]);
	const [first, lastStart] = [Math.min(...spans.map(([start]) => start)), Math.max(...spans.map(([start]) => start))];
	const lastFirstAttempt = Math.max(...ended.filter((c) => c.attempt === 1).map((c) => c.startedWallAt));
	return {
		contacts: size,
		lines: LINES,
		speed: SPEED,
		checkSeconds: CHECK_SECONDS,
		stoppedAtCap: stopped,
		wallSeconds: Math.round(wallMs / 1000),
		calls: calls.length,
		expectedCalls: expected,
		numbersDialled: new Set(calls.map((c) => c.dst)).size,
		claimsPerSecond: round(ended.length / ((lastStart - first) / 1000), 2),
		callsPerSecondIdeal: round(ended.length / (spans.reduce((sum, [start, end]) => sum + end - start, 0) / 1000 / LINES), 2),
		linesBusy: round(lineUse(spans, LINES, Math.max(...spans.map(([, end]) => end))), 3),
		linesBusyWhileFirstCallsWaited: round(lineUse(spans, LINES, lastFirstAttempt), 3),
		maxInFlight: most,
		// Per state, for a size that ran to its end (waitingForHours: outside their calling hours by the plan).
		contactStates: final ? { answered: final.answered, finished: final.finished, failed: final.failed, unknown: final.unknown, waitingForHours: final.waitingForHours } : null,
		platformLatencyMs: LATENCY,
		n8nCpuMsPerCall: Math.round(cpuMs / calls.length),
		n8nApiRequestsPerCall: round(requests / calls.length),
		statusReadsPerCall: round(sandbox.journal.filter((e) => e.method === 'GET').length / calls.length),
		refusals429: refusals.length,
		maxRssMB: Math.round(rssMB),
		largestDialExecutionBytes: dialBytes,
		largestResultExecutionBytes: resultBytes,
	};
}

/**
 * Case 8 with `BENCH_DURABLE_SHIPPED=1`: example 6 as it ships (5 lines, Keep Dialling For 60 s, Check Interval 5 s,
 * Max Calls per Run 20, BUSY and NOANSWER again after 10 minutes, 3 attempts, a run every minute), on the real clock,
 * with one change: its calling hours open every day for the hours of the run (the shipped Mon-Fri 09:00-20:00 would
 * defer every contact outside them). Both workflows published, the nodes' requests to n8n's API counted at the gate:
 * per accepted call from the first POST until every contact is final; then per minute while the finished campaign
 * stays published, and while it is paused; and whether those idle runs read a single contact row.
 */
export async function caseDurableShipped(sandbox: PlatformSandbox, size: number, idleMinutes: number): Promise<Record<string, unknown>> {
	const tarball = process.env.E2E_TARBALL || buildAndPack({ log });
	sandbox.reset();
	const campaign = await dc.startCampaignN8n({ tarball, sandbox }, { apiGate: true });
	try {
		return await measureShipped(sandbox, campaign, size, idleMinutes);
	} finally {
		await campaign.stop();
	}
}

/** Waits (up to 5 minutes) until the campaign's control row holds the idle gate: a run found nothing to do. */
async function untilIdleGate(n8n: any, contactsTableId: string): Promise<void> {
	const deadline = Date.now() + 5 * 60_000;
	while (Date.now() < deadline) {
		const tables = (await n8n.dataTables('GET', '?take=250')).data as Array<{ id: string; name: string }>;
		const control = tables.find((t) => t.name === 'Assistant Platform Campaign Control');
		const rows = control ? await n8n.allDataTableRows(control.id) : [];
		if (rows.some((row: any) => row.contactsTable === contactsTableId && String(row.gateSeen ?? '') !== '')) return;
		await delay(5000);
	}
	throw new Error('no run of the finished campaign found it idle within 5 minutes');
}

async function measureShipped(sandbox: PlatformSandbox, { n8n, byType, gate }: any, size: number, idleMinutes: number) {
	const plan = dc.planDurableCampaign(size);
	const table = await dc.contactsTable(n8n, dc.TABLE, plan.contacts);
	const workflows = dc.durableWorkflows(n8n, byType, { table, window: plan.window, label: `as shipped, ${size}` });
	const dialNode = workflows.dial.nodes.find((n: any) => n.name === 'Dial Due Contacts');
	const shipped = dc.shippedDialParameters();
	// As shipped but the table and the hours: open every day for the run's hours, as durableWorkflows sets them.
	dialNode.parameters = { ...shipped, contactsTable: table.name, callingHours: dialNode.parameters.callingHours, options: dialNode.parameters.options };
	const [{ id: results }, { id: dial }] = [await n8n.createWorkflow(workflows.results), await n8n.createWorkflow(workflows.dial)];
	const setUpOnce = await n8n.runWorkflow(results);
	if (setUpOnce.status !== 'success') throw new Error(`Set Up Once failed: ${JSON.stringify(setUpOnce.data?.resultData?.error)}`);
	await publishTrigger(n8n, results, workflows.trigger);
	dc.applyNetwork(sandbox, plan.rules, 1, shipped.maxCallsInFlight);
	const requestsSince = (from: number) => (gate.log as Array<{ method: string; path: string }>).slice(from);
	const contactRowReads = (list: Array<{ method: string; path: string }>) => list.filter((r) => r.method === 'GET' && r.path.includes(`/data-tables/${table.id}/rows`)).length;
	const started = Date.now();
	const from = gate.log.length;
	await n8n.api('POST', `/workflows/${dial}/publish`);
	for (let tick = 0; ; tick++) {
		const rows = tick % 15 === 14 ? await n8n.allDataTableRows(table.id) : undefined;
		if (rows && rows.every((row: any) => ['answered', 'finished', 'failed', 'unknown', 'doNotCall'].includes(row.campaignState) || /outside calling hours/.test(row.reason ?? ''))) break;
		if (Date.now() - started > MAX_MINUTES * 60_000) throw new Error(`the campaign did not end within ${MAX_MINUTES} minutes`);
		if (tick % 30 === 0) log(`as shipped: ${sandbox.callJournal.calls.length} calls`);
		await delay(2000);
	}
	await delay(5000); // the last results are recorded
	const campaignMs = Date.now() - started;
	const during = requestsSince(from);
	const { calls, refusals } = sandbox.callJournal;
	const tableNames = ((await n8n.dataTables('GET', '?take=250')).data as Array<{ id: string; name: string }>).map((t) => [t.id, t.name] as const);
	const accepted = sandbox.journal.filter((e) => e.method === 'POST' && e.path === '/webhook/outbound_call' && e.status === 200).length;
	// Idle: the finished campaign stays published (a run every minute), measured from its first run that found nothing to
	// do (the control row holds the idle gate: the runs before it still settle the last calls); then paused.
	await untilIdleGate(n8n, table.id);
	const idle = async (minutes: number) => {
		const at = gate.log.length;
		await delay(minutes * 60_000);
		const list = requestsSince(at);
		return { minutes, requests: list.length, perMinute: round(list.length / minutes, 2), contactRowReads: contactRowReads(list) };
	};
	const finished = await idle(idleMinutes);
	const pause = await n8n.createWorkflow({
		name: 'bench: pause',
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ ...workflows.results.nodes.find((n: any) => n.name === 'Get Summary'), name: 'Pause', parameters: { resource: 'campaign', operation: 'pause', contactsTable: table.name }, position: [220, 0] },
		],
		connections: { Start: { main: [[{ node: 'Pause', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	await n8n.runWorkflow(pause.id);
	const paused = await idle(Math.max(2, Math.round(idleMinutes / 2)));
	await n8n.api('POST', `/workflows/${dial}/unpublish`).catch(() => undefined);
	for (const [dst, made] of dc.callsByNumber(calls)) dc.checkNumber(dst, made);
	return {
		contacts: size,
		settings: 'example 6 as shipped (5 lines, Keep Dialling For 60 s, Check Interval 5 s, Max Calls per Run 20, retries after 10 min, 3 attempts), calling hours open every day',
		campaignMinutes: round(campaignMs / 60_000, 1),
		calls: calls.length,
		acceptedCalls: accepted,
		refusals429: refusals.length,
		n8nApiRequests: during.length,
		n8nApiRequestsPerAcceptedCall: round(during.length / accepted, 2),
		// What the requests were, per accepted call: by method and path (a table id shown as <its name>).
		n8nApiRequestsByKind: Object.fromEntries(
			Object.entries(
				during.reduce((kinds: Record<string, number>, r: { method: string; path: string }) => {
					const kind = `${r.method} ${tableNames.reduce((path: string, [id, name]) => path.split(`/${id}`).join(`/<${name}>`), r.path)}`;
					kinds[kind] = (kinds[kind] ?? 0) + 1;
					return kinds;
				}, {}),
			)
				.sort(([, a], [, b]) => (b as number) - (a as number))
				.map(([kind, count]) => [kind, round((count as number) / accepted, 2)]),
		),
		idleFinished: finished,
		idlePaused: paused,
	};
}
