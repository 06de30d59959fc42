/**
 * `npm run bench`: measures our node side by side with a raw undici client and n8n's HTTP Request node,
 * against the platform sandbox, and writes .build/bench-results/results.json (raw, git-ignored) and, from a
 * complete set of results (every case, case 4 from `npm run bench:e2e`), the results block of
 * docs/performance.md.
 *
 * The sandbox runs in this (orchestrator) process; every client runs in its own forked process (worker.ts),
 * so the client under test has a core of its own and its peak memory is its own. Runs of the clients of a
 * scenario are interleaved (round robin) so that load drift on the machine hits every client alike.
 *
 * `node .build/bench/run.js --report` only re-renders docs/performance.md from the results in .build/bench-results/.
 *
 * Environment:
 *   BENCH_RUNS=5            measured runs per client and scenario (median reported), after one warm-up
 *   BENCH_SHORT_RUNS=21     runs (after 3 warm-ups) of the short scenarios (Return All of up to 10,000: 20 to
 *                           150 ms a run), where 5 runs after one warm-up still measure the JIT and the noise
 *                           of a shared machine more than the clients
 *   BENCH_CASES=1,2,3,5,6,7 which cases to run (4 is `npm run bench:e2e`; 8, example 6 at scale on a real n8n
 *                           (bench/durable.ts, sizes from BENCH_SIZES), runs only when named)
 *   BENCH_DIAL_CAPS=5,20    case 7: the Max Calls in Flight values measured
 *   BENCH_SIZES=1000,10000,100000   list sizes of case 1, contacts of case 8
 *   BENCH_LATENCIES=0,20    added sandbox latencies (ms)
 *   BENCH_CLIENTS=ours,...  only these clients (for profiling)
 *   BENCH_PROFILE=<dir>     run the n8n workers with --cpu-prof into <dir>
 *   BENCH_VARIANTS=name=<dir>,...  also run every "our node" client against other compiled copies of nodes/
 *                           and credentials/ (<dir> holds nodes/ and credentials/ compiled; see engine.ts)
 *   BENCH_NO_WRITE=1        print the results, do not write results.json / docs/performance.md
 *   BENCH_OUT=<file>        write the results there (JSON, next to it the markdown) instead of
 *                           .build/bench-results/ and docs/performance.md (for experiments)
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';

import { request } from 'undici';

import { maxInFlight, PlatformSandbox } from '../sandbox';

import type { ClientName, RunOutput, RunSpec, Target } from './clients';
import { caseDurable } from './durable';
import { nodesBaseDir, RESULTS_DIR } from './paths';
import { renderMarkdown, updatePerformanceDoc } from './report';
import type { BenchResults, ClientStats, ScenarioResult } from './report';

const ROOT = resolve(__dirname, '..', '..');
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const SHORT_RUNS = Math.max(RUNS, Number(process.env.BENCH_SHORT_RUNS ?? 21));
const SHORT_WARMUPS = 3;
/** Return All sizes up to this are short scenarios (SHORT_RUNS runs after SHORT_WARMUPS warm-ups). */
const SHORT_LIST_MAX = 10000;
const ALL_CASES = '1,2,3,5,6,7';
const CASES = new Set((process.env.BENCH_CASES ?? ALL_CASES).split(',').map((s) => s.trim()));
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined;
const PAGE_SIZE = 500;
const LATENCIES = (process.env.BENCH_LATENCIES ?? '0,20').split(',').map(Number);
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
	.split(',')
	.filter(Boolean)
	.map((entry) => entry.split('=') as [string, string]);
