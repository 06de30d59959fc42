#!/usr/bin/env node
// `npm start`: the package built and packed, the pinned n8n installed if needed (minutes the first time), the platform
// sandbox (seeded, real clock) and a real n8n on 127.0.0.1 with the package, credentials for the sandbox, and
// examples/*.json imported; prints the URL, the login and what to try first. n8n keeps its data in .n8n-demo/
// between runs; Ctrl-C stops both.
// Optional: N8N_PORT (5678), SANDBOX_PORT (4010), DEMO_EMAIL, DEMO_PASSWORD, DEMO_REIMPORT=1 (import the examples
// again). The real platform instead of the sandbox: PLATFORM_BASE_URL + PLATFORM_PORTAL_KEY (management API),
// PLATFORM_OUTBOUND_URL + PLATFORM_OUTBOUND_KEY [+ PLATFORM_ASSISTANT_KEY] [+ PLATFORM_ASSISTANT_ID: example 8's assistant].
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { ensureN8n } = require('./n8n-install');
const { assertPortFree, buildAndPack, makeLogger, startN8n } = require('./n8n-runtime');
const { compileSandbox, loadSandbox } = require('./n8n-sandbox');
const examples = require('./n8n-examples');

const demoFolder = path.join(__dirname, '..', '.n8n-demo');
const log = makeLogger('demo');
const env = process.env;

function readJson(file, fallback) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return fallback;
	}
}
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
function port(name, fallback) {
	const n = Number(env[name] || fallback);
	if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number (1..65535), got "${env[name]}"`);
	return n;
}
/** 404 -> undefined; anything else is thrown. */
const unless404 = (promise) => promise.catch((error) => (error.status === 404 ? undefined : Promise.reject(error)));

/** Credential data for the real platform from PLATFORM_* (null when none is set). */
function platformFromEnv() {
	const names = ['PLATFORM_BASE_URL', 'PLATFORM_PORTAL_KEY', 'PLATFORM_OUTBOUND_URL', 'PLATFORM_OUTBOUND_KEY', 'PLATFORM_ASSISTANT_KEY'];
	if (!names.some((name) => env[name])) return null;
	const problems = [];
	if (!env.PLATFORM_BASE_URL && !env.PLATFORM_OUTBOUND_URL) problems.push('set PLATFORM_BASE_URL and/or PLATFORM_OUTBOUND_URL');
	for (const [url, key] of [['PLATFORM_BASE_URL', 'PLATFORM_PORTAL_KEY'], ['PLATFORM_OUTBOUND_URL', 'PLATFORM_OUTBOUND_KEY']]) {
		if (env[url] && !env[key]) problems.push(`${url} needs ${key}`);
		if (env[url] && !/^https?:\/\/\S+$/.test(env[url])) problems.push(`${url} must start with http:// or https://`);
	}
	if (problems.length) throw new Error(`real platform settings incomplete: ${problems.join('; ')}`);
	return {
		portal: env.PLATFORM_BASE_URL && { baseUrl: env.PLATFORM_BASE_URL, portalApiKey: env.PLATFORM_PORTAL_KEY },
		outbound: env.PLATFORM_OUTBOUND_URL && { outboundUrl: env.PLATFORM_OUTBOUND_URL, outboundApiKey: env.PLATFORM_OUTBOUND_KEY, assistantApiKey: env.PLATFORM_ASSISTANT_KEY ?? '' },
		assistantId: env.PLATFORM_ASSISTANT_ID,
	};
}

