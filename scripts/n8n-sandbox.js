// The platform sandbox (sandbox/, TypeScript) compiled into .build/ by `tsc -p tsconfig.dev.json`, for the plain
// Node scripts that start it in their own process (the demo and the end-to-end suites).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const compiledEntry = path.join(root, '.build', 'sandbox', 'index.js');

/**
 * Compiles the dev tree. Type errors elsewhere in it (a test being written) are reported but do not stop the
 * sandbox while tsc still emitted it (`npm test` is where type errors fail).
 */
function compileSandbox({ log = (m) => process.stdout.write(`[sandbox] ${m}\n`) } = {}) {
	log('compile the sandbox (tsc -p tsconfig.dev.json)');
	const before = fs.existsSync(compiledEntry) ? fs.statSync(compiledEntry).mtimeMs : 0;
	const result = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.dev.json'], { cwd: root, encoding: 'utf8' });
	if (result.error) throw new Error(`tsc could not start: ${result.error.message}`);
	if (result.status === 0) return;
	process.stderr.write(result.stdout + result.stderr);
	// tsc is not incremental here: an entry newer than before was emitted by this run.
	if (!fs.existsSync(compiledEntry) || fs.statSync(compiledEntry).mtimeMs <= before) {
		throw new Error(`tsc -p tsconfig.dev.json failed (exit ${result.status}) and did not emit ${compiledEntry}`);
	}
	log('WARNING: tsc reported type errors (above); the sandbox was emitted and is used anyway');
}

/** The PlatformSandbox class from .build/sandbox/index.js (compileSandbox first). */
function loadSandbox() {
	const exported = require(compiledEntry);
	const PlatformSandbox = exported.PlatformSandbox ?? exported.default;
	if (typeof PlatformSandbox?.start !== 'function') throw new Error(`${compiledEntry} does not export PlatformSandbox with a static start()`);
	return { PlatformSandbox, module: exported };
}

module.exports = { compileSandbox, loadSandbox, compiledEntry };
