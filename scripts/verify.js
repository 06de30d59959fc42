#!/usr/bin/env node
// `npm run verify`: builds the package, packs it exactly as `npm publish` would (`npm pack`), and checks the
// tarball against what n8n's community-package verification looks at:
//
//   - contents: only dist/** plus the files npm always adds (package.json, README, LICENSE, CHANGELOG), no
//     left-overs of earlier builds in dist/, no links or odd entries;
//   - package.json: n8n-nodes-* name, the community keyword, MIT, no runtime dependencies, peerDependencies
//     exactly n8n-workflow "*", no overrides, no install-time lifecycle scripts, the n8n block;
//   - LICENSE: the MIT text is shipped;
//   - dist/**/*.js: no banned globals, imports or dangerous functions, checked twice: with the rules of
//     @n8n/scan-community-package (its ESLint plugin, the version installed here through @n8n/node-cli, run
//     on the unpacked tarball the way the scanner's tarball leg does) and with our own syntax-tree scan,
//     which also enforces the project rule "only n8n-workflow may be imported";
//   - every node and credential of the n8n block loads in a fresh `node` process (n8n-workflow resolved from
//     this project), exports the class n8n looks for, has a name, light and dark icons next to it, and a
//     codex file naming it;
//   - optionally, the official scanner itself (`@n8n/scan-community-package`, never a dependency of this
//     project): its two lint legs run offline on the unpacked tarball and on the sources. Its provenance
//     check needs the published package on the npm registry and is not run here.
//
// Usage: node scripts/verify.js [--no-build] [--keep] [--scanner=<dir>] [--install-scanner]
//   --no-build          use dist/ as it is (npm test builds just before)
//   --keep              keep the temporary directory (tarball and unpacked package) and print its path
//   --scanner=<dir>     run the official scanner installed in <dir> (a folder whose node_modules holds
//                       @n8n/scan-community-package); also N8N_SCANNER_DIR=<dir>
//   --install-scanner   install @n8n/scan-community-package@0.32.0 into <os tmpdir>/n8n-scan-community-package-0.32.0
//                       (needs the npm registry once; reused afterwards) and run it
// Exit code: 0 when every check passes, 1 with the list of problems otherwise.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const zlib = require('node:zlib');

const root = path.join(__dirname, '..');
const SCANNER_VERSION = '0.32.0';

/** Lifecycle scripts npm runs when a package is installed: banned by n8n (no-forbidden-lifecycle-scripts). */
const FORBIDDEN_LIFECYCLE_SCRIPTS = ['prepare', 'preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'postprepare'];
/** Globals banned in community-node code (n8n's no-restricted-globals), plus `console` (the scanner adds no-console). */
const BANNED_GLOBALS = [
	'process',
	'global',
	'globalThis',
	'setTimeout',
	'setInterval',
	'setImmediate',
	'clearTimeout',
	'clearInterval',
	'clearImmediate',
	'__dirname',
	'__filename',
	'console',
];
/** The only module node code may load (project rule; n8n's own list also allows lodash, luxon, crypto, ...). */
const ALLOWED_MODULES = ['n8n-workflow'];
/** Files npm puts in every tarball whatever `files` says. */
const ALWAYS_INCLUDED = /^(package\.json|readme(\.[a-z]+)?|licen[cs]e(\.[a-z]+)?|changelog(\.[a-z]+)?)$/i;

// ---------------------------------------------------------------------------------------------------------
// Command line

const argv = process.argv.slice(2);
const has = (name) => argv.includes(name);
const valueOf = (name) => {
	const arg = argv.find((a) => a.startsWith(`${name}=`));
	return arg === undefined ? undefined : arg.slice(name.length + 1);
};
const known = ['--no-build', '--keep', '--install-scanner', '--help', '-h'];
const unknown = argv.filter((a) => !known.includes(a) && !a.startsWith('--scanner='));
if (has('--help') || has('-h') || unknown.length > 0) {
	if (unknown.length > 0) process.stderr.write(`verify: unknown argument(s) ${unknown.join(' ')}\n`);
	process.stdout.write(
		'usage: node scripts/verify.js [--no-build] [--keep] [--scanner=<dir>] [--install-scanner]\n' +
			'  see the comment at the top of scripts/verify.js\n',
	);
	process.exit(unknown.length > 0 ? 2 : 0);
}

// ---------------------------------------------------------------------------------------------------------
// Reporting

const checks = [];
const started = Date.now();

function say(line) {
	process.stdout.write(`${line}\n`);
}

/** Runs one named check; `fn(problems, notes)` pushes human-readable strings. A crash is a problem too. */
async function check(title, fn) {
	const entry = { title, problems: [], notes: [] };
	const t0 = Date.now();
	try {
		await fn(entry.problems, entry.notes);
	} catch (error) {
		entry.problems.push(`the check itself failed: ${error && error.stack ? error.stack : error}`);
	}
	const ms = Date.now() - t0;
	checks.push(entry);
	say(`${entry.problems.length === 0 ? 'PASS' : 'FAIL'}  ${title} (${ms} ms)`);
	for (const problem of entry.problems) say(`      - ${problem.split('\n').join('\n        ')}`);
	for (const note of entry.notes) say(`      . ${note.split('\n').join('\n        ')}`);
	return entry.problems.length === 0;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** Environment without the npm_* variables an enclosing `npm run` exports (they would leak into child npm runs). */
function cleanNpmEnv(extra = {}) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key)) env[key] = value;
	}
	return { ...env, ...extra };
}

