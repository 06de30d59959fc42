import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import * as ts from 'typescript';

// Rooms (docs/architecture.md): each node folder imports only itself, nodes/shared and credentials/;
// nodes/shared imports no node folder; no two folders under nodes/ import each other. nodes/shared holds
// folders, one per concern, and each may import only the rooms below it (SHARED_ROOMS) and no credential
// class (a `*.credentials.ts` file): what a credential's `authenticate` does is a plain function of
// credentials/authentication.ts, which the class and the transport both call. No file in nodes/ is longer than a reader holds (MAX_FILE_LINES), no function
// longer than one screen (MAX_FUNCTION_LINES).
// No import cycle, type-only imports included, between files or between folders of the product, the sandbox,
// the engine, the benchmarks and the tests: each can be read, and changed, from the bottom up.

const ROOT = resolve(__dirname, '../..');

interface Edge {
	from: string;
	to: string;
}

function tsFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return tsFiles(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

/** Relative imports of the files under `folders`, as repository-relative paths (the specifier resolved, no extension). */
function importEdges(folders = ['nodes']): Edge[] {
	const edges: Edge[] = [];
	for (const file of folders.flatMap((folder) => tsFiles(join(ROOT, folder)))) {
		for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
			if (!spec.startsWith('.')) continue;
			const target = resolve(dirname(file), spec);
			edges.push({ from: relative(ROOT, file), to: relative(ROOT, target) });
		}
	}
	return edges;
}

/** The file an import names: `<path>.ts`, `<path>/index.ts` or the path itself. */
function importedFile(path: string): string {
	const file = [`${path}.ts`, join(path, 'index.ts')].find((candidate) => existsSync(join(ROOT, candidate)));
	return file ?? path;
}

/** The groups of nodes that reach each other through `edges` (Tarjan's strongly connected components of 2+). */
function cyclesOf(edges: Array<[string, string]>): string[][] {
	const next = new Map<string, string[]>();
	for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const cycles: string[][] = [];
	const visit = (node: string) => {
		index.set(node, index.size);
		low.set(node, index.get(node)!);
		stack.push(node);
		for (const to of next.get(node) ?? []) {
			if (!index.has(to)) visit(to);
			if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, low.get(to)!));
		}
		if (low.get(node) !== index.get(node)) return;
		const cycle = stack.splice(stack.indexOf(node));
		if (cycle.length > 1) cycles.push(cycle.sort());
	};
	for (const node of next.keys()) if (!index.has(node)) visit(node);
	return cycles;
}

/** Every import cycle among these edges, between files and between folders, one line each. */
function importCycles(edges: Edge[]): string[] {
	const files = edges.map(({ from, to }): [string, string] => [from, importedFile(to)]);
	const folders = files
		.map(([from, to]): [string, string] => [folderOf(from), folderOf(to)])
		.filter(([a, b]) => a !== b);
	return [
		...cyclesOf(files).map((cycle) => `files import each other: ${cycle.join(', ')}`),
		...cyclesOf(folders).map((cycle) => `folders import each other: ${cycle.join(', ')}`),
	];
}

const CYCLE_FREE = ['nodes', 'credentials', 'sandbox', 'engine', 'bench', 'test'];

/** nodes/<Folder> (a node folder or nodes/shared), credentials, or the path itself. */
function roomOf(path: string): string {
	const parts = path.split(/[\\/]/);
	if (parts[0] === 'nodes' && parts.length > 2) return `nodes/${parts[1]}`;
	return parts[0];
}

function folderOf(path: string): string {
	return dirname(path).split(/[\\/]/).join('/');
}

/** The rooms of nodes/shared, each with the rooms it may import (bottom up). */
const SHARED_ROOMS: Record<string, string[]> = {
	core: [],
	picture: [],
	n8n: ['core'],
	transport: ['core', 'n8n'],
	calls: ['core', 'n8n', 'transport'],
	agent: ['core', 'n8n', 'calls'],
	guards: ['core', 'n8n', 'transport', 'calls', 'agent'],
	campaign: ['core', 'n8n', 'transport', 'calls'],
	descriptions: ['core', 'n8n', 'transport', 'calls', 'agent', 'guards', 'campaign'],
};

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** The room of nodes/shared a path is in (its first folder there), or undefined outside nodes/shared. */
function sharedRoomOf(path: string): string | undefined {
	const parts = path.split(/[\\/]/);
	return parts[0] === 'nodes' && parts[1] === 'shared' ? (parts.length > 3 ? parts[2] : '') : undefined;
}

