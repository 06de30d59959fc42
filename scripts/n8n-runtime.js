// Starts the pinned real n8n (scripts/n8n-install.js) with this package installed as a community package, and
// drives it over HTTP: n8n's public API (`api`), the editor's REST API where the public one has no endpoint
// (`rest`), and the few steps that need more than one call (running a workflow, waiting for executions).
// Used by `npm start` (scripts/demo.js), the end-to-end, UI and queue suites and the trigger benchmark.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { definition, ensureN8n, npmEnv, paths } = require('./n8n-install');

const root = path.join(__dirname, '..');
const PACKAGE_NAME = require(path.join(root, 'package.json')).name;
const DEFAULT_OWNER = Object.freeze({ email: 'owner@e2e.invalid', password: 'E2e-Owner-Password-1', firstName: 'E2E', lastName: 'Owner' });

const makeLogger = (prefix, sink = process.stdout) => (message) => sink.write(`[${prefix}] ${message}\n`);
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Binds `port` on 127.0.0.1 (0: one the OS picks) and releases it; resolves with the port, or fails naming `what`. */
function bindPort(port = 0, what = 'a free port') {
	return new Promise((resolve, reject) => {
		const server = net.createServer().unref();
		server.on('error', (error) => reject(new Error(`${what}: port ${port} on 127.0.0.1 is not free (${error.code}); choose another one`)));
		server.listen(port, '127.0.0.1', () => {
			const bound = server.address().port;
			server.close(() => resolve(bound));
		});
	});
}
const freePort = () => bindPort(0);
const assertPortFree = (port, what) => bindPort(port, what);

function runStep(title, command, args, { cwd = root, log, env = process.env } = {}) {
	log?.(title);
	const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (result.error || result.status !== 0) {
		process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
		throw new Error(`${title} failed (${result.error ? result.error.message : `exit ${result.status}`})`);
	}
	return result.stdout;
}

/** Builds the package (unless `build` is false) and packs it into .build/pack/; returns the tarball's path. */
function buildAndPack({ build = true, log = makeLogger('pack') } = {}) {
	if (build) runStep('build the package (npm run build)', 'npm', ['run', '--silent', 'build'], { log });
	const outDir = path.join(root, '.build', 'pack');
	fs.rmSync(outDir, { recursive: true, force: true });
	fs.mkdirSync(outDir, { recursive: true });
	const stdout = runStep('pack it (npm pack)', 'npm', ['pack', '--json', '--pack-destination', outDir], { log });
	const info = JSON.parse(stdout.slice(stdout.indexOf('[')))[0];
	log(`packed ${info.filename} (${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB)`);
	return path.join(outDir, info.filename);
}

/**
 * Installs packed packages into `<userFolder>/.n8n/nodes`, where n8n loads community packages from, without their
 * lifecycle scripts or the peer n8n-workflow (n8n brings it). Returns, for this package: its folder, the node
 * types it lists (`n8n-nodes-assistant-platform.<name>`) and the listed files it lacks.
 */
function installPackages(userFolder, tarballs, log) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, '{ "name": "installed-nodes", "private": true }\n');
	const args = ['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'];
	runStep(`install ${tarballs.map((t) => path.basename(t)).join(', ')} as community packages`, 'npm', [...args, ...tarballs.map((t) => path.resolve(t))], {
		cwd: nodesDir,
		log,
		env: npmEnv(),
	});
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	const { nodes = [], credentials = [] } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')).n8n ?? {};
	const typeName = (file) => `${PACKAGE_NAME}.${path.basename(file).split('.')[0].replace(/^./, (c) => c.toLowerCase())}`;
	const missing = [...nodes, ...credentials].filter((file) => !fs.existsSync(path.join(packageDir, file)));
	return { packageDir, nodes: nodes.map(typeName), missing };
}

/** The encryption key n8n stored in a user folder, else a new one (n8n stores it on first start). */
function encryptionKeyFor(userFolder) {
	try {
		const key = JSON.parse(fs.readFileSync(path.join(userFolder, '.n8n', 'config'), 'utf8')).encryptionKey;
		if (typeof key === 'string' && key) return key;
	} catch {
		// first start of this folder
	}
	return crypto.randomBytes(24).toString('base64url');
}

