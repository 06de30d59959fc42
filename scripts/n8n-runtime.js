#!/usr/bin/env node
// Boots a real n8n (the pinned install in .tools/n8n, on Node 24) with this package installed as a community
// package, and drives it over HTTP. Used by scripts/demo.js (`npm start`) and the end-to-end suite (test-e2e/).
//
// As a module:
//   const { buildAndPack, startN8n } = require('./n8n-runtime');
//   const tarball = buildAndPack();                         // npm run build + npm pack -> .build/pack/*.tgz
//   const n8n = await startN8n({ userFolder, tarball });     // installs the tarball, boots, logs in, API key
//   await n8n.createCredential({ name, type, data }); await n8n.createWorkflow(json); ...
//   await n8n.stop();
//
// As a CLI (a quick manual check; Ctrl-C stops it):
//   node scripts/n8n-runtime.js [--folder <dir>] [--port <n>]
//
// Only Node built-ins here; n8n's own dependencies (bcryptjs) are loaded from .tools/n8n/node_modules.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { definition: toolDefinition, ensureN8n, npmEnv, paths: toolPaths } = require('./n8n-install');

const root = path.join(__dirname, '..');
const PACKAGE_NAME = require(path.join(root, 'package.json')).name;

const DEFAULT_OWNER = Object.freeze({
	email: 'owner@e2e.invalid',
	password: 'E2e-Owner-Password-1',
	firstName: 'E2E',
	lastName: 'Owner',
});

function makeLogger(prefix, sink = process.stdout) {
	return (message) => sink.write(`[${prefix}] ${message}\n`);
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether two reads of one execution show the same status and the same data. */
function sameExecution(a, b) {
	return a.id === b.id && a.status === b.status && JSON.stringify(a.data) === JSON.stringify(b.data);
}

/** A free TCP port on 127.0.0.1 (the OS picks it; it is released before n8n binds it). */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** Fails unless `port` can be bound on 127.0.0.1 right now. */
function assertPortFree(port, what) {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.on('error', (error) =>
			reject(new Error(`${what}: port ${port} on 127.0.0.1 is not free (${error.code}); choose another one`)),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(port)));
	});
}

function runStep(title, command, args, { cwd = root, log, env = process.env } = {}) {
	log?.(`${title}`);
	const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (result.error || result.status !== 0) {
		process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
		throw new Error(`${title} failed (${result.error ? result.error.message : `exit ${result.status}`})`);
	}
	return result.stdout;
}

/**
 * Builds the package (`npm run build`) and packs it (`npm pack`) into .build/pack/. Returns the tarball path.
 * Pass { build: false } to pack what dist/ holds already.
 */
function buildAndPack({ build = true, log = makeLogger('pack') } = {}) {
	if (build) runStep('build the package (npm run build)', 'npm', ['run', '--silent', 'build'], { log });
	const outDir = path.join(root, '.build', 'pack');
	fs.rmSync(outDir, { recursive: true, force: true });
	fs.mkdirSync(outDir, { recursive: true });
	const stdout = runStep('pack it (npm pack)', 'npm', ['pack', '--json', '--pack-destination', outDir], { log });
	const info = JSON.parse(stdout.slice(stdout.indexOf('[')))[0];
	const tarball = path.join(outDir, info.filename);
	log(`packed ${path.relative(root, tarball)} (${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB)`);
	return tarball;
}

/** The node and credential files the packed package.json lists (relative to the package). */
function listedFiles(packageJson) {
	const n8n = packageJson.n8n ?? {};
	return { nodes: n8n.nodes ?? [], credentials: n8n.credentials ?? [] };
}

/**
 * Installs the tarball as a community package into `<userFolder>/.n8n/nodes` (where n8n loads community nodes
 * from: node types `n8n-nodes-assistant-platform.<name>`). Lifecycle scripts are ignored and the peer
 * dependency n8n-workflow is not installed (n8n provides it).
 *
 * While a node listed in the package's "n8n.nodes" has not been written yet (phase 1: the trigger), the
 * installed copy's list is trimmed to the files that exist, with a warning, because n8n refuses to load a
 * package with a missing node file. Returns { packageDir, nodes, credentials, missing }.
 */
