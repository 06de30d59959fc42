#!/usr/bin/env node
// `npm run snapshot:params`: writes test/fixtures/parameters.json, the snapshot of every parameter saved
// workflows depend on (per node type and served version: parameter paths including collection and
// fixed-collection children, types, defaults, option values, resource-locator modes, display conditions; and
// the fields of every credential). test/stability/parameters.test.ts fails when a committed entry is
// renamed, removed or changed.
//
// The snapshot is read from dist/ (built first), the classes the package.json n8n block lists; the logic is
// test/stability/paramSnapshot.ts, shared with the test (this script transpiles it on the fly).
//
// Before writing, the new snapshot is compared with the committed one. A breaking change (something
// removed, renamed or changed) is refused unless --accept-breaking is given: regenerating must not be the
// way to silence the stability test. Bump the node version (and keep serving the old one) instead.
//
// Usage: node scripts/param-snapshot.js [--no-build] [--check] [--accept-breaking]
//   --no-build          use dist/ as it is
//   --check             compare only, write nothing (exit 1 on a breaking change or an out-of-date snapshot)
//   --accept-breaking   write even though committed entries break (pre-release only; say why in the commit)
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const root = path.join(__dirname, '..');
const snapshotFile = path.join(root, 'test', 'fixtures', 'parameters.json');
const libraryFile = path.join(root, 'test', 'stability', 'paramSnapshot.ts');

const argv = process.argv.slice(2);
const known = ['--no-build', '--check', '--accept-breaking'];
const unknown = argv.filter((a) => !known.includes(a));
if (unknown.length > 0) {
	process.stderr.write(`param-snapshot: unknown argument(s) ${unknown.join(' ')}\nusage: node scripts/param-snapshot.js [--no-build] [--check] [--accept-breaking]\n`);
	process.exit(2);
}
const has = (flag) => argv.includes(flag);

function say(line) {
	process.stdout.write(`${line}\n`);
}

/** Transpiles and loads test/stability/paramSnapshot.ts (it imports nothing but types). */
function loadLibrary() {
	const ts = require('typescript');
	const source = fs.readFileSync(libraryFile, 'utf8');
	const { outputText } = ts.transpileModule(source, {
		compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
		fileName: libraryFile,
	});
	const mod = new Module(libraryFile, module);
	mod.filename = libraryFile;
	mod.paths = Module._nodeModulePaths(path.dirname(libraryFile));
	mod._compile(outputText, libraryFile);
	return mod.exports;
}

async function main() {
	if (!has('--no-build')) {
		say('> npm run build');
		const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
		if (build.status !== 0) {
			say(`build failed (exit ${build.status})`);
			return 1;
		}
	}
	const lib = loadLibrary();
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const types = await lib.loadPackageTypes(pkg.n8n ?? {}, async (listed) => require(path.join(root, listed)));
	const current = lib.buildSnapshot(pkg.name, types);

	const committed = fs.existsSync(snapshotFile) ? JSON.parse(fs.readFileSync(snapshotFile, 'utf8')) : null;
	const count = (snapshot) =>
		Object.values(snapshot.nodes).reduce((n, versions) => n + Object.values(versions).reduce((m, e) => m + e.length, 0), 0) +
		Object.values(snapshot.credentials).reduce((n, e) => n + e.length, 0);

	let breaking = [];
	if (committed) {
		breaking = lib.compareSnapshots(committed, current);
		const changed = lib.additions(committed, current);
		if (changed.length > 0) {
			say(`${changed.length} new or changed entr${changed.length === 1 ? 'y' : 'ies'}:`);
			for (const line of changed) say(`  + ${line}`);
		}
		if (breaking.length > 0) {
			say(`${breaking.length} breaking change(s) against the committed snapshot:`);
			for (const line of breaking) say(`  ! ${line}`);
		}
	}
	const text = lib.formatSnapshot(current);
	const upToDate = committed !== null && fs.readFileSync(snapshotFile, 'utf8') === text;

	if (has('--check')) {
		if (breaking.length > 0) return 1;
		say(upToDate ? 'snapshot up to date' : 'snapshot out of date (additions only): run npm run snapshot:params');
		return upToDate ? 0 : 1;
	}
	if (breaking.length > 0 && !has('--accept-breaking')) {
		say('not written: saved workflows would break. Bump the node version and keep serving the old one, or, before the');
		say('first release only, re-run with --accept-breaking and say why in the commit message.');
		return 1;
	}
	if (upToDate) {
		say(`${path.relative(root, snapshotFile)} is up to date (${count(current)} entries)`);
		return 0;
	}
	fs.mkdirSync(path.dirname(snapshotFile), { recursive: true });
	fs.writeFileSync(snapshotFile, text);
	const summary = Object.entries(current.nodes)
		.map(([name, versions]) => `${name} v${Object.keys(versions).join(',')}`)
		.concat(Object.keys(current.credentials))
		.join(', ');
	say(`wrote ${path.relative(root, snapshotFile)}: ${count(current)} entries (${summary})`);
	return 0;
}

main().then(
	(code) => process.exit(code),
	(error) => {
		process.stderr.write(`param-snapshot failed: ${error && error.stack ? error.stack : error}\n`);
		process.exit(1);
	},
);
