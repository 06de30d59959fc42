/** `npm run bench` (docs/performance.md, "How it works"): the sandbox in this process, each client in one of its own (clients.ts). */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { maxInFlight, PlatformSandbox } from '../sandbox';
import type { SandboxOptions } from '../sandbox';
import type { ClientName, RunOutput, RunSpec, Target } from './clients';
import { caseDurable } from './durable';
import { logger, nodesBaseDir, RESULTS_DIR, runMain, writeJson } from './paths';
import { median, renderMarkdown, round, updatePerformanceDoc } from './report';
import type { BenchResults, ClientStats, ScenarioResult } from './results';
import { casePackage, DOC, newResults, readResults, RESULTS_FILE, withTrigger, write } from './context';

const list = (name: string, value: string): string[] => (process.env[name] ?? value).split(',').map((s) => s.trim());
const [RUNS, PROFILE_DIR] = [
	Math.max(1, Number(process.env.BENCH_RUNS ?? 5)),
	process.env.BENCH_PROFILE && resolve(process.env.BENCH_PROFILE),
];
const [VARIANTS, ONLY_CLIENTS] = [
	list('BENCH_VARIANTS', '')
		.filter(Boolean)
		.map((entry) => entry.split('=')),
	process.env.BENCH_CLIENTS ? list('BENCH_CLIENTS', '') : undefined,
];
const log = logger('bench');
/** Return All of up to SHORT_LIST_MAX (20 to 150 ms a run): 5 runs after one warm-up measure the JIT and the noise more than the clients. */
const [SHORT_RUNS, SHORT_WARMUPS, SHORT_LIST_MAX] = [Math.max(RUNS, Number(process.env.BENCH_SHORT_RUNS ?? 21)), 3, 10000];
/** Case 4 is `npm run bench:e2e`; case 8 (durable.ts) runs only when named. */
const ALL_CASES = '1,2,3,5,6,7';
const CASES = new Set(list('BENCH_CASES', ALL_CASES));
const [SIZES, LATENCIES, DIAL_CAPS] = [
	list('BENCH_SIZES', '1000,10000,100000'),
	list('BENCH_LATENCIES', '0,20'),
	list('BENCH_DIAL_CAPS', '5,20'),
].map((l) => l.map(Number));
const [PAGE_SIZE, CALLER, FANOUT_CALLS, FANOUT_BATCH, STATUS_CALLS, CREATE_ITEMS, STATUS_MAX_PERSIST_DELAY_MS] = [
	500,
	'+390212345678',
	1000,
	50,
	100,
	1000,
	4000,
] as const;
/** Case 7: calls of 50 to 85 s (a sales campaign's) on a clock DIAL_SPEED times faster, each line used DIAL_CALLS_PER_LINE times a run; the default Status Check Interval (5 s) scaled alike. */
const [DIAL_SPEED, DIAL_CALL_SEC, DIAL_CALLS_PER_LINE, DIAL_INTERVAL_SEC] = [60, [50, 85] as [number, number], 20, 5 / 60];
type RunRecord = { ms: number; cpuMs: number; output: RunOutput; startedAt: number };
/** runs, warmups: RUNS and 1 unless short; before: prepares the sandbox and says what to run; after: reads the sandbox. */
interface Scenario {
	id: string;
	label: string;
	clients: ClientName[];
	runs?: number;
	warmups?: number;
	before: (run: number, warmup: boolean) => Promise<RunSpec>;
	after: (record: RunRecord) => Promise<Record<string, number>>;
}
type Client = {
	key: string;
	child: ChildProcess;
	ready: { rssMB?: number; detail?: Record<string, unknown> };
	warm?: RunRecord;
	runs: Array<RunRecord & { checks: Record<string, number> }>;
	peakRssMB?: number;
};
/** A worker's answer to a message (an error if it exits). */
async function ask(child: ChildProcess, message: object): Promise<any> {
	child.send(message);
	const [reply] = await once(child, 'message');
	if (reply.type === 'error') throw new Error(reply.message);
	return reply;
}
/** A prepared worker for this client; with our node and credentials from `sourceRoot` (a BENCH_VARIANTS copy) if given. */
async function start(key: string, client: ClientName, label: string, sourceRoot?: string): Promise<Client> {
	const execArgv = ['--max-old-space-size=4096'];
	if (PROFILE_DIR && !client.startsWith('raw')) {
		mkdirSync(PROFILE_DIR, { recursive: true });
		execArgv.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${label}-${client}.cpuprofile`);
	}
	const env = sourceRoot ? { ...process.env, BENCH_SOURCE_ROOT: sourceRoot } : process.env;
	const child = fork(join(__dirname, 'clients.js'), [], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	child.on('exit', (code) => child.emit('message', { type: 'error', message: `worker exited with ${code}` }));
	return { key, child, ready: await ask(child, { type: 'prepare', client }), runs: [] };
}
/**
 * Every client of the scenario (our node's once more per BENCH_VARIANTS copy) in a worker process of its own (its own
 * core and peak memory), round robin, the order rotated every round so that load drift hits every client alike.
 */
async function runScenario(scenario: Scenario): Promise<Record<string, ClientStats>> {
	const names = scenario.clients.filter((c) => !ONLY_CLIENTS || ONLY_CLIENTS.includes(c));
	log(`${scenario.label}: ${names.join(', ')}`);
	const clients: Client[] = [];
	for (const name of names) {
		clients.push(await start(name, name, scenario.id));
		if (name.startsWith('ours'))
			for (const [variant, dir] of VARIANTS)
				clients.push(await start(`${name}@${variant}`, name, `${scenario.id}-${variant}`, resolve(dir)));
	}
	try {
		for (let run = -(scenario.warmups ?? 1); run < (scenario.runs ?? RUNS); run++) {
			for (const client of clients.map((_c, i) => clients[(i + Math.max(0, run)) % clients.length])) {
				const { ms, cpuMs, output, startedAt } = await ask(client.child, { type: 'run', spec: await scenario.before(run, run < 0) });
				const record = { ms, cpuMs, output, startedAt };
				const checks = await scenario.after(record);
				if (run < 0) client.warm = record;
				else client.runs.push({ ...record, checks });
			}
		}
	} finally {
		for (const client of clients) {
			client.peakRssMB = (await ask(client.child, { type: 'exit' })).maxRssMB;
			if (client.child.exitCode === null) await once(client.child, 'exit');
		}
	}
	return Object.fromEntries(clients.map((client) => [client.key, statsOf(client)]));
}

function statsOf({ key, ready, warm, runs, peakRssMB }: Client): ClientStats {
	const [wall, cpu] = [runs.map((r) => r.ms), runs.map((r) => r.cpuMs)];
	const checks = Object.fromEntries(Object.keys(runs[0]?.checks ?? {}).map((name) => [name, runs.map((r) => r.checks[name])]));
	const s: ClientStats = {
		medianMs: round(median(wall), 2),
		runsMs: wall.map((v) => round(v, 2)),
		medianCpuMs: round(median(cpu), 2),
		runsCpuMs: cpu.map((v) => round(v, 2)),
		warmupMs: round(warm?.ms ?? NaN, 2),
		items: runs.map((r) => r.output.items),
		outputItems: runs[0]?.output.outputItems ?? 0,
		checks,
		baselineRssMB: ready.rssMB ?? NaN,
		peakRssMB: peakRssMB ?? NaN,
		detail: ready.detail ?? {},
	};
	const facts = Object.entries(checks)
		.map(([k, v]) => `${k}=${v.join('/')}`)
		.join(' ');
	log(
		`  ${key.padEnd(20)} median ${String(s.medianMs).padStart(9)} ms (CPU ${s.medianCpuMs} ms)  runs ${s.runsMs.join(' ')}  ${facts}  peak RSS ${s.peakRssMB} MB`,
	);
	return s;
}

const countRequests = (sandbox: PlatformSandbox, method: string, prefix: string, status?: number): number =>
	sandbox.journal.filter((e) => e.method === method && e.path.startsWith(prefix) && (status === undefined || e.status === status)).length;
const destinations = (count: number, offset = 0): string[] =>
	Array.from({ length: count }, (_v, i) => `+1415${String(5_000_000 + offset + i).padStart(7, '0')}`);
/** The sandbox reset (journals cleared, no latency), with one caller assistant; the target with its key. */
function withCaller(sandbox: PlatformSandbox, base: Target): Target {
	sandbox.reset();
	return { ...base, assistantKey: sandbox.createAssistant({ name: 'Bench Caller', number: CALLER }).assistantApiKey };
}
/** Case 1: Return All of each size at each added latency; the warm-up only warms the code, without added latency (saves ~25 s at 100,000). */
async function caseList(sandbox: PlatformSandbox, target: Target): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const n of SIZES) {
		sandbox.reset();
		sandbox.seed({ assistants: n });
		for (const latency of LATENCIES) {
			const all: ClientName[] = ['ours', 'helperLoop', 'http', 'httpSplitOut', 'rawUndici', 'rawUndiciGlobal'];
			const clients = latency === 0 ? all : all.filter((c) => c !== 'httpSplitOut' && c !== 'rawUndiciGlobal');
			const stats = await runScenario({
				id: `list-${n}-${latency}ms`,
				label: `Case 1, Return All ${n} assistants, +${latency} ms`,
				clients,
				...(n <= SHORT_LIST_MAX ? { runs: SHORT_RUNS, warmups: SHORT_WARMUPS } : {}),
				before: async (_run, warmup) => {
					sandbox.setLatency(warmup ? 0 : latency);
					sandbox.clearJournal();
					return { kind: 'list', target, pageSize: PAGE_SIZE };
				},
				after: async ({ output }) => {
					if (output.items !== n) throw new Error(`list returned ${output.items} of ${n}`);
					return {
						requests: countRequests(sandbox, 'GET', '/api/v1/assistants'),
						non200: sandbox.journal.filter((e) => e.status !== 200).length,
					};
				},
			});
			results.push({ case: 'list', n, latencyMs: latency, expectedRequests: Math.ceil(n / PAGE_SIZE), clients: stats });
		}
	}
	return results;
}
/** Case 2: Place Call for FANOUT_CALLS items at each added latency; the warm-up without it (a sequential one at +20 ms takes 23 s). */
async function caseFanout(sandbox: PlatformSandbox, base: Target): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const latency of LATENCIES) {
		const clients = await runScenario({
			id: `fanout-${latency}ms`,
			label: `Case 2, campaign fan-out ${FANOUT_CALLS} calls, +${latency} ms`,
			clients: ['ours', 'oursBatch', 'rawUndici', 'rawUndiciConcurrent', 'http'],
			before: async (_run, warmup) => {
				const target = withCaller(sandbox, base);
				sandbox.setLatency(warmup ? 0 : latency);
				return { kind: 'place', target, callerId: CALLER, destinations: destinations(FANOUT_CALLS), batchSize: FANOUT_BATCH };
			},
			after: async ({ output, ms }) => {
				const [posts, accepted] = [
					countRequests(sandbox, 'POST', '/webhook/outbound_call'),
					countRequests(sandbox, 'POST', '/webhook/outbound_call', 200),
				];
				if (accepted !== output.items) throw new Error(`${accepted} POSTs accepted, ${output.items} items`);
				return { posts, accepted, callsPerSecond: round(output.items / (ms / 1000), 1) };
			},
		});
		results.push({ case: 'fanout', n: FANOUT_CALLS, latencyMs: latency, batchSize: FANOUT_BATCH, clients });
	}
	return results;
}
/** Small deterministic PRNG (mulberry32), so every bench run uses the same persist delays. */
function prng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = Math.imul(a ^ (a >>> 15), a | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
/** Case 3: Call Status → Get with Wait for Call Record, for calls whose records are persisted at random delays. */
async function caseStatus(sandbox: PlatformSandbox, base: Target): Promise<ScenarioResult[]> {
	const persistAt = new Map<string, number>();
	const place = async (target: Target, dst: string): Promise<void> => {
		const headers = { 'x-apikey-secret-service': base.outboundKey, 'content-type': 'application/json' };
		const res = await request(`${base.url}/webhook/outbound_call`, {
			method: 'POST',
			headers,
			body: JSON.stringify({ dst, callerId: CALLER, assistantApiKey: target.assistantKey }),
		});
		const id = ((await res.body.json()) as { internal_id: string }).internal_id;
		persistAt.set(id, sandbox.state.calls.get(id)!.persistAt);
	};
	const clients = await runScenario({
		id: 'status',
		label: `Case 3, status wait for ${STATUS_CALLS} calls, persist delays 0-${STATUS_MAX_PERSIST_DELAY_MS} ms`,
		clients: ['ours', 'oursBatch'],
		before: async (run, warmup) => {
			const target = withCaller(sandbox, base);
			const [random, numbers] = [prng(1000 + Math.max(0, run)), destinations(warmup ? 10 : STATUS_CALLS)];
			for (const dst of numbers)
				sandbox.setDialOutcome({
					dst,
					dialstatus: 'ANSWER',
					ringMs: 300,
					durationSec: 1,
					persistDelayMs: warmup ? 100 : Math.round(random() * STATUS_MAX_PERSIST_DELAY_MS),
				});
			persistAt.clear();
			await Promise.all(numbers.map((dst) => place(target, dst)));
			sandbox.clearJournal();
			return { kind: 'status', target, internalIds: [...persistAt.keys()], batchSize: STATUS_CALLS };
		},
		after: async ({ output, ms, startedAt }) => {
			const ideal = Math.max(0, Math.max(...persistAt.values()) - startedAt);
			if (output.items !== persistAt.size) throw new Error(`${output.items} of ${persistAt.size} records read`);
			const [statusRequests, notFound] = [
				countRequests(sandbox, 'GET', '/getDialstatus/'),
				countRequests(sandbox, 'GET', '/getDialstatus/', 404),
			];
			return { statusRequests, notFound, idealMs: Math.round(ideal), overshootMs: Math.round(ms - ideal) };
		},
	});
	return [{ case: 'status', n: STATUS_CALLS, latencyMs: 0, maxPersistDelayMs: STATUS_MAX_PERSIST_DELAY_MS, clients }];
}
/** Case 6: Assistant → Create for CREATE_ITEMS items: a write operation per item, through the node's router. */
async function caseCreate(sandbox: PlatformSandbox, target: Target): Promise<ScenarioResult[]> {
	const names = Array.from({ length: CREATE_ITEMS }, (_v, i) => `Bench assistant ${i}`);
	const clients = await runScenario({
		id: 'create',
		label: `Case 6, Assistant → Create for ${CREATE_ITEMS} items`,
		clients: ['ours', 'oursBatch', 'rawUndici', 'http'],
		before: async () => {
			sandbox.reset();
			return { kind: 'create', target, names, batchSize: FANOUT_BATCH };
		},
		after: async ({ output }) => {
			const created = countRequests(sandbox, 'POST', '/api/v1/assistants', 201);
			if (created !== CREATE_ITEMS || output.items !== CREATE_ITEMS)
				throw new Error(`${created} POSTs created an assistant, ${output.items} items of ${CREATE_ITEMS}`);
			return { posts: countRequests(sandbox, 'POST', '/api/v1/assistants'), created };
		},
	});
	return [{ case: 'create', n: CREATE_ITEMS, latencyMs: 0, batchSize: FANOUT_BATCH, clients }];
}
/** Case 7: Place Call with Max Calls in Flight N, an account of N calls at once; ideal N x 60 / T calls a minute (mean call T), measured over first start to last end. */
async function caseDial(sandbox: PlatformSandbox, base: Target): Promise<ScenarioResult[]> {
	const results: ScenarioResult[] = [];
	for (const cap of DIAL_CAPS) {
		const calls = cap * DIAL_CALLS_PER_LINE;
		const clients = await runScenario({
			id: `dial-${cap}`,
			label: `Case 7, Max Calls in Flight ${cap}, ${calls} calls of ${DIAL_CALL_SEC.join('-')} s (clock ${DIAL_SPEED}x)`,
			clients: ['ours'],
			runs: Math.min(RUNS, 3),
			before: async (run, warmup) => {
				const target = withCaller(sandbox, base);
				sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: DIAL_CALL_SEC, persistDelayMs: 0 });
				sandbox.setAccountLimit(cap);
				// Other numbers every run: each call's length is drawn from the range per number.
				return {
					kind: 'dial',
					target,
					callerId: CALLER,
					destinations: destinations(warmup ? cap * 2 : calls, 100_000 * (run + 2)),
					cap,
					intervalSeconds: DIAL_INTERVAL_SEC,
				};
			},
			after: async ({ output }) => {
				const { calls: made, refusals } = sandbox.callJournal;
				const inFlight = maxInFlight(made);
				if (output.items !== made.length) throw new Error(`${output.items} calls ended in the output, ${made.length} placed`);
				if (inFlight > cap || refusals.length > 0) throw new Error(`${inFlight} calls at once, ${refusals.length} refused (cap ${cap})`);
				const span = Math.max(...made.map((c) => c.endedAt)) - Math.min(...made.map((c) => c.startedAt));
				const meanMs = made.reduce((sum, c) => sum + (c.endedAt - c.startedAt), 0) / made.length;
				const [perMinute, ideal, reads] = [
					(made.length * 60_000) / span,
					(cap * 60_000) / meanMs,
					countRequests(sandbox, 'GET', '/getDialstatus/'),
				];
				const rates = { callsPerMinute: round(perMinute, 2), idealPerMinute: round(ideal, 2), ofIdeal: round(perMinute / ideal, 3) };
				return {
					calls: made.length,
					meanCallSec: round(meanMs / 1000, 1),
					...rates,
					statusReadsPerCall: round(reads / made.length, 1),
					maxInFlight: inFlight,
				};
			},
		});
		results.push({ case: 'dial', n: calls, latencyMs: 0, cap, speed: DIAL_SPEED, intervalSeconds: DIAL_INTERVAL_SEC, clients });
	}
	return results;
}
/** The named cases, in the order 1, 2, 3, 6, 7, 5, 8, each on a sandbox of its own (1 and 2 share one). */
async function runCases(results: BenchResults): Promise<void> {
	const withSandbox = async <T>(options: SandboxOptions, run: (sandbox: PlatformSandbox, base: Target) => Promise<T>): Promise<T> => {
		const sandbox = await PlatformSandbox.start({ port: 0, clock: 'manual', seed: { demo: false }, ...options });
		return run(sandbox, { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey, assistantKey: '' }).finally(
			() => sandbox.stop(),
		);
	};
	const has = (c: string): boolean => CASES.has(c);
	if (has('1') || has('2')) {
		await withSandbox({}, async (sandbox, base) => {
			if (has('1')) results.list = await caseList(sandbox, base);
			if (has('2')) results.fanout = await caseFanout(sandbox, base);
		});
	}
	if (has('3')) results.status = await withSandbox({ clock: 'real' }, caseStatus);
	if (has('6')) results.create = await withSandbox({}, caseCreate);
	if (has('7')) results.dial = await withSandbox({ clock: 'real', clockSpeed: DIAL_SPEED }, caseDial);
	if (has('5')) results.package = casePackage(RUNS);
	if (!has('8')) return;
	const durable = await withSandbox({ clock: 'real', seed: { deterministic: true } }, (sandbox) => caseDurable(sandbox, SIZES));
	writeJson(join(RESULTS_DIR, 'durable.json'), { measuredAt: new Date().toISOString(), loadAverage: os.loadavg(), durable });
}

async function main(): Promise<void> {
	if (process.argv.includes('--report')) {
		const results = withTrigger(readResults(RESULTS_FILE));
		writeJson(RESULTS_FILE, results);
		updatePerformanceDoc(DOC, renderMarkdown(results));
		return log(`re-rendered docs/performance.md from ${RESULTS_FILE}`);
	}
	const [started, nodesBase] = [Date.now(), nodesBaseDir()];
	const fallback = '`npm install --prefix .tools/bench-nodes-base --ignore-scripts --no-audit --no-fund n8n-nodes-base@2.41.1`';
	if (!nodesBase)
		throw new Error(
			`n8n-nodes-base is not installed. Run \`npm run n8n:install\` (the pinned n8n of the e2e tooling), or install only the nodes: ${fallback}.`,
		);
	const results = newResults(nodesBase, {
		runs: RUNS,
		warmups: 1,
		shortRuns: SHORT_RUNS,
		shortWarmups: SHORT_WARMUPS,
		shortListMax: SHORT_LIST_MAX,
		pageSize: PAGE_SIZE,
		latenciesMs: LATENCIES,
		fanoutBatchSize: FANOUT_BATCH,
	});
	await runCases(results);
	if (CASES.has('8') && CASES.size === 1) return log(`case 8 done: ${join(RESULTS_DIR, 'durable.json')}`);
	results.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));
	results.durationSec = Math.round((Date.now() - started) / 1000);
	write(withTrigger(results), CASES, ALL_CASES);
}

runMain(main);
