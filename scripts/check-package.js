#!/usr/bin/env node
// `npm run check:package` (a step of `npm test`, after the build): packs dist/ as `npm publish` would and
// checks the tarball. First n8n's official scanner, @n8n/scan-community-package, offline: the two lint legs
// of its verification run (the shipped dist/**/*.js and package.json, then package.json, nodes/ and
// credentials/ of this repository); its provenance leg needs the published package and is n8n's to run.
// Then what neither the scanner nor `n8n-node lint` checks: the tarball's contents (dist/nodes and dist/credentials,
// no picture), the package.json fields
// their rules only warn about or do not look at, the MIT text, that compiled code loads nothing but
// n8n-workflow, and that every listed node and credential loads from the tarball alone with its icons and
// codex file.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const { buildAndPack } = require('./n8n-runtime');

const root = path.join(__dirname, '..');
const problems = [];
const check = (ok, problem) => {
	if (!ok) problems.push(problem);
	return ok;
};
const sh = (cmd, args) => spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });

async function scan(packageDir, tmp) {
	process.env.TMPDIR = tmp; // the scanner makes a temporary folder when it is loaded: keep it in ours
	const entry = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
	const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(entry).href);
	for (const [leg, dir, patterns] of [
		['tarball', packageDir, ['**/*.js', 'package.json']],
		['sources', root, SOURCE_FILE_PATTERNS],
	]) {
		const result = await analyzePackage(dir, patterns);
		console.log(`scan-community-package, ${leg}: ${result.passed ? 'passed' : 'FAILED'}`);
		check(result.passed, `scan-community-package (${leg}): ${result.message}\n${result.details ?? ''}`);
	}
}

function checkContents(entries, files, pkg, packageDir) {
	for (const { type, name } of entries) check(type === '-' && name.startsWith('package/'), `tar entry ${type} ${name}: not a plain file of package/`);
	// What n8n installs: the nodes and credentials, their icons, the README. The docs (and their screenshots, which
	// n8n-node build copies into dist/docs/ with every other PNG of the repository) stay in the repository.
	for (const file of files) check(/^dist\/(nodes|credentials)\//.test(file) || /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/.test(file), `${file}: outside dist/nodes/ and dist/credentials/`);
	for (const file of files.filter((f) => /\.(png|jpe?g|gif|webp)$/i.test(f))) check(false, `${file}: a picture in the package (the icons are SVG; screenshots are docs)`);
	for (const file of ['package.json', 'README.md', 'LICENSE']) check(files.includes(file), `${file} is not in the tarball`);
	for (const field of ['optionalDependencies', 'bundleDependencies', 'bundledDependencies', 'resolutions', 'gypfile'])
		check(pkg[field] === undefined, `package.json: "${field}" (no runtime dependencies, nothing built at install)`);
	check(Array.isArray(pkg.files) && pkg.files.length > 0, 'package.json: "files" must list what ships');
	const repo = /^git\+(https:\/\/github\.com\/[^/]+\/[^/]+)\.git$/.exec(pkg.repository?.url ?? '')?.[1] ?? '(none)';
	check(repo !== '(none)', 'package.json: "repository.url" must be git+https://github.com/<owner>/<name>.git');
	check([pkg.homepage, pkg.bugs?.url].every((url) => url?.startsWith(`${repo}/`) || url?.startsWith(`${repo}#`)), `package.json: "homepage" and "bugs" must be pages of ${repo}`);
	check(pkg.n8n?.strict === true, 'package.json: "n8n.strict" must be true');
	const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	for (const file of listed) check(files.includes(file) && listed.indexOf(file) === listed.lastIndexOf(file), `n8n block: ${file} is missing from the tarball or listed twice`);
	for (const file of files.filter((f) => /\.(node|credentials)\.js$/.test(f))) check(listed.includes(file), `${file} is not listed in the n8n block`);
	const license = fs.readFileSync(path.join(packageDir, 'LICENSE'), 'utf8');
	check(/^MIT License\s+Copyright \(c\) \d{4} \S[\s\S]*Permission is hereby granted, free of charge[\s\S]*"AS IS", WITHOUT WARRANTY/.test(license), 'LICENSE: not the MIT text');
	for (const file of files.filter((f) => f.endsWith('.js'))) {
		const code = fs.readFileSync(path.join(packageDir, file), 'utf8');
		for (const [call, required, imported] of code.matchAll(/\brequire\s*\(([^)]*)\)|\bimport\(([^)]*)\)/g))
			check(/^\s*["'](n8n-workflow|\.\.?\/[^"']+)["']\s*$/.test(required ?? imported), `${file}: ${call} (compiled node code loads only n8n-workflow and its own files)`);
	}
}

