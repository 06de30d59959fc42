#!/usr/bin/env node
// Installs a pinned real n8n, and the Node it runs on, outside the package's own dependencies. A definition is
// committed in tools/<name> (package.json + package-lock.json) and installed into its own folder, skipped while
// <folder>/.installed holds the hash of the definition:
//   n8n     n8n 2.x on Node 24, into $N8N_TOOLS_DIR, else .tools/n8n      (npm start, test:e2e, test:ui, test:queue, bench)
//   n8n-1x  n8n 1.x on Node 20, into $N8N_TOOLS_DIR_1X, else $N8N_TOOLS_DIR-1x, else .tools/n8n-1x  (test:e2e:1x)
// The definition: --definition=<name> or N8N_DEFINITION (default n8n).
//   node scripts/n8n-install.js [--definition=n8n-1x] [--force]   install if needed (--force: even when cached)
//   node scripts/n8n-install.js [--definition=...] --update-lock  resolve tools/<name>/package.json again and write
//                                                                 its lockfile back (commit it)
// `npm install` with the lockfile, not `npm ci`: npm ci rejects these lockfiles (optional platform packages of
// @msgpackr-extract are missing from them). Lifecycle scripts are ignored (@confluentinc/kafka-javascript's
// downloads binaries); the two packages that need theirs are rebuilt: `node` (sets up the Node binary) and
// `sqlite3` (its N-API addon, built from source against that Node's own headers).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/** `nodeMajor`: the Node the definition's `node` package brings; `n8nEnv`: what every n8n of it needs. */
const DEFINITIONS = {
	n8n: { installDir: (env) => env.N8N_TOOLS_DIR, nodeMajor: 24, n8nEnv: {} },
	'n8n-1x': {
		installDir: (env) => env.N8N_TOOLS_DIR_1X || (env.N8N_TOOLS_DIR && `${env.N8N_TOOLS_DIR}-1x`),
		nodeMajor: 20,
		// n8n 1.123's default expression engine (vm) needs isolated-vm 6.2, which needs Node >= 22; it has no
		// module "mcp-registry" and refuses to start when told to disable an unknown module.
		n8nEnv: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_DISABLED_MODULES: '' },
	},
};

/** One definition with the paths of its install. */
function resolveDefinition(name = process.env.N8N_DEFINITION || 'n8n') {
	const spec = DEFINITIONS[name];
	if (!spec) throw new Error(`[n8n-install] unknown n8n definition "${name}" (known: ${Object.keys(DEFINITIONS).join(', ')})`);
	const chosen = spec.installDir(process.env);
	const installDir = chosen ? path.resolve(chosen) : path.join(root, '.tools', name);
	const nodeModules = path.join(installDir, 'node_modules');
	return {
		name,
		nodeMajor: spec.nodeMajor,
		n8nEnv: spec.n8nEnv,
		definitionDir: path.join(root, 'tools', name),
		installDir,
		stampFile: path.join(installDir, '.installed'),
		paths: {
			installDir,
			nodeModules,
			node: path.join(nodeModules, 'node', 'bin', 'node'),
			n8n: path.join(nodeModules, 'n8n', 'bin', 'n8n'),
		},
	};
}

const definition = resolveDefinition();
const log = (message) => process.stdout.write(`[n8n-install] ${message}\n`);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (dir) => Number(spawnSync('du', ['-sm', dir], { encoding: 'utf8' }).stdout.split(/\s/)[0]) || 0;

/**
 * npm's environment as if run in the install folder: an enclosing `npm run` exports its whole configuration as
 * npm_config_* (the project's ignore-scripts, nodedir, ...); only the download settings may reach this install.
 */
function npmEnv(extra = {}) {
	const kept = ['cache', 'userconfig', 'globalconfig', 'cafile', 'registry', 'proxy', 'https_proxy', 'noproxy', 'strict_ssl'];
	const env = { ...process.env, ...extra };
	for (const key of Object.keys(env)) {
		const setting = /^npm_config_(.*)$/i.exec(key)?.[1].toLowerCase();
		if ((setting && !kept.includes(setting)) || /^npm_(package|lifecycle)_/i.test(key)) delete env[key];
	}
	return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** One step of the install; every 20 s it says how many MB the install folder holds (npm is silent for minutes). */
function run(title, args, { cwd, env = npmEnv() }) {
	log(`${title}: npm ${args.join(' ')}`);
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn('npm', args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env });
		const heartbeat = setInterval(() => log(`  ... ${title}: ${seconds(Date.now() - started)}, ${megabytes(cwd)} MB in ${cwd}`), 20000);
		child.on('error', (error) => {
			clearInterval(heartbeat);
			reject(error);
		});
		child.on('exit', (code, signal) => {
			clearInterval(heartbeat);
			if (code !== 0) return reject(new Error(`[n8n-install] ${title} failed (exit ${code ?? signal}) after ${seconds(Date.now() - started)}`));
			log(`${title}: done in ${seconds(Date.now() - started)}`);
			resolve(Date.now() - started);
		});
	});
}

/** The definition's files and this OS and CPU (the sqlite3 addon is built for them), hashed. */
function definitionHash(def) {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(file).update('\0').update(fs.readFileSync(path.join(def.definitionDir, file))).update('\0');
	return hash.update(`${process.platform}-${process.arch}`).digest('hex');
}

