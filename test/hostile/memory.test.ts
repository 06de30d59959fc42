/**
 * Under the worst answers a platform can send, n8n's process survives with a small heap: the cases of
 * memory-worst.ts run in a child process started with --max-old-space-size=512, and each ends with the
 * node's error (the bound it hit), not with the process killed for memory; the child's peak memory
 * (heap and buffers) stays far below what the answers would take whole.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { CASES } from './memory-worst';

/**
 * Registers a TypeScript loader (the compiler's transpileModule), tried before .js and .json (a node's
 * codex file, X.node.json, sits beside X.node.ts), then runs the worst cases.
 */
const BOOT = `
const ts = require('typescript');
const fs = require('node:fs');
const extensions = require('node:module')._extensions;
const others = Object.entries(extensions);
for (const [name] of others) delete extensions[name];
extensions['.ts'] = (module, filename) => {
	const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
		compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
		fileName: filename,
	});
	module._compile(outputText, filename);
};
for (const [name, load] of others) extensions[name] = load;
process.env.MEMORY_WORST_RUN = '1';
require(process.argv[1]);
`;

interface Ended {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

async function runChild(): Promise<Ended> {
	const child = spawn(process.execPath, ['--max-old-space-size=512', '-e', BOOT, join(__dirname, 'memory-worst.ts')], {
		cwd: join(__dirname, '..', '..'),
		env: { ...process.env, NODE_OPTIONS: '' },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return await new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

test('every worst case ends with the node\'s error in a process with a 512 MB heap', async () => {
	const ended = await runChild();
	const lines = ended.stdout
		.split('\n')
		.filter((line) => line.startsWith('{'))
		.map((line) => JSON.parse(line) as { case?: string; error?: string | null; items?: number; maxRssMb?: number });
	const results = lines.filter((line) => line.case);
	expect({ code: ended.code, signal: ended.signal, stderr: ended.stderr.slice(-2000) }).toEqual({ code: 0, signal: null, stderr: '' });
	expect(results.map((r) => r.case)).toEqual(CASES.map((c) => c.name));
	for (const result of results) {
		expect({ case: result.case, items: result.items }).toEqual({ case: result.case, items: 0 });
		expect(`${result.case}: ${result.error}`).toMatch(/: (Outcome unknown: )?(The platform answered more than 16 MB|Pagination stopped: the list is larger than 64 MB)/);
	}
	// Far below the gigabytes the answers hold: each was stopped at its bound.
	const peak = lines.find((line) => line.maxRssMb !== undefined)?.maxRssMb ?? Infinity;
	expect(peak).toBeLessThan(1024);
}, 180_000);
