#!/usr/bin/env node
// `npm start`: the demo. Builds the package, installs the pinned n8n if needed (first run: a few minutes),
// starts the platform sandbox (seeded, real clock) and a real n8n on 127.0.0.1 with this package installed as
// a community package, creates credentials for the sandbox, imports examples/*.json, and prints the URL, the
// login and what to try first. Ctrl-C stops both.
//
// Environment (all optional):
//   N8N_PORT (5678)  SANDBOX_PORT (4010)  DEMO_EMAIL (demo@example.com)  DEMO_PASSWORD (see DEFAULT_PASSWORD)
//   DEMO_REIMPORT=1  import the examples again even if they were imported before (as new workflows)
// The real platform instead of the sandbox (nothing below is ever written to a committed file; n8n stores the
// keys encrypted in .n8n-demo/, which git ignores):
//   PLATFORM_BASE_URL + PLATFORM_PORTAL_KEY          the management API (portal credential)
//   PLATFORM_OUTBOUND_URL + PLATFORM_OUTBOUND_KEY    the outbound API (outbound credential)
//   PLATFORM_ASSISTANT_KEY                           optional assistant key for the outbound credential
// n8n keeps its data (workflows, credentials, executions, n8n.log) in .n8n-demo/ between runs.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { ensureN8n } = require('./n8n-install');
const { assertPortFree, buildAndPack, makeLogger, startN8n } = require('./n8n-runtime');
const { compileSandbox, loadSandbox } = require('./n8n-sandbox');
const {
	applyExampleDialOutcomes,
	callResultPathOf,
	ensureExampleDataTables,
	loadExamples,
	prepareExamples,
	PORTAL_CREDENTIAL_TYPE,
	OUTBOUND_CREDENTIAL_TYPE,
} = require('./n8n-examples');

const root = path.join(__dirname, '..');
const demoFolder = path.join(root, '.n8n-demo');
const stateFile = path.join(demoFolder, 'demo-state.json');
const DEFAULT_EMAIL = 'demo@example.com';
const DEFAULT_PASSWORD = 'Demo-Password-123';
const log = makeLogger('demo');

function readJson(file, fallback) {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch {
		return fallback;
	}
}

function writeJson(file, value) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

function port(name, fallback) {
	const value = process.env[name];
	if (value === undefined || value === '') return fallback;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number (1..65535), got "${value}"`);
	return n;
}

/** Which platform the credentials point at: the real one when its variables are set, else the sandbox. */
function platformFromEnv() {
	const e = process.env;
	const any = ['PLATFORM_BASE_URL', 'PLATFORM_PORTAL_KEY', 'PLATFORM_OUTBOUND_URL', 'PLATFORM_OUTBOUND_KEY', 'PLATFORM_ASSISTANT_KEY'].some(
		(name) => e[name],
	);
	if (!any) return null;
	const problems = [];
	if (!e.PLATFORM_BASE_URL && !e.PLATFORM_OUTBOUND_URL) problems.push('set PLATFORM_BASE_URL and/or PLATFORM_OUTBOUND_URL');
	if (e.PLATFORM_BASE_URL && !e.PLATFORM_PORTAL_KEY) problems.push('PLATFORM_BASE_URL needs PLATFORM_PORTAL_KEY');
	if (e.PLATFORM_OUTBOUND_URL && !e.PLATFORM_OUTBOUND_KEY) problems.push('PLATFORM_OUTBOUND_URL needs PLATFORM_OUTBOUND_KEY');
	for (const name of ['PLATFORM_BASE_URL', 'PLATFORM_OUTBOUND_URL']) {
		if (e[name] && !/^https?:\/\/[^\s]+$/.test(e[name])) problems.push(`${name} must start with http:// or https://`);
	}
	if (problems.length) throw new Error(`real platform settings incomplete: ${problems.join('; ')}`);
	return {
		portal: e.PLATFORM_BASE_URL ? { baseUrl: e.PLATFORM_BASE_URL, portalApiKey: e.PLATFORM_PORTAL_KEY } : null,
		outbound: e.PLATFORM_OUTBOUND_URL
			? { outboundUrl: e.PLATFORM_OUTBOUND_URL, outboundApiKey: e.PLATFORM_OUTBOUND_KEY, assistantApiKey: e.PLATFORM_ASSISTANT_KEY ?? '' }
			: null,
	};
}

