#!/usr/bin/env node
// Puts back the lockfile entries of platform-specific optional packages (native bindings) that a registry
// mirror serving only some platforms leaves out: `npm install` drops what it cannot fetch, and `npm ci`
// then refuses the lockfile on every machine ("Missing: @unrs/resolver-binding-darwin-arm64@ from lock
// file"). The entries carry os/cpu/libc, so npm installs each only on its own platform.
//   node scripts/lock-optional-bindings.js          add the missing entries to package-lock.json
//   node scripts/lock-optional-bindings.js --check  list them and exit 1 instead (a step of npm test)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));

/** The lockfile key Node would resolve `dep` to from package `key`: the nearest node_modules up the tree. */
function resolves(key, dep) {
	for (let dir = key; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
		if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${dep}`]) return true;
		if (dir === '') return false;
	}
}

const missing = new Map();
for (const [key, entry] of Object.entries(lock.packages)) {
	for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
		if (!resolves(key, dep)) missing.set(`node_modules/${dep}`, { dep, version, dev: entry.dev === true });
	}
}
if (process.argv.includes('--check')) {
	if (missing.size > 0) console.error(`package-lock.json lacks ${[...missing.keys()].join(', ')}: run node scripts/lock-optional-bindings.js`);
	process.exit(missing.size > 0 ? 1 : 0);
}
for (const [key, { dep, version, dev }] of missing) {
	if (!/^\d+\.\d+\.\d+/.test(version) || !/binding-/.test(dep)) {
		console.error(`not a pinned platform binding, left alone: ${dep}@${version}`);
		continue;
	}
	// The platform from the name, as the binding's own package.json declares it: ...-binding-linux-x64-gnu
	const [os, cpu, abi] = dep.split('/').pop().replace(/^[a-z-]*?binding-/, '').split('-');
	const platform = { cpu: [cpu === 'arm' && abi === 'eabi' ? 'arm' : cpu], os: [os] };
	if (os === 'linux' && abi) platform.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
	lock.packages[key] = { version, ...platform, ...(dev ? { dev: true } : {}), license: 'MIT', optional: true };
	console.log(`added ${key}@${version}`);
}
const order = (a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'));
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => order(a, b)));
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
