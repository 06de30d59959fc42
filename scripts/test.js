#!/usr/bin/env node
// `npm test`: the lockfile installs everywhere, then n8n's build and lint (whole tree; tests get their own
// rules from test/eslint.config.mjs), the type-check, the packed package (scripts/check-package.js) and jest,
// closing with one plain line `tests: N passed, N failed`. Extra arguments go to jest.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const steps = [
	['lockfile', 'node', ['scripts/lock-optional-bindings.js', '--check']],
	['build', 'npm', ['run', '--silent', 'build']],
	['lint', 'npm', ['run', '--silent', 'lint']],
	['type-check', 'npm', ['run', '--silent', 'typecheck']],
	['packed package', 'npm', ['run', '--silent', 'check:package']],
];
for (const [title, command, args] of steps) {
	process.stdout.write(`\n> ${title}: ${command} ${args.join(' ')}\n`);
	const { status } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
	if (status !== 0) {
		process.stdout.write(`\n${title} failed (exit ${status})\ntests: 0 passed, 1 failed\n`);
		process.exit(1);
	}
}
const resultsFile = path.join(root, '.build', 'jest-results.json');
fs.mkdirSync(path.dirname(resultsFile), { recursive: true });
fs.rmSync(resultsFile, { force: true });
const jest = spawnSync('npx', ['jest', '--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
const r = fs.existsSync(resultsFile) ? JSON.parse(fs.readFileSync(resultsFile, 'utf8')) : undefined;
const failed = r ? r.numFailedTests + r.numRuntimeErrorTestSuites : 1;
const skipped = r ? r.numPendingTests + r.numTodoTests : 0;
process.stdout.write(`\ntests: ${r?.numPassedTests ?? 0} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(jest.status === 0 ? 0 : 1);
