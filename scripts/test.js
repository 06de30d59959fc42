#!/usr/bin/env node
// `npm test`: check the lockfile (scripts/lock-optional-bindings.js), build the package, type-check everything, lint (community rules for nodes/ and
// credentials/, a separate scope for tests and the sandbox), verify the packed tarball (scripts/verify.js),
// then run the jest suites.
'use strict';
const { spawnSync } = require('node:child_process');

function step(title, command, args) {
	process.stdout.write(`\n> ${title}\n`);
	const result = spawnSync(command, args, { stdio: 'inherit', env: process.env });
	if (result.status !== 0) {
		process.stdout.write(`\n${title} failed (exit ${result.status})\n`);
		process.exit(result.status || 1);
	}
}

const npx = (tool) => `${__dirname}/../node_modules/.bin/${tool}`;

step('lockfile installs with npm ci everywhere', process.execPath, [`${__dirname}/lock-optional-bindings.js`, '--check']);
step('build', 'npm', ['run', '--silent', 'build']);
step('type-check tests, sandbox and scripts', npx('tsc'), ['-p', 'tsconfig.dev.json', '--noEmit']);
step('lint (n8n community rules)', npx('eslint'), ['nodes', 'credentials', 'package.json']);
step('lint (tests and sandbox)', npx('eslint'), ['-c', 'eslint.tests.config.mjs', 'test', 'sandbox', 'scripts']);
step('verify the packed package (scripts/verify.js)', process.execPath, [`${__dirname}/verify.js`, '--no-build']);

// Jest's own summary is printed above; the closing line below is the plain form CI reads.
const fs = require('node:fs');
const resultsFile = `${__dirname}/../.build/jest-results.json`;
fs.mkdirSync(`${__dirname}/../.build`, { recursive: true });
fs.rmSync(resultsFile, { force: true });
process.stdout.write('\n> jest\n');
const jest = spawnSync(npx('jest'), ['--ci', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)], {
	stdio: 'inherit',
	env: process.env,
});
let summary = 'tests: 0 passed, 1 failed';
if (fs.existsSync(resultsFile)) {
	const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
	const skipped = r.numPendingTests + r.numTodoTests;
	const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
	summary = `tests: ${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}
process.stdout.write(`\n${summary}\n`);
process.exit(jest.status === 0 ? 0 : jest.status || 1);