/** The sandbox, with keys made once per clone (kept in .n8n-demo/, so the stored credentials stay valid). */
async function startSandbox(sandboxPort) {
	const keysFile = path.join(demoFolder, 'sandbox-keys.json');
	const random = (prefix) => `${prefix}${crypto.randomBytes(12).toString('hex')}`;
	const keys = readJson(keysFile, { portalKey: random('demo_portal_'), outboundKey: random('demo_outbound_') });
	writeJson(keysFile, keys);
	compileSandbox({ log });
	const sandbox = await loadSandbox().PlatformSandbox.start({ port: sandboxPort, clock: 'real', seed: { deterministic: true }, ...keys });
	examples.applyExampleDialOutcomes(sandbox);
	log(`platform sandbox on ${sandbox.url} (seeded, real clock)`);
	return {
		sandbox,
		portal: { baseUrl: sandbox.url, portalApiKey: sandbox.portalKey },
		outbound: { outboundUrl: sandbox.url, outboundApiKey: sandbox.outboundKey, assistantApiKey: sandbox.state.assistants.list[0]?.assistantApiKey ?? '' },
		assistantId: sandbox.state.assistants.list[0]?.assistantId,
	};
}

/** Credentials created once, then updated in place (the same id, so imported workflows keep working). */
async function storeCredentials(n8n, state, platform, suffix) {
	const byType = {};
	for (const [key, type, label] of [['portal', examples.PORTAL_CREDENTIAL_TYPE, 'Portal'], ['outbound', examples.OUTBOUND_CREDENTIAL_TYPE, 'Outbound']]) {
		if (!platform[key]) continue;
		const credential = { name: `Assistant Platform ${label} (${suffix})`, type, data: platform[key] };
		const id = state.credentials[key];
		const updated = id && (await unless404(n8n.api('PATCH', `/credentials/${id}`, credential).then(() => id)));
		state.credentials[key] = updated ?? (await n8n.api('POST', '/credentials', credential)).id;
		byType[type] = { id: state.credentials[key], name: credential.name };
	}
	return byType;
}

/** Imports the examples not imported yet (or deleted since); the user's edits to the others stay. */
async function importExamples(n8n, state, byType, assistantId) {
	const all = examples.loadExamples();
	await examples.ensureExampleDataTables(n8n);
	const kept = {};
	for (const { file } of all) {
		const id = state.workflows[file];
		if (id && !env.DEMO_REIMPORT && (await unless404(n8n.api('GET', `/workflows/${id}`)))) kept[file] = id;
	}
	const triggerKept = state.callResultFile && kept[state.callResultFile];
	const prepared = examples.prepareExamples(all, byType, { baseUrl: n8n.url, callResultPath: triggerKept ? state.callResultPath : undefined, assistantId });
	const imported = [];
	for (const example of prepared) {
		if (kept[example.file]) {
			imported.push({ ...example, id: kept[example.file], note: ' (imported earlier)' });
			continue;
		}
		try {
			const { id } = await n8n.createWorkflow(example.workflow);
			state.workflows[example.file] = id;
			imported.push({ ...example, id, note: '' });
			const triggerPath = examples.callResultPathOf(example.workflow);
			if (triggerPath && !triggerKept) Object.assign(state, { callResultFile: example.file, callResultPath: triggerPath });
		} catch (error) {
			log(`could not import ${example.file}: ${error.message}`);
		}
	}
	return imported;
}