function installCommunityPackage(userFolder, tarball, { log = makeLogger('n8n') } = {}) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) {
		fs.writeFileSync(manifest, `${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`);
	}
	runStep(
		`install ${path.basename(tarball)} as a community package`,
		'npm',
		['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error', path.resolve(tarball)],
		{ cwd: nodesDir, log, env: npmEnv() },
	);
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	const packageJsonPath = path.join(packageDir, 'package.json');
	const packageJson = JSON.parse(fs.readFileSync(packageJsonPath, 'utf8'));
	const listed = listedFiles(packageJson);
	const exists = (file) => fs.existsSync(path.join(packageDir, file));
	const missing = [...listed.nodes, ...listed.credentials].filter((file) => !exists(file));
	if (missing.length > 0) {
		log(`WARNING: the package lists files that dist/ does not contain yet; loading it without them: ${missing.join(', ')}`);
		packageJson.n8n.nodes = listed.nodes.filter(exists);
		packageJson.n8n.credentials = listed.credentials.filter(exists);
		fs.writeFileSync(packageJsonPath, `${JSON.stringify(packageJson, null, 2)}\n`);
	}
	const typeName = (file) => `${PACKAGE_NAME}.${path.basename(file).split('.')[0].replace(/^./, (c) => c.toLowerCase())}`;
	return {
		packageDir,
		missing,
		nodes: packageJson.n8n.nodes.map(typeName),
		credentials: packageJson.n8n.credentials.map((file) => path.basename(file).split('.')[0].replace(/^./, (c) => c.toLowerCase())),
	};
}

/** The encryption key of a user folder: the one n8n stored there, else a new random one (n8n stores it). */
function encryptionKeyFor(userFolder) {
	const configFile = path.join(userFolder, '.n8n', 'config');
	try {
		const key = JSON.parse(fs.readFileSync(configFile, 'utf8')).encryptionKey;
		if (typeof key === 'string' && key) return key;
	} catch {
		// first boot of this folder
	}
	return crypto.randomBytes(24).toString('base64url');
}

function bcryptHash(password) {
	const bcrypt = require(path.join(toolPaths.nodeModules, 'bcryptjs'));
	return bcrypt.hashSync(password, 10);
}

class HttpError extends Error {
	constructor(method, url, status, body) {
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		super(`${method} ${url} -> HTTP ${status}: ${String(text).slice(0, 500)}`);
		this.status = status;
		this.body = body;
	}
}

async function httpJson(method, url, { headers = {}, body, expect = [200, 201, 204], timeoutMs = 30000 } = {}) {
	const response = await fetch(url, {
		method,
		headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(timeoutMs),
	});
	const text = await response.text();
	let parsed = text;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {
		// not JSON
	}
	if (expect !== 'any' && !expect.includes(response.status)) throw new HttpError(method, url, response.status, parsed);
	return { status: response.status, headers: response.headers, body: parsed };
}

/**
 * A running n8n: `url`, `restUrl`, `apiUrl`, `webhookUrl(path)`, the owner, and helpers over its REST API
 * (session cookie) and public API (X-N8N-API-KEY).
 */
class N8nInstance {
	constructor({ child, port, userFolder, owner, logFile, log, env }) {
		this.child = child;
		this.port = port;
		this.userFolder = userFolder;
		this.owner = owner;
		this.logFile = logFile;
		this.log = log;
		this.env = env;
		this.url = `http://127.0.0.1:${port}`;
		this.restUrl = `${this.url}/rest`;
		this.apiUrl = `${this.url}/api/v1`;
		this.cookie = undefined;
		this.apiKey = undefined;
		this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
		this.exitInfo = undefined;
		this.exited.then((info) => {
			this.exitInfo = info;
		});
	}

	/** The last `lines` lines n8n wrote (stdout and stderr), for error messages. */
	logTail(lines = 40) {
		try {
			return fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
		} catch {
			return '';
		}
	}