/** What an import from nodes/shared breaks: the rooms' order, or a credential class imported. */
function sharedViolation({ from, to }: Edge): string | undefined {
	const own = sharedRoomOf(from);
	if (own === undefined) return undefined;
	if (own === '' || !(own in SHARED_ROOMS)) return `${from}: nodes/shared holds the rooms' folders (${Object.keys(SHARED_ROOMS).join(', ')}), no file of its own`;
	if (/\.credentials$/.test(to)) return `${from} imports ${to}: nodes/shared imports no credential class`;
	const other = sharedRoomOf(to);
	if (other === undefined || other === own || SHARED_ROOMS[own].includes(other)) return undefined;
	return `${from} imports ${to}: nodes/shared/${own} may import only ${['itself', ...SHARED_ROOMS[own]].join(', ')}`;
}

/** Every rule broken by these edges, one line each. */
function roomViolations(edges: Edge[]): string[] {
	const problems: string[] = [];
	for (const edge of edges) {
		const shared = sharedViolation(edge);
		if (shared) problems.push(shared);
	}
	for (const { from, to } of edges) {
		const own = roomOf(from);
		const other = roomOf(to);
		if (own === other || other === 'credentials') continue;
		if (other === 'nodes/shared' && own !== 'nodes/shared') continue;
		problems.push(`${from} imports ${to}: ${own} may import only itself, nodes/shared and credentials`);
	}
	const folderEdges = new Set<string>();
	for (const { from, to } of edges) {
		const a = folderOf(from);
		const b = folderOf(to);
		if (a !== b) folderEdges.add(`${a} -> ${b}`);
	}
	for (const edge of folderEdges) {
		const [a, b] = edge.split(' -> ');
		if (a < b && folderEdges.has(`${b} -> ${a}`)) problems.push(`${a} and ${b} import each other`);
	}
	return problems;
}

