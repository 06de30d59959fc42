/** `npm run bench:e2e`, case 4 (docs/performance.md): .build/bench-results/results-e2e.json, for the next `npm run bench`. */
import { randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { fromRoot, PROJECT_ROOT as ROOT, RESULTS_DIR, runMain, writeJson } from './paths';
import { median, round } from './report';
import type { TriggerResult, TriggerStats } from './results';

const [RUNS, POSTS, CONCURRENCY] = [
	Math.max(1, Number(process.env.BENCH_RUNS ?? 5)),
	Number(process.env.BENCH_POSTS ?? 1000),
	Number(process.env.BENCH_CONCURRENCY ?? 50),
];
const [runtime, workflows] = [fromRoot('scripts/n8n-runtime.js'), fromRoot('test-e2e/support/workflows.js')];
const log = runtime.makeLogger('bench:e2e');

type ReceiverKey = 'ours' | 'floor' | 'webhook';
type Receiver = { key: ReceiverKey; workflowId: string; url: string };
type Execution = { status: string; startedAt: string; stoppedAt: string | null };
/** One run; cpuPerPostMs: n8n's CPU time during the run, per POST (far less sensitive than wall time to other load). */
type RunResult = { cpuPerPostMs: number; intakeMs: number; processedMs: number; non200: number; executions: number; lost: number };
/** CPU time (user + system, ms) n8n's main process has used so far (Linux /proc/<pid>/stat fields 14 and 15, USER_HZ 100; NaN elsewhere). */
function n8nCpuMs(n8n: any): number {
	try {
		const fields = readFileSync(`/proc/${n8n.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
	} catch {
		return NaN;
	}
}
/** The executions that started at or after `since` (the public API lists newest first). */
async function executionsSince(n8n: any, workflowId: string, since: number): Promise<Execution[]> {
	const found: Execution[] = [];
	for (let cursor = ''; ; ) {
		const { data, nextCursor } = await n8n.api(
			'GET',
			`/executions?workflowId=${workflowId}&includeData=false&limit=250${cursor && `&cursor=${encodeURIComponent(cursor)}`}`,
		);
		const newer = (data as Execution[]).filter((e) => Date.parse(e.startedAt) >= since);
		found.push(...newer);
		if (newer.length < data.length || !nextCursor) return found;
		cursor = nextCursor;
	}
}
/** POSTs to one receiver, `CONCURRENCY` in flight, then waits until every execution of the run finished (or none changed for 15 s). */
async function runOnce(n8n: any, receiver: Receiver, dispatcher: Agent, posts: number): Promise<RunResult> {
	const [since, cpu0, t0] = [Date.now() - 1, n8nCpuMs(n8n), process.hrtime.bigint()]; // execution timestamps have millisecond precision
	let [next, non200] = [0, 0];
	const lane = async (): Promise<void> => {
		while (next++ < posts) {
			const body = JSON.stringify({ internal_id: randomBytes(16).toString('hex'), dialstatus: 'ANSWER', duration: 42 });
			const res = await request(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, dispatcher });
			await res.body.dump();
			if (res.statusCode !== 200) non200++;
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, lane));
	const intakeMs = Number(process.hrtime.bigint() - t0) / 1e6;
	let executions: Execution[] = [];
	for (let lastCount = -1, stableSince = Date.now(); ; await runtime.delay(250)) {
		executions = await executionsSince(n8n, receiver.workflowId, since);
		const finished = executions.filter((e) => e.stoppedAt && e.status !== 'running' && e.status !== 'new');
		if (
			(finished.length >= posts && finished.length === executions.length) ||
			(executions.length === lastCount && Date.now() - stableSince > 15_000)
		)
			break;
		if (executions.length !== lastCount) [lastCount, stableSince] = [executions.length, Date.now()];
	}
	// CPU until the executions finished (the polling of the public API above is included, the same for every receiver).
	const cpuPerPostMs = (n8nCpuMs(n8n) - cpu0) / posts;
	const succeeded = executions.filter((e) => e.status === 'success');
	const lastStop = Math.max(...succeeded.map((e) => Date.parse(e.stoppedAt ?? e.startedAt)));
	return {
		cpuPerPostMs,
		intakeMs,
		processedMs: succeeded.length ? lastStop - since : NaN,
		non200,
		executions: succeeded.length,
		lost: posts - non200 - succeeded.length,
	};
}
/** n8n with this package (or BENCH_TARBALL) and the floor trigger, every execution kept (pruning could remove some while they are counted); never left behind. */
async function startN8n(userFolder: string): Promise<any> {
	const tarball = process.env.BENCH_TARBALL ? resolve(process.env.BENCH_TARBALL) : runtime.buildAndPack({ log });
	const floorDir = join(ROOT, '.build', 'pack-floor');
	rmSync(floorDir, { recursive: true, force: true });
	mkdirSync(floorDir, { recursive: true });
	const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', floorDir], {
		cwd: join(ROOT, 'bench', 'fixtures', 'floor-trigger'),
		encoding: 'utf8',
	});
	const floor = join(floorDir, JSON.parse(packed.slice(packed.indexOf('[')))[0].filename);
	const pairs = (process.env.BENCH_N8N_ENV ?? '').split(',').filter((pair) => pair.includes('='));
	const env = {
		EXECUTIONS_DATA_PRUNE: 'false',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'warn',
		...(process.env.BENCH_N8N_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_N8N_NODE_OPTIONS } : {}),
		...Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
	};
	const n8n = await runtime.startN8n({ userFolder, tarball, extraPackages: [floor], install: true, log, env });
	process.once('exit', () => n8n.exitInfo || n8n.killNow());
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
	return n8n;
}
/** Publishes receiver -> No Operation and waits until `url` answers a probe as it does once registered. */
async function publish(n8n: any, key: ReceiverKey, node: any, url: string, probe: object, expected: number): Promise<Receiver> {
	const name = `bench: ${{ ours: 'trigger', floor: 'floor trigger', webhook: 'webhook' }[key]} intake`;
	const workflow = await n8n.createWorkflow(workflows.chain(name, [node, workflows.noOpNode('Received')]));
	await n8n.api('POST', `/workflows/${workflow.id}/publish`);
	const answer = await n8n.callWebhook(url, { body: probe, retryMs: 20_000 });
	if (answer.status !== expected) throw new Error(`the ${key} receiver answered ${answer.status} to ${JSON.stringify(probe)}`);
	return { key, workflowId: workflow.id, url };
}
/** Ours is registered once a post with the right token answers (an empty body is refused, 400, and starts nothing); the others answer a probe (one execution before the first run; runs count their own). */
async function receivers(n8n: any): Promise<Receiver[]> {
	const trigger = workflows.triggerNode('Platform Event', { events: ['callResult'], registerOnPublish: false });
	if (process.env.BENCH_TRIGGER_VERSION) trigger.typeVersion = Number(process.env.BENCH_TRIGGER_VERSION);
	const ours = await publish(n8n, 'ours', trigger, workflows.triggerUrl(n8n, trigger, 'call-result'), {}, 400);
	const node = (name: string, type: string, typeVersion: number, parameters: object) => ({
		id: randomUUID(),
		name,
		type,
		typeVersion,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters,
	});
	const path = `bench-call-result-${randomUUID().slice(0, 8)}`;
	const theirs = await publish(
		n8n,
		'webhook',
		node('Webhook', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }),
		`${n8n.url}/webhook/${path}`,
		{ probe: true },
		200,
	);
	const floorNode = node('Floor Trigger', 'n8n-nodes-bench-floor-trigger.floorTrigger', 1, {});
	return [
		ours,
		await publish(n8n, 'floor', floorNode, `${n8n.url}/webhook/${floorNode.webhookId}/call-result`, { probe: true }, 200),
		theirs,
	];
}
/** A warm-up, then RUNS rounds in an order rotated every round (each receiver first, second and third equally often); BENCH_E2E_ONLY: one receiver. */
async function measure(n8n: any, all: Receiver[], dispatcher: Agent): Promise<Record<ReceiverKey, RunResult[]>> {
	const results: Record<ReceiverKey, RunResult[]> = { ours: [], floor: [], webhook: [] };
	for (let round = -1; round < RUNS; round++) {
		const shift = ((round % all.length) + all.length) % all.length;
		for (const receiver of [...all.slice(shift), ...all.slice(0, shift)].filter(
			(r) => !process.env.BENCH_E2E_ONLY || r.key === process.env.BENCH_E2E_ONLY,
		)) {
			// The warm-up (JIT, first executions, SQLite) needs no 1,000 posts: 100 do.
			const r = await runOnce(n8n, receiver, dispatcher, round < 0 ? Math.min(100, POSTS) : POSTS);
			const facts = `processed ${r.processedMs.toFixed(0)} ms, ${r.executions} executions, ${r.non200} non-200, ${r.lost} lost`;
			log(
				`${round < 0 ? 'warm-up' : `run ${round + 1}`} ${receiver.key}: intake ${r.intakeMs.toFixed(0)} ms, n8n CPU ${r.cpuPerPostMs.toFixed(1)} ms per POST, ${facts}`,
			);
			if (round >= 0) results[receiver.key].push(r);
		}
	}
	return results;
}
function summary(runs: RunResult[]): TriggerStats {
	const of = <K extends keyof RunResult>(key: K): number[] => runs.map((r) => r[key]);
	const [medianMs, processedMedianMs, cpuPerPostMedianMs] = [
		round(median(of('intakeMs'))),
		Math.round(median(of('processedMs'))),
		round(median(of('cpuPerPostMs'))),
	];
	return {
		medianMs,
		runsMs: of('intakeMs').map(Math.round),
		processedMedianMs,
		cpuPerPostMedianMs,
		executions: of('executions'),
		non200: of('non200'),
		lost: of('lost'),
	};
}

async function main(): Promise<void> {
	const [started, userFolder] = [Date.now(), mkdtempSync(join(tmpdir(), 'n8n-bench-'))];
	const n8n = await startN8n(userFolder);
	const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
	try {
		const results = await measure(n8n, await receivers(n8n), dispatcher);
		if (process.env.BENCH_E2E_ONLY) return log(`BENCH_E2E_ONLY=${process.env.BENCH_E2E_ONLY}: nothing written`);
		const output: TriggerResult = {
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
		};
		const outFile = resolve(process.env.BENCH_E2E_OUT ?? join(RESULTS_DIR, 'results-e2e.json'));
		writeJson(outFile, output);
		log(`ours: ${output.ours.medianMs} ms, floor: ${output.floor?.medianMs} ms, webhook: ${output.webhook.medianMs} ms; wrote ${outFile}`);
	} finally {
		await dispatcher.close();
		await n8n.stop();
		if (process.env.BENCH_KEEP) log(`kept ${userFolder}`);
		else rmSync(userFolder, { recursive: true, force: true });
	}
}

runMain(main);