	async waitUntilReady({ timeoutMs = 120000 } = {}) {
		const started = Date.now();
		while (Date.now() - started < timeoutMs) {
			if (this.exitInfo) {
				throw new Error(`n8n exited during startup (${JSON.stringify(this.exitInfo)}). Last log lines:\n${this.logTail()}`);
			}
			try {
				const r = await httpJson('GET', `${this.url}/healthz/readiness`, { expect: 'any', timeoutMs: 2000 });
				if (r.status === 200) return Date.now() - started;
			} catch {
				// not listening yet
			}
			await delay(250);
		}
		throw new Error(`n8n was not ready after ${timeoutMs / 1000} s. Last log lines:\n${this.logTail()}`);
	}

	/** POST /rest/login {emailOrLdapLoginId, password}; keeps the `n8n-auth` cookie for later REST calls. */
	async login() {
		const r = await httpJson('POST', `${this.restUrl}/login`, {
			body: { emailOrLdapLoginId: this.owner.email, password: this.owner.password },
		});
		const setCookie = r.headers.getSetCookie?.() ?? [r.headers.get('set-cookie')];
		const auth = setCookie.map((c) => String(c).split(';')[0]).find((c) => c.startsWith('n8n-auth='));
		if (!auth) throw new Error('POST /rest/login answered without an n8n-auth cookie');
		this.cookie = auth;
		return r.body?.data;
	}

	/**
	 * n8n 1.x: POST /rest/owner/setup {email, firstName, lastName, password} unless an owner exists already
	 * (GET /rest/settings: userManagement.showSetupOnFirstLoad).
	 */
	async setUpOwner({ timeoutMs = 60000 } = {}) {
		// n8n 1.x answers readiness before it has registered its REST routes: wait for them.
		const started = Date.now();
		let settings = await httpJson('GET', `${this.restUrl}/settings`, { expect: 'any' });
		while (settings.status === 404 && Date.now() - started < timeoutMs) {
			await delay(250);
			settings = await httpJson('GET', `${this.restUrl}/settings`, { expect: 'any' });
		}
		if (settings.status !== 200) throw new HttpError('GET', `${this.restUrl}/settings`, settings.status, settings.body);
		if (settings.body?.data?.userManagement?.showSetupOnFirstLoad === false) return;
		await httpJson('POST', `${this.restUrl}/owner/setup`, {
			body: {
				email: this.owner.email,
				firstName: this.owner.firstName ?? 'Demo',
				lastName: this.owner.lastName ?? 'Owner',
				password: this.owner.password,
			},
		});
	}

	/** A call to n8n's internal REST API (as the logged-in owner); returns the unwrapped `data`. */
	async rest(method, pathname, body, { expect } = {}) {
		if (!this.cookie) await this.login();
		const r = await httpJson(method, `${this.restUrl}${pathname}`, { headers: { cookie: this.cookie }, body, expect });
		return r.body && typeof r.body === 'object' && 'data' in r.body ? r.body.data : r.body;
	}

	/**
	 * POST /rest/api-keys {label, scopes, expiresAt: null} with every scope the owner may grant
	 * (GET /rest/api-keys/scopes). Keeps the raw key for public API calls.
	 */
	async createApiKey(label = `e2e ${new Date().toISOString().slice(0, 19)}`) {
		const scopes = await this.rest('GET', '/api-keys/scopes');
		const created = await this.rest('POST', '/api-keys', { label: label.slice(0, 50), scopes, expiresAt: null });
		this.apiKey = created.rawApiKey;
		return { id: created.id, label: created.label, scopes };
	}

	/** A call to n8n's public API (X-N8N-API-KEY); returns the parsed body. */
	async api(method, pathname, body, { expect } = {}) {
		if (!this.apiKey) await this.createApiKey();
		const r = await httpJson(method, `${this.apiUrl}${pathname}`, { headers: { 'x-n8n-api-key': this.apiKey }, body, expect });
		return r.body;
	}

	/**
	 * POST /api/v1/credentials {name, type, data} -> {id, name, type, ...}. n8n 1.x's public API demands the
	 * domain-restriction fields it appends to every credential type: there the editor's POST /rest/credentials
	 * is used.
	 */
	createCredential({ name, type, data }) {
		if (this.majorVersion < 2) return this.rest('POST', '/credentials', { name, type, data });
		return this.api('POST', '/credentials', { name, type, data });
	}

