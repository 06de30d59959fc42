#!/usr/bin/env node
// `npm run test:queue`: the queue-mode suite (docs/scaling.md). The package packed, the sandbox compiled and the pinned
// n8n installed (scripts/suite.js); Postgres, Redis, the platform sandbox and n8n as one main, two workers and one
// webhook processor (cluster.js); then the cases in cases/, each asserting counts from the sandbox journal and
// n8n's executions (a case's start() runs before every case's run(), for waits n8n ends by itself a minute later).
// The summary table (case, expected, measured) goes to .build/queue-summary.md, with --write-docs into
// docs/scaling.md too (with --only, just those cases' rows). Everything started is stopped, on failure or a signal as
// well. Options: --only 1,3 (those cases), --keep (keep the temp folder with every process's log), --write-docs.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { makeLogger } = require('../scripts/n8n-runtime');
const { exitWithSummary, prepareSuite } = require('../scripts/suite');

const root = path.join(__dirname, '..');
const log = makeLogger('queue');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',').map(Number) : undefined;
const keep = args.includes('--keep') || Boolean(process.env.QUEUE_KEEP);
const seconds = (ms) => `${((ms ?? 0) / 1000).toFixed(1)} s`;

const SCALING_DOC = path.join(root, 'docs', 'scaling.md');
const BEGIN = '<!-- queue-results:begin (written by npm run test:queue -- --write-docs) -->';
const END = '<!-- queue-results:end -->';

