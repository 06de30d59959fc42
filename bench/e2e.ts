/**
 * `npm run bench:e2e`: case 4, trigger intake in a real n8n (2.41.1, the pinned install of the e2e
 * tooling, scripts/n8n-runtime.js). The package is built, packed and installed as a community package.
 *
 * Three published workflows in the same instance:
 *   - Assistant Platform Trigger (Call Result) -> No Operation
 *   - the floor: a minimal community trigger (bench/fixtures/floor-trigger, packed and installed as a second
 *     community package: one static POST webhook, answered on receipt, the body as its item) -> No Operation.
 *     What any community trigger pays in n8n; ours against it is what is ours.
 *   - n8n's Webhook node (POST, respond immediately) -> No Operation
 * Each run POSTs 1,000 call-result bodies ({internal_id, dialstatus, duration}) with 50 in flight to one of them,
 * then waits until n8n has finished the executions of that run. Runs rotate over the three receivers
 * (a warm-up of 100 posts each, then BENCH_RUNS runs each). Reported: intake time (first POST sent to last answer), time until
 * the last execution of the run finished, answers that were not 200, and executions lost (POSTs answered
 * without a successful execution).
 *
 * Writes .build/bench-results/results-e2e.json; `npm run bench` merges it into its results and docs/performance.md.
 *
 * Environment: BENCH_RUNS (default 5), BENCH_POSTS (default 1000), BENCH_CONCURRENCY (default 50),
 * N8N_TOOLS_DIR (see scripts/n8n-install.js), BENCH_KEEP=1 keeps n8n's user folder, BENCH_N8N_NODE_OPTIONS
 * (NODE_OPTIONS for n8n, e.g. to profile it), BENCH_N8N_ENV (extra NAME=value,... for n8n), BENCH_TARBALL (a packed build to install instead of building this
 * one), BENCH_E2E_OUT (results file instead of .build/bench-results/results-e2e.json), BENCH_TRIGGER_VERSION (the trigger's
 * typeVersion in the workflow), BENCH_E2E_ONLY=ours|floor|webhook (post to one receiver only, e.g. to profile).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Agent, request } from 'undici';

import { RESULTS_DIR } from './paths';
import type { TriggerResult } from './report';

const ROOT = resolve(__dirname, '..', '..');
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
const POSTS = Number(process.env.BENCH_POSTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);

/* eslint-disable @typescript-eslint/no-require-imports */
interface N8n {
	url: string;
	createWorkflow(workflow: unknown): Promise<{ id: string }>;
	publishWorkflow(id: string): Promise<unknown>;
	api(method: string, pathname: string, body?: unknown): Promise<{ data: Execution[]; nextCursor?: string | null }>;
	callWebhook(url: string, options: { body: unknown; retryMs: number }): Promise<{ status: number }>;
	stop(): Promise<void>;
	killNow(): void;
	exitInfo?: unknown;
	child: { pid?: number };
}
interface Execution {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt: string | null;
}
const runtime = require(join(ROOT, 'scripts/n8n-runtime.js')) as {
	buildAndPack(options: { log: (line: string) => void }): string;
	startN8n(options: Record<string, unknown>): Promise<N8n>;
	makeLogger(prefix: string): (line: string) => void;
};
const workflows = require(join(ROOT, 'test-e2e/support/workflows.js')) as {
	triggerNode(name: string, parameters: Record<string, unknown>): { name: string; webhookId: string; parameters: Record<string, unknown> };
	noOpNode(name: string): Record<string, unknown>;
	chain(name: string, nodes: unknown[]): unknown;
	triggerUrl(n8n: N8n, trigger: unknown, slug: string): string;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const log = runtime.makeLogger('bench:e2e');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

type ReceiverKey = 'ours' | 'floor' | 'webhook';

interface Receiver {
	key: ReceiverKey;
	workflowId: string;
	url: string;
}

/** CPU time (user + system, ms) n8n's main process has used so far (Linux /proc; NaN elsewhere). */
function n8nCpuMs(n8n: N8n): number {
	try {
		const fields = readFileSync(`/proc/${n8n.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
		const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
		return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
	} catch {
		return NaN;
	}
}

interface RunResult {
	/** n8n's CPU time during the run, per POST: far less sensitive than wall time to other load on the machine. */
	cpuPerPostMs: number;
	intakeMs: number;
	processedMs: number;
	non200: number;
	executions: number;
	lost: number;
}

/** The executions of a workflow that started at or after `since` (the public API lists newest first). */
async function executionsSince(n8n: N8n, workflowId: string, since: number): Promise<Execution[]> {
	const found: Execution[] = [];
	let cursor: string | null | undefined;
	for (;;) {
		const page = await n8n.api(
			'GET',
			`/executions?workflowId=${workflowId}&includeData=false&limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		);
		let older = false;
		for (const execution of page.data) {
			if (Date.parse(execution.startedAt) < since) older = true;
			else found.push(execution);
		}
		if (older || !page.nextCursor) return found;
		cursor = page.nextCursor;
	}
}

async function runOnce(n8n: N8n, receiver: Receiver, dispatcher: Agent, posts: number): Promise<RunResult> {
	const since = Date.now() - 1; // execution timestamps have millisecond precision
	const cpu0 = n8nCpuMs(n8n);
	let next = 0;
	let non200 = 0;
	const t0 = process.hrtime.bigint();
	const lane = async (): Promise<void> => {
		while (next < posts) {
			next++;
			const res = await request(receiver.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ internal_id: randomBytes(16).toString('hex'), dialstatus: 'ANSWER', duration: 42 }),
				dispatcher,
			});
			await res.body.dump();
			if (res.statusCode !== 200) non200++;
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, lane));
	const intakeMs = Number(process.hrtime.bigint() - t0) / 1e6;

	// Wait until every execution of this run has finished (or nothing changes for 15 s).
	let executions: Execution[] = [];
	let stableSince = Date.now();
	let lastCount = -1;
	for (;;) {
		executions = await executionsSince(n8n, receiver.workflowId, since);
		const finished = executions.filter((e) => e.stoppedAt && e.status !== 'running' && e.status !== 'new');
		if (finished.length >= posts && finished.length === executions.length) break;
		if (executions.length !== lastCount) {
			lastCount = executions.length;
			stableSince = Date.now();
		} else if (Date.now() - stableSince > 15_000) {
			break;
		}
		await sleep(250);
	}
	// CPU until the executions finished (the polling of the public API above is included, the same for both receivers).
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

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Packs the floor trigger fixture (plain JavaScript, no build) into .build/pack-floor/; returns the tarball. */
function packFloorTrigger(): string {
	const outDir = join(ROOT, '.build', 'pack-floor');
	rmSync(outDir, { recursive: true, force: true });
	mkdirSync(outDir, { recursive: true });
	const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], {
		cwd: join(ROOT, 'bench', 'fixtures', 'floor-trigger'),
		encoding: 'utf8',
	});
	const info = (JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>)[0];
	return join(outDir, info.filename);
}