	/** PATCH /api/v1/credentials/{id} with { name?, data? } (e.g. a new base URL or key). */
	updateCredential(id, changes) {
		return this.api('PATCH', `/credentials/${encodeURIComponent(id)}`, changes);
	}

	/**
	 * Tests a stored credential: POST /api/v1/credentials/{id}/test -> {status: 'OK'|'Error', message}.
	 * n8n 1.x has no such public endpoint: there the editor's test of a stored credential is used (its data as
	 * GET /rest/credentials/{id}?includeData=true shows it, secrets redacted; n8n merges them back).
	 */
	async testStoredCredential(id) {
		if (this.majorVersion < 2) {
			const stored = await this.rest('GET', `/credentials/${encodeURIComponent(id)}?includeData=true`);
			return this.rest('POST', '/credentials/test', {
				credentials: { id: stored.id, name: stored.name, type: stored.type, data: stored.data },
			});
		}
		return this.api('POST', `/credentials/${encodeURIComponent(id)}/test`);
	}

	/**
	 * The editor's "Test" button: POST /rest/credentials/test {credentials: {id, name, type, data}}.
	 * With id '' (the owner may), the data is tested without being stored. -> {status, message}.
	 * n8n 1.x tests stored credentials only: unsaved data is stored for the test and deleted afterwards.
	 */
	async testCredential({ id = '', name = 'e2e credential test', type, data }) {
		if (this.majorVersion < 2 && id === '') {
			const created = await this.rest('POST', '/credentials', { name, type, data });
			try {
				return await this.rest('POST', '/credentials/test', { credentials: { id: created.id, name, type, data } });
			} finally {
				await this.rest('DELETE', `/credentials/${encodeURIComponent(created.id)}`);
			}
		}
		return this.rest('POST', '/credentials/test', { credentials: { id, name, type, data } });
	}

	/**
	 * n8n 1.x has no public API for data tables: its REST API serves them per project
	 * (/rest/projects/<the owner's personal project>/data-tables).
	 */
	async restDataTables() {
		if (!this.personalProjectId) this.personalProjectId = (await this.rest('GET', '/projects/personal')).id;
		return `/projects/${encodeURIComponent(this.personalProjectId)}/data-tables`;
	}

	/** GET /api/v1/data-tables (first 250) -> [{ id, name, columns, ... }]. */
	async listDataTables() {
		if (this.majorVersion < 2) return (await this.rest('GET', `${await this.restDataTables()}?take=250`)).data;
		return (await this.api('GET', '/data-tables?limit=250')).data;
	}

	/** POST /api/v1/data-tables { name, columns: [{ name, type: string|number|boolean|date }] } -> the table. */
	async createDataTable({ name, columns }) {
		if (this.majorVersion < 2) return this.rest('POST', await this.restDataTables(), { name, columns });
		return this.api('POST', '/data-tables', { name, columns });
	}

	/** GET /api/v1/data-tables/{id}/rows -> the rows (first 250). */
	async dataTableRows(id) {
		if (this.majorVersion < 2) {
			return (await this.rest('GET', `${await this.restDataTables()}/${encodeURIComponent(id)}/rows?take=250`)).data;
		}
		return (await this.api('GET', `/data-tables/${encodeURIComponent(id)}/rows?limit=250`)).data;
	}

	/**
	 * Every row of a data table (the editor's REST API on 1.x and 2.x alike, pages of 50: n8n 1.x serves at most
	 * 50 a page, 2.x 250), oldest first.
	 */
	async allDataTableRows(id) {
		const rows = [];
		for (;;) {
			const page = await this.rest('GET', `${await this.restDataTables()}/${encodeURIComponent(id)}/rows?take=50&skip=${rows.length}`);
			rows.push(...page.data);
			if (page.data.length === 0 || rows.length >= page.count) return rows;
		}
	}

	/** Adds rows to a data table (the editor's REST API): POST .../data-tables/{id}/insert {data}, 500 at a time. */
	async insertDataTableRows(id, rows) {
		for (let i = 0; i < rows.length; i += 500) {
			await this.rest('POST', `${await this.restDataTables()}/${encodeURIComponent(id)}/insert`, { data: rows.slice(i, i + 500), returnType: 'count' });
		}
	}