/** Files over MAX_FILE_LINES and functions over MAX_FUNCTION_LINES in these sources, one line each. */
function sizeViolations(sources: Array<{ path: string; text: string }>): string[] {
	const problems: string[] = [];
	for (const { path, text } of sources) {
		const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
		const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
		const lines = source.getLineStarts().length;
		if (lines > MAX_FILE_LINES) problems.push(`${path}: ${lines} lines (at most ${MAX_FILE_LINES})`);
		const visit = (node: ts.Node) => {
			if (ts.isFunctionLike(node) && 'body' in node && node.body) {
				const first = lineOf(node.getStart(source));
				const length = lineOf(node.end) - first + 1;
				const name = node.name ? node.name.getText(source) : 'a function';
				if (length > MAX_FUNCTION_LINES) problems.push(`${path}:${first} ${name}: ${length} lines (at most ${MAX_FUNCTION_LINES})`);
			}
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return problems;
}

describe('rooms: what imports what under nodes/', () => {
	it('reads the import statements (the scan sees the imports it must judge)', () => {
		const edges = importEdges();
		expect(edges).toContainEqual({
			from: 'nodes/AssistantPlatformCallAndWait/placeCallAndWait.ts',
			to: 'nodes/shared/calls/callResult',
		});
		expect(edges.length).toBeGreaterThan(100);
	});

	it('no node folder imports another node folder, nodes/shared no credential class, and no two folders import each other', () => {
		expect(roomViolations(importEdges())).toEqual([]);
	});

	it('the rule names each kind of violation', () => {
		expect(
			roomViolations([
				{ from: 'nodes/AssistantPlatformTrigger/a.ts', to: 'nodes/AssistantPlatform/helpers/b' },
				{ from: 'nodes/shared/core/c.ts', to: 'nodes/AssistantPlatform/d' },
				{ from: 'nodes/AssistantPlatform/resources/x/e.ts', to: 'nodes/AssistantPlatform/resources/y/f' },
				{ from: 'nodes/AssistantPlatform/resources/y/f.ts', to: 'nodes/AssistantPlatform/resources/x/e' },
				{ from: 'nodes/AssistantPlatformTrigger/g.ts', to: 'nodes/shared/core/h' },
				{ from: 'nodes/shared/core/i.ts', to: 'credentials/authentication' },
				{ from: 'nodes/AssistantPlatform/l.ts', to: 'credentials/J.credentials' },
			]),
		).toEqual([
			expect.stringContaining('nodes/AssistantPlatformTrigger may import only itself'),
			expect.stringContaining('nodes/shared may import only itself'),
			'nodes/AssistantPlatform/resources/x and nodes/AssistantPlatform/resources/y import each other',
		]);
	});

	it("nodes/shared: folders only, each room imports only the rooms below it, and no credential class", () => {
		expect(
			roomViolations([
				{ from: 'nodes/shared/transport/a.ts', to: 'credentials/AssistantPlatformPortalApi.credentials' },
				{ from: 'nodes/shared/transport/a.ts', to: 'credentials/authentication' },
				{ from: 'nodes/shared/core/b.ts', to: 'nodes/shared/calls/c' },
				{ from: 'nodes/shared/calls/c.ts', to: 'nodes/shared/core/b' },
				{ from: 'nodes/shared/d.ts', to: 'nodes/shared/core/b' },
				{ from: 'nodes/shared/stuff/e.ts', to: 'nodes/shared/core/b' },
			]),
		).toEqual([
			'nodes/shared/transport/a.ts imports credentials/AssistantPlatformPortalApi.credentials: nodes/shared imports no credential class',
			'nodes/shared/core/b.ts imports nodes/shared/calls/c: nodes/shared/core may import only itself',
			expect.stringContaining('nodes/shared/d.ts: nodes/shared holds the rooms'),
			expect.stringContaining('nodes/shared/stuff/e.ts: nodes/shared holds the rooms'),
			'nodes/shared/calls and nodes/shared/core import each other',
		]);
	});

	it('every file under nodes/shared is in a room', () => {
		const loose = tsFiles(join(ROOT, 'nodes/shared'))
			.map((file) => relative(ROOT, file))
			.filter((file) => !(sharedRoomOf(file)! in SHARED_ROOMS));
		expect(loose).toEqual([]);
	});

	it(`no file in nodes/ over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
		const sources = tsFiles(join(ROOT, 'nodes')).map((file) => ({ path: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
		expect(sizeViolations(sources)).toEqual([]);
	});

	it('the size rule counts a file and each function, nested ones too', () => {
		const body = (lines: number) => Array.from({ length: lines - 2 }, () => '\tcall();').join('\n');
		const long = `function outer() {\n${body(81)}\n}\n`;
		const nested = `const inner = () => {\n\tconst f = function () {\n${body(81)}\n\t};\n\treturn f;\n};\n`;
		const fitting = `function fits() {\n${body(80)}\n}\n`;
		expect(sizeViolations([{ path: 'a.ts', text: long }, { path: 'b.ts', text: nested }, { path: 'c.ts', text: fitting }])).toEqual([
			'a.ts:1 outer: 81 lines (at most 80)',
			'b.ts:1 a function: 84 lines (at most 80)',
			'b.ts:2 a function: 81 lines (at most 80)',
		]);
		expect(sizeViolations([{ path: 'd.ts', text: 'x;\n'.repeat(400) }])).toEqual(['d.ts: 401 lines (at most 400)']);
	});
});

describe('no import cycle in nodes/, sandbox/, engine/, bench/ and test/', () => {
	it('reads type-only imports too', () => {
		expect(importEdges(['sandbox'])).toContainEqual({ from: 'sandbox/seed.ts', to: 'sandbox/types' });
	});

	it('no files and no folders import each other', () => {
		expect(importCycles(importEdges(CYCLE_FREE))).toEqual([]);
	});

	it('the rule finds a cycle of files and a cycle of folders', () => {
		expect(
			importCycles([
				{ from: 'sandbox/core.ts', to: 'sandbox/journal' },
				{ from: 'sandbox/journal.ts', to: 'sandbox/seed' },
				{ from: 'sandbox/seed.ts', to: 'sandbox/core' },
				{ from: 'test/harness/engine.ts', to: 'test/node/runtime-helpers' },
				{ from: 'test/node/runtime-helpers.ts', to: 'test/harness/sandbox' },
			]),
		).toEqual([
			'files import each other: sandbox/core.ts, sandbox/journal.ts, sandbox/seed.ts',
			'folders import each other: test/harness, test/node',
		]);
	});
});
