/** `npm run bench` (docs/performance.md, "How it works"): the sandbox in this process, each client in one of its own (clients.ts). */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { PlatformSandbox } from '../sandbox';
import type { SandboxOptions } from '../sandbox';
import { pick } from '../sandbox/network';
import type { ClientName, RunOutput, RunSpec, Target } from './clients';
import { CASE_KEYS, casePackage, newResults, report, write } from './context';
import { caseDurable, caseDurableShipped } from './durable';
import { logger, nodesBaseDir, options, RESULTS_DIR, runMain, writeJson } from './paths';
import { median, round } from './report';
import type { ClientStats, ScenarioResult } from './results';

const log = logger('bench');
/** A BENCH_ setting's comma-separated values. */
const setting = (name: string, fallback: string): string[] =>
	(process.env[`BENCH_${name}`] || fallback).split(',').flatMap((value) => value.trim() || []);
const numbers = (name: string, fallback: string): number[] => setting(name, fallback).map(Number);
const given = options('BENCH_', { RUNS: 5, SHORT_RUNS: 21 });
const RUNS = Math.max(1, given.RUNS);
const [SIZES, LATENCIES] = [numbers('SIZES', '1000,10000,100000'), numbers('LATENCIES', '0,20')];
const [CASES, ONLY_CLIENTS] = [setting('CASES', Object.keys(CASE_KEYS).join(',')), setting('CLIENTS', '')];
const [VARIANTS, PROFILE_DIR] = [setting('VARIANTS', '').map((v) => v.split('=')), process.env.BENCH_PROFILE];
/** The settings recorded. Return All of up to shortListMax (20 to 150 ms a run): 5 runs after one warm-up measure the JIT and the noise more than the clients. */
const SETTINGS = {
	runs: RUNS,
	warmups: 1,
	shortRuns: Math.max(RUNS, given.SHORT_RUNS),
	shortWarmups: 3,
	shortListMax: 10000,
	pageSize: 500,
	latenciesMs: LATENCIES,
	fanoutBatchSize: 50,
};
const [CALLER, FANOUT_CALLS, STATUS_CALLS, MAX_PERSIST_DELAY_MS, CREATE_ITEMS] = ['+390212345678', 1000, 100, 4000, 1000] as const;