	/**
	 * POST /api/v1/workflows with the fields the public API accepts (name, nodes, connections, settings,
	 * staticData?). Returns the stored workflow (with id and the node ids/webhookIds n8n kept).
	 */
	createWorkflow(workflow) {
		const { name, nodes, connections, settings, staticData } = workflow;
		return this.api('POST', '/workflows', {
			name,
			nodes,
			connections,
			settings: settings ?? { executionOrder: 'v1' },
			...(staticData ? { staticData } : {}),
		});
	}

	getWorkflow(id) {
		return this.api('GET', `/workflows/${encodeURIComponent(id)}`);
	}

	deleteWorkflow(id) {
		return this.api('DELETE', `/workflows/${encodeURIComponent(id)}`);
	}

	/** The major version of this n8n (from its installed package.json). */
	get majorVersion() {
		return Number(String(this.version).split('.')[0]);
	}

	/** Publish: POST /api/v1/workflows/{id}/publish (n8n 1.x: /activate). Registers its webhooks. */
	publishWorkflow(id) {
		return this.api('POST', `/workflows/${encodeURIComponent(id)}/${this.majorVersion < 2 ? 'activate' : 'publish'}`, {});
	}

	/** Unpublish: POST /api/v1/workflows/{id}/unpublish (n8n 1.x: /deactivate). */
	unpublishWorkflow(id) {
		return this.api('POST', `/workflows/${encodeURIComponent(id)}/${this.majorVersion < 2 ? 'deactivate' : 'unpublish'}`);
	}

	/**
	 * Runs a saved workflow the way the editor's "Execute workflow" button does:
	 * POST /rest/workflows/{id}/run {triggerToStartFrom: {name}} -> {executionId}, then waits for the execution
	 * to finish (or, with { until: 'waiting' }, to wait for a resume). Returns the execution with its data.
	 * `trigger` defaults to the workflow's first manualTrigger node.
	 */
	async runWorkflow(id, { trigger, timeoutMs = 60000, until = 'finished' } = {}) {
		let triggerName = trigger;
		if (!triggerName) {
			const workflow = await this.getWorkflow(id);
			triggerName = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')?.name;
			if (!triggerName) throw new Error(`workflow ${id} has no Manual Trigger; pass { trigger: <node name> }`);
		}
		// n8n 1.x wants the workflow itself in the body, as its editor sends it.
		const workflowData = this.majorVersion < 2 ? await this.rest('GET', `/workflows/${encodeURIComponent(id)}`) : undefined;
		const started = await this.rest('POST', `/workflows/${encodeURIComponent(id)}/run`, {
			...(workflowData ? { workflowData } : {}),
			triggerToStartFrom: { name: triggerName },
		});
		if (!started?.executionId) throw new Error(`workflow ${id} did not start: ${JSON.stringify(started)}`);
		return this.waitForExecution(started.executionId, { timeoutMs, until });
	}

	/**
	 * Polls GET /api/v1/executions/{id}?includeData=true until it is finished (status not new/running/waiting),
	 * or, with { until: 'waiting' }, until it is waiting or finished.
	 *
	 * An execution is returned only once two reads 300 ms apart agree: n8n 1.x on SQLite (pool size 0, its
	 * default) writes an execution's status and its data in two statements without a transaction, so a read
	 * between them shows the new status with the data of the step before (seen in CI: "success" with the
	 * resumed node's runs still empty).
	 */
	async waitForExecution(executionId, { timeoutMs = 60000, until = 'finished' } = {}) {
		const started = Date.now();
		const open = until === 'waiting' ? ['new', 'running'] : ['new', 'running', 'waiting'];
		let candidate;
		for (;;) {
			const execution = await this.api('GET', `/executions/${encodeURIComponent(executionId)}?includeData=true`, undefined, {
				expect: [200, 404],
			});
			const ended = execution && execution.id !== undefined && !open.includes(execution.status) && execution.data !== undefined;
			if (ended && candidate && sameExecution(candidate, execution)) return execution;
			candidate = ended ? execution : undefined;
			if (Date.now() - started > timeoutMs) {
				throw new Error(`execution ${executionId} still ${execution?.status ?? 'unknown'} after ${timeoutMs / 1000} s`);
			}
			await delay(300);
		}
	}

