#!/usr/bin/env node
// `npm run snapshot:params`: writes test/fixtures/parameters.json, the snapshot of every parameter saved
// workflows depend on, read from dist/ (built first) through test/stability/paramSnapshot.ts (transpiled
// here; test/stability/parameters.test.ts checks the sources against the same file). A snapshot that would
// break committed entries is refused: bump the node version and keep serving the old one instead.
//   --no-build          use dist/ as it is
//   --check             compare only, write nothing (exit 1 when breaking or out of date)
//   --accept-breaking   write anyway (before the first release only; say why in the commit)
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const ts = require('typescript');

const root = path.join(__dirname, '..');
const snapshotFile = path.join(root, 'test', 'fixtures', 'parameters.json');
const libraryFile = path.join(root, 'test', 'stability', 'paramSnapshot.ts');
const has = (flag) => process.argv.includes(flag);

async function main() {
	if (!has('--no-build') && spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) return 1;
	const lib = new Module(libraryFile, module);
	lib._compile(ts.transpileModule(fs.readFileSync(libraryFile, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText, libraryFile);
	const { additions, buildSnapshot, compareSnapshots, formatSnapshot, loadPackageTypes } = lib.exports;
	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	const current = buildSnapshot(pkg.name, await loadPackageTypes(pkg.n8n, async (listed) => require(path.join(root, listed))));
	const text = formatSnapshot(current);
	const committedText = fs.existsSync(snapshotFile) ? fs.readFileSync(snapshotFile, 'utf8') : undefined;
	const committed = committedText === undefined ? undefined : JSON.parse(committedText);
	const breaking = committed ? compareSnapshots(committed, current) : [];
	for (const line of committed ? additions(committed, current) : []) console.log(`  + ${line}`);
	for (const line of breaking) console.log(`  ! ${line} (breaks saved workflows)`);
	if (has('--check')) {
		console.log(breaking.length > 0 ? 'breaking changes' : text === committedText ? 'snapshot up to date' : 'snapshot out of date: npm run snapshot:params');
		return breaking.length === 0 && text === committedText ? 0 : 1;
	}
	if (breaking.length > 0 && !has('--accept-breaking')) {
		console.log('not written: bump the node version and keep serving the old one (or, before the first release, --accept-breaking)');
		return 1;
	}
	fs.writeFileSync(snapshotFile, text);
	console.log(`${text === committedText ? 'unchanged' : 'wrote'} ${path.relative(root, snapshotFile)}`);
	return 0;
}

main().then((code) => process.exit(code), (error) => { console.error(error); process.exit(1); });
