#!/usr/bin/env node
// Restores lockfile entries for platform-specific optional packages that this machine's npm
// registry mirror does not serve (it only carries the linux builds of some native bindings).
// `npm install` drops what it cannot fetch, and `npm ci` then refuses the lockfile on every
// machine ("Missing: @unrs/resolver-binding-darwin-arm64@ from lock file"). The restored entries
// carry os/cpu/libc, so npm skips them on platforms they are not for and never downloads them here;
// on a platform that needs one, npm fetches it from the registry by name and version.
//
//   node scripts/lock-optional-bindings.js          rewrite package-lock.json when entries are missing
//   node scripts/lock-optional-bindings.js --check  exit 1 and list them instead
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const LOCK = path.join(__dirname, '..', 'package-lock.json');

/** Platform of a binding package from its name suffix, as its own package.json declares it. */
function platformOf(name) {
	const suffix = name.split('/').pop().replace(/^[a-z-]*?binding-/, '');
	const [os, cpu, abi] = suffix.split('-');
	const entry = { cpu: [cpu === 'arm' && abi === 'eabi' ? 'arm' : cpu], os: [os] };
	if (os === 'linux' && abi) entry.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
	return entry;
}

function missingOptional(lock) {
	const missing = new Map();
	for (const [key, node] of Object.entries(lock.packages)) {
		if (!node.optionalDependencies) continue;
		const base = key === '' ? 'node_modules/' : `${key}/node_modules/`;
		for (const [dep, version] of Object.entries(node.optionalDependencies)) {
			// Node resolution: the nearest node_modules up the tree, then the root.
			let found = false;
			let dir = key;
			for (;;) {
				const candidate = `${dir ? `${dir}/` : ''}node_modules/${dep}`;
				if (lock.packages[candidate]) {
					found = true;
					break;
				}
				const at = dir.lastIndexOf('/node_modules/');
				if (at < 0) {
					if (dir === '') break;
					dir = '';
				} else dir = dir.slice(0, at);
			}
			if (!found && !missing.has(`node_modules/${dep}`))
				missing.set(`node_modules/${dep}`, { dep, version, from: base, dev: node.dev === true });
		}
	}
	return missing;
}

const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
const missing = missingOptional(lock);
if (process.argv.includes('--check')) {
	if (missing.size === 0) process.exit(0);
	console.error(`package-lock.json lacks ${missing.size} optional package(s); npm ci will refuse it:`);
	for (const key of missing.keys()) console.error(`  ${key}`);
	console.error('Run: node scripts/lock-optional-bindings.js');
	process.exit(1);
}
for (const [key, { dep, version, dev }] of missing) {
	if (!/^\d+\.\d+\.\d+/.test(version) || !/binding-/.test(dep)) {
		console.error(`not a pinned platform binding, left alone: ${dep}@${version}`);
		continue;
	}
	lock.packages[key] = { version, ...platformOf(dep), ...(dev ? { dev: true } : {}), license: 'MIT', optional: true };
	console.log(`added ${key}@${version}`);
}
const sorted = {};
for (const key of Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))))
	sorted[key] = lock.packages[key];
lock.packages = sorted;
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