	/** GET /api/v1/executions?includeData=&workflowId=&status=&limit= -> the `data` array (newest first). */
	async listExecutions({ workflowId, status, includeData = true, limit = 100 } = {}) {
		const qs = new URLSearchParams({ includeData: String(includeData), limit: String(limit) });
		if (workflowId) qs.set('workflowId', String(workflowId));
		if (status) qs.set('status', status);
		return (await this.api('GET', `/executions?${qs}`)).data;
	}

	/**
	 * Waits until the workflow has at least `count` finished executions; returns them (newest first), once two
	 * reads 300 ms apart agree (see waitForExecution).
	 */
	async waitForExecutions(workflowId, { count = 1, timeoutMs = 30000 } = {}) {
		const started = Date.now();
		let candidate;
		for (;;) {
			const done = (await this.listExecutions({ workflowId })).filter((e) => !['new', 'running'].includes(e.status));
			const enough = done.length >= count;
			if (enough && candidate && candidate.length === done.length && candidate.every((e, i) => sameExecution(e, done[i]))) {
				return done;
			}
			candidate = enough ? done : undefined;
			if (Date.now() - started > timeoutMs) {
				throw new Error(`workflow ${workflowId}: ${done.length} of ${count} executions after ${timeoutMs / 1000} s`);
			}
			await delay(300);
		}
	}

	/**
	 * GET /types/nodes.json (session cookie): every node type description n8n loaded (several MB: the result
	 * is kept; pass { fresh: true } to fetch it again).
	 */
	async nodeTypes({ fresh = false } = {}) {
		if (!this.cookie) await this.login();
		if (!this.nodeTypesCache || fresh) {
			this.nodeTypesCache = (await httpJson('GET', `${this.url}/types/nodes.json`, { headers: { cookie: this.cookie } })).body;
		}
		return this.nodeTypesCache;
	}

	/** GET /types/credentials.json (session cookie): every credential type n8n loaded. */
	async credentialTypes() {
		if (!this.cookie) await this.login();
		return (await httpJson('GET', `${this.url}/types/credentials.json`, { headers: { cookie: this.cookie } })).body;
	}

	/** The production URL of a webhook path: http://127.0.0.1:<port>/webhook/<path>. */
	webhookUrl(webhookPath) {
		return `${this.url}/webhook/${String(webhookPath).replace(/^\/+/, '')}`;
	}

	/**
	 * Calls a production webhook. A just-published workflow can answer 404 for a moment (webhooks are
	 * registered after the publish call returns), so 404 is retried until `retryMs` has passed.
	 */
	async callWebhook(webhookPath, { method = 'POST', body, headers, retryMs = 15000, expect = 'any' } = {}) {
		const url = /^https?:/.test(webhookPath) ? webhookPath : this.webhookUrl(webhookPath);
		const started = Date.now();
		for (;;) {
			const r = await httpJson(method, url, { body, headers, expect: 'any' });
			if (r.status !== 404 || Date.now() - started > retryMs) {
				if (expect !== 'any' && !expect.includes(r.status)) throw new HttpError(method, url, r.status, r.body);
				return r;
			}
			await delay(250);
		}
	}

	/**
	 * SIGTERM (n8n shuts down gracefully and stops its task runner), then SIGKILL to n8n's whole process group
	 * after `graceMs`. Resolves when the process has exited.
	 */
	async stop({ graceMs = 15000 } = {}) {
		if (this.exitInfo) return this.exitInfo;
		this.child.kill('SIGTERM');
		const timer = setTimeout(() => {
			if (!this.exitInfo) {
				this.log(`n8n did not stop within ${graceMs / 1000} s; killing it`);
				this.killNow();
			}
		}, graceMs);
		const info = await this.exited;
		clearTimeout(timer);
		return info;
	}

	/** SIGKILL to n8n and everything it started (its process group). Synchronous: safe in an 'exit' handler. */
	killNow() {
		try {
			process.kill(-this.child.pid, 'SIGKILL');
		} catch {
			try {
				this.child.kill('SIGKILL');
			} catch {
				// already gone
			}
		}
	}
}

