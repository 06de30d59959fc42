// Postgres and Redis for the queue-mode suite (scripts/queue.js): Debian's packages, installed with apt-get when
// missing (root only), each run as this script's own process on 127.0.0.1, on a free port, with a throw-away data
// folder under `baseDir`. Nothing is registered with the system (no service, no cluster of pg_ctlcluster).
//
//   const services = await startServices({ baseDir, log });   // { postgres: {host, port, database, user}, redis: {host, port}, stop() }
//   await services.stop();                                      // also: services.killNow() (synchronous, for 'exit')
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { delay, freePort } = require('./n8n-runtime');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The bin folder of the newest Debian PostgreSQL (/usr/lib/postgresql/<major>/bin), or undefined. */
function postgresBinDir() {
	const base = '/usr/lib/postgresql';
	if (!fs.existsSync(base)) return undefined;
	const majors = fs
		.readdirSync(base)
		.filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(base, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length > 0 ? path.join(base, majors[0], 'bin') : undefined;
}

function redisServerPath() {
	const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
	const candidate = found.status === 0 ? found.stdout.trim() : '/usr/bin/redis-server';
	return fs.existsSync(candidate) ? candidate : undefined;
}

/** apt-get install of what is missing (postgresql, redis-server). Returns the packages installed. */
function ensurePackages({ log }) {
	const missing = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!redisServerPath()) missing.push('redis-server');
	if (missing.length === 0) return [];
	if (!isRoot) {
		throw new Error(`the queue suite needs Debian's ${missing.join(' and ')}: run apt-get install -y ${missing.join(' ')} as root`);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const [title, args] of [
		['apt-get update', ['update', '-qq']],
		[`apt-get install ${missing.join(' ')}`, ['install', '-y', '-qq', '--no-install-recommends', ...missing]],
	]) {
		log(title);
		const result = spawnSync('apt-get', args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
		if (result.status !== 0) {
			process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
			throw new Error(`${title} failed (exit ${result.status})`);
		}
	}
	if (!postgresBinDir() || !redisServerPath()) throw new Error(`apt-get installed ${missing.join(', ')} but they are not where expected`);
	return missing;
}

/** A process of ours in its own process group, its output appended to `logFile`. */
function startProcess(command, args, { logFile, uid, gid, cwd }) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(command, args, { stdio: ['ignore', out, out], detached: true, cwd, ...(uid !== undefined ? { uid, gid } : {}) });
	child.once('exit', () => fs.closeSync(out));
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	let exitInfo;
	exited.then((info) => {
		exitInfo = info;
	});
	return {
		child,
		exited,
		get exitInfo() {
			return exitInfo;
		},
		logTail: (lines = 30) => fs.readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n'),
		/** `signal` to the group, then SIGKILL after `graceMs`. */
		async stop(signal = 'SIGTERM', graceMs = 10000) {
			if (exitInfo) return exitInfo;
			try {
				process.kill(-child.pid, signal);
			} catch {
				// gone
			}
			const timer = setTimeout(() => this.killNow(), graceMs);
			const info = await exited;
			clearTimeout(timer);
			return info;
		},
		killNow() {
			if (exitInfo) return;
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// gone
			}
		},
	};
}

async function waitUntil(what, check, proc, timeoutMs = 30000) {
	const started = Date.now();
	for (;;) {
		if (proc.exitInfo) throw new Error(`${what}: the process exited (${JSON.stringify(proc.exitInfo)}):\n${proc.logTail()}`);
		if (await check()) return Date.now() - started;
		if (Date.now() - started > timeoutMs) throw new Error(`${what}: not ready after ${timeoutMs / 1000} s:\n${proc.logTail()}`);
		await delay(100);
	}
}

/** Postgres refuses to run as root: as root, its data folder belongs to Debian's `postgres` user, who runs it. */
function postgresUser() {
	if (!isRoot) return {};
	const found = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
	const gidFound = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
	if (found.status !== 0) throw new Error('running as root, but there is no "postgres" user to run Postgres as (Debian\'s postgresql package creates it)');
	return { uid: Number(found.stdout.trim()), gid: Number(gidFound.stdout.trim()) };
}

