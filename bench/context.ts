/** Case 5 of `npm run bench`, the package's cost; what the results file says about the run (settings, machine, versions), and where it is written. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { logger, PROJECT_ROOT as ROOT, RESULTS_DIR, writeJson } from './paths';
import { median, renderMarkdown, round, updatePerformanceDoc } from './report';
import type { BenchResults } from './results';

const log = logger('bench');
const readJson = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));
/** Case 5: npm run build, npm pack --dry-run; in a fresh process each run, after n8n-workflow (n8n has it loaded), the time to require every node and credential and construct each class. */
export function casePackage(runCount: number): BenchResults['package'] {
	log('Case 5, package cost: npm run build, npm pack --dry-run, require time');
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
	const npm = (...args: string[]) => execFileSync('npm', args, { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	npm('run', 'build');
	const [packed] = JSON.parse(npm('pack', '--dry-run', '--json')) as Array<Record<string, number>>;
	const { n8n } = readJson(join(ROOT, 'package.json')) as { n8n: { nodes: string[]; credentials: string[] } };
	const files = [...n8n.credentials, ...n8n.nodes].map((f) => join(ROOT, f));
	const script = `const t0 = process.hrtime.bigint(); require(${JSON.stringify(require.resolve('n8n-workflow', { paths: [ROOT] }))}); const t1 = process.hrtime.bigint();
		for (const file of ${JSON.stringify(files)}) for (const value of Object.values(require(file))) if (typeof value === 'function') new value();
		process.stdout.write(JSON.stringify({ workflowMs: Number(t1 - t0) / 1e6, oursMs: Number(process.hrtime.bigint() - t1) / 1e6 }));`;
	const runs: Array<Record<'workflowMs' | 'oursMs' | 'processMs', number>> = [];
	for (let i = -1; i < runCount; i++) {
		const t = process.hrtime.bigint();
		const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }));
		if (i >= 0) runs.push({ ...out, processMs: Number(process.hrtime.bigint() - t) / 1e6 });
	}
	const medianOf = (key: keyof (typeof runs)[number]): number => round(median(runs.map((r) => r[key])), 1);
	return {
		tarballBytes: packed.size,
		unpackedBytes: packed.unpackedSize,
		files: packed.entryCount,
		requireFiles: files.length,
		requireOursMedianMs: medianOf('oursMs'),
		requireN8nWorkflowMedianMs: medianOf('workflowMs'),
		processMedianMs: medianOf('processMs'),
		runs,
	};
}
/** A results file's heading: the settings given, the machine, the versions measured; the cases still empty. */
export function newResults(nodesBase: string, settings: Record<string, unknown>): BenchResults {
	const versionOf = (dir: string): string => readJson(join(dir, 'package.json')).version;
	const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
	const [rev, dirty] = [git('rev-parse', '--short', 'HEAD'), git('status', '--porcelain', '--', 'nodes', 'credentials')];
	return {
		generatedAt: new Date().toISOString(),
		durationSec: 0,
		settings,
		machine: {
			nproc: os.availableParallelism(),
			cpu: os.cpus()[0]?.model ?? 'unknown',
			memoryGB: round(os.totalmem() / 1024 ** 3, 1),
			node: process.version,
			platform: `${os.platform()} ${os.release()}`,
			loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
		},
		versions: {
			package: versionOf(ROOT),
			revision: rev.status !== 0 ? 'unknown' : rev.stdout.trim() + (dirty.stdout?.trim() ? ' (nodes/credentials modified)' : ''),
			'n8n-core': versionOf(join(ROOT, 'node_modules/n8n-core')),
			'n8n-workflow': versionOf(join(ROOT, 'node_modules/n8n-workflow')),
			'n8n-nodes-base': versionOf(nodesBase),
			undici: versionOf(join(ROOT, 'node_modules/undici')),
		},
		nodesBaseDir: nodesBase.replace(ROOT + '/', ''),
		list: [],
		fanout: [],
		status: [],
		create: [],
	};
}
/** The results key of each case `npm run bench` runs unless BENCH_CASES says otherwise (4 is `npm run bench:e2e`, 8 runs only when named). */
export const CASE_KEYS = { 1: 'list', 2: 'fanout', 3: 'status', 5: 'package', 6: 'create' } as const;
const [DOC, RESULTS_FILE] = [join(ROOT, 'docs/performance.md'), join(RESULTS_DIR, 'results.json')];
/** Case 4 is measured by `npm run bench:e2e` and merged from its own results file when present. */
function withTrigger(results: BenchResults): BenchResults {
	const file = join(RESULTS_DIR, 'results-e2e.json');
	return existsSync(file) ? { ...results, trigger: readJson(file) } : results;
}
/** `--report`: results.json with case 4 merged again, docs/performance.md rendered from it. */
export function report(): void {
	const results = withTrigger(readJson(RESULTS_FILE));
	writeJson(RESULTS_FILE, results);
	updatePerformanceDoc(DOC, renderMarkdown(results));
	log(`re-rendered docs/performance.md from ${RESULTS_FILE}`);
}
/** Writes the results and their markdown: to BENCH_OUT, or results.json and, from every case (a partial run keeps the others of the last one), docs/performance.md. */
export function write(measured: BenchResults, cases: string[]): void {
	const results = withTrigger(measured);
	if (process.env.BENCH_NO_WRITE) return console.log(renderMarkdown(results));
	const out = process.env.BENCH_OUT && resolve(process.env.BENCH_OUT);
	const skipped = out ? [] : Object.entries(CASE_KEYS).filter(([c]) => !cases.includes(c));
	const previous: BenchResults | undefined = skipped.length && existsSync(RESULTS_FILE) ? readJson(RESULTS_FILE) : undefined;
	for (const [, key] of skipped) Object.assign(results, { [key]: previous?.[key] ?? results[key] });
	const markdown = renderMarkdown(results);
	writeJson(out || RESULTS_FILE, results);
	writeFileSync(out ? out.replace(/\.json$/, '') + '.md' : join(RESULTS_DIR, 'performance.md'), markdown + '\n');
	const doc = !out && results.trigger && (previous || !skipped.length);
	if (doc) updatePerformanceDoc(DOC, markdown);
	log(`done in ${results.durationSec} s: ${out || RESULTS_DIR}${doc ? ', docs/performance.md' : ''}`);
}
