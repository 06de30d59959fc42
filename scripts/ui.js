#!/usr/bin/env node
// `npm run test:ui`: the browser suite. A real n8n (the pinned install, the packed package, the platform
// sandbox) driven through its editor by headless Chromium from Debian's `chromium` package (installed with
// apt-get when missing; never a browser download) with playwright-core. test-ui/run.js runs every step in
// order, a screenshot each under .build/ui-screenshots/ (git-ignored), and closes with `ui: N passed, N failed`.
// Extra arguments filter the steps by name, e.g. `npm run test:ui -- search credential`.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const { ensureN8n } = require('./n8n-install');
const { buildAndPack, makeLogger } = require('./n8n-runtime');
const { compileSandbox } = require('./n8n-sandbox');

const CHROMIUM = '/usr/bin/chromium';
const log = makeLogger('ui');

async function main() {
	if (!fs.existsSync(CHROMIUM)) {
		log(`${CHROMIUM} is missing: installing Debian's chromium package`);
		for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
			const { status } = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
			if (status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${status})`);
		}
	}
	const tarball = buildAndPack({ log });
	compileSandbox({ log });
	await ensureN8n();
	const started = Date.now();
	const result = await require('../test-ui/run').runSuite({ tarball, chromium: CHROMIUM, filters: process.argv.slice(2), log });
	log(`suite ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots: ${result.screenshotDir}`);
	console.log(`\nui: ${result.passed} passed, ${result.failed} failed`);
	return result.failed === 0 && result.passed > 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		console.error(`\n${error.stack ?? error}\n\nui: 0 passed, 1 failed`);
		process.exit(1);
	},
);