function table(results) {
	const cell = (text) => String(text ?? '').replace(/\|/g, '/').replace(/\n/g, ' ');
	const rows = results.map((r) => `| ${r.id}. ${cell(r.title)} | ${cell(r.expected)} | ${cell(r.measured)} | ${r.ok ? 'pass' : `FAIL: ${cell(r.error)}`} |`);
	return ['| Case | Expected | Measured | Result |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * With --only and --write-docs: the docs' table keeps the rows of the other cases (and the full run's stamp and wall
 * time), the selected cases' rows are replaced or added in case order, and each gets a line saying when it was
 * measured on its own. A full run (no --only) writes the whole block again, without those lines.
 */
function mergedBlock(old, results, when, clusterMs) {
	const rowId = (line) => Number(/^\| (\d+)\. /.exec(line)?.[1]);
	const lines = old.split('\n');
	const rows = new Map(lines.filter((line) => rowId(line) > 0).map((line) => [rowId(line), line]));
	const fresh = table(results).split('\n').slice(2);
	for (const line of fresh) rows.set(rowId(line), line);
	const ids = new Set(results.map((r) => r.id));
	const tableStart = lines.findIndex((line) => line.startsWith('| Case |'));
	const before = lines.slice(0, tableStart === -1 ? 0 : tableStart);
	const after = lines.slice(tableStart === -1 ? 0 : tableStart + 2).filter((line) => !(rowId(line) > 0));
	const notes = after.filter((line) => !ids.has(Number(/^Case (\d+) measured on its own/.exec(line)?.[1])));
	const added = results.map(
		(r) => `Case ${r.id} measured on its own ${when} (\`--only ${[...ids].join(',')}\`): ${seconds(r.ms)}, Postgres/Redis/n8n x4 up ${seconds(clusterMs)}.`,
	);
	const body = [...before, '| Case | Expected | Measured | Result |', '|---|---|---|---|', ...[...rows].sort((x, y) => x[0] - y[0]).map(([, line]) => line)];
	const tail = notes.join('\n').trim();
	return `${body.join('\n')}\n\n${[tail, ...added].filter(Boolean).join('\n\n')}\n`;
}

/** Runs one step ('start' or 'run') of a case into its result row. */
async function runCase(c, r, step, cluster) {
	const started = Date.now();
	try {
		const outcome = await c[step](cluster);
		if (step === 'run') Object.assign(r, { ok: true, measured: outcome?.measured, metrics: outcome?.metrics });
	} catch (error) {
		r.failedIn = step;
		r.error = error.message.split('\n')[0].slice(0, 400);
		// A case may hand over what it measured before a check failed (error.measured): the table shows both.
		if (error.measured) r.measured = error.measured;
		process.stderr.write(`\ncase ${c.id} (${step}) failed: ${error.stack ?? error}\n`);
	}
	r.ms = (r.ms ?? 0) + (Date.now() - started);
}

exitWithSummary('queue', async () => {
	const t0 = Date.now();
	const { tarball, install, ms: prepareMs } = await prepareSuite(log);
	// Loaded after the sandbox is compiled: the cluster starts it.
	const { startCluster } = require('./cluster');
	const casesDir = path.join(__dirname, 'cases');
	// In case order (1, 2, ... 10), not by name: case 9 must be the first to create the call limits' table, which case
	// 10's dial leases would otherwise have created.
	const cases = fs
		.readdirSync(casesDir)
		.filter((f) => f.endsWith('.js'))
		.map((f) => require(path.join(casesDir, f)))
		.sort((a, b) => a.id - b.id);
	const selected = cases.filter((c) => !only || only.includes(c.id));
	const results = selected.map((c) => ({ id: c.id, title: c.title, expected: c.expected, ok: false }));

	let cluster;
	let stopping;
	const stopAll = () => {
		stopping ??= cluster?.stop().then(() => (keep ? log(`kept ${cluster.baseDir} (every process's log)`) : fs.rmSync(cluster.baseDir, { recursive: true, force: true })));
		return stopping;
	};
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.on(signal, () => {
			log(`${signal}: stopping everything`);
			Promise.resolve(stopAll()).finally(() => process.exit(130));
		});
	}
	process.on('exit', () => cluster?.killNow());

	const t1 = Date.now();
	let clusterMs;
	let stopMs;
	try {
		cluster = await startCluster({ tarball });
		clusterMs = Date.now() - t1;
		for (const [i, c] of selected.entries()) if (c.start) await runCase(c, results[i], 'start', cluster);
		for (const [i, c] of selected.entries()) {
			if (results[i].failedIn) continue;
			log(`case ${c.id}: ${c.title}`);
			await runCase(c, results[i], 'run', cluster);
			log(`case ${c.id}: ${results[i].ok ? 'pass' : 'FAIL'} (${seconds(results[i].ms)})${results[i].measured ? ` - ${results[i].measured}` : ''}`);
		}
	} catch (error) {
		process.stderr.write(`\nthe queue-mode environment did not start: ${error.stack ?? error}\n`);
		for (const r of results) r.error ??= 'environment did not start';
		if (error.baseDir) log(`logs of the failed start: ${error.baseDir}`);
	} finally {
		const t2 = Date.now();
		await stopAll();
		stopMs = Date.now() - t2;
	}

	const t = cluster?.timings ?? {};
	const summary = `${table(results)}\n\nWall time ${seconds(Date.now() - t0)}: prepare ${seconds(prepareMs)}${install.cached ? ' (n8n cached)' : ''}, ` +
		`Postgres/Redis/n8n x4 up ${seconds(clusterMs)} (apt ${seconds(t.aptMs)}, main ${seconds(t.mainMs)}, workers+webhook ${seconds(t.othersMs)}), ` +
		`cases ${results.map((r) => `${r.id}: ${seconds(r.ms)}`).join(', ')}, stop ${seconds(stopMs)}.`;
	process.stdout.write(`\n${summary}\n`);
	fs.writeFileSync(path.join(root, '.build', 'queue-summary.md'), `${summary}\n`);
	fs.writeFileSync(path.join(root, '.build', 'queue-results.json'), `${JSON.stringify({ results }, null, 2)}\n`);
	if (args.includes('--write-docs')) {
		const doc = fs.readFileSync(SCALING_DOC, 'utf8');
		const [a, b] = [doc.indexOf(BEGIN), doc.indexOf(END)];
		if (a < 0 || b < a) throw new Error(`docs/scaling.md has no ${BEGIN} ... ${END} block`);
		const when = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} cores, n8n ${install.versions.n8n}`;
		const block = only ? mergedBlock(doc.slice(a + BEGIN.length, b), results, when, clusterMs) : `\n${`Measured ${when}.`}\n\n${summary}\n`;
		fs.writeFileSync(SCALING_DOC, `${doc.slice(0, a + BEGIN.length)}${block}${doc.slice(b)}`);
		log(only ? `wrote the rows of case(s) ${only.join(', ')} into docs/scaling.md` : 'wrote the table into docs/scaling.md');
	}
	const passed = results.filter((r) => r.ok).length;
	return { passed, failed: results.length - passed };
});
