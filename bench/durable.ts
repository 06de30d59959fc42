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
	const final = stopped ? undefined : dc.checkDurableCampaign(plan, sandbox.callJournal, await n8n.allDataTableRows(table.id), { killedDialRuns: 0, cap: LINES });
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