/** Sandbox keys: random once per clone, kept in .n8n-demo/ so the stored credentials stay valid across runs. */
function sandboxKeys() {
	const file = path.join(demoFolder, 'sandbox-keys.json');
	let keys = readJson(file, null);
	if (!keys?.portalKey || !keys?.outboundKey) {
		keys = {
			portalKey: `demo_portal_${crypto.randomBytes(12).toString('hex')}`,
			outboundKey: `demo_outbound_${crypto.randomBytes(12).toString('hex')}`,
		};
		writeJson(file, keys);
	}
	return keys;
}

/** Creates the credential, or updates the one this demo created before (same id, so workflows keep working). */
async function upsertCredential(n8n, existingId, { name, type, data }) {
	if (existingId) {
		try {
			await n8n.updateCredential(existingId, { name, type, data });
			return { id: existingId, name, type };
		} catch (error) {
			if (error.status !== 404) throw error;
		}
	}
	const created = await n8n.createCredential({ name, type, data });
	return { id: created.id, name: created.name, type };
}

async function workflowExists(n8n, id) {
	try {
		await n8n.getWorkflow(id);
		return true;
	} catch (error) {
		if (error.status === 404) return false;
		throw error;
	}
}

async function main() {
	const n8nPort = port('N8N_PORT', 5678);
	const sandboxPort = port('SANDBOX_PORT', 4010);
	const owner = {
		email: process.env.DEMO_EMAIL || DEFAULT_EMAIL,
		password: process.env.DEMO_PASSWORD || DEFAULT_PASSWORD,
		firstName: 'Demo',
		lastName: 'User',
	};
	if (owner.password.length < 8 || !/\d/.test(owner.password) || !/[A-Z]/.test(owner.password)) {
		throw new Error('DEMO_PASSWORD must have at least 8 characters, a digit and an upper-case letter (n8n rule)');
	}
	const platform = platformFromEnv();
	await assertPortFree(n8nPort, 'N8N_PORT');
	if (!platform) await assertPortFree(sandboxPort, 'SANDBOX_PORT');

	const tarball = buildAndPack({ log });
	await ensureN8n();

	let sandbox;
	let portalData;
	let outboundData;
	if (platform) {
		log('PLATFORM_* variables are set: the credentials point at the real platform (no sandbox)');
		portalData = platform.portal;
		outboundData = platform.outbound;
	} else {
		compileSandbox({ log });
		const { PlatformSandbox } = loadSandbox();
		sandbox = await PlatformSandbox.start({
			port: sandboxPort,
			clock: 'real',
			seed: { deterministic: true },
			...sandboxKeys(),
		});
		applyExampleDialOutcomes(sandbox);
		const firstAssistant = sandbox.state.assistants.list?.[0];
		portalData = { baseUrl: sandbox.url, portalApiKey: sandbox.portalKey };
		outboundData = {
			outboundUrl: sandbox.url,
			outboundApiKey: sandbox.outboundKey,
			assistantApiKey: firstAssistant?.assistantApiKey ?? '',
		};
		log(`platform sandbox on ${sandbox.url} (seeded, real clock)`);
	}

	let n8n;
	let stopping = false;
	const stopAll = async (code) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write('\n');
		log('stopping n8n and the sandbox ...');
		if (n8n) await n8n.stop();
		if (sandbox) await sandbox.stop();
		log('stopped');
		process.exit(code);
	};
	process.on('SIGINT', () => stopAll(0));
	process.on('SIGTERM', () => stopAll(0));
	// Last resort (the script itself crashes): never leave n8n running.
	process.once('exit', () => {
		if (n8n && !n8n.exitInfo) n8n.killNow();
	});

	try {
		n8n = await startN8n({ userFolder: demoFolder, tarball, port: n8nPort, owner, install: false, log });
	} catch (error) {
		if (sandbox) await sandbox.stop();
		throw error;
	}
	n8n.exited.then((info) => {
		if (!stopping) {
			log(`n8n exited unexpectedly (${JSON.stringify(info)}); see ${n8n.logFile}`);
			stopAll(1);
		}
	});

	const state = readJson(stateFile, { credentials: {}, workflows: {} });
	const suffix = platform ? 'platform' : 'sandbox';
	const byType = {};
	if (portalData) {
		byType[PORTAL_CREDENTIAL_TYPE] = await upsertCredential(n8n, state.credentials.portal, {
			name: `Assistant Platform Portal (${suffix})`,
			type: PORTAL_CREDENTIAL_TYPE,
			data: portalData,
		});
		state.credentials.portal = byType[PORTAL_CREDENTIAL_TYPE].id;
	}
	if (outboundData) {
		byType[OUTBOUND_CREDENTIAL_TYPE] = await upsertCredential(n8n, state.credentials.outbound, {
			name: `Assistant Platform Outbound (${suffix})`,
			type: OUTBOUND_CREDENTIAL_TYPE,
			data: outboundData,
		});
		state.credentials.outbound = byType[OUTBOUND_CREDENTIAL_TYPE].id;
	}

	// Examples: import the ones not imported yet (or deleted since); keep the user's edits to the others.
	const examples = loadExamples();
	await ensureExampleDataTables(n8n);
	const existing = {};
	for (const example of examples) {
		const id = state.workflows[example.file];
		if (id && !process.env.DEMO_REIMPORT && (await workflowExists(n8n, id))) existing[example.file] = id;
	}
	const triggerKept = state.callResultFile && existing[state.callResultFile];
	const prepared = prepareExamples(examples, byType, {
		baseUrl: n8n.url,
		callResultPath: triggerKept ? state.callResultPath : undefined,
	});
	const imported = [];
	for (const example of prepared) {
		if (existing[example.file]) {
			imported.push({ ...example, id: existing[example.file], fresh: false });
			continue;
		}
		try {
			const created = await n8n.createWorkflow(example.workflow);
			state.workflows[example.file] = created.id;
			imported.push({ ...example, id: created.id, fresh: true });
			const triggerPath = callResultPathOf(example.workflow);
			if (triggerPath && !triggerKept) Object.assign(state, { callResultFile: example.file, callResultPath: triggerPath });
		} catch (error) {
			log(`could not import ${example.file}: ${error.message}`);
		}
	}
	writeJson(stateFile, state);

	// In sandbox mode the results example is published, so its trigger receives the campaign's call results
	// right away (a call-result trigger registers nothing on the platform).
	const results = imported.find((w) => w.file === state.callResultFile);
	let resultsPublished = false;
	if (sandbox && results) {
		try {
			const current = await n8n.getWorkflow(results.id);
			if (!current.active) await n8n.publishWorkflow(results.id);
			resultsPublished = true;
		} catch (error) {
			log(`could not publish "${results.name}": ${error.message}`);
		}
	}

	const name = (file) => imported.find((w) => w.file === file)?.name ?? file;
	const lines = [
		'',
		'================================================================================',
		` n8n with the Assistant Platform nodes:  ${n8n.url}`,
		` Login:  ${owner.email}  /  ${owner.password}`,
		platform
			? ' Platform: the real platform from your PLATFORM_* variables'
			: ` Platform sandbox: ${sandbox.url}  (management API ${sandbox.url}/api/v1; seeded assistants, numbers, catalogs)`,
		` Credentials in n8n: ${Object.values(byType).map((c) => c.name).join(', ')}`,
		' Example workflows:',
		...imported.map(
			(w) =>
				`   - ${w.name}${w.fresh ? '' : ' (imported earlier)'}${w === results && resultsPublished ? ' [published]' : ''}: ${n8n.url}/workflow/${w.id}`,
		),
		'',
		' What to try first:',
		...(platform
			? [
					'   (Real platform: the examples place REAL calls. First set your own numbers, a Caller ID assigned',
					'    to your assistant, and a Call Result URL the platform can reach; 127.0.0.1 is not reachable.)',
				]
			: []),
		`   1. Open "${name('1-campaign.json')}" and click "Execute workflow": three calls are placed (at most 5 at once).`,
		`      Their results arrive at the trigger of "${name('2-call-results.json')}" (see its Executions)`,
		'      and land in Overview > Data tables > "Assistant Platform call log" (one contact is busy).',
		`   2. "${name('3-escalation.json')}": the execution waits for each call's result; the primary does`,
		'      not answer, so the backup is called.',
		`   3. "${name('4-knowledge.json')}": a RAG collection with a document, attached to an assistant.`,
		`   4. "${name('5-campaign-with-retries.json')}": contacts called until answered or out of attempts, in their`,
		'      calling hours (Mon-Fri 09:00-20:00 local: outside them the run waits), busy numbers again after',
		'      10 minutes; outcomes in Overview > Data tables > "Assistant Platform campaign results".',
		'   5. Any workflow: add a node, search "Assistant Platform", try Assistant > Get many assistants.',
		'',
		` n8n's data and log: ${path.relative(root, demoFolder)}/ (kept between runs). Ctrl-C stops everything.`,
		'================================================================================',
		'',
	];
	process.stdout.write(lines.join('\n'));
}

main().catch((error) => {
	process.stderr.write(`\n[demo] ${error.message}\n`);
	process.exit(1);
});
