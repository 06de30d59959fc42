/** Case 8 of `npm run bench` (docs/performance.md, "Durable campaign at scale"): example 6 on one real n8n per size. */
import { execFileSync } from 'node:child_process';
import { maxInFlight } from '../sandbox';
import type { PlatformSandbox } from '../sandbox';
import { fromRoot, logger } from './paths';

const dc = fromRoot('test-e2e/support/durableCampaign.js');
const { buildAndPack, delay: sleep } = fromRoot('scripts/n8n-runtime.js');
const { publishTrigger } = fromRoot('test-e2e/support/workflows.js');
const LINES = Number(process.env.BENCH_DURABLE_LINES ?? 10);
const SPEED = Number(process.env.BENCH_DURABLE_SPEED ?? 4);
const CHECK_SECONDS = Number(process.env.BENCH_DURABLE_CHECK ?? Math.max(0.1, Math.round(10 / SPEED) / 10)); // 1 s of sandbox time
const MAX_MS = Number(process.env.BENCH_DURABLE_MAX_MINUTES ?? 50) * 60_000;
const log = logger('bench durable');
/** RSS (MB) and CPU time used so far (s) of n8n's process group (n8n and its task runner). */
function groupUsage(pgid: number): { rssMB: number; cpuSec: number } {
	const rows = execFileSync('ps', ['-eo', 'pgid=,rss=,times='], { encoding: 'utf8' })
		.trim()
		.split('\n')
		.map((l) => l.trim().split(/\s+/).map(Number));
	const mine = rows.filter(([group]) => group === pgid);
	return { rssMB: mine.reduce((s, r) => s + r[1], 0) / 1024, cpuSec: mine.reduce((s, r) => s + r[2], 0) };
}
/** The largest execution data (bytes of its JSON) among the newest `limit` executions of a workflow. */
async function largestExecution(n8n: any, workflowId: string, limit: number): Promise<number> {
	const { data } = await n8n.api('GET', `/executions?includeData=true&limit=${limit}&workflowId=${workflowId}`);
	return Math.max(0, ...data.map((e: any) => JSON.stringify(e.data ?? {}).length));
}

