#!/usr/bin/env node
// `npm run sandbox:start`: build the package and start only the platform sandbox on 127.0.0.1
// (seeded, real clock). `npm start` (scripts/demo.js) starts the sandbox and a real n8n.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const tool = (name) => path.join(root, 'node_modules', '.bin', name);

for (const [title, cmd, args] of [
	['build', 'npm', ['run', '--silent', 'build']],
	['compile sandbox', tool('tsc'), ['-p', 'tsconfig.dev.json']],
]) {
	process.stdout.write(`> ${title}\n`);
	const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
	if (r.status !== 0) process.exit(r.status || 1);
}

const child = spawn(process.execPath, [path.join(root, '.build', 'sandbox', 'cli.js')], {
	cwd: root,
	stdio: 'inherit',
	env: process.env,
});
const stop = () => child.kill('SIGTERM');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
child.on('exit', (code) => process.exit(code ?? 0));
