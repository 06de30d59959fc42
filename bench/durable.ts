/**
 * Case 8 of `npm run bench`: example 6 (durable campaign) at scale, on one real n8n 2.41.1 (SQLite) per size, against
 * the sandbox at a fast clock. The contacts (test-e2e/support/durableCampaign.js's plan: answered at once or later,
 * never, unavailable, declined; some outside their calling hours, some not dialable) are inserted in a data table;
 * Call Result -> Record Call Result is published as shipped, and so is the dial workflow: its Schedule Trigger every
 * minute, Dial Due Contacts with Keep Dialling For 60 s (a run dials for its minute; the next one waits for the lease
 * and takes over), Max Calls in Flight = the account's lines, Max Calls per Run 1000, Check Interval about 1 s and
 * retry delays of 10 min, both of sandbox time. Execution data: n8n's defaults (saved, pruned at 10,000 executions).
 * Measured per size: wall time, calls, claims/s, the share of the lines busy from the first call to the last, n8n's
 * RSS (max of samples, n8n and its task runner) and CPU per call, the largest execution data of a dial run and of a
 * result run, 429 refusals; checked: no number twice at once or after an ANSWER, never more calls at once than lines.
 * Environment: BENCH_SIZES, BENCH_DURABLE_LINES (10), BENCH_DURABLE_SPEED (4), BENCH_DURABLE_CHECK (Check Interval in
 * wall seconds), BENCH_DURABLE_MAX_MINUTES (50: a size not done by then is stopped and reported as such).
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

import { maxInFlight } from '../sandbox';
import type { PlatformSandbox } from '../sandbox';

/* eslint-disable @typescript-eslint/no-require-imports */
const ROOT = resolve(__dirname, '..', '..');
const dc = require(join(ROOT, 'test-e2e/support/durableCampaign.js'));
const { buildAndPack } = require(join(ROOT, 'scripts/n8n-runtime.js'));
const { publishTrigger } = require(join(ROOT, 'test-e2e/support/workflows.js'));
/* eslint-enable @typescript-eslint/no-require-imports */

