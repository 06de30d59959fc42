// A .cpuprofile (BENCH_PROFILE): self time by area, top functions by self and by inclusive time (those matching the filter).
// node .build/bench/profile-summary.js <file.cpuprofile> [top=25] [filter-substring]
import { readFileSync } from 'node:fs';

type Frame = { functionName: string; url: string; lineNumber: number };
type Profile = { nodes: Array<{ id: number; callFrame: Frame; children?: number[] }>; samples: number[]; timeDeltas: number[] };
const AREAS = new Map(Object.entries({ '(garbage collector)': 'GC', '(idle)': 'idle', '(program)': 'program (V8 internals)' }));
/** Where a function's code lives: V8, node core, an npm package, a folder of ours (our nodes: the file, up to three levels deep). */
function area({ url, functionName }: Frame): string {
	const [pkg, ours] = [url.match(/^.*node_modules\/((@[^/]*\/)?[^/]*)/), url.match(/\/(nodes|credentials|bench|sandbox)\/(.*)$/)];
	if (AREAS.has(functionName) || !url) return AREAS.get(functionName) ?? 'native / builtins';
	if (url.startsWith('node:')) return 'node core';
	if (pkg) return pkg[1];
	if (ours) return ours[1] === 'nodes' ? `our node: ${ours[2].split('/').slice(0, 3).join('/')}` : ours[1];
	return url;
}
const keyOf = (f: Frame): string =>
	`${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(nodes|bench|sandbox)\//, '$1/')}:${f.lineNumber + 1}`;
const add = <K>(map: Map<K, number>, key: K, time: number): void => void map.set(key, (map.get(key) ?? 0) + time);

const [file, top = '25', filter] = process.argv.slice(2);
const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(nodes.map((node) => [node.id, node]));
const parent = new Map(nodes.flatMap(({ id, children = [] }) => children.map((child): [number, number] => [child, id])));
const self = new Map<number, number>();
samples.forEach((id, i) => add(self, id, timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const [areas, selfByFn, inclusiveByFn] = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
for (const [id, time] of self) {
	const frame = byId.get(id)!.callFrame;
	add(areas, area(frame), time);
	add(selfByFn, keyOf(frame), time);
	// Inclusive: charge every distinct function on the stack once (those matching the filter).
	const seen = new Set<string>();
	for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) seen.add(keyOf(byId.get(cur)!.callFrame));
	for (const key of seen) if (!filter || key.includes(filter)) add(inclusiveByFn, key, time);
}
console.log(`profile ${file}: ${(total / 1000).toFixed(0)} ms sampled`);
const inclusive = `top functions, inclusive time${filter ? ` (matching "${filter}")` : ''}`;
const tables = { 'self time by area': areas, 'top functions, self time': selfByFn, [inclusive]: inclusiveByFn };
for (const [title, map] of Object.entries(tables)) {
	console.log(`\n${title}`);
	for (const [name, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
		console.log(`  ${((t / total) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${name}`);
}
