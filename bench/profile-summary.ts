/**
 * Summarizes a V8 .cpuprofile (from `BENCH_PROFILE=<dir> npm run bench`, i.e. node --cpu-prof):
 * self time by area (package or our source folder) and the top functions by self and by inclusive time.
 *
 *   node .build/bench/profile-summary.js <file.cpuprofile> [top=25] [filter-substring]
 *
 * With a filter, the inclusive table lists only functions whose name or URL contains it.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

function area(url: string, name: string): string {
	if (name === '(garbage collector)') return 'GC';
	if (name === '(idle)') return 'idle';
	if (name === '(program)') return 'program (V8 internals)';
	if (!url) return 'native / builtins';
	if (url.startsWith('node:')) return 'node core';
	const nm = url.lastIndexOf('node_modules/');
	if (nm >= 0) {
		const rest = url.slice(nm + 'node_modules/'.length).split('/');
		return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
	}
	const ours = url.match(/\/(nodes|credentials|bench|sandbox)\/(.*)$/);
	if (ours) return ours[1] === 'nodes' ? `our node: ${ours[2].split('/').slice(0, 3).join('/')}` : ours[1];
	return url;
}

function main(): void {
	const [file, topArg, filter] = process.argv.slice(2);
	const top = Number(topArg ?? 25);
	const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const self = new Map<number, number>();
	profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
	const total = [...self.values()].reduce((a, b) => a + b, 0);

	const areas = new Map<string, number>();
	const selfByFn = new Map<string, number>();
	const inclusiveByFn = new Map<string, number>();
	for (const [id, time] of self) {
		const node = byId.get(id)!;
		const { functionName, url, lineNumber } = node.callFrame;
		const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(nodes|bench|sandbox)\//, '$1/')}:${lineNumber + 1}`;
		areas.set(area(url, functionName), (areas.get(area(url, functionName)) ?? 0) + time);
		selfByFn.set(key, (selfByFn.get(key) ?? 0) + time);
		// Inclusive: charge every distinct function on the stack once.
		const seen = new Set<string>();
		for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
			const frame = byId.get(cur)!.callFrame;
			const fkey = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(nodes|bench|sandbox)\//, '$1/')}:${frame.lineNumber + 1}`;
			if (seen.has(fkey)) continue;
			seen.add(fkey);
			inclusiveByFn.set(fkey, (inclusiveByFn.get(fkey) ?? 0) + time);
		}
	}
	const pct = (t: number): string => `${((t / total) * 100).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms`;
	console.log(`profile ${file}: ${(total / 1000).toFixed(0)} ms sampled`);
	console.log('\nself time by area');
	for (const [name, t] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${name}`);
	console.log('\ntop functions, self time');
	for (const [name, t] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(t)}  ${name}`);
	console.log(`\ntop functions, inclusive time${filter ? ` (matching "${filter}")` : ''}`);
	for (const [name, t] of [...inclusiveByFn]
		.filter(([name]) => !filter || name.includes(filter))
		.sort((a, b) => b[1] - a[1])
		.slice(0, top)) {
		console.log(`  ${pct(t)}  ${name}`);
	}
}

main();
