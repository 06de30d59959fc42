// Loads the platform sandbox (sandbox/, TypeScript) compiled by `tsc -p tsconfig.dev.json` into .build/, so that
// plain Node scripts (the demo, the end-to-end suite) can start it in their own process.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const compiledEntry = path.join(root, '.build', 'sandbox', 'index.js');

/**
 * Compiles the dev tree (sandbox, tests, scripts) with tsc -p tsconfig.dev.json. Type errors elsewhere in the
 * tree (tests being written) do not stop the sandbox from being emitted: they are reported and, as long as
 * .build/sandbox/index.js was written, the sandbox is used (`npm test` is where type errors fail the build).
 */
function compileSandbox({ log = (m) => process.stdout.write(`[sandbox] ${m}\n`) } = {}) {
	log('compile the sandbox (tsc -p tsconfig.dev.json)');
	const before = fs.existsSync(compiledEntry) ? fs.statSync(compiledEntry).mtimeMs : 0;
	const result = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.dev.json'], {
		cwd: root,
		encoding: 'utf8',
	});
	if (result.error) throw new Error(`tsc could not start: ${result.error.message}`);
	// tsc is not incremental here: every run rewrites its outputs, so a newer file was emitted by this run.
	const fresh = fs.existsSync(compiledEntry) && fs.statSync(compiledEntry).mtimeMs > before;
	if (result.status !== 0) {
		process.stderr.write(result.stdout + result.stderr);
		if (!fresh) throw new Error(`tsc -p tsconfig.dev.json failed (exit ${result.status}) and did not emit ${compiledEntry}`);
		log(`WARNING: tsc reported type errors (above); the sandbox was emitted and is used anyway`);
	}
	if (!fs.existsSync(compiledEntry)) throw new Error(`no ${compiledEntry}: does sandbox/index.ts exist?`);
}

/** The PlatformSandbox class from .build/sandbox/index.js (compile first with compileSandbox). */
function loadSandbox() {
	if (!fs.existsSync(compiledEntry)) throw new Error(`no ${compiledEntry}: run compileSandbox() first`);
	const exported = require(compiledEntry);
	const PlatformSandbox = exported.PlatformSandbox ?? exported.default;
	if (typeof PlatformSandbox?.start !== 'function') {
		throw new Error(`${compiledEntry} does not export PlatformSandbox with a static start()`);
	}
	return { PlatformSandbox, module: exported };
}

module.exports = { compileSandbox, loadSandbox, compiledEntry };