async function main() {
	const owner = { email: env.DEMO_EMAIL || 'demo@example.com', password: env.DEMO_PASSWORD || 'Demo-Password-123', firstName: 'Demo', lastName: 'User' };
	if (owner.password.length < 8 || !/\d/.test(owner.password) || !/[A-Z]/.test(owner.password)) {
		throw new Error('DEMO_PASSWORD must have at least 8 characters, a digit and an upper-case letter (n8n rule)');
	}
	const real = platformFromEnv();
	await assertPortFree(port('N8N_PORT', 5678), 'N8N_PORT');
	if (!real) await assertPortFree(port('SANDBOX_PORT', 4010), 'SANDBOX_PORT');
	const tarball = buildAndPack({ log });
	await ensureN8n();
	fs.mkdirSync(demoFolder, { recursive: true });
	if (real) log('PLATFORM_* variables are set: the credentials point at the real platform (no sandbox)');
	const platform = real ?? (await startSandbox(port('SANDBOX_PORT', 4010)));
	const { sandbox } = platform;

	let n8n;
	let stopping = false;
	const stopAll = async (code) => {
		if (stopping) return;
		stopping = true;
		log('stopping n8n and the sandbox ...');
		await n8n?.stop();
		await sandbox?.stop();
		process.exit(code);
	};
	process.on('SIGINT', () => stopAll(0));
	process.on('SIGTERM', () => stopAll(0));
	process.once('exit', () => n8n?.killNow()); // never leave n8n running
	n8n = await startN8n({ userFolder: demoFolder, tarball, port: port('N8N_PORT', 5678), owner, install: false, log }).catch(async (error) => {
		await sandbox?.stop();
		throw error;
	});
	n8n.exited.then((info) => stopping || (log(`n8n exited unexpectedly (${JSON.stringify(info)}); see ${n8n.logFile}`), stopAll(1)));

	const stateFile = path.join(demoFolder, 'demo-state.json');
	const state = readJson(stateFile, { credentials: {}, workflows: {} });
	const byType = await storeCredentials(n8n, state, platform, real ? 'platform' : 'sandbox');
	const imported = await importExamples(n8n, state, byType, platform.assistantId);
	writeJson(stateFile, state);

	// With the sandbox, the results example is published, so that its trigger receives the campaign's call results.
	const results = imported.find((w) => w.file === state.callResultFile);
	if (sandbox && results) {
		try {
			if (!(await n8n.api('GET', `/workflows/${results.id}`)).active) await n8n.api('POST', `/workflows/${results.id}/publish`);
			results.note += ' [published]';
		} catch (error) {
			log(`could not publish "${results.name}": ${error.message}`);
		}
	}

	const name = (file) => imported.find((w) => w.file === file)?.name ?? file;
	const rule = '='.repeat(80);
	console.log(`
${rule}
 n8n with the Assistant Platform nodes:  ${n8n.url}
 Login:  ${owner.email}  /  ${owner.password}
 ${real ? 'Platform: the real platform from your PLATFORM_* variables' : `Platform sandbox: ${sandbox.url}  (management API ${sandbox.url}/api/v1; seeded assistants, numbers, catalogs)`}
 Credentials in n8n: ${Object.values(byType).map((c) => c.name).join(', ')}
 Example workflows:
${imported.map((w) => `   - ${w.name}${w.note}: ${n8n.url}/workflow/${w.id}`).join('\n')}

 What to try first:${
	real
		? `
   (Real platform: the examples place REAL calls. First set your own numbers, a Caller ID assigned
    to your assistant, and a Call Result URL the platform can reach; 127.0.0.1 is not reachable.)`
		: ''
}
   1. Open "${name('1-campaign.json')}" and click "Execute workflow": three calls are placed (up to 5 every 2 minutes).
      Their results arrive at the trigger of "${name('2-call-results.json')}" (see its Executions)
      and land in Overview > Data tables > "Assistant Platform call log" (one contact is busy).
   2. "${name('3-escalation.json')}": the execution waits for each call's result; the primary does
      not answer, so the backup is called.
   3. "${name('4-knowledge.json')}": a RAG collection with a document, attached to an assistant.
   4. "${name('8-opt-outs.json')}": publish it; a person who says "do not call me again" in a call of
      example 6's campaign goes on the do-not-call list that example 6 checks before every call.
   5. "${name('9-campaign-progress-page.json')}": give its Webhook a Basic Auth credential, publish it and
      open ${n8n.url}/webhook/campaign-progress: example 6's campaign as a page that reloads itself.
   6. Any workflow: add a node, search "Assistant Platform", try Assistant > Get many assistants.

 n8n's data and log: .n8n-demo/ (kept between runs). Ctrl-C stops everything.
${rule}
`);
}

main().catch((error) => {
	console.error(`\n[demo] ${error.message}`);
	process.exit(1);
});