function run(command, args, options = {}) {
	return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
}

/** Minimal tar reader (ustar, GNU long names, pax paths): enough for what `npm pack` writes. */
function readTarGz(buffer) {
	const data = zlib.gunzipSync(buffer);
	const entries = [];
	let offset = 0;
	let nextPath = null;
	const text = (block, start, length) => {
		const raw = block.subarray(start, start + length);
		const end = raw.indexOf(0);
		return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
	};
	while (offset + 512 <= data.length) {
		const header = data.subarray(offset, offset + 512);
		if (header.every((byte) => byte === 0)) break;
		const size = parseInt(text(header, 124, 12).trim() || '0', 8);
		const typeByte = header[156];
		const type = typeByte === 0 ? '0' : String.fromCharCode(typeByte);
		let name = text(header, 0, 100);
		if (text(header, 257, 5) === 'ustar') {
			const prefix = text(header, 345, 155);
			if (prefix) name = `${prefix}/${name}`;
		}
		const body = data.subarray(offset + 512, offset + 512 + size);
		offset += 512 + Math.ceil(size / 512) * 512;
		if (type === 'x') {
			const match = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
			if (match) nextPath = match[1];
			continue;
		}
		if (type === 'g') continue;
		if (type === 'L') {
			nextPath = text(body, 0, body.length);
			continue;
		}
		if (nextPath !== null) {
			name = nextPath;
			nextPath = null;
		}
		entries.push({ name, type, mode: parseInt(text(header, 100, 8).trim() || '0', 8), body: Buffer.from(body) });
	}
	return entries;
}

/** Every file under dir, as paths relative to it with forward slashes. */
function listFiles(dir, base = dir) {
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...listFiles(full, base));
		else out.push(path.relative(base, full).split(path.sep).join('/'));
	}
	return out.sort();
}