// Loads each listed file in a fresh process that has nothing but n8n-workflow, as n8n does: the class named
// after the file, its name, icon and credentials.
const LOADER = `const path = require('node:path');
const [dir, ...files] = process.argv.slice(1);
console.log(JSON.stringify(files.map((file) => {
	const type = new (require(path.join(dir, file))[path.basename(file).split('.')[0]])();
	const d = type.description ?? type;
	return { file, name: d.name, icon: d.icon, credentials: (d.credentials ?? []).map((c) => c.name) };
})));`;

function checkTypes(files, pkg, packageDir) {
	const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].filter((f) => files.includes(f));
	const modules = path.join(packageDir, '..', 'modules');
	fs.mkdirSync(modules);
	fs.symlinkSync(path.join(root, 'node_modules', 'n8n-workflow'), path.join(modules, 'n8n-workflow'));
	const env = { PATH: process.env.PATH, NODE_PATH: modules };
	const result = spawnSync(process.execPath, ['-e', LOADER, packageDir, ...listed], { cwd: modules, env, encoding: 'utf8' });
	if (!check(result.status === 0, `loading the nodes and credentials from the tarball failed:\n${result.stderr}`)) return;
	const types = JSON.parse(result.stdout.trim().split('\n').pop());
	const names = types.map((t) => t.name);
	const credentialNames = types.filter((t) => t.file.endsWith('.credentials.js')).map((t) => t.name);
	for (const { file, name, icon, credentials } of types) {
		check(/^[a-zA-Z][a-zA-Z0-9]*$/.test(name) && names.indexOf(name) === names.lastIndexOf(name), `${file}: name ${name} is invalid or not unique`);
		for (const credential of credentials) check(credentialNames.includes(credential), `${file}: uses credential ${credential}, which the package does not ship`);
		const icons = ['light', 'dark'].map((v) => path.posix.join(path.posix.dirname(file), String(icon?.[v]).replace(/^file:/, '')));
		check(icons[0] !== icons[1], `${file}: needs a light and a dark icon`);
		for (const i of icons) check(files.includes(i) && /<svg[\s>]/.test(fs.readFileSync(path.join(packageDir, i), 'utf8')), `${file}: icon ${i} is not an SVG in the tarball`);
		if (!file.endsWith('.node.js')) continue;
		const codexFile = file.replace(/\.js$/, '.json');
		const codex = files.includes(codexFile) ? JSON.parse(fs.readFileSync(path.join(packageDir, codexFile), 'utf8')) : {};
		check(codex.node === `${pkg.name}.${name}` && codex.categories?.length > 0, `${codexFile}: missing, or "node" is not ${pkg.name}.${name}, or no categories`);
	}
	console.log(`loaded from the tarball: ${names.join(', ')}`);
}

async function main() {
	const tarball = buildAndPack({ build: false, log: console.log });
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'check-package-'));
	try {
		const entries = sh('tar', ['-tvzf', tarball]).stdout.trim().split('\n').map((line) => ({ type: line[0], name: line.split(/\s+/).pop() }));
		check(sh('tar', ['-xzf', tarball, '-C', tmp]).status === 0, `tar could not unpack ${tarball}`);
		const packageDir = path.join(tmp, 'package');
		const files = entries.map((e) => e.name.replace(/^package\//, ''));
		const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
		checkContents(entries, files, pkg, packageDir);
		checkTypes(files, pkg, packageDir);
		await scan(packageDir, tmp);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
	for (const problem of problems) console.error(`  - ${problem}`);
	console.log(problems.length === 0 ? 'check-package: the packed package passes' : `check-package: ${problems.length} problem(s)`);
	return problems.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error) => { console.error(error); process.exit(1); });
