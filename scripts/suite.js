// What every suite against a real n8n (test:e2e, test:ai, test:e2e:1x, test:ui, test:queue) does first and last:
// the packed package, the compiled sandbox and the pinned n8n prepared once; then one plain closing line,
// `<suite>: N passed, N failed`, and the exit code (0 only when something passed and nothing failed).
'use strict';
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ensureN8n } = require('./n8n-install');
const { buildAndPack } = require('./n8n-runtime');
const { compileSandbox, compiledEntry } = require('./n8n-sandbox');

const root = path.join(__dirname, '..');
/**
 * What the last suite's build, pack and sandbox compile were made from: { sources, tarball, sandboxMs }. It sits
 * beside the tarball, so any later pack (npm test's check of the packed package) removes it; a sandbox compiled again
 * since (npm run bench) shows in its time.
 */
const stampFile = path.join(root, '.build', 'pack', 'suite-prepared.json');

/**
 * A digest of every file git would see in the checkout (tracked, or new and not ignored: sources, package.json, the
 * lockfile, the configs), names and contents; undefined without git, so that nothing is then taken as built.
 */
function sourcesDigest() {
	const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
	if (listed.status !== 0) return undefined;
	const hash = crypto.createHash('sha256');
	for (const file of listed.stdout.split('\0').filter(Boolean).sort()) {
		hash.update(`${file}\0`);
		try {
			hash.update(fs.readFileSync(path.join(root, file)));
		} catch {
			hash.update('(deleted)'); // listed by git, gone from the work tree
		}
		hash.update('\0');
	}
	return hash.digest('hex');
}

/**
 * Builds and packs the package and compiles the sandbox, unless the last suite did so from these very sources and
 * its tarball and sandbox are still there (the suites of one CI run build once); installs the pinned n8n if needed:
 * { tarball, install, ms }.
 */
async function prepareSuite(log) {
	const started = Date.now();
	const sources = sourcesDigest();
	let stamp;
	try {
		stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
	} catch {
		// nothing built by a suite yet
	}
	let tarball;
	const sandboxMs = () => (fs.existsSync(compiledEntry) ? fs.statSync(compiledEntry).mtimeMs : undefined);
	if (sources && stamp?.sources === sources && fs.existsSync(stamp.tarball) && stamp.sandboxMs === sandboxMs()) {
		tarball = stamp.tarball;
		log(`${path.basename(tarball)} and the sandbox are built from these sources already: not built again`);
	} else {
		fs.rmSync(stampFile, { force: true });
		tarball = buildAndPack({ log });
		compileSandbox({ log });
		if (sources) fs.writeFileSync(stampFile, `${JSON.stringify({ sources, tarball, sandboxMs: sandboxMs() })}\n`);
	}
	const install = await ensureN8n();
	return { tarball, install, ms: Date.now() - started };
}

/** Runs `main` (resolving with { passed, failed, skipped?, exitCode? }), prints the closing line and exits. */
function exitWithSummary(label, main) {
	main().then(
		({ passed, failed, skipped = 0, exitCode = 0 }) => {
			process.stdout.write(`\n${label}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
			process.exit(exitCode || (failed === 0 && passed > 0 ? 0 : 1));
		},
		(error) => {
			process.stderr.write(`\n${error.stack ?? error}\n\n${label}: 0 passed, 1 failed\n`);
			process.exit(1);
		},
	);
}

module.exports = { exitWithSummary, prepareSuite };