/** The source a dist/ file was built from (null when the build cannot have produced it). */
function sourceOf(distPath) {
	const rel = distPath.replace(/^dist\//, '');
	if (rel === 'package.json') return 'package.json';
	if (!/^(nodes|credentials)\//.test(rel)) return null;
	if (/\.js\.map$/.test(rel)) return rel.replace(/\.js\.map$/, '.ts');
	if (/\.d\.ts$/.test(rel)) return rel.replace(/\.d\.ts$/, '.ts');
	if (/\.js$/.test(rel)) return rel.replace(/\.js$/, '.ts');
	return rel; // .json codex files and icons are copied as they are
}

function isPlainObject(value) {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------------
// The checks

async function main() {
	say(`verify: ${path.basename(root)} (node ${process.version})`);

	if (!has('--no-build')) {
		const ok = await check('build (npm run build)', (problems) => {
			const result = run('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
			if (result.status !== 0) {
				problems.push(`npm run build failed (exit ${result.status}):\n${(result.stdout + result.stderr).trim()}`);
			}
		});
		if (!ok) return finish(null);
	}

	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-n8n-package-'));
	const packageDir = path.join(tmp, 'package');
	let tarball = null;
	let files = [];
	let pkg = null;

	const packed = await check('pack (npm pack --json, as npm publish would)', (problems, notes) => {
		const result = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], {
			cwd: root,
			env: cleanNpmEnv(),
		});
		if (result.status !== 0) {
			problems.push(`npm pack failed (exit ${result.status}):\n${result.stderr.trim()}`);
			return;
		}
		const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('[')))[0];
		tarball = path.join(tmp, report.filename);
		const entries = readTarGz(fs.readFileSync(tarball));
		for (const entry of entries) {
			if (!entry.name.startsWith('package/') || entry.name.split('/').includes('..') || path.isAbsolute(entry.name)) {
				problems.push(`tar entry outside package/: ${entry.name}`);
				continue;
			}
			const rel = entry.name.slice('package/'.length);
			if (entry.type === '5') continue;
			if (entry.type !== '0') {
				problems.push(`${rel}: tar entry of type "${entry.type}" (links and special files are not allowed)`);
				continue;
			}
			const target = path.join(packageDir, rel);
			fs.mkdirSync(path.dirname(target), { recursive: true });
			fs.writeFileSync(target, entry.body);
			files.push(rel);
		}
		files = files.sort();
		pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
		notes.push(`${report.filename}: ${files.length} files, ${report.size} bytes packed, ${report.unpackedSize} unpacked`);
	});
	if (!packed) return finish(tmp);

	await check('tarball contents: only dist/** and package files', (problems, notes) => {
		for (const file of files) {
			if (file.startsWith('dist/')) continue;
			if (!file.includes('/') && ALWAYS_INCLUDED.test(file)) continue;
			problems.push(`${file}: not under dist/ (check "files" in package.json and .npmignore)`);
		}
		for (const required of ['package.json', 'README.md', 'LICENSE']) {
			if (!files.includes(required)) problems.push(`${required} is missing from the tarball`);
		}
		if (!files.some((f) => f.startsWith('dist/'))) problems.push('dist/ is missing from the tarball');
		if (files.includes('binding.gyp') || pkg.gypfile) {
			problems.push('binding.gyp / "gypfile": npm would run node-gyp at install time');
		}
		const stale = files.filter((f) => f.startsWith('dist/')).filter((f) => {
			const source = sourceOf(f);
			return source === null || !fs.existsSync(path.join(root, source));
		});
		for (const file of stale) {
			problems.push(`${file}: no source for it in the project (a left-over of an earlier build: rm -rf dist && npm run build)`);
		}
		const present = files.filter((f) => !f.startsWith('dist/'));
		notes.push(`package files: ${present.join(', ')}`);
		if (pkg.main && !files.includes(pkg.main)) {
			notes.push(`"main" is ${JSON.stringify(pkg.main)}, which the package does not contain (n8n loads the n8n block, not main)`);
		}
	});

	await check('package.json: name, keyword, license, dependencies, lifecycle scripts, n8n block', (problems) => {
		if (!/^n8n-nodes-.+$/.test(pkg.name ?? '') && !/^@[^/]+\/n8n-nodes-.+$/.test(pkg.name ?? '')) {
			problems.push(`name ${JSON.stringify(pkg.name)} must be n8n-nodes-<name> or @<scope>/n8n-nodes-<name>`);
		}
		if (!Array.isArray(pkg.keywords) || !pkg.keywords.includes('n8n-community-node-package')) {
			problems.push('keywords must include "n8n-community-node-package" (n8n finds community packages by it)');
		}
		if (pkg.license !== 'MIT') problems.push(`license is ${JSON.stringify(pkg.license)}, expected "MIT"`);
		for (const field of ['dependencies', 'optionalDependencies']) {
			const value = pkg[field];
			if (value !== undefined && (!isPlainObject(value) || Object.keys(value).length > 0)) {
				problems.push(`"${field}" must be empty or absent (no runtime dependencies): ${JSON.stringify(value)}`);
			}
		}
		for (const field of ['bundledDependencies', 'bundleDependencies']) {
			const value = pkg[field];
			if (value !== undefined && value !== false && !(Array.isArray(value) && value.length === 0)) {
				problems.push(`"${field}" must be absent (no runtime dependencies): ${JSON.stringify(value)}`);
			}
		}
		const peers = pkg.peerDependencies;
		if (!isPlainObject(peers) || peers['n8n-workflow'] !== '*') {
			problems.push(`peerDependencies must contain "n8n-workflow": "*", got ${JSON.stringify(peers)}`);
		} else {
			for (const name of Object.keys(peers)) {
				if (name !== 'n8n-workflow') problems.push(`peerDependencies: "${name}" is not allowed (only n8n-workflow)`);
			}
		}
		for (const field of ['overrides', 'resolutions']) {
			if (pkg[field] !== undefined) problems.push(`"${field}" is not allowed in a community package`);
		}
		for (const name of Object.keys(pkg.scripts ?? {})) {
			if (FORBIDDEN_LIFECYCLE_SCRIPTS.includes(name)) {
				problems.push(`scripts.${name}: lifecycle scripts that run at install time are forbidden (${FORBIDDEN_LIFECYCLE_SCRIPTS.join(', ')})`);
			}
		}
		if (!Array.isArray(pkg.files) || pkg.files.length === 0) problems.push('"files" must be a non-empty array');
		if (!pkg.homepage) problems.push('"homepage" is missing');
		if (!pkg.repository) problems.push('"repository" is missing');
		const author = pkg.author;
		if (!author || (isPlainObject(author) && (!author.name || !author.email))) {
			problems.push('"author" needs a name and an email');
		}
		const n8n = pkg.n8n;
		if (!isPlainObject(n8n)) {
			problems.push('the "n8n" block is missing');
			return;
		}
		if (n8n.n8nNodesApiVersion !== 1) problems.push(`n8n.n8nNodesApiVersion is ${JSON.stringify(n8n.n8nNodesApiVersion)}, expected 1`);
		if (n8n.strict !== true) problems.push('n8n.strict should be true (the project lints in strict mode)');
		for (const list of ['nodes', 'credentials']) {
			const entries = n8n[list];
			if (!Array.isArray(entries) || entries.length === 0) {
				problems.push(`n8n.${list} must be a non-empty array`);
				continue;
			}
			const seen = new Set();
			for (const entry of entries) {
				if (seen.has(entry)) problems.push(`n8n.${list}: ${entry} is listed twice`);
				seen.add(entry);
				if (typeof entry !== 'string' || !entry.startsWith('dist/') || !entry.endsWith('.js')) {
					problems.push(`n8n.${list}: ${JSON.stringify(entry)} must be a dist/**/*.js path`);
				} else if (!files.includes(entry)) {
					problems.push(`n8n.${list}: ${entry} is not in the tarball (did the build run?)`);
				}
			}
		}
		const listed = new Set([...(n8n.nodes ?? []), ...(n8n.credentials ?? [])]);
		for (const file of files) {
			if (/\.(node|credentials)\.js$/.test(file) && !listed.has(file)) {
				problems.push(`${file} is in the tarball but not registered in the n8n block`);
			}
		}
	});

	await check('LICENSE: MIT text shipped', (problems) => {
		const file = files.find((f) => /^licen[cs]e(\.[a-z]+)?$/i.test(f));
		if (!file) {
			problems.push('no LICENSE file in the tarball');
			return;
		}
		const text = fs.readFileSync(path.join(packageDir, file), 'utf8');
		const expected = [
			/^MIT License/,
			/Copyright \(c\) \d{4} \S/,
			/Permission is hereby granted, free of charge, to any person obtaining a copy/,
			/THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND/,
		];
		for (const pattern of expected) {
			if (!pattern.test(text)) problems.push(`${file} does not contain the MIT license text (${pattern})`);
		}
	});

	const jsFiles = files.filter((f) => f.startsWith('dist/') && f.endsWith('.js'));

	await check(`dist/**/*.js: banned globals, imports and functions (syntax-tree scan of ${jsFiles.length} files)`, (problems) => {
		for (const file of jsFiles) {
			for (const finding of scanJs(fs.readFileSync(path.join(packageDir, file), 'utf8'), file)) problems.push(finding);
		}
	});

	await check("dist/**/*.js and package.json: @n8n/scan-community-package's lint rules (installed plugin)", async (problems, notes) => {
		const result = await lintLikeScanner(packageDir);
		notes.push(`@n8n/eslint-plugin-community-nodes ${result.pluginVersion} (the scanner ${SCANNER_VERSION} pins 0.29.0), eslint ${result.eslintVersion}, ${result.fileCount} files`);
		problems.push(...result.errors);
		if (result.warnings.length > 0) notes.push(`warnings (the scanner passes them):\n${result.warnings.join('\n')}`);
	});

	const loaded = new Map();
	await check('nodes and credentials of the n8n block load in a fresh node process', (problems, notes) => {
		const entries = [
			...(pkg.n8n?.nodes ?? []).map((file) => ({ file, kind: 'node' })),
			...(pkg.n8n?.credentials ?? []).map((file) => ({ file, kind: 'credential' })),
		].filter(({ file }) => files.includes(file));
		for (const { file, kind } of entries) {
			const result = loadInFreshProcess(path.join(packageDir, file), kind, tmp);
			if (!result.ok) {
				problems.push(`${file}: ${result.error}`);
				continue;
			}
			for (const problem of result.problems) problems.push(`${file}: ${problem}`);
			loaded.set(file, result);
			notes.push(
				kind === 'node'
					? `${file}: ${result.className} -> ${result.name} "${result.displayName}" v${result.versions.join(',')}, ${result.propertyCount} parameters`
					: `${file}: ${result.className} -> ${result.name} "${result.displayName}", ${result.propertyCount} fields`,
			);
		}
		const nodeNames = [...loaded.values()].filter((r) => r.kind === 'node').map((r) => r.name);
		const credentialNames = [...loaded.values()].filter((r) => r.kind === 'credential').map((r) => r.name);
		for (const names of [nodeNames, credentialNames]) {
			for (const name of new Set(names)) {
				if (names.filter((n) => n === name).length > 1) problems.push(`the name ${name} is used twice`);
			}
		}
		const allCredentialsLoaded = (pkg.n8n?.credentials ?? []).every((file) => loaded.has(file));
		for (const [file, result] of allCredentialsLoaded ? loaded : []) {
			for (const credential of result.credentials ?? []) {
				if (!credentialNames.includes(credential)) {
					problems.push(`${file}: uses the credential ${credential}, which the package does not ship`);
				}
			}
		}
	});

	await check('icons (light and dark, next to each node and credential) and codex files', (problems) => {
		for (const [file, result] of loaded) {
			const icon = result.icon;
			if (!isPlainObject(icon) || !icon.light || !icon.dark) {
				problems.push(`${file}: icon must have a light and a dark variant, got ${JSON.stringify(icon)}`);
			} else {
				for (const variant of ['light', 'dark']) {
					const ref = icon[variant];
					if (typeof ref !== 'string' || !ref.startsWith('file:')) {
						problems.push(`${file}: icon.${variant} ${JSON.stringify(ref)} is not a file: reference`);
						continue;
					}
					const resolved = path.resolve(path.dirname(path.join(packageDir, file)), ref.slice('file:'.length));
					const rel = path.relative(packageDir, resolved).split(path.sep).join('/');
					if (rel.startsWith('..') || !rel.startsWith('dist/')) {
						problems.push(`${file}: icon.${variant} points outside dist/ (${rel})`);
					} else if (!files.includes(rel)) {
						problems.push(`${file}: icon.${variant} ${rel} is not in the tarball (gulp build:icons copies them)`);
					} else if (!/\.(svg|png)$/.test(rel)) {
						problems.push(`${file}: icon.${variant} ${rel} is neither .svg nor .png`);
					} else if (rel.endsWith('.svg') && !/<svg[\s>]/.test(fs.readFileSync(resolved, 'utf8'))) {
						problems.push(`${file}: icon.${variant} ${rel} is not an SVG document`);
					}
				}
				if (icon.light === icon.dark) problems.push(`${file}: the light and dark icons are the same file`);
			}
			if (result.kind !== 'node') continue;
			const codexFile = file.replace(/\.js$/, '.json');
			if (!files.includes(codexFile)) {
				problems.push(`${file}: no codex file ${codexFile}`);
				continue;
			}
			let codex;
			try {
				codex = JSON.parse(fs.readFileSync(path.join(packageDir, codexFile), 'utf8'));
			} catch (error) {
				problems.push(`${codexFile}: not valid JSON (${error.message})`);
				continue;
			}
			if (codex.node !== `${pkg.name}.${result.name}`) {
				problems.push(`${codexFile}: "node" is ${JSON.stringify(codex.node)}, expected "${pkg.name}.${result.name}"`);
			}
			if (!Array.isArray(codex.categories) || codex.categories.length === 0) problems.push(`${codexFile}: no categories`);
		}
	});

	const scannerDir = await locateOfficialScanner();
	if (scannerDir) {
		await check(`official @n8n/scan-community-package (offline: lint legs on the tarball and on the sources)`, (problems, notes) => {
			const result = runOfficialScanner(scannerDir, packageDir, tmp);
			if (result.error) {
				problems.push(result.error);
				return;
			}
			notes.push(`scanner ${result.version} from ${scannerDir}; provenance check not run (needs the published package)`);
			for (const [leg, outcome] of Object.entries(result.legs)) {
				if (outcome.passed) notes.push(`${leg}: passed`);
				else problems.push(`${leg}: ${outcome.message}${outcome.details ? `\n${outcome.details.trim()}` : ''}`);
			}
		});
	} else {
		say('SKIP  official @n8n/scan-community-package (run with --install-scanner, --scanner=<dir> or N8N_SCANNER_DIR=<dir>)');
	}

	return finish(tmp);
}

