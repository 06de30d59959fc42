/** `npm run bench:e2e`, case 4 (docs/performance.md): .build/bench-results/results-e2e.json, for the next `npm run bench`. */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { listExecutions, n8nUsage, type Execution } from './n8n';
import { fromRoot, logger, options, PROJECT_ROOT, RESULTS_DIR, runMain, writeJson } from './paths';
import { median, round } from './report';
import type { TriggerResult, TriggerStats } from './results';

const { POSTS, CONCURRENCY, ...given } = options('BENCH_', { RUNS: 5, POSTS: 1000, CONCURRENCY: 50 });
const RUNS = Math.max(1, given.RUNS);
const [runtime, workflows] = [fromRoot('scripts/n8n-runtime.js'), fromRoot('test-e2e/support/workflows.js')];
const log = logger('bench:e2e');
type Receiver = { key: 'ours' | 'floor' | 'webhook'; workflowId: string; url: string };
/** One run; cpuPerPostMs: n8n's CPU time during the run, per POST (far less sensitive than wall time to other load). */
type RunResult = Record<'cpuPerPostMs' | 'intakeMs' | 'processedMs' | 'non200' | 'executions' | 'lost', number>;

/** POSTs to one receiver, CONCURRENCY in flight, then waits until every execution of the run finished (or none changed for 15 s). */
async function runOnce(n8n: any, { workflowId, url }: Receiver, dispatcher: Agent, posts: number): Promise<RunResult> {
	// Execution timestamps have millisecond precision.
	const [since, cpu0, t0] = [Date.now() - 1, (await n8nUsage(n8n.child.pid, false)).cpuMs, performance.now()];
	let [next, non200] = [0, 0];
	const lane = async (): Promise<void> => {
		while (next++ < posts) {
			const body = JSON.stringify({ internal_id: randomBytes(16).toString('hex'), dialstatus: 'ANSWER', duration: 42 });
			const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher });
			await res.body.dump();
			if (res.statusCode !== 200) non200++;
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, lane));
	const intakeMs = performance.now() - t0;
	let found: Execution[] = [];
	for (let [seen, changedAt] = [-1, Date.now()]; ; await runtime.delay(250)) {
		found = await listExecutions(n8n, workflowId, { since });
		const open = found.filter((e) => !e.stoppedAt || e.status === 'running' || e.status === 'new');
		if ((found.length >= posts && !open.length) || (found.length === seen && Date.now() - changedAt > 15_000)) break;
		if (found.length !== seen) [seen, changedAt] = [found.length, Date.now()];
	}
	// CPU until the executions finished (the polling of the public API above is included, the same for every receiver).
	const cpuPerPostMs = ((await n8nUsage(n8n.child.pid, false)).cpuMs - cpu0) / posts;
	const succeeded = found.filter((e) => e.status === 'success');
	const processedMs = Math.max(...succeeded.map((e) => Date.parse(e.stoppedAt ?? e.startedAt))) - since;
	const executions = succeeded.length;
	return { cpuPerPostMs, intakeMs, processedMs: executions ? processedMs : NaN, non200, executions, lost: posts - non200 - executions };
}
/** Each receiver -> No Operation, published; ready once it answers a probe as registered: ours 400 to an empty body (nothing starts), the others 200. */
async function receivers(n8n: any): Promise<Receiver[]> {
	const trigger = workflows.triggerNode('Platform Event', { events: ['callResult'], registerOnPublish: false });
	const floor = { ...workflows.noOpNode('Floor Trigger'), type: 'n8n-nodes-bench-floor-trigger.floorTrigger', webhookId: randomUUID() };
	const parameters = { httpMethod: 'POST', path: `bench-call-result-${randomUUID().slice(0, 8)}`, responseMode: 'onReceived', options: {} };
	const webhook = { ...workflows.noOpNode('Webhook'), type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: randomUUID(), parameters };
	const published: Receiver[] = [];
	for (const [key, node, url] of [
		['ours', trigger, workflows.triggerUrl(n8n, trigger)],
		['floor', floor, `${n8n.url}/webhook/${floor.webhookId}/call-result`],
		['webhook', webhook, `${n8n.url}/webhook/${parameters.path}`],
	] as const) {
		const workflow = await n8n.createWorkflow(workflows.chain(`bench: ${key} intake`, [node, workflows.noOpNode('Received')]));
		await n8n.api('POST', `/workflows/${workflow.id}/publish`);
		const [probe, expected] = key === 'ours' ? [{}, 400] : [{ probe: true }, 200]; // 200: one execution before the runs
		await n8n.callWebhook(url, { body: probe, retryMs: 20_000, expect: [expected] });
		published.push({ key, workflowId: workflow.id, url });
	}
	return published;
}
function summary(runs: RunResult[]): TriggerStats {
	const of = (key: keyof RunResult): number[] => runs.map((r) => r[key]);
	return {
		medianMs: round(median(of('intakeMs'))),
		runsMs: of('intakeMs').map(Math.round),
		processedMedianMs: Math.round(median(of('processedMs'))),
		cpuPerPostMedianMs: round(median(of('cpuPerPostMs'))),
		executions: of('executions'),
		non200: of('non200'),
		lost: of('lost'),
	};
}
/** n8n with this package (or BENCH_TARBALL) and the floor trigger (a folder npm links), every execution kept (pruning could remove some while they are counted). */
async function main(): Promise<void> {
	const [started, userFolder] = [Date.now(), mkdtempSync(join(tmpdir(), 'n8n-bench-'))];
	const [tarball, floor] = [process.env.BENCH_TARBALL || runtime.buildAndPack({ log }), join(PROJECT_ROOT, 'bench/fixtures/floor-trigger')];
	const env = { EXECUTIONS_DATA_PRUNE: 'false', N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'warn' };
	const n8n = await runtime.startN8n({ userFolder, tarball, extraPackages: [floor], install: true, log, env });
	process.once('exit', () => n8n.exitInfo || n8n.killNow()); // never left behind
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
	const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
	try {
		const [all, results] = [await receivers(n8n), { ours: [], floor: [], webhook: [] } as Record<Receiver['key'], RunResult[]>];
		// A warm-up, then RUNS rounds in an order rotated every round (each receiver first, second and third equally often).
		for (let round = -1; round < RUNS; round++) {
			for (const receiver of [...all.slice((round + 3) % 3), ...all.slice(0, (round + 3) % 3)]) {
				// The warm-up (JIT, first executions, SQLite) needs no 1,000 posts: 100 do.
				const result = await runOnce(n8n, receiver, dispatcher, round < 0 ? Math.min(100, POSTS) : POSTS);
				log(round < 0 ? 'warm-up' : `run ${round + 1}`, receiver.key, JSON.stringify(result));
				if (round >= 0) results[receiver.key].push(result);
			}
		}
		writeJson(join(RESULTS_DIR, 'results-e2e.json'), {
			measuredAt: new Date().toISOString(),
			posts: POSTS,
			concurrency: CONCURRENCY,
			ours: summary(results.ours),
			floor: summary(results.floor),
			webhook: summary(results.webhook),
			notes: [
				`n8n ${n8n.version} (scripts/n8n-runtime.js), SQLite, one main process, ${RUNS} runs per receiver after a warm-up, the order of the three receivers rotated every round.`,
				'Floor = a minimal community trigger (bench/fixtures/floor-trigger: one static POST webhook, outputs the body), installed beside this package.',
				'Intake = first POST sent until the last answer (both receivers answer on receipt, before the execution ends); processed = until the last execution of the run finished.',
				`Whole bench:e2e took ${Math.round((Date.now() - started) / 1000)} s including build, pack, n8n boot.`,
			],
		} satisfies TriggerResult);
	} finally {
		await dispatcher.close();
		await n8n.stop();
		rmSync(userFolder, { recursive: true, force: true });
	}
}
runMain(main);