/**
 * Starts n8n. Options:
 *   userFolder   N8N_USER_FOLDER (n8n keeps .n8n/ with its SQLite DB, config and nodes/ there); required
 *   tarball      the packed package to install as a community package first (see buildAndPack)
 *   extraPackages  more packed community packages (paths of .tgz files) to install beside it (the benchmark's
 *                floor trigger)
 *   port         default: a free port; brokerPort likewise (task runners' broker)
 *   owner        {email, password, firstName, lastName}; default DEFAULT_OWNER
 *   env          extra environment for n8n
 *   install      install the pinned n8n if needed (default true); which one: N8N_DEFINITION (scripts/n8n-install.js)
 *   apiKey       create a public API key after login (default true)
 *   logFile      where n8n's output goes (default <userFolder>/n8n.log); echo: also print it
 *   command      the n8n command: 'start' (default), or for queue mode 'worker' / 'webhook' (a webhook processor);
 *                a worker serves only its health endpoints, on `port` (QUEUE_HEALTH_CHECK_PORT)
 *   login        log in as the owner (and create the API key) once ready; default true for 'start' only
 *   onSpawn      called with the N8nInstance as soon as the process exists (before it is ready), e.g. to kill it
 *                if the caller is interrupted during startup
 * Returns an N8nInstance that is ready, logged in, and (by default) has an API key.
 */
