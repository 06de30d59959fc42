// The browser suite's runner: one environment (the platform sandbox, a real n8n with the packed package
// installed as a community package, one credential of each type pointing at the sandbox: the end-to-end
// suite's environment), one headless Chromium (Debian's, through playwright-core), then every step of
// test-ui/steps.js in order. Each step ends with a screenshot (.build/ui-screenshots/NN-<step>.png), and may take
// more on the way (NN-<step>-<name>.png); a step that fails is named with its error and its screenshot is kept as
// NN-<step>.FAILED.png.
//
// `npm run test:ui` runs it after scripts/suite.js has packed the package, compiled the sandbox and installed the
// pinned n8n; Debian's chromium is installed with apt-get when missing (never a browser download). Arguments filter
// the steps by name (`npm run test:ui -- search credential`). UI_KEEP=1 keeps the n8n user folder; UI_SLOW_MS=<ms>
// slows every browser action down to watch a run.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const screenshotDir = path.join(root, '.build', 'ui-screenshots');

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

const slug = (text) =>
	text
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '')
		.slice(0, 60);

async function runSuite({ tarball, chromium, filters = [], log = console.log }) {
	process.env.E2E_TARBALL = tarball;
	process.env.E2E_SKIP_COMPILE = '1';
	if (process.env.UI_KEEP) process.env.E2E_KEEP = '1';
	const { startEnvironment } = require('../test-e2e/support/environment');
	const { chromium: playwright } = require('playwright-core');
	const { steps } = require('./steps');
	const { Editor } = require('./editor');

	fs.rmSync(screenshotDir, { recursive: true, force: true });
	fs.mkdirSync(screenshotDir, { recursive: true });
	const selected = steps.filter(
		(step) => filters.length === 0 || filters.some((f) => step.name.toLowerCase().includes(f.toLowerCase())),
	);

	const env = await startEnvironment();
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ui-chromium-'));
	let context;
	let passed = 0;
	let failed = 0;
	try {
		context = await playwright.launchPersistentContext(userDataDir, {
			executablePath: chromium,
			args: CHROMIUM_ARGS,
			headless: true,
			viewport: { width: 1440, height: 900 },
			slowMo: Number(process.env.UI_SLOW_MS ?? 0),
		});
		context.setDefaultTimeout(15000);
		const page = context.pages()[0] ?? (await context.newPage());
		const editor = new Editor(page, env);
		const state = {};
		let index = 0;
		for (const step of selected) {
			index += 1;
			const base = path.join(screenshotDir, `${String(index).padStart(2, '0')}-${slug(step.name)}`);
			const started = Date.now();
			try {
				// `shot(name, target, options)`: a screenshot of the page (or of another one the step opened, or the whole of
				// it with { fullPage: true }) beside the step's own.
				const shot = (name, target = page, options = {}) => target.screenshot({ ...options, path: `${base}-${slug(name)}.png` });
				await step.run({ editor, page, env, state, shot });
				await page.screenshot({ path: `${base}.png` });
				passed += 1;
				log(`ok   ${step.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
			} catch (error) {
				failed += 1;
				await page.screenshot({ path: `${base}.FAILED.png` }).catch(() => {});
				log(`FAIL ${step.name}\n     ${String(error.message ?? error).split('\n').join('\n     ')}\n     screenshot: ${base}.FAILED.png`);
				await editor.reset().catch(() => {});
			}
		}
	} finally {
		if (context) await context.close().catch(() => {});
		fs.rmSync(userDataDir, { recursive: true, force: true });
		await env.stop();
	}
	return { passed, failed, screenshotDir };
}

module.exports = { runSuite, CHROMIUM_ARGS, screenshotDir };

if (require.main === module) {
	const { spawnSync } = require('node:child_process');
	const { makeLogger } = require('../scripts/n8n-runtime');
	const { exitWithSummary, prepareSuite } = require('../scripts/suite');
	const chromium = '/usr/bin/chromium';
	const log = makeLogger('ui');
	exitWithSummary('ui', async () => {
		for (const args of fs.existsSync(chromium) ? [] : [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
			const { status } = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
			if (status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${status})`);
		}
		const { tarball } = await prepareSuite(log);
		const result = await runSuite({ tarball, chromium, filters: process.argv.slice(2), log });
		log(`screenshots: ${result.screenshotDir}`);
		return result;
	});
}
