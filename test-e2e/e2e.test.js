// The end-to-end suite: a real n8n with the packed package installed as a community package, against the
// platform sandbox. One environment (sandbox + n8n + credentials) is started for the whole run, then every
// module in test-e2e/cases/ (sorted by file name) registers its tests against it.
//
// Run it with `node scripts/e2e.js` (builds, packs, installs n8n if needed, then runs this file with
// `node --test`), or directly: `node --test test-e2e/` (builds and packs itself). See docs/e2e.md.
//
// E2E_CASES names the folder of case modules under test-e2e/ (default `cases`; `npm run test:ai` sets `ai-agent`, the
// AI Agent suite, which runs on the same environment).
//
// A case module exports `function register(env)`, and may export `async function prepare(env)`: run once right
// after the environment started, before the first test of any module (for work whose wall time should overlap the
// other cases, e.g. an execution that n8n resumes by itself a minute later). `env` is filled in before either runs:
//   env.sandbox      the PlatformSandbox (journal, state, clearJournal(), reset(), ...)
//   env.n8n          the N8nInstance (scripts/n8n-runtime.js: api, rest, createWorkflow, runWorkflow, ...)
//   env.credentials  { portal, outbound }: the n8n credentials ({ id, name, type }) pointing at the sandbox
//   env.byType       the same, keyed by credential type (for prepareExample)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { after, before } = require('node:test');

const { startEnvironment } = require('./support/environment');

const env = {};
const casesDir = path.join(__dirname, process.env.E2E_CASES || 'cases');
const cases = fs
	.readdirSync(casesDir)
	.filter((f) => f.endsWith('.js'))
	.sort()
	.map((file) => require(path.join(casesDir, file)));

before(async () => {
	Object.assign(env, await startEnvironment());
	for (const caseModule of cases) {
		if (typeof caseModule.prepare === 'function') await caseModule.prepare(env);
	}
}, { timeout: 15 * 60 * 1000 });

after(async () => {
	if (env.stop) await env.stop();
});

for (const caseModule of cases) caseModule.register(env);