const ONLY_CLIENTS = process.env.BENCH_CLIENTS ? new Set(process.env.BENCH_CLIENTS.split(',').map((s) => s.trim())) : undefined;
const CALLER = '+390212345678';
const FANOUT_CALLS = 1000;
const FANOUT_BATCH = 50;
const STATUS_CALLS = 100;
const CREATE_ITEMS = 1000;
const STATUS_MAX_PERSIST_DELAY_MS = 4000;
/** Case 7: calls of 50 to 85 s (a sales campaign's), on a sandbox clock this many times faster than wall time. */
const DIAL_SPEED = 60;
const DIAL_CALL_SEC: [number, number] = [50, 85];
/** Calls per line and run: each line is used this many times over. */
const DIAL_CALLS_PER_LINE = 20;
/** The default Status Check Interval (5 s), as wall time on the faster clock: the same share of a call. */
const DIAL_INTERVAL_SEC = 5 / DIAL_SPEED;
const DIAL_CAPS = (process.env.BENCH_DIAL_CAPS ?? '5,20').split(',').map(Number);

const log = (...args: unknown[]): void => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

// ------------------------------------------------------------------------------------------ workers

interface WorkerReply {
	type: string;
	ms?: number;
	cpuMs?: number;
	startedAt?: number;
	endedAt?: number;
	output?: RunOutput;
	rssMB?: number;
	maxRssMB?: number;
	detail?: Record<string, unknown>;
	message?: string;
}

class Worker {
	private waiting: ((reply: WorkerReply) => void) | undefined;
	private constructor(private readonly child: ChildProcess) {
		child.on('message', (reply: WorkerReply) => {
			const resolveReply = this.waiting;
			this.waiting = undefined;
			resolveReply?.(reply);
		});
		child.on('exit', (code) => {
			if (this.waiting) this.waiting({ type: 'error', message: `worker exited with ${code}` });
		});
	}