async function main(): Promise<void> {
	const started = Date.now();
	// BENCH_TARBALL: install another packed build instead (e.g. a candidate fix built from a scratch copy).
	const tarball = process.env.BENCH_TARBALL ? resolve(process.env.BENCH_TARBALL) : runtime.buildAndPack({ log });
	const floorTarball = packFloorTrigger();
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-bench-'));
	const n8n = await runtime.startN8n({
		userFolder,
		tarball,
		extraPackages: [floorTarball],
		install: true,
		log,
		// Keep every execution of the run (pruning could remove some while they are counted); less logging.
		env: {
			EXECUTIONS_DATA_PRUNE: 'false',
			N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'warn',
			// e.g. BENCH_N8N_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.build/bench-results/n8n-prof" (written when n8n exits)
			...(process.env.BENCH_N8N_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_N8N_NODE_OPTIONS } : {}),
			// e.g. BENCH_N8N_ENV=N8N_EXPRESSION_ENGINE=legacy (comma-separated NAME=value pairs)
			...Object.fromEntries(
				(process.env.BENCH_N8N_ENV ?? '')
					.split(',')
					.filter((pair) => pair.includes('='))
					.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
			),
		},
	});
	// n8n runs in its own process group: never leave it behind, also on Ctrl-C.
	process.once('exit', () => {
		if (!n8n.exitInfo) n8n.killNow();
	});
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => {
			n8n.killNow();
			process.exit(130);
		});
	}
	const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
	try {
		const trigger = workflows.triggerNode('Platform Event', { events: ['callResult'], registerOnPublish: false });
		// BENCH_TRIGGER_VERSION: the trigger's typeVersion in the workflow (for a candidate build with several versions).
		if (process.env.BENCH_TRIGGER_VERSION) (trigger as { typeVersion?: number }).typeVersion = Number(process.env.BENCH_TRIGGER_VERSION);
		const ours = await n8n.createWorkflow(workflows.chain('bench: trigger intake', [trigger, workflows.noOpNode('Received')]));
		await n8n.publishWorkflow(ours.id);
		// Registered once a post with the right token answers; an empty body is refused (400) and starts nothing.
		const ready = await n8n.callWebhook(workflows.triggerUrl(n8n, trigger, 'call-result'), { body: {}, retryMs: 20_000 });
		if (ready.status !== 400) throw new Error(`the trigger answered ${ready.status} to an empty body`);

		const webhookPath = `bench-call-result-${randomUUID().slice(0, 8)}`;
		const webhook = {
			id: randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
		};
		const theirs = await n8n.createWorkflow(workflows.chain('bench: webhook intake', [webhook, workflows.noOpNode('Received')]));
		await n8n.publishWorkflow(theirs.id);
		const webhookUrl = `${n8n.url}/webhook/${webhookPath}`;
		// n8n registers production webhooks just after publishing: wait until it answers (this probe is one execution
		// before the first run; runs count only their own executions).
		const probe = await n8n.callWebhook(webhookUrl, { body: { probe: true }, retryMs: 20_000 });
		if (probe.status !== 200) throw new Error(`the Webhook node answered ${probe.status}`);

		// The floor: the minimal community trigger, path <webhookId>/call-result.
		const floorNode = {
			id: randomUUID(),
			name: 'Floor Trigger',
			type: 'n8n-nodes-bench-floor-trigger.floorTrigger',
			typeVersion: 1,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: {},
		};
		const floor = await n8n.createWorkflow(workflows.chain('bench: floor trigger intake', [floorNode, workflows.noOpNode('Received')]));
		await n8n.publishWorkflow(floor.id);
		const floorUrl = `${n8n.url}/webhook/${floorNode.webhookId}/call-result`;
		const floorProbe = await n8n.callWebhook(floorUrl, { body: { probe: true }, retryMs: 20_000 });
		if (floorProbe.status !== 200) throw new Error(`the floor trigger answered ${floorProbe.status}`);

		const receivers: Receiver[] = [
			{ key: 'ours', workflowId: ours.id, url: workflows.triggerUrl(n8n, trigger, 'call-result') },
			{ key: 'floor', workflowId: floor.id, url: floorUrl },
			{ key: 'webhook', workflowId: theirs.id, url: webhookUrl },
		];
		const results: Record<ReceiverKey, RunResult[]> = { ours: [], floor: [], webhook: [] };
		// BENCH_E2E_ONLY=ours|floor|webhook: post to one receiver only (e.g. to profile n8n for one of them).
		const only = process.env.BENCH_E2E_ONLY;
		for (let round = -1; round < RUNS; round++) {
			// Rotated every round, so that each receiver runs first, second and third equally often.
			const shift = ((round % receivers.length) + receivers.length) % receivers.length;
			const order = [...receivers.slice(shift), ...receivers.slice(0, shift)];
			for (const receiver of order) {
				if (only && receiver.key !== only) continue;
				// The warm-up (JIT, first executions, SQLite) needs no 1,000 posts: 100 do.
				const result = await runOnce(n8n, receiver, dispatcher, round < 0 ? Math.min(100, POSTS) : POSTS);
				log(
					`${round < 0 ? 'warm-up' : `run ${round + 1}`} ${receiver.key}: intake ${result.intakeMs.toFixed(0)} ms, n8n CPU ${result.cpuPerPostMs.toFixed(1)} ms per POST, ` +
						`processed ${result.processedMs.toFixed(0)} ms, ${result.executions} executions, ${result.non200} non-200, ${result.lost} lost`,
				);
				if (round >= 0) results[receiver.key].push(result);
			}
		}
		if (only) {
			log(`BENCH_E2E_ONLY=${only}: nothing written`);
			return;
		}
		const summary = (runs: RunResult[]) => ({
			medianMs: Math.round(median(runs.map((r) => r.intakeMs)) * 10) / 10,
			runsMs: runs.map((r) => Math.round(r.intakeMs)),
			processedMedianMs: Math.round(median(runs.map((r) => r.processedMs))),
			cpuPerPostMedianMs: Math.round(median(runs.map((r) => r.cpuPerPostMs)) * 10) / 10,
			executions: runs.map((r) => r.executions),
			non200: runs.map((r) => r.non200),
			lost: runs.map((r) => r.lost),
		});
		const output: TriggerResult = {
			measuredAt: new Date().toISOString(),
			posts: POSTS,
			concurrency: CONCURRENCY,
			ours: summary(results.ours),
			floor: summary(results.floor),
			webhook: summary(results.webhook),
			notes: [
				`n8n ${(n8n as unknown as { version: string }).version} (scripts/n8n-runtime.js), SQLite, one main process, ${RUNS} runs per receiver after a warm-up, the order of the three receivers rotated every round.`,
				'Floor = a minimal community trigger (bench/fixtures/floor-trigger: one static POST webhook, outputs the body), installed beside this package.',
				'Intake = first POST sent until the last answer (both receivers answer on receipt, before the execution ends); processed = until the last execution of the run finished.',
				`Whole bench:e2e took ${Math.round((Date.now() - started) / 1000)} s including build, pack, n8n boot.`,
			],
		};
		const outFile = resolve(process.env.BENCH_E2E_OUT ?? join(RESULTS_DIR, 'results-e2e.json'));
		mkdirSync(resolve(outFile, '..'), { recursive: true });
		writeFileSync(outFile, JSON.stringify(output, null, '\t') + '\n');
		log(`ours: ${output.ours.medianMs} ms, floor: ${output.floor?.medianMs} ms, webhook: ${output.webhook.medianMs} ms; wrote ${outFile}`);
	} finally {
		await dispatcher.close();
		await n8n.stop();
		if (process.env.BENCH_KEEP) log(`kept ${userFolder}`);
		else rmSync(userFolder, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
