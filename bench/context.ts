/** Case 5 of `npm run bench`, the package's cost; what the results file says about the run (settings, machine, versions), and where it is written. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { logger, PROJECT_ROOT as ROOT, RESULTS_DIR, writeJson } from './paths';
import { median, renderMarkdown, round, updatePerformanceDoc } from './report';
import type { BenchResults } from './results';

const log = logger('bench');
/** Case 5: npm run build, npm pack --dry-run; in a fresh process each run, after n8n-workflow (n8n has it loaded), the time to require every node and credential and construct each class. */
export function casePackage(runCount: number): BenchResults['package'] {
	log('Case 5, package cost: npm run build, npm pack --dry-run, require time');
	const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
	const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, env, encoding: 'utf8' });
	if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
	const [packed] = JSON.parse(
		execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
	) as Array<Record<string, number>>;
	const { n8n } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	const files = [...n8n.credentials, ...n8n.nodes].map((f) => join(ROOT, f));
	const script = `const t0 = process.hrtime.bigint(); require(${JSON.stringify(require.resolve('n8n-workflow', { paths: [ROOT] }))}); const t1 = process.hrtime.bigint();
		for (const file of ${JSON.stringify(files)}) for (const value of Object.values(require(file))) if (typeof value === 'function') new value();
		process.stdout.write(JSON.stringify({ workflowMs: Number(t1 - t0) / 1e6, oursMs: Number(process.hrtime.bigint() - t1) / 1e6 }));`;
	const runs: Array<{ workflowMs: number; oursMs: number; processMs: number }> = [];
	for (let i = -1; i < runCount; i++) {
		const t = process.hrtime.bigint();
		const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as {
			workflowMs: number;
			oursMs: number;
		};
		if (i >= 0) runs.push({ ...out, processMs: Number(process.hrtime.bigint() - t) / 1e6 });
	}
	const medianOf = (key: keyof (typeof runs)[number]): number => round(median(runs.map((r) => r[key])), 1);
	const result = {
		tarballBytes: packed.size,
		unpackedBytes: packed.unpackedSize,
		files: packed.entryCount,
		requireFiles: files.length,
		requireOursMedianMs: medianOf('oursMs'),
	};
	log(
		`  tarball ${result.tarballBytes} B, ${result.files} files; require ours ${result.requireOursMedianMs} ms (n8n-workflow ${medianOf('workflowMs')} ms)`,
	);
	return { ...result, requireN8nWorkflowMedianMs: medianOf('workflowMs'), processMedianMs: medianOf('processMs'), runs };
}

/** A results file's heading: the settings given, the machine, the versions measured; the cases still empty. */
export function newResults(nodesBase: string, settings: Record<string, unknown>): BenchResults {
	const read = (file: string): string => (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
	const versionOf = (pkg: string, from = ROOT): string =>
		existsSync(join(from, 'node_modules', pkg, 'package.json')) ? read(join(from, 'node_modules', pkg, 'package.json')) : 'not installed';
	const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
	const [rev, dirty] = [git('rev-parse', '--short', 'HEAD'), git('status', '--porcelain', '--', 'nodes', 'credentials')];
	const revision = rev.status !== 0 ? 'unknown' : rev.stdout.trim() + (dirty.stdout?.trim() ? ' (nodes/credentials modified)' : '');
	const machine = {
		nproc: os.availableParallelism(),
		cpu: os.cpus()[0]?.model ?? 'unknown',
		memoryGB: round(os.totalmem() / 1024 ** 3, 1),
		node: process.version,
		platform: `${os.platform()} ${os.release()}`,
		loadAverageAtStart: os.loadavg().map((v) => round(v, 2)),
	};
	const versions = {
		package: read(join(ROOT, 'package.json')),
		revision,
		'n8n-core': versionOf('n8n-core'),
		'n8n-workflow': versionOf('n8n-workflow'),
		'n8n-nodes-base': versionOf('n8n-nodes-base', resolve(nodesBase, '..', '..')),
		undici: versionOf('undici'),
	};
	return {
		generatedAt: new Date().toISOString(),
		durationSec: 0,
		settings,
		machine,
		versions,
		nodesBaseDir: nodesBase.replace(ROOT + '/', ''),
		list: [],
		fanout: [],
		status: [],
		create: [],
		dial: [],
	};
}

export const [DOC, RESULTS_FILE, TRIGGER_FILE] = [
	join(ROOT, 'docs', 'performance.md'),
	join(RESULTS_DIR, 'results.json'),
	join(RESULTS_DIR, 'results-e2e.json'),
];
export const readResults = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));
/** Case 4 is measured by `npm run bench:e2e` and merged from its own results file when present. */
export const withTrigger = (results: BenchResults): BenchResults =>
	existsSync(TRIGGER_FILE) ? { ...results, trigger: readResults(TRIGGER_FILE) } : results;
/** Writes results.json and the generated block: docs/performance.md only from every case, BENCH_OUT and BENCH_NO_WRITE elsewhere. */
export function write(results: BenchResults, CASES: Set<string>, ALL_CASES: string): void {
	const markdown = renderMarkdown(results);
	if (process.env.BENCH_NO_WRITE) return console.log(markdown);
	if (process.env.BENCH_OUT) {
		const file = resolve(process.env.BENCH_OUT);
		writeJson(file, results);
		writeFileSync(file.replace(/\.json$/, '') + '.md', markdown + '\n');
		return log(`done in ${results.durationSec} s: ${file}`);
	}
	const partial = ALL_CASES.split(',').some((c) => !CASES.has(c));
	const merged = partial && existsSync(RESULTS_FILE);
	// A partial run (BENCH_CASES) keeps the other cases of the previous full run.
	const previous = merged ? (readResults(RESULTS_FILE) as BenchResults) : undefined;
	const keys = { 1: 'list', 2: 'fanout', 3: 'status', 5: 'package', 6: 'create', 7: 'dial' } as const;
	for (const [c, key] of Object.entries(keys))
		if (previous && !CASES.has(c)) Object.assign(results, { [key]: previous[key] ?? results[key] });
	writeJson(RESULTS_FILE, results);
	writeFileSync(join(RESULTS_DIR, 'performance.md'), renderMarkdown(results) + '\n');
	const kept = 'docs/performance.md left as it is (it takes every case: npm run bench:e2e, then npm run bench)';
	if ((partial && !merged) || !results.trigger) return log(`done in ${results.durationSec} s: ${RESULTS_DIR}; ${kept}`);
	updatePerformanceDoc(DOC, renderMarkdown(results));
	log(`done in ${results.durationSec} s: ${RESULTS_DIR}, docs/performance.md`);
}