	static async start(client: ClientName, label: string, sourceRoot?: string): Promise<{ worker: Worker; ready: WorkerReply }> {
		const execArgv = ['--max-old-space-size=4096'];
		if (PROFILE_DIR && !client.startsWith('raw')) {
			mkdirSync(PROFILE_DIR, { recursive: true });
			execArgv.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${label}-${client}.cpuprofile`);
		}
		const env = sourceRoot ? { ...process.env, BENCH_SOURCE_ROOT: sourceRoot } : process.env;
		const child = fork(join(__dirname, 'worker.js'), [], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		const worker = new Worker(child);
		const ready = await worker.ask({ type: 'prepare', client });
		return { worker, ready };
	}

	ask(message: Record<string, unknown>): Promise<WorkerReply> {
		return new Promise((resolveReply, reject) => {
			this.waiting = (reply) => (reply.type === 'error' ? reject(new Error(reply.message)) : resolveReply(reply));
			this.child.send(message);
		});
	}

	async stop(): Promise<number | undefined> {
		const bye = await this.ask({ type: 'exit' });
		await new Promise((done) => (this.child.exitCode !== null ? done(null) : this.child.once('exit', done)));
		return bye.maxRssMB;
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

interface RunRecord {
	ms: number;
	cpuMs: number;
	output: RunOutput;
	checks: Record<string, number>;
	startedAt: number;
}

interface Scenario {
	id: string;
	label: string;
	clients: ClientName[];
	/** Measured runs and warm-ups per client (RUNS and 1 unless the scenario is short). */
	runs?: number;
	warmups?: number;
	/** Prepares the sandbox for one run and returns what the client is asked to do. */
	before: (client: ClientName, run: number, warmup: boolean) => Promise<RunSpec>;
	/** Reads the sandbox after one run: request counts and the like. */
	after: (client: ClientName, record: Omit<RunRecord, 'checks'>) => Promise<Record<string, number>>;
}

async function runScenario(scenario: Scenario): Promise<Record<string, ClientStats>> {
	if (ONLY_CLIENTS) scenario = { ...scenario, clients: scenario.clients.filter((c) => ONLY_CLIENTS.has(c)) };
	log(`${scenario.label}: ${scenario.clients.join(', ')}`);
	const workers: Array<{ key: string; client: ClientName; worker: Worker; ready: WorkerReply }> = [];
	for (const client of scenario.clients) {
		workers.push({ key: client, client, ...(await Worker.start(client, scenario.id)) });
		if (!client.startsWith('ours')) continue;
		for (const [name, dir] of VARIANTS) {
			const key = `${client}@${name}`;
			workers.push({ key, client, ...(await Worker.start(client, `${scenario.id}-${name}`, resolve(dir))) });
		}
	}
	const records = new Map<string, RunRecord[]>(workers.map((w) => [w.key, []]));
	const warm = new Map<string, RunRecord>();
	try {
		const runs = scenario.runs ?? RUNS;
		const warmups = scenario.warmups ?? 1;
		for (let round_ = -warmups; round_ < runs; round_++) {
			const warmup = round_ < 0;
			// Rotate the order every round so that no client always runs first or last.
			const order = workers.map((_w, i) => workers[(i + Math.max(0, round_)) % workers.length]);
			for (const { key, client, worker } of order) {
				const spec = await scenario.before(client, round_, warmup);
				const reply = await worker.ask({ type: 'run', spec });
				const base = { ms: reply.ms!, cpuMs: reply.cpuMs!, output: reply.output!, startedAt: reply.startedAt! };
				const checks = await scenario.after(client, base);
				const record = { ...base, checks };
				if (warmup) warm.set(key, record);
				else records.get(key)!.push(record);
			}
		}
	} finally {
		for (const w of workers) (w as { maxRss?: number }).maxRss = await w.worker.stop();
	}
	const stats: Record<string, ClientStats> = {};
	for (const w of workers) {
		const runs = records.get(w.key)!;
		const checkNames = Object.keys(runs[0]?.checks ?? {});
		stats[w.key] = {
			medianMs: round(median(runs.map((r) => r.ms)), 2),
			runsMs: runs.map((r) => round(r.ms, 2)),
			medianCpuMs: round(median(runs.map((r) => r.cpuMs)), 2),
			runsCpuMs: runs.map((r) => round(r.cpuMs, 2)),
			warmupMs: round(warm.get(w.key)?.ms ?? NaN, 2),
			items: runs.map((r) => r.output.items),
			outputItems: runs[0]?.output.outputItems ?? 0,
			checks: Object.fromEntries(checkNames.map((name) => [name, runs.map((r) => r.checks[name])])),
			baselineRssMB: w.ready.rssMB ?? NaN,
			peakRssMB: (w as { maxRss?: number }).maxRss ?? NaN,
			detail: w.ready.detail ?? {},
		};
		const s = stats[w.key];
		log(
			`  ${w.key.padEnd(20)} median ${String(s.medianMs).padStart(9)} ms (CPU ${s.medianCpuMs} ms)  runs ${s.runsMs.join(' ')}  ` +
				`${Object.entries(s.checks).map(([k, v]) => `${k}=${v.join('/')}`).join(' ')}  peak RSS ${s.peakRssMB} MB`,
		);
	}
	return stats;
}

// ------------------------------------------------------------------------------------------ case 1

function countRequests(sandbox: PlatformSandbox, method: string, prefix: string, status?: number): number {
	return sandbox.journal.filter(
		(e) => e.method === method && e.path.startsWith(prefix) && (status === undefined || e.status === status),
	).length;
}

async function caseList(sandbox: PlatformSandbox, target: Target): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const n of SIZES) {
		sandbox.reset();
		sandbox.seed({ assistants: n });
		for (const latency of LATENCIES) {
			sandbox.setLatency(latency);
			const clients: ClientName[] =
				latency === 0
					? ['ours', 'helperLoop', 'http', 'httpSplitOut', 'rawUndici', 'rawUndiciGlobal']
					: ['ours', 'helperLoop', 'http', 'rawUndici'];
			const expected = Math.ceil(n / PAGE_SIZE);
			const stats = await runScenario({
				id: `list-${n}-${latency}ms`,
				label: `Case 1, Return All ${n} assistants, +${latency} ms`,
				clients,
				...(n <= SHORT_LIST_MAX ? { runs: SHORT_RUNS, warmups: SHORT_WARMUPS } : {}),
				before: async (_client, _run, warmup) => {
					// The warm-up only warms the code: it runs without added latency (saves ~25 s at 100,000).
					sandbox.setLatency(warmup ? 0 : latency);
					sandbox.clearJournal();
					return { kind: 'list', target, pageSize: PAGE_SIZE };
				},
				after: async (_client, record) => {
					if (record.output.items !== n) throw new Error(`list returned ${record.output.items} of ${n}`);
					return {
						requests: countRequests(sandbox, 'GET', '/api/v1/assistants'),
						non200: sandbox.journal.filter((e) => e.status !== 200).length,
					};
				},
			});
			results.push({ case: 'list', n, latencyMs: latency, expectedRequests: expected, clients: stats });
		}
	}
	sandbox.reset();
	return results;
}

// ------------------------------------------------------------------------------------------ case 2

function destinations(count: number, offset = 0): string[] {
	return Array.from({ length: count }, (_v, i) => `+1415${String(5_000_000 + offset + i).padStart(7, '0')}`);
}

async function caseFanout(sandbox: PlatformSandbox, base: Omit<Target, 'assistantKey'>): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const latency of LATENCIES) {
		const stats = await runScenario({
			id: `fanout-${latency}ms`,
			label: `Case 2, campaign fan-out ${FANOUT_CALLS} calls, +${latency} ms`,
			clients: ['ours', 'oursBatch', 'rawUndici', 'rawUndiciConcurrent', 'http'],
			before: async (_client, _run, warmup) => {
				sandbox.reset();
				const assistant = sandbox.createAssistant({ name: 'Bench Caller', number: CALLER });
				// The warm-up only warms the code: without added latency (a sequential one at +20 ms takes 23 s).
				sandbox.setLatency(warmup ? 0 : latency);
				sandbox.clearJournal();
				const count = FANOUT_CALLS;
				return {
					kind: 'place',
					target: { ...base, assistantKey: assistant.assistantApiKey },
					callerId: CALLER,
					destinations: destinations(count),
					batchSize: FANOUT_BATCH,
				};
			},
			after: async (_client, record) => {
				const posts = countRequests(sandbox, 'POST', '/webhook/outbound_call');
				const accepted = countRequests(sandbox, 'POST', '/webhook/outbound_call', 200);
				if (accepted !== record.output.items) throw new Error(`${accepted} POSTs accepted, ${record.output.items} items`);
				return { posts, accepted, callsPerSecond: round(record.output.items / (record.ms / 1000), 1) };
			},
		});
		results.push({ case: 'fanout', n: FANOUT_CALLS, latencyMs: latency, batchSize: FANOUT_BATCH, clients: stats });
	}
	sandbox.reset();
	return results;
}

// ------------------------------------------------------------------------------------------ case 3

/** Small deterministic PRNG (mulberry32), so every bench run uses the same persist delays. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

async function caseStatus(sandbox: PlatformSandbox, base: Omit<Target, 'assistantKey'>): Promise<ScenarioResult[]> {
	const persistAt = new Map<string, number>();
	const placedIds: string[] = [];
	const stats = await runScenario({
		id: 'status',
		label: `Case 3, status wait for ${STATUS_CALLS} calls, persist delays 0-${STATUS_MAX_PERSIST_DELAY_MS} ms`,
		clients: ['ours', 'oursBatch'],
		before: async (_client, run, warmup) => {
			sandbox.reset();
			const assistant = sandbox.createAssistant({ name: 'Bench Caller', number: CALLER });
			const count = warmup ? 10 : STATUS_CALLS;
			const random = prng(1000 + Math.max(0, run));
			const numbers = destinations(count);
			for (const dst of numbers) {
				const delay = warmup ? 100 : Math.round(random() * STATUS_MAX_PERSIST_DELAY_MS);
				sandbox.setDialOutcome({ dst, dialstatus: 'ANSWER', ringMs: 300, durationSec: 1, persistDelayMs: delay });
			}
			placedIds.length = 0;
			persistAt.clear();
			await Promise.all(
				numbers.map(async (dst) => {
					const res = await request(`${base.url}/webhook/outbound_call`, {
						method: 'POST',
						headers: { 'x-apikey-secret-service': base.outboundKey, 'content-type': 'application/json' },
						body: JSON.stringify({ dst, callerId: CALLER, assistantApiKey: assistant.assistantApiKey }),
					});
					const body = (await res.body.json()) as { internal_id: string };
					placedIds.push(body.internal_id);
				}),
			);
			for (const id of placedIds) persistAt.set(id, sandbox.state.calls.get(id)!.persistAt);
			sandbox.clearJournal();
			return {
				kind: 'status',
				target: { ...base, assistantKey: assistant.assistantApiKey },
				internalIds: [...placedIds],
				batchSize: STATUS_CALLS,
			};
		},
		after: async (_client, record) => {
			const lastPersist = Math.max(...persistAt.values());
			const ideal = Math.max(0, lastPersist - record.startedAt);
			if (record.output.items !== placedIds.length) throw new Error(`${record.output.items} of ${placedIds.length} records read`);
			return {
				statusRequests: countRequests(sandbox, 'GET', '/getDialstatus/'),
				notFound: countRequests(sandbox, 'GET', '/getDialstatus/', 404),
				idealMs: Math.round(ideal),
				overshootMs: Math.round(record.ms - ideal),
			};
		},
	});
	sandbox.reset();
	return [{ case: 'status', n: STATUS_CALLS, latencyMs: 0, maxPersistDelayMs: STATUS_MAX_PERSIST_DELAY_MS, clients: stats }];
}

// ------------------------------------------------------------------------------------------ case 6

/** Assistant → Create for CREATE_ITEMS items: a write operation per item, through the node's router. */
async function caseCreate(sandbox: PlatformSandbox, base: Target): Promise<ScenarioResult[]> {
	const stats = await runScenario({
		id: 'create',
		label: `Case 6, Assistant → Create for ${CREATE_ITEMS} items`,
		clients: ['ours', 'oursBatch', 'rawUndici', 'http'],
		before: async () => {
			sandbox.reset();
			sandbox.clearJournal();
			const names = Array.from({ length: CREATE_ITEMS }, (_v, i) => `Bench assistant ${i}`);
			return { kind: 'create', target: base, names, batchSize: FANOUT_BATCH };
		},
		after: async (_client, record) => {
			const created = countRequests(sandbox, 'POST', '/api/v1/assistants', 201);
			if (created !== CREATE_ITEMS || record.output.items !== CREATE_ITEMS) {
				throw new Error(`${created} POSTs created an assistant, ${record.output.items} items of ${CREATE_ITEMS}`);
			}
			return { posts: countRequests(sandbox, 'POST', '/api/v1/assistants'), created };
		},
	});
	sandbox.reset();
	return [{ case: 'create', n: CREATE_ITEMS, latencyMs: 0, batchSize: FANOUT_BATCH, clients: stats }];
}

// ------------------------------------------------------------------------------------------ case 7

/**
 * Calls in flight: Place Call with Max Calls in Flight N against an account that allows N calls at once,
 * calls of 50 to 85 s (sandbox time). Ideal: N lines always busy, N x 60 / T calls a minute for a mean call
 * length T; measured: calls over the time from the first call's start to the last call's end (sandbox time),
 * which with perfect packing is calls x T / N.
 */
async function caseDial(sandbox: PlatformSandbox, base: Omit<Target, 'assistantKey'>): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const cap of DIAL_CAPS) {
		const calls = cap * DIAL_CALLS_PER_LINE;
		const stats = await runScenario({
			id: `dial-${cap}`,
			label: `Case 7, Max Calls in Flight ${cap}, ${calls} calls of ${DIAL_CALL_SEC.join('-')} s (clock ${DIAL_SPEED}x)`,
			clients: ['ours'],
			runs: Math.min(RUNS, 3),
			before: async (_client, run, warmup) => {
				sandbox.reset();
				const assistant = sandbox.createAssistant({ name: 'Bench Caller', number: CALLER });
				sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: DIAL_CALL_SEC, persistDelayMs: 0 });
				sandbox.setAccountLimit(cap);
				sandbox.clearJournal();
				sandbox.clearCallJournal();
				return {
					kind: 'dial',
					target: { ...base, assistantKey: assistant.assistantApiKey },
					callerId: CALLER,
					// Other numbers every run: each call's length is drawn from the range per number.
					destinations: destinations(warmup ? cap * 2 : calls, 100_000 * (run + 2)),
					cap,
					intervalSeconds: DIAL_INTERVAL_SEC,
				};
			},
			after: async (_client, record) => {
				const { calls: made, refusals } = sandbox.callJournal;
				if (record.output.items !== made.length) throw new Error(`${record.output.items} calls ended in the output, ${made.length} placed`);
				const inFlight = maxInFlight(made);
				if (inFlight > cap || refusals.length > 0) throw new Error(`${inFlight} calls at once, ${refusals.length} refused (cap ${cap})`);
				const start = Math.min(...made.map((c) => c.startedAt));
				const end = Math.max(...made.map((c) => c.endedAt));
				const meanMs = made.reduce((sum, c) => sum + (c.endedAt - c.startedAt), 0) / made.length;
				const perMinute = (made.length * 60_000) / (end - start);
				const ideal = (cap * 60_000) / meanMs;
				return {
					calls: made.length,
					meanCallSec: round(meanMs / 1000, 1),
					callsPerMinute: round(perMinute, 2),
					idealPerMinute: round(ideal, 2),
					ofIdeal: round(perMinute / ideal, 3),
					statusReadsPerCall: round(countRequests(sandbox, 'GET', '/getDialstatus/') / made.length, 1),
					maxInFlight: inFlight,
				};
			},
		});
		results.push({ case: 'dial', n: calls, latencyMs: 0, cap, speed: DIAL_SPEED, intervalSeconds: DIAL_INTERVAL_SEC, clients: stats });
	}
	sandbox.reset();
	return results;
}

// ------------------------------------------------------------------------------------------ case 5

function casePackage(): BenchResults['package'] {
	log('Case 5, package cost: npm run build, npm pack --dry-run, require time');
	const npmEnv = { ...process.env };
	for (const key of Object.keys(npmEnv)) if (key.startsWith('npm_')) delete npmEnv[key];
	const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, env: npmEnv, encoding: 'utf8' });
	if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, env: npmEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
	) as Array<{ size: number; unpackedSize: number; entryCount: number; filename: string }>;
	const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const files = [...manifest.n8n.credentials, ...manifest.n8n.nodes].map((f) => join(ROOT, f));
	// In a fresh process: load n8n-workflow first (n8n has it loaded already), then time requiring every
	// node and credential file and constructing each exported class, as n8n's loader does.
	const script = `
		const t0 = process.hrtime.bigint();
		require(${JSON.stringify(require.resolve('n8n-workflow', { paths: [ROOT] }))});
		const t1 = process.hrtime.bigint();
		for (const file of ${JSON.stringify(files)}) {
			const mod = require(file);
			for (const value of Object.values(mod)) if (typeof value === 'function') new value();
		}
		const t2 = process.hrtime.bigint();
		process.stdout.write(JSON.stringify({ workflowMs: Number(t1 - t0) / 1e6, oursMs: Number(t2 - t1) / 1e6 }));
	`;
	const runs: Array<{ workflowMs: number; oursMs: number; processMs: number }> = [];
	for (let i = -1; i < RUNS; i++) {
		const t = process.hrtime.bigint();
		const out = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
		const processMs = Number(process.hrtime.bigint() - t) / 1e6;
		if (i >= 0) runs.push({ ...(JSON.parse(out) as { workflowMs: number; oursMs: number }), processMs });
	}
	const result = {
		tarballBytes: packed[0].size,
		unpackedBytes: packed[0].unpackedSize,
		files: packed[0].entryCount,
		requireFiles: files.length,
		requireOursMedianMs: round(median(runs.map((r) => r.oursMs)), 1),
		requireN8nWorkflowMedianMs: round(median(runs.map((r) => r.workflowMs)), 1),
		processMedianMs: round(median(runs.map((r) => r.processMs)), 1),
		runs,
	};
	log(`  tarball ${result.tarballBytes} B, ${result.files} files; require ours ${result.requireOursMedianMs} ms (n8n-workflow ${result.requireN8nWorkflowMedianMs} ms)`);
	return result;
}

// ------------------------------------------------------------------------------------------ main

function versionOf(pkg: string, from = ROOT): string {
	try {
		return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`, { paths: [from] }), 'utf8')) as { version: string }).version;
	} catch {
		return 'not installed';
	}
}