/** A worker's answer to a run, with the checks `after` read. */
type RunRecord = { ms: number; cpuMs: number; output: RunOutput; startedAt: number; maxRssMB: number; checks: Record<string, number> };
/** Runs and warm-ups: RUNS and SETTINGS.warmups unless given; before: prepares the sandbox, says what to run; after: checks the run, reads the sandbox. */
type Scenario = {
	result: Omit<ScenarioResult, 'clients'>;
	clients: ClientName[];
	runs?: number;
	warmups?: number;
	before: (run: number, warmup: boolean) => RunSpec | Promise<RunSpec>;
	after: (record: RunRecord) => Record<string, number>;
};
/** A worker's next message (its answer to `spec` if given); an error if it failed or exited. */
async function answer(child: ChildProcess, spec?: RunSpec): Promise<any> {
	if (spec) child.send(spec);
	const [message] = await once(child, 'message');
	if (message.error) throw new Error(message.error);
	return message;
}
/** A worker of this client, loaded; with our node and credentials from `sourceRoot` (a BENCH_VARIANTS copy) if given. */
async function start(client: ClientName, id: string, variant?: string, sourceRoot?: string) {
	const execArgv = ['--max-old-space-size=4096'];
	const profile = [id, variant, client].filter(Boolean).join('-');
	if (PROFILE_DIR && !client.startsWith('raw'))
		execArgv.push('--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`, `--cpu-prof-name=${profile}.cpuprofile`);
	const env = { ...process.env, BENCH_SOURCE_ROOT: sourceRoot && resolve(sourceRoot) };
	const child = fork(join(__dirname, 'clients.js'), [client], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	const exited = once(child, 'exit').then(([code]) => child.emit('message', { error: `worker exited with ${code}` }));
	const ready: { rssMB: number; detail: Record<string, unknown> } = await answer(child);
	return { key: variant ? `${client}@${variant}` : client, child, exited, ready, records: [] as RunRecord[] };
}
type Client = Awaited<ReturnType<typeof start>>;
/** Every client (our node's once more per BENCH_VARIANTS copy) in a worker of its own, round robin, the order rotated every round. */
async function runScenario(sandbox: PlatformSandbox, scenario: Scenario): Promise<Record<string, ClientStats>> {
	const { result, warmups = SETTINGS.warmups, runs = RUNS } = scenario;
	const names = scenario.clients.filter((c) => !ONLY_CLIENTS.length || ONLY_CLIENTS.includes(c));
	const id = `${result.case}-${result.n}-${result.latencyMs}ms`;
	log(`${id}: ${names.join(', ')}`);
	const clients: Client[] = [];
	try {
		for (const name of names) {
			clients.push(await start(name, id));
			if (name.startsWith('ours')) for (const [variant, dir] of VARIANTS) clients.push(await start(name, id, variant, dir));
		}
		for (let run = -warmups; run < runs; run++) {
			for (const client of clients.map((_c, i) => clients[(i + Math.max(0, run)) % clients.length])) {
				const spec = await scenario.before(run, run < 0);
				sandbox.clearJournal();
				sandbox.setLatency(run < 0 ? 0 : result.latencyMs);
				const record: RunRecord = await answer(client.child, spec);
				client.records.push({ ...record, checks: scenario.after(record) });
			}
		}
	} finally {
		for (const { child } of clients) if (child.connected) child.disconnect();
		await Promise.all(clients.map((client) => client.exited));
	}
	return Object.fromEntries(clients.map((client) => [client.key, statsOf(client, warmups)]));
}
/** A client's stats: medians and runs of wall and CPU time, the checks per run, its memory (the last run's maxRSS is the peak). */
function statsOf({ key, ready, records }: Client, warmups: number): ClientStats {
	const [warm, runs] = [records[warmups - 1], records.slice(warmups)];
	const [wall, cpu] = [runs.map((r) => r.ms), runs.map((r) => r.cpuMs)];
	const checks = Object.fromEntries(Object.keys(runs[0]?.checks ?? {}).map((name) => [name, runs.map((r) => r.checks[name])]));
	const stats: ClientStats = {
		medianMs: round(median(wall), 2),
		runsMs: wall.map((v) => round(v, 2)),
		medianCpuMs: round(median(cpu), 2),
		runsCpuMs: cpu.map((v) => round(v, 2)),
		warmupMs: round(warm.ms, 2),
		items: runs.map((r) => r.output.items),
		outputItems: runs[0]?.output.outputItems ?? 0,
		checks,
		baselineRssMB: ready.rssMB,
		peakRssMB: (runs.at(-1) ?? warm).maxRssMB,
		detail: ready.detail,
	};
	const facts = Object.entries(checks).map(([name, values]) => `${name}=${values.join('/')}`);
	log(`  ${key.padEnd(20)} median ${stats.medianMs} ms (CPU ${stats.medianCpuMs} ms), runs ${stats.runsMs.join(' ')}; ${facts.join(' ')}`);
	return stats;
}

/** Requests in the sandbox journal with this method and path prefix: all of them, and those answered `status`. */
function requests(sandbox: PlatformSandbox, method: string, prefix: string, status?: number): [number, number] {
	const sent = sandbox.journal.filter((e) => e.method === method && e.path.startsWith(prefix));
	return [sent.length, sent.filter((e) => e.status === status).length];
}
const destinations = (count: number, offset = 0): string[] =>
	Array.from({ length: count }, (_v, i) => `+1415${String(5_000_000 + offset + i).padStart(7, '0')}`);
/** The sandbox reset, with one caller assistant; the target with its key. */
function withCaller(sandbox: PlatformSandbox, base: Target): Target {
	sandbox.reset();
	return { ...base, assistantKey: sandbox.createAssistant({ name: 'Bench Caller', number: CALLER }).assistantApiKey };
}
const LIST_CLIENTS: ClientName[] = ['ours', 'helperLoop', 'http', 'httpSplitOut', 'rawUndici', 'rawUndiciGlobal'];
/** Case 1: Return All of each size at each added latency; the warm-up only warms the code, without added latency (saves ~25 s at 100,000). */
function* caseList(sandbox: PlatformSandbox, target: Target): Iterable<Scenario> {
	for (const n of SIZES) {
		sandbox.reset();
		sandbox.seed({ assistants: n });
		for (const latency of LATENCIES)
			yield {
				result: { case: 'list', n, latencyMs: latency, expectedRequests: Math.ceil(n / SETTINGS.pageSize) },
				clients: LIST_CLIENTS.filter((c) => latency === 0 || (c !== 'httpSplitOut' && c !== 'rawUndiciGlobal')),
				...(n <= SETTINGS.shortListMax ? { runs: SETTINGS.shortRuns, warmups: SETTINGS.shortWarmups } : {}),
				before: () => ({ kind: 'list', target, values: [], pageSize: SETTINGS.pageSize }),
				after: ({ output }) => {
					if (output.items !== n) throw new Error(`list returned ${output.items} of ${n}`);
					const non200 = sandbox.journal.filter((e) => e.status !== 200).length;
					return { requests: requests(sandbox, 'GET', '/api/v1/assistants')[0], non200 };
				},
			};
	}
}
/** Case 2: Place Call for FANOUT_CALLS items at each added latency; the warm-up without it (a sequential one at +20 ms takes 23 s). */
function* caseFanout(sandbox: PlatformSandbox, base: Target): Iterable<Scenario> {
	const batchSize = SETTINGS.fanoutBatchSize;
	for (const latency of LATENCIES)
		yield {
			result: { case: 'fanout', n: FANOUT_CALLS, latencyMs: latency, batchSize },
			clients: ['ours', 'oursBatch', 'rawUndici', 'rawUndiciConcurrent', 'http'],
			before: () => ({ kind: 'place', target: withCaller(sandbox, base), callerId: CALLER, values: destinations(FANOUT_CALLS), batchSize }),
			after: ({ output, ms }) => {
				const [posts, accepted] = requests(sandbox, 'POST', '/webhook/outbound_call', 200);
				if (accepted !== output.items) throw new Error(`${accepted} POSTs accepted, ${output.items} items`);
				return { posts, accepted, callsPerSecond: round(output.items / (ms / 1000), 1) };
			},
		};
}
/** Case 3: Call Status → Get with Wait for Call Record, for calls whose records are persisted at delays drawn per run and number. */
function* caseStatus(sandbox: PlatformSandbox, base: Target): Iterable<Scenario> {
	const calls = () => [...sandbox.state.calls.values()];
	yield {
		result: { case: 'status', n: STATUS_CALLS, latencyMs: 0, maxPersistDelayMs: MAX_PERSIST_DELAY_MS },
		clients: ['ours', 'oursBatch'],
		before: async (run, warmup) => {
			const target = withCaller(sandbox, base);
			const headers = { 'x-apikey-secret-service': target.outboundKey, 'content-type': 'application/json' };
			const place = async (dst: string) => {
				const persistDelayMs = warmup ? 100 : Math.round(pick([0, MAX_PERSIST_DELAY_MS], 0, `${run} ${dst}`));
				sandbox.setDialOutcome({ dst, dialstatus: 'ANSWER', ringMs: 300, durationSec: 1, persistDelayMs });
				const body = JSON.stringify({ dst, callerId: CALLER, assistantApiKey: target.assistantKey });
				await (await fetch(`${target.url}/webhook/outbound_call`, { method: 'POST', headers, body })).arrayBuffer();
			};
			await Promise.all(destinations(warmup ? 10 : STATUS_CALLS).map(place));
			return { kind: 'status', target, values: calls().map((call) => call.internalId), batchSize: STATUS_CALLS };
		},
		after: ({ output, ms, startedAt }) => {
			const placed = calls();
			const ideal = Math.max(0, ...placed.map((call) => call.persistAt - startedAt));
			if (output.items !== placed.length) throw new Error(`${output.items} of ${placed.length} records read`);
			const [statusRequests, notFound] = requests(sandbox, 'GET', '/getDialstatus/', 404);
			return { statusRequests, notFound, idealMs: Math.round(ideal), overshootMs: Math.round(ms - ideal) };
		},
	};
}
/** Case 6: Assistant → Create for CREATE_ITEMS items: a write operation per item, through the node's router. */
function* caseCreate(sandbox: PlatformSandbox, target: Target): Iterable<Scenario> {
	const [values, batchSize] = [Array.from({ length: CREATE_ITEMS }, (_v, i) => `Bench assistant ${i}`), SETTINGS.fanoutBatchSize];
	yield {
		result: { case: 'create', n: CREATE_ITEMS, latencyMs: 0, batchSize },
		clients: ['ours', 'oursBatch', 'rawUndici', 'http'],
		before: () => {
			sandbox.reset();
			return { kind: 'create', target, values, batchSize };
		},
		after: ({ output }) => {
			const [posts, created] = requests(sandbox, 'POST', '/api/v1/assistants', 201);
			if (created !== CREATE_ITEMS || output.items !== CREATE_ITEMS)
				throw new Error(`${created} POSTs created an assistant, ${output.items} items of ${CREATE_ITEMS}`);
			return { posts, created };
		},
	};
}
/** The cases made of scenarios, in the order run, each on a sandbox of its own with these options. */
const SCENARIO_CASES = [
	['1', {}, caseList],
	['2', {}, caseFanout],
	['3', { clock: 'real' }, caseStatus],
	['6', {}, caseCreate],
] as const;
async function withSandbox<T>(sandboxOptions: SandboxOptions, run: (sandbox: PlatformSandbox, base: Target) => Promise<T>): Promise<T> {
	const sandbox = await PlatformSandbox.start({ port: 0, clock: 'manual', seed: { demo: false }, ...sandboxOptions });
	const base = { url: sandbox.url, portalKey: sandbox.portalKey, outboundKey: sandbox.outboundKey, assistantKey: '' };
	return run(sandbox, base).finally(() => sandbox.stop());
}

/** The named cases: 1, 2, 3, 6, then 5 (context.ts) and 8 (durable.ts, written apart); results.json unless only 8. */
async function main(): Promise<void> {
	if (process.argv.includes('--report')) return report();
	const [started, nodesBase] = [Date.now(), nodesBaseDir()];
	if (!nodesBase) throw new Error('n8n-nodes-base is not installed: run `npm run n8n:install` (the pinned n8n of the e2e tooling)');
	const results = newResults(nodesBase, SETTINGS);
	for (const [c, sandboxOptions, scenarios] of SCENARIO_CASES) {
		if (!CASES.includes(c)) continue;
		results[CASE_KEYS[c]] = await withSandbox(sandboxOptions, async (sandbox, base) => {
			const done: ScenarioResult[] = [];
			for (const scenario of scenarios(sandbox, base)) done.push({ ...scenario.result, clients: await runScenario(sandbox, scenario) });
			return done;
		});
	}
	if (CASES.includes('5')) results.package = casePackage(RUNS);
	if (CASES.includes('8') && process.env.BENCH_DURABLE_SHIPPED) {
		const [size, idleMinutes] = [Number(process.env.BENCH_DURABLE_SHIPPED_SIZE ?? 40), Number(process.env.BENCH_DURABLE_IDLE_MINUTES ?? 5)];
		const shipped = await withSandbox({ clock: 'real', seed: { deterministic: true } }, (sandbox) => caseDurableShipped(sandbox, size, idleMinutes));
		writeJson(join(RESULTS_DIR, 'durable-shipped.json'), { measuredAt: new Date().toISOString(), loadAverage: os.loadavg(), shipped });
		if (CASES.length === 1) return log(`case 8 (as shipped) done: ${join(RESULTS_DIR, 'durable-shipped.json')}`);
	} else if (CASES.includes('8')) {
		const durable = await withSandbox({ clock: 'real', seed: { deterministic: true } }, (sandbox) => caseDurable(sandbox, SIZES));
		writeJson(join(RESULTS_DIR, 'durable.json'), { measuredAt: new Date().toISOString(), loadAverage: os.loadavg(), durable });
		if (CASES.length === 1) return log(`case 8 done: ${join(RESULTS_DIR, 'durable.json')}`);
	}
	results.machine.loadAverageAtEnd = os.loadavg().map((v) => round(v, 2));
	results.durationSec = Math.round((Date.now() - started) / 1000);
	write(results, CASES);
}

runMain(main);