function finish(tmp) {
	const problems = checks.reduce((sum, c) => sum + c.problems.length, 0);
	const failed = checks.filter((c) => c.problems.length > 0).map((c) => c.title);
	if (tmp) {
		if (has('--keep')) say(`kept ${tmp}`);
		else fs.rmSync(tmp, { recursive: true, force: true });
	}
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	if (problems === 0) {
		say(`\nverify: ${checks.length} checks passed (${seconds} s)`);
		return 0;
	}
	say(`\nverify: ${problems} problem(s) in ${failed.length} of ${checks.length} checks (${seconds} s):`);
	for (const title of failed) say(`  - ${title}`);
	return 1;
}

// ---------------------------------------------------------------------------------------------------------
// Our own scan of the compiled code (TypeScript's parser, from this project's devDependencies)

function scanJs(source, file) {
	const ts = require('typescript');
	const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
	const findings = [];
	const at = (node) => {
		const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
		return `${file}:${line + 1}:${character + 1}`;
	};
	// Names the file declares itself (a local `process` is not the global); a coarse, file-wide view.
	const declared = new Set();
	const collectDeclared = (node) => {
		if (
			(ts.isVariableDeclaration(node) ||
				ts.isParameter(node) ||
				ts.isFunctionDeclaration(node) ||
				ts.isClassDeclaration(node) ||
				ts.isBindingElement(node) ||
				ts.isImportSpecifier(node) ||
				ts.isImportClause(node) ||
				ts.isNamespaceImport(node)) &&
			node.name &&
			ts.isIdentifier(node.name)
		) {
			declared.add(node.name.text);
		}
		ts.forEachChild(node, collectDeclared);
	};
	collectDeclared(sf);

	const isReference = (id) => {
		const parent = id.parent;
		if (!parent) return true;
		if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false; // obj.process
		if ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) ||
			ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent)) && parent.name === id) {
			return false; // { process: 1 }, class members
		}
		if ((ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isFunctionDeclaration(parent) ||
			ts.isClassDeclaration(parent) || ts.isBindingElement(parent)) && parent.name === id) {
			return false;
		}
		if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
		return true;
	};
	const moduleAllowed = (name) => name.startsWith('./') || name.startsWith('../') || ALLOWED_MODULES.includes(name);

	const visit = (node) => {
		if (ts.isIdentifier(node) && BANNED_GLOBALS.includes(node.text) && !declared.has(node.text) && isReference(node)) {
			findings.push(`${at(node)}: uses the global \`${node.text}\` (banned in community nodes)`);
		}
		if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
			const callee = node.expression;
			if (ts.isIdentifier(callee) && callee.text === 'eval' && !declared.has('eval')) {
				findings.push(`${at(node)}: eval() is banned`);
			}
			if (ts.isIdentifier(callee) && callee.text === 'Function' && !declared.has('Function')) {
				findings.push(`${at(node)}: the Function constructor is banned`);
			}
			if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
				findings.push(`${at(node)}: dynamic import() is banned`);
			}
			const isRequire =
				ts.isCallExpression(node) &&
				((ts.isIdentifier(callee) && callee.text === 'require') ||
					(ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) &&
						callee.expression.text === 'require')) &&
				!declared.has('require');
			if (isRequire) {
				const arg = node.arguments[0];
				if (ts.isIdentifier(callee) && (!arg || !ts.isStringLiteralLike(arg))) {
					findings.push(`${at(node)}: require() of a computed module name`);
				} else if (ts.isIdentifier(callee) && !moduleAllowed(arg.text)) {
					findings.push(`${at(node)}: require('${arg.text}'): node code may only load n8n-workflow and its own files`);
				} else if (!ts.isIdentifier(callee)) {
					findings.push(`${at(node)}: require.${callee.name.text}() is banned`);
				}
			}
		}
		if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && !moduleAllowed(node.moduleSpecifier.text)) {
			findings.push(`${at(node)}: import of '${node.moduleSpecifier.text}': node code may only load n8n-workflow and its own files`);
		}
		ts.forEachChild(node, visit);
	};
	visit(sf);
	return findings;
}