async function startN8n({
	userFolder,
	tarball,
	extraPackages = [],
	port,
	brokerPort,
	owner = DEFAULT_OWNER,
	env = {},
	install = true,
	apiKey = true,
	logFile,
	echo = false,
	log = makeLogger('n8n'),
	readyTimeoutMs = 180000,
	command = 'start',
	login = command === 'start',
	onSpawn,
} = {}) {
	if (!userFolder) throw new Error('startN8n: userFolder is required');
	if (!['start', 'worker', 'webhook'].includes(command)) throw new Error(`startN8n: unknown command "${command}"`);
	if (install) await ensureN8n();
	else if (!fs.existsSync(toolPaths.n8n)) {
		throw new Error(`n8n is not installed in ${toolPaths.installDir}: run node scripts/n8n-install.js --definition=${toolDefinition.name}`);
	}
	const n8nVersion = JSON.parse(fs.readFileSync(path.join(toolPaths.nodeModules, 'n8n', 'package.json'), 'utf8')).version;
	fs.mkdirSync(userFolder, { recursive: true });
	const installed = tarball ? installCommunityPackage(userFolder, tarball, { log }) : undefined;
	if (extraPackages.length > 0) {
		runStep(
			`install ${extraPackages.map((file) => path.basename(file)).join(', ')} as community packages`,
			'npm',
			['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error', ...extraPackages.map((file) => path.resolve(file))],
			{ cwd: path.join(userFolder, '.n8n', 'nodes'), log, env: npmEnv() },
		);
	}

	const httpPort = port ? await assertPortFree(port, 'n8n') : await freePort();
	let runnersPort = brokerPort ?? (await freePort());
	while (runnersPort === httpPort) runnersPort = await freePort();
	const baseUrl = `http://127.0.0.1:${httpPort}`;
	const childEnv = {
		PATH: `${path.dirname(toolPaths.node)}${path.delimiter}${process.env.PATH}`,
		HOME: process.env.HOME ?? os.homedir(),
		TZ: process.env.TZ ?? 'UTC',
		LANG: process.env.LANG ?? 'C.UTF-8',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKeyFor(userFolder),
		N8N_PORT: String(httpPort),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${baseUrl}/`,
		WEBHOOK_URL: `${baseUrl}/`,
		N8N_SECURE_COOKIE: 'false',
		DB_TYPE: 'sqlite',
		// n8n 2.x's default; n8n 1.x defaults to 0, its legacy driver, which failed a Data Table upsert of example 2
		// when two call results ran at once ("Transaction is not started yet", n8n-io/n8n#20290; README, 1.x).
		DB_SQLITE_POOL_SIZE: '3',
		N8N_RUNNERS_BROKER_PORT: String(runnersPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password),
		N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName ?? 'Demo',
		N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName ?? 'Owner',
		N8N_PUBLIC_API_DISABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		// the MCP server registry fetches api.n8n.io at startup; nothing here needs it
		N8N_DISABLED_MODULES: 'mcp-registry',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		NODE_ENV: 'production',
		// A queue-mode worker has no HTTP server of its own: its health endpoints answer on `port`.
		...(command === 'worker'
			? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(httpPort), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
			: {}),
		// what the definition's n8n needs (n8n 1.x: N8N_EXPRESSION_ENGINE=legacy)
		...toolDefinition.n8nEnv,
		...env,
	};
	const logPath = logFile ?? path.join(userFolder, 'n8n.log');
	fs.mkdirSync(path.dirname(logPath), { recursive: true });
	const out = fs.openSync(logPath, 'a');
	fs.writeSync(out, `\n--- n8n start ${new Date().toISOString()} on ${baseUrl} ---\n`);
	log(`starting n8n ${n8nVersion} ${command} on ${baseUrl} (user folder ${path.relative(root, userFolder) || userFolder}, log ${logPath})`);
	const started = Date.now();
	const child = spawn(toolPaths.node, [toolPaths.n8n, command], {
		cwd: userFolder,
		env: childEnv,
		stdio: ['ignore', echo ? 'pipe' : out, echo ? 'pipe' : out],
		// Its own process group: a Ctrl-C in the terminal reaches only the script, which stops n8n in order,
		// and killNow() can take down n8n's task runner with it.
		detached: true,
	});
	if (echo) {
		for (const stream of [child.stdout, child.stderr]) {
			stream.on('data', (chunk) => {
				fs.writeSync(out, chunk);
				process.stdout.write(chunk);
			});
		}
	}
	child.once('exit', () => fs.closeSync(out));
	const instance = new N8nInstance({ child, port: httpPort, userFolder, owner, logFile: logPath, log, env: childEnv });
	instance.installed = installed;
	instance.command = command;
	instance.version = n8nVersion;
	onSpawn?.(instance);
	try {
		const readyMs = await instance.waitUntilReady({ timeoutMs: readyTimeoutMs });
		instance.timings = { readyMs };
		log(`n8n ${command} is ready after ${(readyMs / 1000).toFixed(1)} s`);
		if (login) {
			// n8n 1.x does not take the owner from the environment: set it up as the setup screen does (once per
			// user folder).
			if (instance.majorVersion < 2) await instance.setUpOwner();
			await instance.login();
			if (apiKey) await instance.createApiKey();
		}
		instance.timings.totalMs = Date.now() - started;
	} catch (error) {
		await instance.stop({ graceMs: 5000 });
		throw error;
	}
	return instance;
}

module.exports = {
	DEFAULT_OWNER,
	N8nInstance,
	HttpError,
	PACKAGE_NAME,
	buildAndPack,
	installCommunityPackage,
	startN8n,
	freePort,
	assertPortFree,
	httpJson,
	delay,
	makeLogger,
};

if (require.main === module) {
	const args = process.argv.slice(2);
	const option = (name) => {
		const i = args.indexOf(name);
		return i >= 0 ? args[i + 1] : undefined;
	};
	(async () => {
		const userFolder = path.resolve(option('--folder') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-runtime-')));
		const tarball = buildAndPack();
		const n8n = await startN8n({ userFolder, tarball, port: option('--port') ? Number(option('--port')) : undefined });
		const ours = Object.keys(await n8n.nodeTypes().then((types) => Object.fromEntries(types.map((t) => [t.name, t]))))
			.filter((name) => name.startsWith(`${PACKAGE_NAME}.`));
		process.stdout.write(
			`\nn8n ${n8n.url}  login ${n8n.owner.email} / ${n8n.owner.password}\nour node types: ${ours.join(', ') || 'NONE'}\nCtrl-C stops it.\n`,
		);
		const stop = async () => {
			await n8n.stop();
			process.exit(0);
		};
		process.on('SIGINT', stop);
		process.on('SIGTERM', stop);
	})().catch((error) => {
		process.stderr.write(`${error.stack ?? error}\n`);
		process.exit(1);
	});
}
