import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// Rooms (docs/architecture.md): each node folder imports only itself, nodes/shared and credentials/;
// nodes/shared imports no node folder; no two folders under nodes/ import each other.

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

/** Relative imports of the files under nodes/, as repository-relative file paths. */
function importEdges(): Edge[] {
	const edges: Edge[] = [];
	for (const file of tsFiles(join(ROOT, 'nodes'))) {
		for (const [, spec] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
			if (!spec.startsWith('.')) continue;
			const target = resolve(dirname(file), spec);
			edges.push({ from: relative(ROOT, file), to: relative(ROOT, target) });
		}
	}
	return edges;
}

/** nodes/<Folder> (a node folder or nodes/shared), credentials, or the path itself. */
function roomOf(path: string): string {
	const parts = path.split(/[\\/]/);
	if (parts[0] === 'nodes' && parts.length > 2) return `nodes/${parts[1]}`;
	return parts[0];
}

function folderOf(path: string): string {
	return dirname(path).split(/[\\/]/).join('/');
}

/** Every rule broken by these edges, one line each. */
function roomViolations(edges: Edge[]): string[] {
	const problems: string[] = [];
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

describe('rooms: what imports what under nodes/', () => {
	it('reads the import statements (the scan sees the imports it must judge)', () => {
		const edges = importEdges();
		expect(edges).toContainEqual({
			from: 'nodes/AssistantPlatformCallAndWait/placeCallAndWait.ts',
			to: 'nodes/shared/callResult',
		});
		expect(edges.length).toBeGreaterThan(100);
	});

	it('no node folder imports another node folder, and no two folders import each other', () => {
		expect(roomViolations(importEdges())).toEqual([]);
	});

	it('the rule names each kind of violation', () => {
		expect(
			roomViolations([
				{ from: 'nodes/AssistantPlatformTrigger/a.ts', to: 'nodes/AssistantPlatform/helpers/b' },
				{ from: 'nodes/shared/c.ts', to: 'nodes/AssistantPlatform/d' },
				{ from: 'nodes/AssistantPlatform/resources/x/e.ts', to: 'nodes/AssistantPlatform/resources/y/f' },
				{ from: 'nodes/AssistantPlatform/resources/y/f.ts', to: 'nodes/AssistantPlatform/resources/x/e' },
				{ from: 'nodes/AssistantPlatformTrigger/g.ts', to: 'nodes/shared/h' },
				{ from: 'nodes/shared/i.ts', to: 'credentials/J.credentials' },
			]),
		).toEqual([
			expect.stringContaining('nodes/AssistantPlatformTrigger may import only itself'),
			expect.stringContaining('nodes/shared may import only itself'),
			'nodes/AssistantPlatform/resources/x and nodes/AssistantPlatform/resources/y import each other',
		]);
	});
});