class HttpError extends Error {
	constructor(method, url, status, body) {
		super(`${method} ${url} -> HTTP ${status}: ${String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 500)}`);
		this.status = status;
		this.body = body;
	}
}

/** One HTTP exchange with a JSON body; `expect`: the statuses that do not throw ('any' for all). */
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

/** Whether two reads of one execution show the same status and data. */
const sameExecution = (a, b) => a.id === b.id && a.status === b.status && JSON.stringify(a.data) === JSON.stringify(b.data);

/** A read that failed because its connection was reset (a busy n8n may drop one): the next read tries again. */
const connectionReset = (error) => error instanceof TypeError && error.message === 'fetch failed' && error.cause?.code === 'ECONNRESET';

/**
 * Polls `read` every `everyMs` until it returns a value (not undefined); fails after `timeoutMs` saying `what()`. A
 * read whose connection was reset counts as no value yet; any other error ends the poll.
 */
async function poll(timeoutMs, read, what, everyMs = 300) {
	const started = Date.now();
	let reset;
	for (;;) {
		let value;
		try {
			value = await read();
		} catch (error) {
			if (!connectionReset(error)) throw error;
			reset = error;
		}
		if (value !== undefined) return value;
		if (Date.now() - started > timeoutMs) throw new Error(`${what()} after ${timeoutMs / 1000} s${reset ? ` (a read's connection was reset: ${reset.cause.message})` : ''}`);
		await delay(everyMs);
	}
}

/**
 * Polls `read` until two reads in a row, 300 ms apart, return values `same` finds equal: n8n 1.x on SQLite writes
 * an execution's status and its data in two statements, so one read can show the new status with the old data.
 */
function untilStable(timeoutMs, read, same, what) {
	let candidate;
	return poll(timeoutMs, async () => {
		const value = await read();
		const stable = value !== undefined && candidate !== undefined && same(candidate, value);
		candidate = value;
		return stable ? value : undefined;
	}, what);
}

/** A running n8n: its `url`, `owner`, `version`, `logFile`, and calls over HTTP. */
class N8nInstance {
	constructor(fields) {
		Object.assign(this, fields);
		this.url = `http://127.0.0.1:${this.port}`;
		this.majorVersion = Number(String(this.version).split('.')[0]);
		this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
		this.exited.then((info) => (this.exitInfo = info));
	}

	/** The last `lines` lines of n8n's output, for error messages. */
	logTail(lines = 40) {
		return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '';
	}

	async waitUntilReady(timeoutMs) {
		const started = Date.now();
		const ready = async () => {
			if (this.exitInfo) throw new Error(`n8n exited during startup (${JSON.stringify(this.exitInfo)}):\n${this.logTail()}`);
			const r = await httpJson('GET', `${this.url}/healthz/readiness`, { expect: 'any', timeoutMs: 2000 }).catch(() => undefined);
			return r?.status === 200 ? Date.now() - started : undefined;
		};
		return poll(timeoutMs, ready, () => `n8n was not ready:\n${this.logTail()}\n`, 250);
	}

	/**
	 * Logs in as the owner and creates a public API key with every scope. n8n 1.x takes no owner from the
	 * environment and answers readiness before its REST routes exist: the owner is set up as its setup screen does.
	 */
	async signIn() {
		if (this.majorVersion < 2) {
			const read = async () => {
				const r = await httpJson('GET', `${this.url}/rest/settings`, { expect: 'any' });
				return r.status === 404 ? undefined : r.body;
			};
			const settings = await poll(60000, read, () => 'n8n 1.x served no /rest/settings', 250);
			if (settings?.data?.userManagement?.showSetupOnFirstLoad !== false) {
				const { email, firstName, lastName, password } = this.owner;
				await httpJson('POST', `${this.url}/rest/owner/setup`, { body: { email, firstName, lastName, password } });
			}
		}
		const login = await httpJson('POST', `${this.url}/rest/login`, { body: { emailOrLdapLoginId: this.owner.email, password: this.owner.password } });
		this.cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
		if (!this.cookie) throw new Error('POST /rest/login answered without an n8n-auth cookie');
		const scopes = await this.rest('GET', '/api-keys/scopes');
		this.apiKey = (await this.rest('POST', '/api-keys', { label: `e2e ${new Date().toISOString()}`.slice(0, 50), scopes, expiresAt: null })).rawApiKey;
	}

	/** A call to the editor's REST API (/rest) as the owner; returns the body's `data`. */
	async rest(method, pathname, body, { expect } = {}) {
		const r = await httpJson(method, `${this.url}/rest${pathname}`, { headers: { cookie: this.cookie }, body, expect });
		return r.body && typeof r.body === 'object' && 'data' in r.body ? r.body.data : r.body;
	}

	/**
	 * A call to n8n's public API (/api/v1, X-N8N-API-KEY); returns the body. On n8n 1.x publishing is /activate and
	 * /deactivate, and POST /credentials goes to the editor's endpoint (1.x's public one demands its domain-restriction
	 * fields on every credential).
	 */
	async api(method, pathname, body, { expect } = {}) {
		if (this.majorVersion < 2) {
			if (method === 'POST' && pathname === '/credentials') return this.rest(method, pathname, body, { expect });
			pathname = pathname.replace(/\/(un)?publish$/, (_, un) => (un ? '/deactivate' : '/activate'));
		}
		const headers = { 'x-n8n-api-key': this.apiKey };
		return (await httpJson(method, `${this.url}/api/v1${pathname}`, { headers, body: body ?? (method === 'POST' ? {} : undefined), expect })).body;
	}

	/** POST /api/v1/workflows with the fields the public API accepts; returns the stored workflow. */
	createWorkflow({ name, nodes, connections, settings, staticData }) {
		return this.api('POST', '/workflows', { name, nodes, connections, settings: settings ?? { executionOrder: 'v1' }, ...(staticData ? { staticData } : {}) });
	}

	/**
	 * Runs a saved workflow as the editor's "Execute workflow" does (from `trigger`, default its Manual Trigger) and
	 * waits for the execution to finish, or with { until: 'waiting' } to wait for a resume. Returns it with its data.
	 */
	async runWorkflow(id, { trigger, timeoutMs = 60000, until = 'finished' } = {}) {
		const workflow = await this.rest('GET', `/workflows/${id}`);
		const name = trigger ?? workflow.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger')?.name;
		if (!name) throw new Error(`workflow ${id} has no Manual Trigger; pass { trigger: <node name> }`);
		// n8n 1.x wants the workflow itself in the body, as its editor sends it.
		const workflowData = this.majorVersion < 2 ? workflow : undefined;
		const started = await this.rest('POST', `/workflows/${id}/run`, { workflowData, triggerToStartFrom: { name } });
		if (!started?.executionId) throw new Error(`workflow ${id} did not start: ${JSON.stringify(started)}`);
		return this.waitForExecution(started.executionId, { timeoutMs, until });
	}

	/** An execution with its data once it has finished (status not new/running/waiting) or, with { until: 'waiting' }, waits. */
	waitForExecution(executionId, { timeoutMs = 60000, until = 'finished' } = {}) {
		const open = until === 'waiting' ? ['new', 'running'] : ['new', 'running', 'waiting'];
		let status;
		const read = async () => {
			const execution = await this.api('GET', `/executions/${executionId}?includeData=true`, undefined, { expect: [200, 404] });
			status = execution?.status;
			return execution?.id !== undefined && !open.includes(status) && execution.data !== undefined ? execution : undefined;
		};
		return untilStable(timeoutMs, read, sameExecution, () => `execution ${executionId} still ${status ?? 'unknown'}`);
	}

	/** At least `count` ended executions of a workflow (newest first, with their data). */
	waitForExecutions(workflowId, { count = 1, timeoutMs = 30000 } = {}) {
		let ended = 0;
		const read = async () => {
			const { data } = await this.api('GET', `/executions?includeData=true&limit=100&workflowId=${workflowId}`);
			const done = data.filter((e) => !['new', 'running'].includes(e.status));
			ended = done.length;
			return done.length >= count ? done : undefined;
		};
		const same = (a, b) => a.length === b.length && a.every((e, i) => sameExecution(e, b[i]));
		return untilStable(timeoutMs, read, same, () => `workflow ${workflowId}: ${ended} of ${count} executions`);
	}

	/** A call to a production webhook URL; 404 (n8n registers webhooks just after a publish returns) is retried for `retryMs`. */
	async callWebhook(url, { method = 'POST', body, headers, retryMs = 15000, expect = 'any' } = {}) {
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
	 * The editor's "Test" of credential data ({status, message}); id '' tests it unsaved. n8n 1.x tests stored
	 * credentials only: there the data is stored for the test and deleted after it.
	 */
	async testCredential({ id = '', name = 'e2e credential test', type, data }) {
		if (this.majorVersion >= 2 || id !== '') return this.rest('POST', '/credentials/test', { credentials: { id, name, type, data } });
		const created = await this.rest('POST', '/credentials', { name, type, data });
		try {
			return await this.rest('POST', '/credentials/test', { credentials: { id: created.id, name, type, data } });
		} finally {
			await this.rest('DELETE', `/credentials/${created.id}`);
		}
	}

	/** The test of a stored credential ({status, message}); n8n 1.x has no public endpoint: the editor's, with the stored data. */
	async testStoredCredential(id) {
		if (this.majorVersion >= 2) return this.api('POST', `/credentials/${id}/test`);
		const { name, type, data } = await this.rest('GET', `/credentials/${id}?includeData=true`);
		return this.rest('POST', '/credentials/test', { credentials: { id, name, type, data } });
	}

	/** A call about data tables to the editor's REST API (n8n 1.x has no public one), in the owner's project. */
	async dataTables(method, pathname = '', body) {
		this.projectId ??= (await this.rest('GET', '/projects/personal')).id;
		return this.rest(method, `/projects/${this.projectId}/data-tables${pathname}`, body);
	}

	/** Every row of a data table, oldest first (pages of 50, n8n 1.x's largest). */
	async allDataTableRows(id) {
		const rows = [];
		for (;;) {
			const page = await this.dataTables('GET', `/${id}/rows?take=50&skip=${rows.length}`);
			rows.push(...page.data);
			if (page.data.length === 0 || rows.length >= page.count) return rows;
		}
	}

	/** Every node type ('nodes') or credential type ('credentials') n8n loaded; node types (several MB) are kept. */
	async types(kind) {
		const read = async () => (await httpJson('GET', `${this.url}/types/${kind}.json`, { headers: { cookie: this.cookie } })).body;
		if (kind !== 'nodes') return read();
		this.nodeTypes ??= await read();
		return this.nodeTypes;
	}

	/** SIGTERM (n8n shuts down in order), SIGKILL to its process group after `graceMs`; resolves once it exited. */
	async stop({ graceMs = 15000 } = {}) {
		if (this.exitInfo) return this.exitInfo;
		this.child.kill('SIGTERM');
		const timer = setTimeout(() => {
			this.log(`n8n did not stop within ${graceMs / 1000} s; killing it`);
			this.killNow();
		}, graceMs);
		const info = await this.exited;
		clearTimeout(timer);
		return info;
	}

	/** SIGKILL to n8n and its task runner (its process group); synchronous, so safe in an 'exit' handler. */
	killNow() {
		if (this.exitInfo) return;
		try {
			process.kill(-this.child.pid, 'SIGKILL');
		} catch {
			// gone already
		}
	}
}

/**
 * Starts n8n and resolves with a ready N8nInstance. Options: `userFolder` (required; n8n keeps its database,
 * config and community packages there), `tarball` (this package, installed first) and `extraPackages` (more packed
 * community packages), `port` (default a free one), `owner` (default DEFAULT_OWNER), `env` (more environment),
 * `install` (install the pinned n8n if needed, default true), `logFile` (default <userFolder>/n8n.log) and `echo`
 * (print n8n's output too), `command` ('start'; 'worker' or 'webhook' in queue mode: a worker serves only its health
 * endpoints, on `port`), `login` (sign in as the owner, with a public API key; default for 'start'), `onSpawn`
 * (called with the instance as soon as its process exists).
 */
async function startN8n({
	userFolder,
	tarball,
	extraPackages = [],
	port,
	owner = DEFAULT_OWNER,
	env = {},
	install = true,
	logFile = path.join(userFolder, 'n8n.log'),
	echo = false,
	log = makeLogger('n8n'),
	readyTimeoutMs = 180000,
	command = 'start',
	login = command === 'start',
	onSpawn,
}) {
	if (install) await ensureN8n();
	else if (!fs.existsSync(paths.n8n)) throw new Error(`n8n is not installed in ${paths.installDir}: run node scripts/n8n-install.js --definition=${definition.name}`);
	const version = JSON.parse(fs.readFileSync(path.join(paths.nodeModules, 'n8n', 'package.json'), 'utf8')).version;
	fs.mkdirSync(userFolder, { recursive: true });
	const packages = [tarball, ...extraPackages].filter(Boolean);
	const installed = packages.length > 0 ? installPackages(userFolder, packages, log) : undefined;

	const httpPort = port ? await assertPortFree(port, 'n8n') : await freePort();
	let brokerPort = await freePort();
	while (brokerPort === httpPort) brokerPort = await freePort();
	const baseUrl = `http://127.0.0.1:${httpPort}`;
	const childEnv = {
		PATH: `${path.dirname(paths.node)}${path.delimiter}${process.env.PATH}`,
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
		// n8n 2.x's default; 1.x's default 0 (its legacy driver) fails a Data Table upsert when two executions write
		// at once ("Transaction is not started yet", n8n-io/n8n#20290).
		DB_SQLITE_POOL_SIZE: '3',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: require(path.join(paths.nodeModules, 'bcryptjs')).hashSync(owner.password, 10),
		N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName,
		N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName,
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
		// The MCP server registry fetches api.n8n.io at startup; nothing here needs it.
		N8N_DISABLED_MODULES: 'mcp-registry',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		NODE_ENV: 'production',
		...(command === 'worker' ? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(httpPort), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' } : {}),
		...definition.n8nEnv,
		// N8N_CPU_PROFILE_DIR=<dir>: each n8n process writes a V8 CPU profile there when it exits (bench/profile-summary.ts).
		...(process.env.N8N_CPU_PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.N8N_CPU_PROFILE_DIR)}` } : {}),
		...env,
	};
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const out = fs.openSync(logFile, 'a');
	fs.writeSync(out, `\n--- n8n ${command} ${new Date().toISOString()} on ${baseUrl} ---\n`);
	log(`starting n8n ${version} ${command} on ${baseUrl} (log ${logFile})`);
	// Its own process group: a Ctrl-C reaches only this script, which stops n8n in order, and killNow() takes n8n's
	// task runner down with it.
	const child = spawn(paths.node, [paths.n8n, command], { cwd: userFolder, env: childEnv, stdio: ['ignore', echo ? 'pipe' : out, echo ? 'pipe' : out], detached: true });
	for (const stream of echo ? [child.stdout, child.stderr] : []) {
		stream.on('data', (chunk) => {
			fs.writeSync(out, chunk);
			process.stdout.write(chunk);
		});
	}
	child.once('exit', () => fs.closeSync(out));
	const instance = new N8nInstance({ child, port: httpPort, userFolder, owner, logFile, log, env: childEnv, installed, command, version });
	onSpawn?.(instance);
	try {
		const readyMs = await instance.waitUntilReady(readyTimeoutMs);
		log(`n8n ${command} is ready after ${(readyMs / 1000).toFixed(1)} s`);
		if (login) await instance.signIn();
		instance.timings = { readyMs };
	} catch (error) {
		await instance.stop({ graceMs: 5000 });
		throw error;
	}
	return instance;
}

module.exports = { assertPortFree, buildAndPack, connectionReset, delay, freePort, httpJson, makeLogger, startN8n };
