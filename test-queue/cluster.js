// The queue-mode environment: Postgres and Redis (scripts/queue-services.js), the platform sandbox (in this
// process), and the pinned n8n as one main, two workers and one webhook processor, all with EXECUTIONS_MODE=queue,
// the same database, Redis and encryption key, and the packed package installed in each one's user folder.
// N8N_WEBHOOK_URL is the webhook processor's address on every process: the resume URLs that workers hand to the
// platform and the Production URLs the trigger registers point there.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { freePort, makeLogger, startN8n } = require('../scripts/n8n-runtime');
const { loadSandbox } = require('../scripts/n8n-sandbox');
const { startServices } = require('../scripts/queue-services');
const { createSandboxCredentials } = require('../test-e2e/support/environment');

const log = makeLogger('queue');

/**
 * n8n settings for the test run beside the campaign settings (docs/scaling.md): the stalled-job check is shortened
 * so that case 6 sees in under a minute what n8n does after a few minutes by default; the behaviour is the same
 * (n8n 2.41 fails a stalled job: maxStalledCount is fixed at 0). The queue recovery interval is left at its
 * default: set to 1 minute, it marked a trigger execution that was still running `crashed` under load (measured).
 */
const TEST_TIMINGS = {
	QUEUE_WORKER_LOCK_DURATION: '10000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};

/** The queue-mode settings every process gets (see docs/scaling.md, "Settings a campaign needs"). */
function queueEnv({ postgres, redis, encryptionKey, webhookUrl }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		N8N_ENCRYPTION_KEY: encryptionKey,
		N8N_WEBHOOK_URL: webhookUrl,
		WEBHOOK_URL: webhookUrl,
		// Manual runs go to the workers as well (the n8n 2.x default, stated).
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// n8n's default pool of 2 connections: at 50 posts in flight the webhook processor's database ping timed
		// out and it answered 503 "Database is not ready!" to 552 of 1,000 posts (measured; docs/scaling.md).
		DB_POSTGRESDB_POOL_SIZE: '20',
		// n8n holds one expression isolate per waiting-webhook resume while the node's webhook() runs (Call and
		// Wait reads the call status there, about 1-1.5 s); the default pool of 1 serialised 50 results at the
		// webhook processor and 35 of them timed out at the platform (measured; docs/scaling.md).
		N8N_EXPRESSION_ENGINE_POOL_SIZE: '8',
		// n8n's default 0 removes a job from Redis the moment it finishes; a job that finishes before the enqueuing
		// process starts waiting for it is then never seen finishing, and that process holds the execution as
		// running until restart (Bull's job.finished() race): the main hid 1 of 50 wait-tracker resumes from its
		// execution lists (measured, case 7). Keeping the last 1,000 lets the late waiter find the job finished.
		N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000',
		N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000',
		...TEST_TIMINGS,
	};
}

/**
 * Starts everything; resolves with
 *   { sandbox, main, workers: [w1, w2], restartWorker(worker), webhook, credentials, services, baseDir, timings, stop(),
 *     killNow() }
 * On failure everything started so far is stopped before the error is thrown.
 */