async function startPostgres({ baseDir, log, onSpawn }) {
	const bin = postgresBinDir();
	const dataDir = path.join(baseDir, 'postgres');
	const socketDir = path.join(baseDir, 'postgres-socket');
	fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
	fs.mkdirSync(socketDir, { recursive: true });
	const { uid, gid } = postgresUser();
	if (uid !== undefined) {
		fs.chmodSync(baseDir, 0o711);
		fs.chownSync(dataDir, uid, gid);
		fs.chownSync(socketDir, uid, gid);
	}
	const user = 'n8n';
	const init = spawnSync(path.join(bin, 'initdb'), ['-D', dataDir, '-U', user, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'], {
		encoding: 'utf8',
		...(uid !== undefined ? { uid, gid } : {}),
	});
	if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}):\n${init.stdout}${init.stderr}`);
	const port = await freePort();
	const logFile = path.join(baseDir, 'postgres.log');
	fs.writeFileSync(logFile, '');
	if (uid !== undefined) fs.chownSync(logFile, uid, gid);
	// Throw-away data: no fsync. Enough connections for four n8n processes (each pools up to 2 x 10).
	const proc = startProcess(
		path.join(bin, 'postgres'),
		['-D', dataDir, '-h', '127.0.0.1', '-p', String(port), '-k', socketDir, '-c', 'fsync=off', '-c', 'synchronous_commit=off',
			'-c', 'full_page_writes=off', '-c', 'max_connections=200', '-c', 'shared_buffers=128MB'],
		{ logFile, uid, gid, cwd: baseDir },
	);
	onSpawn(proc, 'SIGINT'); // Postgres's "fast" shutdown
	const readyMs = await waitUntil(
		'postgres',
		() => spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', user], { encoding: 'utf8' }).status === 0,
		proc,
	);
	const database = 'n8n';
	const created = spawnSync(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, database], { encoding: 'utf8' });
	if (created.status !== 0) throw new Error(`createdb failed:\n${created.stdout}${created.stderr}`);
	log(`postgres ${path.basename(path.dirname(bin))} on 127.0.0.1:${port} (ready after ${(readyMs / 1000).toFixed(1)} s)`);
	return { proc, host: '127.0.0.1', port, database, user, logFile };
}

async function startRedis({ baseDir, log, onSpawn }) {
	const dir = path.join(baseDir, 'redis');
	fs.mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const logFile = path.join(baseDir, 'redis.log');
	const proc = startProcess(
		redisServerPath(),
		['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes'],
		{ logFile, cwd: dir },
	);
	onSpawn(proc, 'SIGTERM');
	const net = require('node:net');
	const ping = () =>
		new Promise((resolve) => {
			const socket = net.connect(port, '127.0.0.1');
			socket.setTimeout(1000);
			socket.once('connect', () => socket.write('PING\r\n'));
			socket.once('data', (data) => {
				socket.destroy();
				resolve(String(data).startsWith('+PONG'));
			});
			socket.once('error', () => resolve(false));
			socket.once('timeout', () => {
				socket.destroy();
				resolve(false);
			});
		});
	const readyMs = await waitUntil('redis', ping, proc);
	log(`redis on 127.0.0.1:${port} (ready after ${(readyMs / 1000).toFixed(1)} s)`);
	return { proc, host: '127.0.0.1', port, logFile };
}

/** Installs what is missing, then starts Postgres and Redis (`onSpawn(proc)` as soon as each process exists). */
async function startServices({ baseDir, log, onSpawn }) {
	const t0 = Date.now();
	const installed = ensurePackages({ log });
	const installMs = Date.now() - t0;
	const started = [];
	const stop = async () => {
		await Promise.all(started.map(({ proc, signal }) => proc.stop(signal)));
	};
	const killNow = () => started.forEach(({ proc }) => proc.killNow());
	const track = (proc, signal) => {
		started.push({ proc, signal });
		onSpawn?.(proc);
	};
	try {
		const postgres = await startPostgres({ baseDir, log, onSpawn: track });
		const redis = await startRedis({ baseDir, log, onSpawn: track });
		return { postgres, redis, installed, installMs, stop, killNow };
	} catch (error) {
		await stop();
		throw error;
	}
}

module.exports = { startServices, ensurePackages, startProcess };
