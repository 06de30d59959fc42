// What every suite against a real n8n (test:e2e, test:ai, test:e2e:1x, test:ui, test:queue) does first and last:
// the packed package, the compiled sandbox and the pinned n8n prepared once; then one plain closing line,
// `<suite>: N passed, N failed`, and the exit code (0 only when something passed and nothing failed).
'use strict';
const { ensureN8n } = require('./n8n-install');
const { buildAndPack } = require('./n8n-runtime');
const { compileSandbox } = require('./n8n-sandbox');

/** Builds and packs the package, compiles the sandbox, installs the pinned n8n if needed: { tarball, install, ms }. */
async function prepareSuite(log) {
	const started = Date.now();
	const tarball = buildAndPack({ log });
	compileSandbox({ log });
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