async function startCluster({ tarball }) {
	const timings = {};
	const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-queue-'));
	const started = { spawned: [] };
	const killNow = () => {
		for (const instance of started.spawned) instance.killNow();
		for (const proc of started.procs ?? []) proc.killNow();
	};
	const onSpawn = (instance) => started.spawned.push(instance);
	// Whatever happens (a signal during startup, an uncaught error), nothing started here outlives this process.
	process.once('exit', killNow);
	const stop = async () => {
		await Promise.all(started.spawned.map((instance) => instance.stop()));
		if (started.sandbox) await started.sandbox.stop();
		if (started.services) await started.services.stop();
	};
	try {
		let t = Date.now();
		const services = await startServices({ baseDir, log, onSpawn: (proc) => (started.procs ??= []).push(proc) });
		started.services = services;
		timings.servicesMs = Date.now() - t;
		timings.aptMs = services.installMs;

		const { PlatformSandbox } = loadSandbox();
		// Callbacks time out after 30 s, not the sandbox's default 5 s: four n8n processes on 2 busy cores took over 5 s
		// to read some posts, and the platform's timeout is not specified (docs/scaling.md).
		const sandbox = await PlatformSandbox.start({ clock: 'real', seed: { deterministic: true }, journalLimit: 200000, callbackTimeoutMs: 30000 });
		started.sandbox = sandbox;

		const encryptionKey = crypto.randomBytes(24).toString('base64url');
		const webhookPort = await freePort();
		const webhookUrl = `http://127.0.0.1:${webhookPort}/`;
		const env = queueEnv({ postgres: services.postgres, redis: services.redis, encryptionKey, webhookUrl });
		const folder = (name) => path.join(baseDir, name);

		// The main first: it creates the schema (migrations) and the owner.
		t = Date.now();
		const main = await startN8n({ userFolder: folder('main'), tarball, env, log, command: 'start', onSpawn });
		timings.mainMs = Date.now() - t;
		t = Date.now();
		const others = await Promise.all([
			startN8n({ userFolder: folder('worker-1'), tarball, env, log, command: 'worker', onSpawn }),
			startN8n({ userFolder: folder('worker-2'), tarball, env, log, command: 'worker', onSpawn }),
			startN8n({ userFolder: folder('webhook'), tarball, env, log, command: 'webhook', port: webhookPort, onSpawn }),
		]);
		timings.othersMs = Date.now() - t;
		const [worker1, worker2, webhook] = others;
		worker1.name = 'worker-1';
		worker2.name = 'worker-2';
		main.name = 'main';
		webhook.name = 'webhook';

		/**
		 * Starts a killed worker again as a service manager would: the same user folder (its installed package and
		 * log), port and settings. The new process takes the old one's place in `workers` and is stopped with the rest.
		 */
		const restartWorker = async (worker) => {
			await worker.exited;
			const again = await startN8n({ userFolder: worker.userFolder, port: worker.port, install: false, env, log, command: 'worker', onSpawn });
			again.name = worker.name;
			workers[workers.indexOf(worker)] = again;
			return again;
		};
		const workers = [worker1, worker2];

		const credentials = await createSandboxCredentials(main, sandbox);
		log(`cluster ready: main ${main.url}, webhook processor ${webhook.url}, workers ${worker1.url} ${worker2.url}, sandbox ${sandbox.url}`);
		return {
			sandbox,
			main,
			workers,
			restartWorker,
			webhook,
			webhookUrl: webhook.url,
			credentials,
			services,
			env,
			baseDir,
			timings,
			stop,
			killNow,
		};
	} catch (error) {
		log(`startup failed; logs kept in ${baseDir}`);
		await stop();
		error.baseDir = baseDir;
		throw error;
	}
}

/** The worker (by name) whose log says it started `executionId`, or undefined. */
function workerOf(cluster, executionId) {
	const pattern = new RegExp(`Worker started execution ${executionId} \\(job`);
	return cluster.workers.find((worker) => {
		try {
			return pattern.test(fs.readFileSync(worker.logFile, 'utf8'));
		} catch {
			return false;
		}
	});
}

/** How many executions each worker's log says it started: { 'worker-1': n, 'worker-2': m }. */
function startsPerWorker(cluster, executionIds) {
	const ids = new Set(executionIds.map(String));
	const counts = {};
	for (const worker of cluster.workers) {
		const text = fs.existsSync(worker.logFile) ? fs.readFileSync(worker.logFile, 'utf8') : '';
		counts[worker.name] = [...text.matchAll(/Worker started execution (\d+) \(job/g)].filter((m) => ids.has(m[1])).length;
	}
	return counts;
}

/** The executions a worker's log says its current process started and has not finished (ids as strings). */
function runningOnWorker(worker) {
	const text = fs.existsSync(worker.logFile) ? fs.readFileSync(worker.logFile, 'utf8') : '';
	const current = text.slice(text.lastIndexOf('\n--- n8n worker '));
	const finished = new Set([...current.matchAll(/Worker finished execution (\d+) \(job/g)].map((m) => m[1]));
	return [...current.matchAll(/Worker started execution (\d+) \(job/g)].map((m) => m[1]).filter((id) => !finished.has(id));
}

module.exports = { startCluster, workerOf, runningOnWorker, startsPerWorker, queueEnv, TEST_TIMINGS };