// ---------------------------------------------------------------------------------------------------------
// The scanner's lint rules, with the versions installed in this project (the same configuration as
// @n8n/scan-community-package's buildScanConfig(), run like its tarball leg: **/*.js and package.json)

async function lintLikeScanner(packageDir) {
	const { ESLint } = require('eslint');
	const { defineConfig } = require('eslint/config');
	const community = await import('@n8n/eslint-plugin-community-nodes');
	const n8nCommunityNodesPlugin = community.n8nCommunityNodesPlugin ?? community.default;
	const tsParserModule = require('@typescript-eslint/parser');
	const parser = tsParserModule.default ?? tsParserModule;
	const n8nNodesBase = require('eslint-plugin-n8n-nodes-base');
	const config = defineConfig(
		n8nCommunityNodesPlugin.configs.recommended,
		{ rules: { 'no-console': 'error' } },
		{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
		{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
		{ files: ['**/*.json'], languageOptions: { parser } },
	);
	const eslint = new ESLint({ cwd: packageDir, allowInlineConfig: false, overrideConfigFile: true, overrideConfig: config });
	const targets = listFiles(packageDir)
		.filter((f) => f === 'package.json' || f.endsWith('.js'))
		.map((f) => path.join(packageDir, f));
	const results = await eslint.lintFiles(targets);
	const errors = [];
	const warnings = [];
	for (const result of results) {
		const rel = path.relative(packageDir, result.filePath).split(path.sep).join('/');
		for (const message of result.messages) {
			const line = `${rel}:${message.line ?? 0}:${message.column ?? 0}: ${message.message} (${message.ruleId ?? 'parser'})`;
			if (message.severity === 2 || message.fatal) errors.push(line);
			else warnings.push(line);
		}
	}
	const versionOf = (name) => {
		try {
			return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
		} catch {
			return '?';
		}
	};
	return {
		errors,
		warnings,
		fileCount: targets.length,
		pluginVersion: versionOf('@n8n/eslint-plugin-community-nodes'),
		eslintVersion: ESLint.version,
	};
}

// ---------------------------------------------------------------------------------------------------------
// Loading each node and credential in its own process

const LOADER = String.raw`
'use strict';
const path = require('path');
const [file, kind] = process.argv.slice(1);
const out = { ok: false, kind, problems: [] };
try {
	const exported = require(file);
	const className = path.basename(file).split('.')[0];
	out.className = className;
	const Cls = exported[className];
	if (typeof Cls !== 'function') {
		throw new Error('does not export a class named ' + className + ' (n8n instantiates the export named after the file); exports: ' + Object.keys(exported).join(', '));
	}
	const instance = new Cls();
	if (kind === 'node') {
		const d = instance.description;
		if (!d || typeof d !== 'object') throw new Error('the instance has no description');
		const versioned = instance.nodeVersions && typeof instance.nodeVersions === 'object';
		const descriptions = versioned ? Object.values(instance.nodeVersions).map((v) => v.description) : [d];
		out.name = d.name;
		out.displayName = d.displayName;
		out.versions = versioned ? Object.keys(instance.nodeVersions) : [].concat(d.version);
		out.icon = d.icon ?? descriptions[0].icon;
		out.credentials = [...new Set(descriptions.flatMap((x) => (x.credentials || []).map((c) => c.name)))];
		out.propertyCount = descriptions.reduce((n, x) => n + (Array.isArray(x.properties) ? x.properties.length : 0), 0);
		if (typeof d.name !== 'string' || !/^[a-zA-Z][a-zA-Z0-9]*$/.test(d.name)) out.problems.push('description.name ' + JSON.stringify(d.name) + ' is not a valid node name');
		if (typeof d.displayName !== 'string' || !d.displayName) out.problems.push('description.displayName is empty');
		for (const x of descriptions) {
			if (![].concat(x.version).every((v) => typeof v === 'number' && v > 0)) out.problems.push('version ' + JSON.stringify(x.version) + ' is not a positive number');
			if (!Array.isArray(x.properties)) out.problems.push('description.properties is not an array');
			if (!Array.isArray(x.inputs) || !Array.isArray(x.outputs)) out.problems.push('description.inputs/outputs are not arrays');
			if (!x.defaults || typeof x.defaults.name !== 'string') out.problems.push('description.defaults.name is missing');
			const isTrigger = (x.group || []).includes('trigger');
			const runs = typeof instance.execute === 'function' || typeof instance.webhook === 'function' || typeof instance.trigger === 'function' || typeof instance.poll === 'function' || x.requestDefaults || instance.customOperations;
			if (!runs && !isTrigger) out.problems.push('the node has no execute(), webhook(), trigger(), poll() or declarative routing');
		}
	} else {
		out.name = instance.name;
		out.displayName = instance.displayName;
		out.icon = instance.icon;
		out.propertyCount = Array.isArray(instance.properties) ? instance.properties.length : 0;
		if (typeof instance.name !== 'string' || !/^[a-zA-Z][a-zA-Z0-9]*$/.test(instance.name)) out.problems.push('name ' + JSON.stringify(instance.name) + ' is not a valid credential name');
		if (typeof instance.displayName !== 'string' || !instance.displayName) out.problems.push('displayName is empty');
		if (!Array.isArray(instance.properties)) out.problems.push('properties is not an array');
		if (!instance.test) out.problems.push('no credential test (n8n requires one for verified packages)');
	}
	out.ok = true;
} catch (error) {
	const frames = String((error && error.stack) || '').split('\n').filter((l) => /^\s+at /.test(l) && !/\[eval\]|node:internal/.test(l));
	out.error = (error && error.message ? error.message : String(error)) + (frames.length > 0 ? '\n' + frames.slice(0, 3).join('\n') : '');
}
process.stdout.write('\n@@verify@@' + JSON.stringify(out));
`;

function loadInFreshProcess(file, kind, cwd) {
	const result = run(process.execPath, ['-e', LOADER, file, kind], {
		cwd,
		env: { ...cleanNpmEnv(), NODE_PATH: path.join(root, 'node_modules') },
		timeout: 60000,
	});
	const marker = result.stdout ? result.stdout.lastIndexOf('@@verify@@') : -1;
	if (marker === -1) {
		return { ok: false, error: `the loader process failed (exit ${result.status}${result.signal ? `, ${result.signal}` : ''}): ${(result.stderr || '').trim()}` };
	}
	return JSON.parse(result.stdout.slice(marker + '@@verify@@'.length));
}

// ---------------------------------------------------------------------------------------------------------
// The official scanner (optional)

function scannerEntry(dir) {
	const candidates = [
		path.join(dir, 'node_modules', '@n8n', 'scan-community-package', 'scanner', 'scanner.mjs'),
		path.join(dir, 'scanner', 'scanner.mjs'),
	];
	return candidates.find((candidate) => fs.existsSync(candidate)) ?? null;
}

async function locateOfficialScanner() {
	const given = valueOf('--scanner') ?? process.env.N8N_SCANNER_DIR;
	if (given) {
		const dir = path.resolve(given);
		if (!scannerEntry(dir)) {
			await check('official @n8n/scan-community-package', (problems) => {
				problems.push(`no @n8n/scan-community-package under ${dir}`);
			});
			return null;
		}
		return dir;
	}
	if (!has('--install-scanner')) return null;
	const dir = path.join(os.tmpdir(), `n8n-scan-community-package-${SCANNER_VERSION}`);
	if (scannerEntry(dir)) return dir;
	let ok = false;
	await check(`install @n8n/scan-community-package@${SCANNER_VERSION} into ${dir} (outside the project)`, (problems) => {
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scanner-holder', private: true }, null, 2));
		const result = run(
			'npm',
			['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `@n8n/scan-community-package@${SCANNER_VERSION}`],
			{ cwd: dir, env: cleanNpmEnv() },
		);
		if (result.status !== 0 || !scannerEntry(dir)) {
			problems.push(`npm install failed (exit ${result.status}): ${(result.stderr || '').trim()}`);
			return;
		}
		ok = true;
	});
	return ok ? dir : null;
}

const SCANNER_RUNNER = String.raw`
const [entry, packageDir, sourceDir] = process.argv.slice(1);
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(entry);
const pick = (r) => ({ passed: r.passed, message: r.message, details: r.details });
const tarballLeg = await analyzePackage(packageDir, ['**/*.js', 'package.json']);
const sourceLeg = await analyzePackage(sourceDir, SOURCE_FILE_PATTERNS);
process.stdout.write('\n@@scanner@@' + JSON.stringify({ 'tarball leg (dist/**/*.js, package.json)': pick(tarballLeg), 'source leg (package.json, nodes/, credentials/)': pick(sourceLeg) }));
`;

function runOfficialScanner(dir, packageDir, tmp) {
	const entry = scannerEntry(dir);
	let version = '?';
	try {
		version = JSON.parse(fs.readFileSync(path.join(path.dirname(path.dirname(entry)), 'package.json'), 'utf8')).version;
	} catch {
		// the version is only reported
	}
	const scannerTmp = path.join(tmp, 'scanner-tmp');
	fs.mkdirSync(scannerTmp, { recursive: true });
	const result = run(process.execPath, ['--input-type=module', '-e', SCANNER_RUNNER, pathToFileURL(entry).href, packageDir, root], {
		cwd: path.dirname(entry),
		// The scanner creates a temporary directory when it is imported: keep it inside ours.
		env: { ...cleanNpmEnv(), TMPDIR: scannerTmp, TMP: scannerTmp, TEMP: scannerTmp },
		timeout: 300000,
	});
	const marker = result.stdout ? result.stdout.lastIndexOf('@@scanner@@') : -1;
	if (marker === -1) {
		return { error: `the scanner did not run (exit ${result.status}): ${(result.stderr || '').trim().slice(0, 2000)}` };
	}
	return { version, legs: JSON.parse(result.stdout.slice(marker + '@@scanner@@'.length)) };
}

main().then(
	(code) => process.exit(code),
	(error) => {
		process.stderr.write(`verify crashed: ${error && error.stack ? error.stack : error}\n`);
		process.exit(1);
	},
);
