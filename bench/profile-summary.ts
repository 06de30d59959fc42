// A .cpuprofile (BENCH_PROFILE): self time by area, top functions by self and by inclusive time (those matching the filter).
// node .build/bench/profile-summary.js <file.cpuprofile> [top=25] [filter-substring]
import { readFileSync } from 'node:fs';

type Frame = { functionName: string; url: string; lineNumber: number };
const AREAS = new Map([
	['(garbage collector)', 'GC'],
	['(idle)', 'idle'],
	['(program)', 'program (V8 internals)'],
]);
function area({ url, functionName: name }: Frame): string {
	if (AREAS.has(name) || !url) return AREAS.get(name) ?? 'native / builtins';
	if (url.startsWith('node:')) return 'node core';
	const [nm, ours] = [url.lastIndexOf('node_modules/'), url.match(/\/(nodes|credentials|bench|sandbox)\/(.*)$/)];
	const pkg = url.slice(nm + 'node_modules/'.length).split('/');
	if (nm >= 0) return pkg[0].startsWith('@') ? `${pkg[0]}/${pkg[1]}` : pkg[0];
	if (ours) return ours[1] === 'nodes' ? `our node: ${ours[2].split('/').slice(0, 3).join('/')}` : ours[1];
	return url;
}
const keyOf = (f: Frame): string =>
	`${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(nodes|bench|sandbox)\//, '$1/')}:${f.lineNumber + 1}`;
const add = <K>(map: Map<K, number>, key: K, time: number): void => void map.set(key, (map.get(key) ?? 0) + time);

const [file, topArg, filter] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
	nodes: Array<{ id: number; callFrame: Frame; children?: number[] }>;
	samples: number[];
	timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const self = new Map<number, number>();
profile.samples.forEach((id, i) => add(self, id, profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const [areas, selfByFn, inclusiveByFn] = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
for (const [id, time] of self) {
	const frame = byId.get(id)!.callFrame;
	add(areas, area(frame), time);
	add(selfByFn, keyOf(frame), time);
	// Inclusive: charge every distinct function on the stack once.
	const seen = new Set<string>();
	for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) seen.add(keyOf(byId.get(cur)!.callFrame));
	for (const key of seen) add(inclusiveByFn, key, time);
}
const print = (title: string, map: Map<string, number>, keep = (_name: string) => true): void => {
	console.log(title);
	const rows = [...map]
		.filter(([name]) => keep(name))
		.sort((a, b) => b[1] - a[1])
		.slice(0, top);
	for (const [name, t] of rows)
		console.log(`  ${((t / total) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${name}`);
};
console.log(`profile ${file}: ${(total / 1000).toFixed(0)} ms sampled`);
print('\nself time by area', areas);
print('\ntop functions, self time', selfByFn);
print(
	`\ntop functions, inclusive time${filter ? ` (matching "${filter}")` : ''}`,
	inclusiveByFn,
	(name) => !filter || name.includes(filter),
);
