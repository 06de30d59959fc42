#!/usr/bin/env node
// `npm run test:e2e`: the end-to-end suite against a real n8n (see docs/e2e.md).
//   1. build the package and pack it (npm run build, npm pack)
//   2. compile the platform sandbox (tsc -p tsconfig.dev.json)
//   3. install the pinned n8n into .tools/n8n unless the cached install matches tools/n8n's lockfile
//   4. run test-e2e/e2e.test.js with Node's test runner (its summary is printed), then one plain line:
//      `e2e: N passed, N failed`
// Extra arguments go to `node --test` (e.g. --test-name-pattern="credential"), except
// --definition=<name>: which pinned n8n to run on (scripts/n8n-install.js: n8n (2.x, default) or n8n-1x, as
// `npm run test:e2e:1x` does); it is passed on as N8N_DEFINITION; and --suite=<folder>: which case modules under
// test-e2e/ run (default `cases`; `npm run test:ai` runs `ai-agent`, n8n's AI Agent with the package's tools);
// it is passed on as E2E_CASES.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const definitionArg = process.argv.slice(2).find((arg) => arg.startsWith('--definition='));
if (definitionArg) process.env.N8N_DEFINITION = definitionArg.slice('--definition='.length);
const suiteArg = process.argv.slice(2).find((arg) => arg.startsWith('--suite='));
const suite = suiteArg ? suiteArg.slice('--suite='.length) : 'cases';
const testArgs = process.argv.slice(2).filter((arg) => arg !== definitionArg && arg !== suiteArg);

const { definition, ensureN8n } = require('./n8n-install');
const { buildAndPack, makeLogger } = require('./n8n-runtime');
const { compileSandbox } = require('./n8n-sandbox');

const root = path.join(__dirname, '..');
const suiteName = suite === 'cases' ? 'e2e' : suite;
const label = definition.name === 'n8n' ? suiteName : `${suiteName} (${definition.name})`;
const log = makeLogger(label);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function summaryFrom(tapFile) {
	const counts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
	if (!fs.existsSync(tapFile)) return null;
	// The root summary is the last block of "# <name> <n>" lines.
	for (const line of fs.readFileSync(tapFile, 'utf8').split('\n')) {
		const match = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
		if (match) counts[match[1]] = Number(match[2]);
	}
	return counts;
}

async function main() {
	const timings = {};
	let t = Date.now();
	const tarball = buildAndPack({ log });
	timings.buildAndPack = Date.now() - t;

	t = Date.now();
	compileSandbox({ log });
	timings.compileSandbox = Date.now() - t;

	t = Date.now();
	const install = await ensureN8n();
	timings.n8nInstall = Date.now() - t;

	const tapFile = path.join(root, '.build', `${suiteName}-results${definition.name === 'n8n' ? '' : `-${definition.name}`}.tap`);
	fs.rmSync(tapFile, { force: true });
	t = Date.now();
	log(`run the suite on n8n ${install.versions?.n8n ?? ''} (node --test test-e2e/e2e.test.js)`);
	const code = await new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			[
				'--test',
				'--test-reporter=spec',
				'--test-reporter-destination=stdout',
				'--test-reporter=tap',
				`--test-reporter-destination=${tapFile}`,
				...testArgs,
				path.join('test-e2e', 'e2e.test.js'),
			],
			{
				cwd: root,
				stdio: 'inherit',
				env: { ...process.env, E2E_TARBALL: tarball, E2E_SKIP_COMPILE: '1', E2E_CASES: suite },
			},
		);
		const forward = (signal) => child.kill(signal);
		process.on('SIGINT', forward);
		process.on('SIGTERM', forward);
		child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
	});
	timings.suite = Date.now() - t;

	log(
		`times: build+pack ${seconds(timings.buildAndPack)}, sandbox compile ${seconds(timings.compileSandbox)}, ` +
			`n8n install ${seconds(timings.n8nInstall)}${install.cached ? ' (cached)' : ''}, suite ${seconds(timings.suite)}`,
	);
	const counts = summaryFrom(tapFile);
	const failed = counts ? counts.fail + counts.cancelled : 1;
	const passed = counts ? counts.pass : 0;
	const skipped = counts ? counts.skipped + counts.todo : 0;
	process.stdout.write(`\n${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
	return code === 0 && failed === 0 && passed > 0 ? 0 : code || 1;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		process.stderr.write(`\n${error.stack ?? error}\n\n${label}: 0 passed, 1 failed\n`);
		process.exit(1);
	},
);
