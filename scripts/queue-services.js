// Postgres and Redis for the queue-mode suite: Debian's packages (apt-get installs them when missing, as root), each
// run as a process of ours on 127.0.0.1, on a free port, with a throw-away data folder under `baseDir`; nothing is
// registered with the system.
//   const services = await startServices({ baseDir, log, onSpawn });  // { postgres: {host, port, database, user}, redis: {host, port}, stop(), killNow() }
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { delay, freePort } = require('./n8n-runtime');

const isRoot = process.getuid?.() === 0;

/** The bin folder of the newest Debian PostgreSQL (/usr/lib/postgresql/<major>/bin), or undefined. */
function postgresBinDir() {
	const base = '/usr/lib/postgresql';
	const majors = fs.existsSync(base) ? fs.readdirSync(base).filter((name) => fs.existsSync(path.join(base, name, 'bin', 'postgres'))) : [];
	return majors.length > 0 ? path.join(base, majors.sort((a, b) => b - a)[0], 'bin') : undefined;
}
const redisServer = () => ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => fs.existsSync(file));

/** apt-get install of what is missing; returns the packages installed. */
function ensurePackages(log) {
	const missing = [!postgresBinDir() && 'postgresql', !redisServer() && 'redis-server'].filter(Boolean);
	if (missing.length === 0) return missing;
	if (!isRoot) throw new Error(`the queue suite needs Debian's ${missing.join(' and ')}: run apt-get install -y ${missing.join(' ')} as root`);
	for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...missing]]) {
		log(`apt-get ${args.join(' ')}`);
		const result = spawnSync('apt-get', args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', maxBuffer: 64 << 20 });
		if (result.status !== 0) throw new Error(`apt-get ${args[0]} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
	}
	return missing;
}

/** A process of ours in its own process group, its output in `logFile`; stop() sends `signal`, SIGKILL after 10 s. */
function startProcess(command, args, { logFile, signal, user = {}, cwd }) {
	const out = fs.openSync(logFile, 'a');
	const child = spawn(command, args, { stdio: ['ignore', out, out], detached: true, cwd, ...user });
	const proc = { logTail: () => fs.readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n') };
	proc.exited = new Promise((resolve) => child.once('exit', (code, sig) => resolve((proc.exitInfo = { code, signal: sig }))));
	child.once('exit', () => fs.closeSync(out));
	const kill = (sig) => {
		try {
			process.kill(-child.pid, sig);
		} catch {
			// gone already
		}
	};
	proc.killNow = () => proc.exitInfo || kill('SIGKILL');
	proc.stop = async () => {
		if (proc.exitInfo) return proc.exitInfo;
		kill(signal);
		const timer = setTimeout(proc.killNow, 10000);
		await proc.exited;
		clearTimeout(timer);
		return proc.exitInfo;
	};
	return proc;
}

/** Resolves once `ready()` is true; fails when the process exits or after 30 s, with its last log lines. */
async function waitUntil(what, ready, proc) {
	const started = Date.now();
	for (;;) {
		if (proc.exitInfo) throw new Error(`${what} exited (${JSON.stringify(proc.exitInfo)}):\n${proc.logTail()}`);
		if (await ready()) return Date.now() - started;
		if (Date.now() - started > 30000) throw new Error(`${what} not ready after 30 s:\n${proc.logTail()}`);
		await delay(100);
	}
}

async function startPostgres(baseDir, log, track) {
	const bin = (name) => path.join(postgresBinDir(), name);
	const dataDir = path.join(baseDir, 'postgres');
	const logFile = path.join(baseDir, 'postgres.log');
	fs.mkdirSync(dataDir, { mode: 0o700 });
	fs.writeFileSync(logFile, '');
	// Postgres refuses to run as root: then Debian's `postgres` user runs it and owns its files.
	const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
	const user = isRoot ? { uid: id('-u'), gid: id('-g') } : {};
	if (isRoot) {
		fs.chmodSync(baseDir, 0o711);
		for (const file of [dataDir, logFile]) fs.chownSync(file, user.uid, user.gid);
	}
	const init = spawnSync(bin('initdb'), ['-D', dataDir, '-U', 'n8n', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'], { encoding: 'utf8', ...user });
	if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}):\n${init.stdout}${init.stderr}`);
	const port = await freePort();
	const where = ['-h', '127.0.0.1', '-p', String(port)];
	// Throw-away data: no fsync. Connections for four n8n processes (each pools up to 2 x 10). SIGINT: a fast shutdown.
	const settings = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200', 'shared_buffers=128MB'].flatMap((s) => ['-c', s]);
	const proc = track(startProcess(bin('postgres'), ['-D', dataDir, ...where, '-k', dataDir, ...settings], { logFile, signal: 'SIGINT', user, cwd: baseDir }));
	const readyMs = await waitUntil('postgres', () => spawnSync(bin('pg_isready'), [...where, '-U', 'n8n']).status === 0, proc);
	const created = spawnSync(bin('createdb'), [...where, '-U', 'n8n', 'n8n'], { encoding: 'utf8' });
	if (created.status !== 0) throw new Error(`createdb failed:\n${created.stdout}${created.stderr}`);
	log(`postgres on 127.0.0.1:${port} (ready after ${(readyMs / 1000).toFixed(1)} s)`);
	return { host: '127.0.0.1', port, database: 'n8n', user: 'n8n', logFile };
}

async function startRedis(baseDir, log, track) {
	const dir = path.join(baseDir, 'redis');
	fs.mkdirSync(dir);
	const port = await freePort();
	const logFile = path.join(baseDir, 'redis.log');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'];
	const proc = track(startProcess(redisServer(), args, { logFile, signal: 'SIGTERM', cwd: dir }));
	const ping = () =>
		new Promise((resolve) => {
			const socket = net.connect(port, '127.0.0.1').setTimeout(1000);
			const done = (ok) => {
				socket.destroy();
				resolve(ok);
			};
			socket.once('connect', () => socket.write('PING\r\n'));
			socket.once('data', (data) => done(String(data).startsWith('+PONG')));
			socket.once('error', () => done(false));
			socket.once('timeout', () => done(false));
		});
	const readyMs = await waitUntil('redis', ping, proc);
	log(`redis on 127.0.0.1:${port} (ready after ${(readyMs / 1000).toFixed(1)} s)`);
	return { host: '127.0.0.1', port, logFile };
}

/** Installs what is missing, then starts Postgres and Redis (`onSpawn(proc)` as soon as each process exists). */
async function startServices({ baseDir, log, onSpawn }) {
	const t0 = Date.now();
	const installed = ensurePackages(log);
	const installMs = Date.now() - t0;
	const started = [];
	const track = (proc) => {
		started.push(proc);
		onSpawn?.(proc);
		return proc;
	};
	const stop = () => Promise.all(started.map((proc) => proc.stop()));
	try {
		const postgres = await startPostgres(baseDir, log, track);
		const redis = await startRedis(baseDir, log, track);
		return { postgres, redis, installed, installMs, stop, killNow: () => started.forEach((proc) => proc.killNow()) };
	} catch (error) {
		await stop();
		throw error;
	}
}

module.exports = { startServices };