export async function caseDurable(sandbox: PlatformSandbox, sizes: number[]): Promise<Array<Record<string, unknown>>> {
	const tarball = process.env.E2E_TARBALL || buildAndPack({ log });
	const results: Array<Record<string, unknown>> = [];
	for (const size of sizes) {
		sandbox.reset();
		const campaign = await dc.startCampaignN8n({ tarball, sandbox });
		results.push(
			await setUp(sandbox, campaign, size)
				.then((plan) => runSize(sandbox, campaign.n8n, plan))
				.finally(() => campaign.stop()),
		);
	}
	return results;
}
/** Inserts the contacts, creates both workflows as measured here and publishes the results one; the network as planned. */
async function setUp(
	sandbox: PlatformSandbox,
	{ n8n, byType }: any,
	size: number,
): Promise<{ size: number; expected: number; results: string; dial: string }> {
	const [plan, t0] = [dc.planDurableCampaign(size), Date.now()];
	const table = await dc.contactsTable(n8n, dc.TABLE, plan.contacts);
	log(`${size} contacts inserted in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	const workflows = dc.durableWorkflows(n8n, byType, { table, window: plan.window, label: `${size}` });
	const dialNode = workflows.dial.nodes.find((n: any) => n.name === 'Dial Due Contacts').parameters;
	const [retry, campaignOptions] = [10 / SPEED, { keepDiallingSeconds: 60, checkIntervalSeconds: CHECK_SECONDS }];
	Object.assign(dialNode, {
		maxCallsInFlight: LINES,
		maxCallsPerRun: 1000,
		retryPolicy: { ...dialNode.retryPolicy, busy: retry, noAnswer: retry },
		campaignOptions,
	});
	workflows.results.nodes.find((n: any) => n.name === 'Record Call Result').parameters.retryPolicy = dialNode.retryPolicy;
	const [results, dial] = [await n8n.createWorkflow(workflows.results), await n8n.createWorkflow(workflows.dial)];
	const setUpOnce = await n8n.runWorkflow(results.id);
	if (setUpOnce.status !== 'success') throw new Error(`Set Up Once failed: ${JSON.stringify(setUpOnce.data?.resultData?.error)}`);
	await publishTrigger(n8n, results.id, workflows.trigger);
	dc.applyNetwork(sandbox, plan.rules, SPEED);
	sandbox.setAccountLimit(LINES);
	const expected = [...plan.rules.values()].reduce((sum: number, steps: unknown) => sum + dc.expectedCalls(steps).length, 0);
	return { size, expected, results: results.id, dial: dial.id };
}
/** Publishes the dial workflow and samples n8n until every expected call has ended (or MAX_MS); then measures. */
async function runSize(
	sandbox: PlatformSandbox,
	n8n: any,
	{ size, expected, results, dial }: Awaited<ReturnType<typeof setUp>>,
): Promise<Record<string, unknown>> {
	const started = Date.now();
	await n8n.api('POST', `/workflows/${dial}/publish`);
	const [pgid, cpuAtStart] = [n8n.child.pid, groupUsage(n8n.child.pid).cpuSec];
	let [rssMB, resultBytes, stopped] = [0, 0, false];
	for (let tick = 0; ; tick++) {
		rssMB = Math.max(rssMB, groupUsage(pgid).rssMB);
		if (tick % 15 === 0) resultBytes = Math.max(resultBytes, await largestExecution(n8n, results, 20));
		const { calls } = sandbox.callJournal;
		if (calls.length >= expected && calls.every((c) => c.endedWallAt !== null)) break;
		if ((stopped = Date.now() - started > MAX_MS)) break;
		if (tick % 30 === 0)
			log(`${size}: ${calls.length} of ${expected} calls after ${Math.round((Date.now() - started) / 1000)} s, RSS ${rssMB.toFixed(0)} MB`);
		await sleep(2000);
	}
	await n8n.api('POST', `/workflows/${dial}/unpublish`).catch(() => undefined);
	const wallMs = Date.now() - started;
	await sleep(3000); // the last results are recorded
	const cpuSec = groupUsage(pgid).cpuSec - cpuAtStart;
	const dialBytes = await largestExecution(n8n, dial, 250);
	resultBytes = Math.max(resultBytes, await largestExecution(n8n, results, 50));
	const { calls, refusals } = sandbox.callJournal;
	const ended = calls.filter((c) => c.endedWallAt !== null) as Array<
		(typeof calls)[number] & { startedWallAt: number; endedWallAt: number }
	>;
	for (const [dst, made] of dc.callsByNumber(ended)) dc.checkNumber(dst, made);
	const most = maxInFlight(ended, 'wall');
	if (most > LINES) throw new Error(`${most} calls at once on ${LINES} lines`);
	const [first, last, lastStart] = [
		Math.min(...ended.map((c) => c.startedWallAt)),
		Math.max(...ended.map((c) => c.endedWallAt)),
		Math.max(...ended.map((c) => c.startedWallAt)),
	];
	const lastFirstAttempt = Math.max(...ended.filter((c) => c.attempt === 1).map((c) => c.startedWallAt));
	const busy = (to: number) =>
		ended.reduce((s, c) => s + Math.max(0, Math.min(c.endedWallAt, to) - c.startedWallAt), 0) / (LINES * (to - first));
	const fixed = (value: number, digits: number) => Number(value.toFixed(digits));
	const result = {
		contacts: size,
		lines: LINES,
		speed: SPEED,
		checkSeconds: CHECK_SECONDS,
		stoppedAtCap: stopped,
		wallSeconds: Math.round(wallMs / 1000),
		calls: calls.length,
		expectedCalls: expected,
		numbersDialled: new Set(calls.map((c) => c.dst)).size,
		claimsPerSecond: fixed(ended.length / ((lastStart - first) / 1000), 2),
		callsPerSecondIdeal: fixed(ended.length / (ended.reduce((s, c) => s + c.endedWallAt - c.startedWallAt, 0) / 1000 / LINES), 2),
		linesBusy: fixed(busy(last), 3),
		linesBusyWhileFirstCallsWaited: fixed(busy(lastFirstAttempt), 3),
		maxInFlight: most,
		n8nCpuMsPerCall: Math.round((cpuSec * 1000) / calls.length),
		statusReadsPerCall: fixed(sandbox.journal.filter((e) => e.method === 'GET').length / calls.length, 1),
		refusals429: refusals.length,
		maxRssMB: Math.round(rssMB),
		largestDialExecutionBytes: dialBytes,
		largestResultExecutionBytes: resultBytes,
	};
	log(JSON.stringify(result));
	return result;
}