const LINES = Number(process.env.BENCH_DURABLE_LINES ?? 10);
const SPEED = Number(process.env.BENCH_DURABLE_SPEED ?? 4);
/** Check Interval: 1 s of sandbox time. */
const CHECK_SECONDS = Number(process.env.BENCH_DURABLE_CHECK ?? Math.max(0.1, Math.round(10 / SPEED) / 10));
const MAX_MS = Number(process.env.BENCH_DURABLE_MAX_MINUTES ?? 50) * 60_000;
const log = (line: string) => console.log(`[bench durable ${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** RSS (MB) and CPU time used so far (s) of n8n's process group (n8n and its task runner). */
function groupUsage(pgid: number): { rssMB: number; cpuSec: number } {
	const rows = execFileSync('ps', ['-eo', 'pgid=,rss=,times='], { encoding: 'utf8' }).trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
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
		try {
			results.push(await runSize(sandbox, campaign, size));
		} finally {
			await campaign.stop();
		}
	}
	return results;
}

async function runSize(sandbox: PlatformSandbox, campaign: any, size: number): Promise<Record<string, unknown>> {
	const { n8n } = campaign;
	const plan = dc.planDurableCampaign(size);
	const t0 = Date.now();
	const table = await dc.contactsTable(n8n, dc.TABLE, plan.contacts);
	log(`${size} contacts inserted in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	const workflows = dc.durableWorkflows(n8n, campaign.byType, { table, window: plan.window, label: `${size}` });
	const dialNode = workflows.dial.nodes.find((n: any) => n.name === 'Dial Due Contacts').parameters;
	const retryMinutes = 10 / SPEED;
	Object.assign(dialNode, {
		maxCallsInFlight: LINES,
		maxCallsPerRun: 1000,
		retryPolicy: { ...dialNode.retryPolicy, busy: retryMinutes, noAnswer: retryMinutes },
		campaignOptions: { keepDiallingSeconds: 60, checkIntervalSeconds: CHECK_SECONDS },
	});
	workflows.results.nodes.find((n: any) => n.name === 'Record Call Result').parameters.retryPolicy = dialNode.retryPolicy;
	const results = await n8n.createWorkflow(workflows.results);
	const dial = await n8n.createWorkflow(workflows.dial);
	const setUp = await n8n.runWorkflow(results.id);
	if (setUp.status !== 'success') throw new Error(`Set Up Once failed: ${JSON.stringify(setUp.data?.resultData?.error)}`);
	await publishTrigger(n8n, results.id, workflows.trigger);
	dc.applyNetwork(sandbox, plan.rules, SPEED);
	sandbox.setAccountLimit(LINES);
	const expected = [...plan.rules.values()].reduce((sum: number, steps: unknown) => sum + dc.expectedCalls(steps).length, 0);

	const started = Date.now();
	await n8n.api('POST', `/workflows/${dial.id}/publish`);
	const pgid = n8n.child.pid;
	const cpuAtStart = groupUsage(pgid).cpuSec;
	let rssMB = 0;
	let resultBytes = 0;
	let stopped = false;
	for (let tick = 0; ; tick++) {
		rssMB = Math.max(rssMB, groupUsage(pgid).rssMB);
		if (tick % 15 === 0) resultBytes = Math.max(resultBytes, await largestExecution(n8n, results.id, 20));
		const { calls } = sandbox.callJournal;
		if (calls.length >= expected && calls.every((c: any) => c.endedWallAt !== null)) break;
		if (Date.now() - started > MAX_MS) {
			stopped = true;
			break;
		}
		if (tick % 30 === 0) log(`${size}: ${calls.length} of ${expected} calls after ${Math.round((Date.now() - started) / 1000)} s, RSS ${rssMB.toFixed(0)} MB`);
		await sleep(2000);
	}
	await n8n.api('POST', `/workflows/${dial.id}/unpublish`).catch(() => undefined);
	const wallMs = Date.now() - started;
	await sleep(3000); // the last results are recorded
	const cpuSec = groupUsage(pgid).cpuSec - cpuAtStart;
	const dialBytes = await largestExecution(n8n, dial.id, 250);
	resultBytes = Math.max(resultBytes, await largestExecution(n8n, results.id, 50));

	const { calls, refusals } = sandbox.callJournal;
	const ended = calls.filter((c: any) => c.endedWallAt !== null);
	for (const [dst, made] of dc.callsByNumber(ended)) dc.checkNumber(dst, made);
	const most = maxInFlight(ended, 'wall');
	if (most > LINES) throw new Error(`${most} calls at once on ${LINES} lines`);
	const first = Math.min(...ended.map((c: any) => c.startedWallAt));
	const last = Math.max(...ended.map((c: any) => c.endedWallAt));
	const lastStart = Math.max(...ended.map((c: any) => c.startedWallAt));
	const lastFirstAttempt = Math.max(...ended.filter((c: any) => c.attempt === 1).map((c: any) => c.startedWallAt));
	const busy = (to: number) => ended.reduce((s: number, c: any) => s + Math.max(0, Math.min(c.endedWallAt, to) - c.startedWallAt), 0) / (LINES * (to - first));
	const result = {
		contacts: size,
		lines: LINES,
		speed: SPEED,
		checkSeconds: CHECK_SECONDS,
		stoppedAtCap: stopped,
		wallSeconds: Math.round(wallMs / 1000),
		calls: calls.length,
		expectedCalls: expected,
		numbersDialled: new Set(calls.map((c: any) => c.dst)).size,
		claimsPerSecond: Number((ended.length / ((lastStart - first) / 1000)).toFixed(2)),
		callsPerSecondIdeal: Number((ended.length / (ended.reduce((s: number, c: any) => s + c.endedWallAt - c.startedWallAt, 0) / 1000 / LINES)).toFixed(2)),
		linesBusy: Number(busy(last).toFixed(3)),
		linesBusyWhileFirstCallsWaited: Number(busy(lastFirstAttempt).toFixed(3)),
		maxInFlight: most,
		n8nCpuMsPerCall: Math.round((cpuSec * 1000) / calls.length),
		statusReadsPerCall: Number((sandbox.journal.filter((e: any) => e.method === 'GET').length / calls.length).toFixed(1)),
		refusals429: refusals.length,
		maxRssMB: Math.round(rssMB),
		largestDialExecutionBytes: dialBytes,
		largestResultExecutionBytes: resultBytes,
	};
	log(JSON.stringify(result));
	return result;
}
