#!/usr/bin/env node
// `npm run test:queue`: the queue-mode suite (docs/scaling.md).
//   1. build and pack the package, compile the sandbox, install the pinned n8n if needed
//   2. start Postgres and Redis (apt-get install postgresql redis-server when missing), the platform sandbox, and
//      n8n 2.41.1 as one main, two workers and one webhook processor (test-queue/cluster.js)
//   3. run the cases in test-queue/cases/ (each asserts counts from the sandbox journal and n8n's executions);
//      a case may have a start() that runs before every case's run() (for waits n8n ends by itself a minute later)
//   4. print the summary table (case, expected, measured), write it to .build/queue-summary.md (and, with
//      --write-docs, into docs/scaling.md), stop everything it started (also on failure or a signal), and print
//      `queue: N passed, N failed`
// Options: --only 1,3 (run only those cases), --keep (keep the temp folder with every process's log),
// --write-docs.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const { ensureN8n } = require('./n8n-install');
const { buildAndPack, makeLogger } = require('./n8n-runtime');
const { compileSandbox } = require('./n8n-sandbox');

const root = path.join(__dirname, '..');
const log = makeLogger('queue');
const args = process.argv.slice(2);
const option = (name) => {
	const i = args.indexOf(name);
	return i >= 0 ? args[i + 1] : undefined;
};
const only = option('--only')?.split(',').map(Number);
const keep = args.includes('--keep') || Boolean(process.env.QUEUE_KEEP);
const writeDocs = args.includes('--write-docs');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const SCALING_DOC = path.join(root, 'docs', 'scaling.md');
const BEGIN = '<!-- queue-results:begin (written by npm run test:queue -- --write-docs) -->';
const END = '<!-- queue-results:end -->';

function loadCases() {
	const dir = path.join(root, 'test-queue', 'cases');
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.js'))
		.sort()
		.map((f) => require(path.join(dir, f)))
		.filter((c) => !only || only.includes(c.id));
}

function table(results) {
	const cell = (text) => String(text).replace(/\|/g, '/').replace(/\n/g, ' ');
	const lines = ['| Case | Expected | Measured | Result |', '|---|---|---|---|'];
	for (const r of results) {
		lines.push(`| ${r.id}. ${cell(r.title)} | ${cell(r.expected)} | ${cell(r.measured ?? '')} | ${r.ok ? 'pass' : `FAIL: ${cell(r.error)}`} |`);
	}
	return lines.join('\n');
}

async function main() {
	const t0 = Date.now();
	const timings = {};
	let t = Date.now();
	const tarball = buildAndPack({ log });
	compileSandbox({ log });
	const install = await ensureN8n();
	timings.prepare = Date.now() - t;

	// Loaded after compileSandbox: the cases use the compiled sandbox through the cluster.
	const { startCluster } = require('../test-queue/cluster');
	const cases = loadCases();
	t = Date.now();
	let cluster;
	let stopping;
	const stopAll = async () => {
		if (!cluster) return;
		stopping ??= cluster.stop().then(() => {
			if (keep) log(`kept ${cluster.baseDir} (every process's log)`);
			else fs.rmSync(cluster.baseDir, { recursive: true, force: true });
		});
		await stopping;
	};
	const onSignal = (signal) => {
		log(`${signal}: stopping everything`);
		stopAll().finally(() => process.exit(130));
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);
	process.on('SIGHUP', onSignal);
	process.on('exit', () => cluster?.killNow());

	const results = cases.map((c) => ({ id: c.id, title: c.title, expected: c.expected, ok: false }));
	try {
		cluster = await startCluster({ tarball });
		timings.cluster = Date.now() - t;
		const runCase = async (c, r, step) => {
			const started = Date.now();
			try {
				const outcome = await c[step](cluster);
				if (step === 'run') Object.assign(r, { ok: true, measured: outcome?.measured, metrics: outcome?.metrics });
			} catch (error) {
				r.failedIn = step;
				r.error = error.message.split('\n')[0].slice(0, 400);
				process.stderr.write(`\ncase ${c.id} (${step}) failed: ${error.stack ?? error}\n`);
			}
			r.ms = (r.ms ?? 0) + (Date.now() - started);
		};
		for (const [i, c] of cases.entries()) if (typeof c.start === 'function') await runCase(c, results[i], 'start');
		for (const [i, c] of cases.entries()) {
			if (results[i].failedIn) continue;
			log(`case ${c.id}: ${c.title}`);
			await runCase(c, results[i], 'run');
			log(`case ${c.id}: ${results[i].ok ? 'pass' : 'FAIL'} (${seconds(results[i].ms)})${results[i].measured ? ` - ${results[i].measured}` : ''}`);
		}
	} catch (error) {
		process.stderr.write(`\nthe queue-mode environment did not start: ${error.stack ?? error}\n`);
		for (const r of results) r.error ??= 'environment did not start';
		if (error.baseDir && !keep) log(`logs of the failed start: ${error.baseDir}`);
	} finally {
		t = Date.now();
		await stopAll();
		timings.stop = Date.now() - t;
	}
	timings.total = Date.now() - t0;

	const summary = [
		table(results),
		'',
		`Wall time ${seconds(timings.total)}: prepare ${seconds(timings.prepare)}${install.cached ? ' (n8n cached)' : ''}, ` +
			`Postgres/Redis/n8n x4 up ${seconds(timings.cluster ?? 0)}` +
			(cluster ? ` (apt ${seconds(cluster.timings.aptMs)}, main ${seconds(cluster.timings.mainMs)}, workers+webhook ${seconds(cluster.timings.othersMs)})` : '') +
			`, cases ${results.map((r) => `${r.id}: ${seconds(r.ms ?? 0)}`).join(', ')}, stop ${seconds(timings.stop)}.`,
	].join('\n');
	process.stdout.write(`\n${summary}\n`);
	fs.mkdirSync(path.join(root, '.build'), { recursive: true });
	fs.writeFileSync(path.join(root, '.build', 'queue-summary.md'), `${summary}\n`);
	fs.writeFileSync(path.join(root, '.build', 'queue-results.json'), `${JSON.stringify({ results, timings }, null, 2)}\n`);
	if (writeDocs && !only) {
		const doc = fs.readFileSync(SCALING_DOC, 'utf8');
		const a = doc.indexOf(BEGIN);
		const b = doc.indexOf(END);
		if (a < 0 || b < a) throw new Error(`docs/scaling.md has no ${BEGIN} ... ${END} block`);
		const stamp = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on this machine (2 cores), n8n 2.41.1.`;
		fs.writeFileSync(SCALING_DOC, `${doc.slice(0, a + BEGIN.length)}\n${stamp}\n\n${summary}\n${doc.slice(b)}`);
		log('wrote the table into docs/scaling.md');
	}
	const passed = results.filter((r) => r.ok).length;
	const failed = results.length - passed;
	process.stdout.write(`\nqueue: ${passed} passed, ${failed} failed\n`);
	return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		process.stderr.write(`\n${error.stack ?? error}\n\nqueue: 0 passed, 1 failed\n`);
		process.exit(1);
	},
);