function gitRevision(): string {
	try {
		const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
		const dirty = execFileSync('git', ['status', '--porcelain', '--', 'nodes', 'credentials'], { cwd: ROOT, encoding: 'utf8' }).trim();
		return dirty ? `${rev} (nodes/credentials modified)` : rev;
	} catch {
		return 'unknown';
	}
}

/** `node .build/bench/run.js --report`: re-renders docs/performance.md from results.json (+ results-e2e.json). */
function reportOnly(): void {
	const resultsFile = join(RESULTS_DIR, 'results.json');
	const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
	const triggerFile = join(RESULTS_DIR, 'results-e2e.json');
	if (existsSync(triggerFile)) results.trigger = JSON.parse(readFileSync(triggerFile, 'utf8')) as BenchResults['trigger'];
	writeFileSync(resultsFile, JSON.stringify(results, null, '\t') + '\n');
	updatePerformanceDoc(join(ROOT, 'docs', 'performance.md'), renderMarkdown(results));
	log(`re-rendered docs/performance.md from ${resultsFile}`);
}

async function main(): Promise<void> {
	if (process.argv.includes('--report')) return reportOnly();
	const started = Date.now();
	const nodesBase = nodesBaseDir();
	if (!nodesBase) {
		throw new Error(
			'n8n-nodes-base is not installed. Run `npm run n8n:install` (the pinned n8n of the e2e tooling), or install only the ' +
				'nodes: `npm install --prefix .tools/bench-nodes-base --ignore-scripts --no-audit --no-fund n8n-nodes-base@2.41.1`.',
		);
	}
	const results: BenchResults = {
		generatedAt: new Date().toISOString(),
		durationSec: 0,
		settings: { runs: RUNS, warmups: 1, shortRuns: SHORT_RUNS, shortWarmups: SHORT_WARMUPS, shortListMax: SHORT_LIST_MAX, pageSize: PAGE_SIZE, latenciesMs: LATENCIES, fanoutBatchSize: FANOUT_BATCH },
		machine: {
			nproc: os.availableParallelism(),
			cpu: os.cpus()[0]?.model ?? 'unknown',
			memoryGB: round(os.totalmem() / 1024 ** 3, 1),
			node: process.version,
			platform: `${os.platform()} ${os.release()}`,
			loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
		},
		versions: {
			package: (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
			revision: gitRevision(),
			'n8n-core': versionOf('n8n-core'),
			'n8n-workflow': versionOf('n8n-workflow'),
			'n8n-nodes-base': versionOf('n8n-nodes-base', resolve(nodesBase, '..', '..')),
			undici: versionOf('undici'),
		},
		nodesBaseDir: nodesBase.replace(ROOT + '/', ''),
		list: [],
		fanout: [],
		status: [],
		create: [],
		dial: [],
	};

	if (CASES.has('1') || CASES.has('2')) {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'manual', seed: { demo: false } });
		const base = { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey };
		try {
			if (CASES.has('1')) results.list = await caseList(sandbox, { ...base, assistantKey: '' });
			if (CASES.has('2')) results.fanout = await caseFanout(sandbox, base);
		} finally {
			await sandbox.stop();
		}
	}
	if (CASES.has('3')) {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'real', seed: { demo: false } });
		try {
			results.status = await caseStatus(sandbox, { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey });
		} finally {
			await sandbox.stop();
		}
	}
	if (CASES.has('6')) {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'manual', seed: { demo: false } });
		try {
			results.create = await caseCreate(sandbox, { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey, assistantKey: '' });
		} finally {
			await sandbox.stop();
		}
	}
	if (CASES.has('7')) {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'real', clockSpeed: DIAL_SPEED, seed: { demo: false } });
		try {
			results.dial = await caseDial(sandbox, { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey });
		} finally {
			await sandbox.stop();
		}
	}
	if (CASES.has('5')) results.package = casePackage();
	if (CASES.has('8')) {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'real', seed: { deterministic: true } });
		try {
			const durable = await caseDurable(sandbox, SIZES);
			mkdirSync(RESULTS_DIR, { recursive: true });
			writeFileSync(join(RESULTS_DIR, 'durable.json'), JSON.stringify({ measuredAt: new Date().toISOString(), loadAverage: os.loadavg(), durable }, null, '\t') + '\n');
		} finally {
			await sandbox.stop();
		}
		if (CASES.size === 1) return log(`case 8 done: ${join(RESULTS_DIR, 'durable.json')}`);
	}

	// Case 4 is measured by `npm run bench:e2e` and merged from its own results file when present.
	const triggerFile = join(RESULTS_DIR, 'results-e2e.json');
	if (existsSync(triggerFile)) results.trigger = JSON.parse(readFileSync(triggerFile, 'utf8')) as BenchResults['trigger'];

	results.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));
	results.durationSec = Math.round((Date.now() - started) / 1000);
	const markdown = renderMarkdown(results);
	if (process.env.BENCH_NO_WRITE) {
		console.log(markdown);
		return;
	}
	if (process.env.BENCH_OUT) {
		const file = resolve(process.env.BENCH_OUT);
		mkdirSync(resolve(file, '..'), { recursive: true });
		writeFileSync(file, JSON.stringify(results, null, '\t') + '\n');
		writeFileSync(file.replace(/\.json$/, '') + '.md', markdown + '\n');
		log(`done in ${results.durationSec} s: ${file}`);
		return;
	}
	const resultsFile = join(RESULTS_DIR, 'results.json');
	const partial = ALL_CASES.split(',').some((c) => !CASES.has(c));
	const merged = partial && existsSync(resultsFile);
	if (merged) {
		// A partial run (BENCH_CASES) keeps the other cases of the previous full run.
		const previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as BenchResults;
		if (!CASES.has('1')) results.list = previous.list;
		if (!CASES.has('2')) results.fanout = previous.fanout;
		if (!CASES.has('3')) results.status = previous.status;
		if (!CASES.has('5')) results.package = previous.package;
		if (!CASES.has('6')) results.create = previous.create ?? [];
		if (!CASES.has('7')) results.dial = previous.dial ?? [];
	}
	mkdirSync(RESULTS_DIR, { recursive: true });
	writeFileSync(resultsFile, JSON.stringify(results, null, '\t') + '\n');
	writeFileSync(join(RESULTS_DIR, 'performance.md'), renderMarkdown(results) + '\n');
	if ((partial && !merged) || !results.trigger) {
		log(`done in ${results.durationSec} s: ${RESULTS_DIR}; docs/performance.md left as it is (it takes every case: npm run bench:e2e, then npm run bench)`);
		return;
	}
	updatePerformanceDoc(join(ROOT, 'docs', 'performance.md'), renderMarkdown(results));
	log(`done in ${results.durationSec} s: ${RESULTS_DIR}, docs/performance.md`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
