#!/usr/bin/env node
// `npm run test:ui`: the browser suite. A real n8n (the pinned install, the packed package installed as a
// community package, the platform sandbox) driven through its editor by headless Chromium from Debian's
// `chromium` package (never a browser download), with playwright-core.
//   1. install Debian's chromium with apt-get when /usr/bin/chromium is missing
//   2. build and pack the package, compile the sandbox, install the pinned n8n if needed
//   3. run test-ui/run.js: one environment, then every step in order; a screenshot per step under
//      .build/ui-screenshots/ (git-ignored), kept on failure; then one plain line `ui: N passed, N failed`
// Extra arguments: step name filters (substrings), e.g. `npm run test:ui -- search credential`.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const { ensureN8n } = require('./n8n-install');
const { buildAndPack, makeLogger } = require('./n8n-runtime');
const { compileSandbox } = require('./n8n-sandbox');

const CHROMIUM = '/usr/bin/chromium';
const log = makeLogger('ui');
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function run(command, args) {
	log(`${command} ${args.join(' ')}`);
	const result = spawnSync(command, args, {
		stdio: 'inherit',
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
	});
	if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status})`);
}

/** Debian's chromium, installed with apt-get when missing (we are root in CI). */
function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return false;
	log(`${CHROMIUM} is missing: installing Debian's chromium package`);
	run('apt-get', ['update', '-qq']);
	run('apt-get', ['install', '-y', '-qq', 'chromium']);
	if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} does not exist`);
	return true;
}

async function main() {
	const started = Date.now();
	const timings = {};
	let t = Date.now();
	const installedChromium = ensureChromium();
	timings.chromium = Date.now() - t;
	t = Date.now();
	const tarball = buildAndPack({ log });
	compileSandbox({ log });
	timings.build = Date.now() - t;
	t = Date.now();
	const install = await ensureN8n();
	timings.n8n = Date.now() - t;

	const { runSuite } = require('../test-ui/run');
	t = Date.now();
	const result = await runSuite({ tarball, chromium: CHROMIUM, filters: process.argv.slice(2), log });
	timings.suite = Date.now() - t;
	log(
		`times: chromium ${installedChromium ? seconds(timings.chromium) : 'present'}, build+pack+sandbox ${seconds(timings.build)}, ` +
			`n8n install ${seconds(timings.n8n)}${install.cached ? ' (cached)' : ''}, suite ${seconds(timings.suite)}, total ${seconds(Date.now() - started)}`,
	);
	log(`screenshots: ${result.screenshotDir}`);
	process.stdout.write(`\nui: ${result.passed} passed, ${result.failed} failed\n`);
	return result.failed === 0 && result.passed > 0 ? 0 : 1;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		process.stderr.write(`\n${error.stack ?? error}\n\nui: 0 passed, 1 failed\n`);
		process.exit(1);
	},
);