const readStamp = (def) => (fs.existsSync(def.stampFile) ? JSON.parse(fs.readFileSync(def.stampFile, 'utf8')) : undefined);
const sqliteLoads = (def) =>
	spawnSync(def.paths.node, ['-e', "const s=require('sqlite3');new s.Database(':memory:').close(()=>process.stdout.write('ok'))"], { cwd: def.installDir, encoding: 'utf8' });

/** Fails unless the definition's Node runs and sqlite3 loads under it; returns the versions installed. */
function verify(def) {
	const version = spawnSync(def.paths.node, ['--version'], { encoding: 'utf8' });
	if (version.status !== 0 || !version.stdout.startsWith(`v${def.nodeMajor}.`)) throw new Error(`[n8n-install] Node ${def.nodeMajor} at ${def.paths.node} does not run`);
	const sqlite = sqliteLoads(def);
	if (sqlite.stdout !== 'ok') throw new Error(`[n8n-install] sqlite3 does not load under Node ${def.nodeMajor}:\n${sqlite.stderr}`);
	return { node: version.stdout.trim(), n8n: JSON.parse(fs.readFileSync(path.join(def.paths.nodeModules, 'n8n', 'package.json'), 'utf8')).version };
}

/** Makes sure the definition's folder holds its pinned n8n; resolves with { paths, cached, versions }. */
async function ensureN8n({ force = false, updateLock = false, definition: name } = {}) {
	const def = name ? resolveDefinition(name) : definition;
	const { definitionDir, installDir, paths } = def;
	const lockFile = path.join(definitionDir, 'package-lock.json');
	if (!updateLock && !fs.existsSync(lockFile)) throw new Error(`[n8n-install] missing ${lockFile}; create it with --update-lock`);
	const stamp = readStamp(def);
	if (!force && !updateLock && stamp?.hash === definitionHash(def) && fs.existsSync(paths.node) && fs.existsSync(paths.n8n)) {
		log(`n8n ${stamp.versions.n8n} on Node ${stamp.versions.node} already installed in ${installDir}`);
		return { paths, cached: true, versions: stamp.versions };
	}
	log(`installing tools/${def.name} into ${installDir} (4 to 7 minutes and 2.3 GB the first time; sqlite3 is compiled, which needs a C/C++ toolchain and Python)`);
	const started = Date.now();
	fs.mkdirSync(installDir, { recursive: true });
	fs.rmSync(def.stampFile, { force: true });
	fs.copyFileSync(path.join(definitionDir, 'package.json'), path.join(installDir, 'package.json'));
	if (updateLock) fs.rmSync(path.join(installDir, 'package-lock.json'), { force: true });
	else fs.copyFileSync(lockFile, path.join(installDir, 'package-lock.json'));
	await run('npm install (locked versions, no lifecycle scripts)', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: installDir });
	if (updateLock) {
		fs.copyFileSync(path.join(installDir, 'package-lock.json'), lockFile);
		log(`wrote ${path.relative(root, lockFile)}: commit it`);
	}
	// `node` first: its install script fetches the platform package with the binary and the headers sqlite3 needs.
	await run(`set up Node ${def.nodeMajor}`, ['rebuild', 'node', '--ignore-scripts=false', '--loglevel=error'], { cwd: installDir });
	if (sqliteLoads(def).stdout !== 'ok') {
		// Against the pinned Node's own headers (nothing downloaded; a user-level `nodedir` overridden), from source.
		const nested = path.join(paths.nodeModules, 'node', 'node_modules');
		const nodeHome = fs.readdirSync(nested).map((name) => path.join(nested, name)).find((dir) => fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h')));
		if (!nodeHome) throw new Error(`[n8n-install] no Node ${def.nodeMajor} headers (include/node/node_api.h) under ${nested}`);
		const env = npmEnv({ PATH: `${path.dirname(paths.node)}${path.delimiter}${process.env.PATH}` });
		const args = ['rebuild', 'sqlite3', '--ignore-scripts=false', '--build-from-source', `--nodedir=${nodeHome}`, '--loglevel=error'];
		await run(`build sqlite3 for Node ${def.nodeMajor} (1.5 to 2.5 minutes)`, args, { cwd: installDir, env });
	}
	const versions = verify(def);
	fs.writeFileSync(def.stampFile, `${JSON.stringify({ hash: definitionHash(def), versions, installedAt: new Date().toISOString() }, null, 2)}\n`);
	log(`installed n8n ${versions.n8n} on Node ${versions.node} in ${seconds(Date.now() - started)} (${megabytes(installDir)} MB)`);
	return { paths, cached: false, versions };
}

module.exports = { definition, ensureN8n, npmEnv, paths: definition.paths };

if (require.main === module) {
	const args = process.argv.slice(2);
	const named = args.find((arg) => arg.startsWith('--definition='))?.slice('--definition='.length);
	ensureN8n({ force: args.includes('--force'), updateLock: args.includes('--update-lock'), definition: named }).catch((error) => {
		process.stderr.write(`${error.message}\n`);
		process.exit(1);
	});
}
