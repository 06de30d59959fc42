#!/usr/bin/env node
// `npm run test:e2e`: test-e2e/e2e.test.js under Node's test runner against the pinned real n8n (docs/e2e.md), with
// the package built, packed and installed as a community package. Arguments: --definition=<name> (the pinned n8n,
// scripts/n8n-install.js; `npm run test:e2e:1x` gives n8n-1x), --suite=<folder> (the case modules under test-e2e/,
// default `cases`; `npm run test:ai` gives ai-agent); any other goes to `node --test` (e.g. --test-name-pattern=...).
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
if (option('definition')) process.env.N8N_DEFINITION = option('definition');
const suite = option('suite') ?? 'cases';

const { definition } = require('./n8n-install');
const { makeLogger } = require('./n8n-runtime');
const { exitWithSummary, prepareSuite } = require('./suite');

const suiteName = suite === 'cases' ? 'e2e' : suite;
const other = definition.name === 'n8n' ? '' : definition.name;
const name = other ? `${suiteName} (${other})` : suiteName;
const log = makeLogger(name);

exitWithSummary(name, async () => {
	const { tarball, install, ms } = await prepareSuite(log);
	const tapFile = path.join(__dirname, '..', '.build', `${suiteName}-results${other ? `-${other}` : ''}.tap`);
	fs.rmSync(tapFile, { force: true });
	const started = Date.now();
	log(`run the suite on n8n ${install.versions.n8n} (node --test test-e2e/e2e.test.js)`);
	const testArgs = args.filter((arg) => !/^--(definition|suite)=/.test(arg));
	const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`];
	const exitCode = await new Promise((resolve) => {
		const child = spawn(process.execPath, ['--test', ...reporters, ...testArgs, path.join('test-e2e', 'e2e.test.js')], {
			cwd: path.join(__dirname, '..'),
			stdio: 'inherit',
			env: { ...process.env, E2E_TARBALL: tarball, E2E_SKIP_COMPILE: '1', E2E_CASES: suite },
		});
		for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
		child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
	});
	log(`prepared in ${(ms / 1000).toFixed(1)} s${install.cached ? ' (n8n cached)' : ''}, suite ${((Date.now() - started) / 1000).toFixed(1)} s`);
	// The root summary of the TAP file: its last "# <count> <n>" lines.
	const counts = {};
	const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
	for (const [, key, n] of tap.matchAll(/^# (pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[key] = Number(n);
	const { pass = 0, fail = 1, cancelled = 0, skipped = 0, todo = 0 } = counts;
	return { passed: pass, failed: fail + cancelled, skipped: skipped + todo, exitCode };
});
