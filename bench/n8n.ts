/** What the scripts that measure a real n8n share (e2e.ts, campaign.ts, durable.ts): n8n's usage, its executions, line use. */
import { readdir, readFile } from 'node:fs/promises';

/** CPU time used so far (ms) and resident memory (MB) of n8n's main process (the leader of its group), or with `group` of the whole group (n8n and its task runner), from Linux's /proc (NaN elsewhere). */
export async function n8nUsage(pid: number, group: boolean): Promise<{ cpuMs: number; rssMB: number }> {
	const pids = group ? (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name)) : [String(pid)];
	const stats = await Promise.all(pids.map((id) => readFile(`/proc/${id}/stat`, 'utf8').catch(() => ''))); // '': it ended
	// The fields after "(command) ": 5 pgrp, 14 utime and 15 stime (USER_HZ 100: 10 ms), 24 rss (pages of 4 kB).
	const mine = stats
		.filter(Boolean)
		.map((stat) => stat.slice(stat.lastIndexOf(') ') + 2).split(' '))
		.filter((fields) => !group || Number(fields[2]) === pid);
	if (mine.length === 0) return { cpuMs: NaN, rssMB: NaN };
	const sum = (read: (fields: string[]) => number) => mine.reduce((total, fields) => total + read(fields), 0);
	return { cpuMs: sum((f) => (Number(f[11]) + Number(f[12])) * 10), rssMB: sum((f) => Number(f[21]) / 256) };
}
export type Execution = { status: string; startedAt: string; stoppedAt: string | null; data?: unknown };
/** A workflow's newest executions from the public API: `limit` of them, or with `since` (ms) every one that started since. */
export async function listExecutions(n8n: any, workflowId: string, { limit = 250, data = false, since = NaN } = {}): Promise<Execution[]> {
	const found: Execution[] = [];
	for (let cursor = ''; ; ) {
		const query = `workflowId=${workflowId}&includeData=${data}&limit=${limit}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
		const page: { data: Execution[]; nextCursor?: string } = await n8n.api('GET', `/executions?${query}`);
		found.push(...page.data.filter((e) => !(Date.parse(e.startedAt) < since)));
		if (!page.nextCursor || Number.isNaN(since) || Date.parse(page.data.at(-1)?.startedAt ?? '') < since) return found;
		cursor = page.nextCursor;
	}
}
/** The share of `lines` lines that calls ([start, end] each) kept busy from the first start until `to`. */
export function lineUse(calls: Array<[number, number]>, lines: number, to: number): number {
	const from = Math.min(...calls.map(([start]) => start));
	return calls.reduce((sum, [start, end]) => sum + Math.max(0, Math.min(end, to) - start), 0) / (lines * (to - from));
}
