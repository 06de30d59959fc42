import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { Gate, LineHold } from '../../../shared/campaign/campaignControl';
import { linesColumn } from '../../../shared/campaign/campaignControl';
import { activateNewRows } from '../../../shared/campaign/contactLife';
import type { Timeline } from '../../../shared/campaign/timeline';
import { record, timelineColumn } from '../../../shared/campaign/timeline';
import { dueRows, newestRowAfter, nextDueAt, rowsHoldingLines } from '../../../shared/campaign/contactsTable';
import { MAX_ROWS_PER_PAGE, tablesById } from '../../../shared/transport/dataTables';

import type { Claimed, Run } from './claims';
import { claim, dialNumber, place } from './claims';
import type { NoRecordReads } from './reconcile';
import { reconcile } from './reconcile';

/*
 * One dial run's passes, under the campaign's lease: each pass reads the contacts holding lines (one read), settles
 * what ended (reconcile), counts the lines held (rows, and rows that vanished while their call may be live), and
 * claims and places due contacts while lines are free. Each pass adds what it did to the campaign's timeline (calls
 * placed, lines busy, Max Calls in Flight). At its end the run writes what it knows to the control row: the lines
 * held, the highest row id seen, the timeline and, when nothing is in flight, the idle gate.
 */

/** Rows holding lines a pass reads beyond Max Calls in Flight: enough to settle the ones waiting longest. */
const MAX_READ_PER_PASS = 250;
/** POSTs of one run at once: the claims before them are written one at a time, each POST starts right after its claim. */
const POSTS_AT_ONCE = 50;
/** Rows whose line ended up to this long before the last read are read again (clocks of n8n's processes differ). */
const ENDED_SLACK_MS = 60_000;
/** A gate is trusted only when the table's last write is this old: a write in the same millisecond is not missed. */
const SETTLED_MS = 2_000;

export interface Progress {
	/** Contact rows seen up to (new rows have higher ids). */
	lastRowId: number;
	/** The lines known when the run started (the control row's), and when they were read. */
	known: { at: number; holds: LineHold[] };
	report: Record<string, number>;
	/** Whether this run looked for rows added since (activateAdded). */
	addedChecked?: boolean;
	/** The campaign's timeline as the lease was taken, with this run's passes added. */
	timeline: Timeline;
}

export async function dialPasses(run: Run, progress: Progress, until: number): Promise<void> {
	const { ctx, settings } = run;
	const noRecord: NoRecordReads = new Map();
	let known = new Map(progress.known.holds.map((hold) => [hold.rowId, hold]));
	let readAt = progress.known.at;
	for (let pass = 0; ; pass++) {
		if (!(await run.lease.keep())) {
			run.stop = 'the dial lease was taken by another run (this run could not renew it in time): the lines are theirs to count';
			break;
		}
		const now = Date.now();
		const read = await rowsHoldingLines(ctx, run.table, settings.maxInFlight + MAX_READ_PER_PASS, now, known.size > 0 ? readAt - ENDED_SLACK_MS : undefined);
		readAt = now;
		const settle = { ctx, table: run.table, settings, policy: run.policy, request: run.request, baseURL: run.baseURL, noRecord };
		const { report, ended } = await reconcile(settle, read.rows);
		for (const [key, value] of Object.entries(report)) progress.report[key] = (progress.report[key] ?? 0) + value;
		known = linesHeld(run, read.rows, ended, known, now, progress);
		const inFlight = read.more ? Math.max(known.size, settings.maxInFlight) : known.size;
		if (pass === 0) progress.report.inFlightBefore = inFlight;
		const free = Math.max(0, Math.min(settings.maxInFlight - inFlight, settings.maxPerRun - run.placed));
		await fillLines(run, progress, free, inFlight);
		known = run.lines;
		// One pass, unless Keep Dialling For says to go on while lines free up and contacts are due.
		if (run.stop || run.halted || Date.now() + settings.checkMs > until || ctx.getExecutionCancelSignal?.()?.aborted) break;
		if ((run.noneDueBefore ?? 0) > until) break;
		if (run.placed >= settings.maxPerRun) break;
		await sleep(settings.checkMs);
	}
}

/**
 * Claims and places up to `free` due contacts (none before the next one is due). The pass goes into the timeline
 * whatever happens: the calls it placed, the most lines busy, Max Calls in Flight.
 */
async function fillLines(run: Run, progress: Progress, free: number, inFlight: number): Promise<void> {
	const placedBefore = run.placed;
	try {
		if (free > 0 && (run.noneDueBefore ?? 0) <= Date.now()) {
			// Rows added since the campaign last looked are made due once per run, before its first due read.
			if (!progress.addedChecked) await activateAdded(run, progress);
			await dialDue(run, free);
			// Every due contact read was worked: when is the next one due? A run with none due before it ends stops here.
			if (run.queue.length === 0 && !run.stop && !run.halted) run.noneDueBefore = (await nextDueAt(run.ctx, run.table)) ?? Number.MAX_SAFE_INTEGER;
		}
	} finally {
		const sample = { placed: run.placed - placedBefore, lines: Math.max(inFlight, run.lines.size), max: run.settings.maxInFlight };
		progress.timeline = record(progress.timeline, Date.now(), sample);
	}
}

/**
 * The lines held after a pass's read: every row read that holds one (its call may be live) and was not ended by
 * this pass, and every line known before whose row the read did not return at all (deleted mid-call: its line is
 * held until its call's end at the latest).
 */
function linesHeld(run: Run, rows: IDataObject[], ended: Set<number>, known: Map<number, LineHold>, now: number, progress: Progress): Map<number, LineHold> {
	const held = new Map<number, LineHold>();
	const seen = new Set<number>();
	for (const row of rows) {
		const id = Number(row.id);
		seen.add(id);
		const until = Number(row.lineUntil) || 0;
		const live = until > now || row.campaignState === 'claimed' || row.campaignState === 'placed';
		if (live && !ended.has(id)) held.set(id, { rowId: id, until: Math.max(until, now), number: dialNumber(row[run.settings.phoneColumn]) });
	}
	for (const [id, hold] of known) {
		if (seen.has(id) || hold.until <= now) continue;
		held.set(id, hold);
		progress.report.linesOfDeletedRows = (progress.report.linesOfDeletedRows ?? 0) + 1;
	}
	run.lines = held;
	return held;
}

/** Rows added since the campaign last looked (a read by id): made pending, due now. */
async function activateAdded(run: Run, progress: Progress): Promise<void> {
	progress.addedChecked = true;
	const newest = await newestRowAfter(run.ctx, run.table, progress.lastRowId);
	if (newest === undefined) return;
	await activateNewRows(run.ctx, run.table);
	progress.lastRowId = newest;
}

/**
 * Claims up to `free` due contacts, one at a time, and places each one's call as soon as it is claimed: once the
 * platform has accepted a call of this run, up to POSTS_AT_ONCE POSTs at once, so a platform that answers slowly
 * still fills the free lines. The due contacts are read once and worked over the passes; read again when used up.
 */
async function dialDue(run: Run, free: number): Promise<void> {
	if (run.queue.length === 0) run.queue = await dueRows(run.ctx, run.table, Math.min(MAX_ROWS_PER_PAGE, free * 4 + 10), Date.now());
	const posting = new Set<Promise<void>>();
	let launched = 0;
	let accepted = false;
	let failure: unknown;
	while (run.queue.length > 0) {
		// The run's output stays bounded: at most Max Calls per Run items, whatever happened to each contact.
		if (launched >= free || run.stop || run.halted || failure !== undefined || run.output.length + posting.size >= run.settings.maxPerRun) break;
		const raw = run.queue.shift()!;
		let claimed: Claimed | undefined;
		try {
			claimed = await claim(run, raw, Date.now());
		} catch (error) {
			failure = error;
			break;
		}
		if (!claimed) continue;
		launched++;
		const post: Promise<void> = place(run, claimed)
			.then((placed) => {
				if (placed) accepted = true;
			})
			.catch((error: unknown) => {
				failure ??= error;
			})
			.finally(() => posting.delete(post));
		posting.add(post);
		// One POST at a time until the platform has accepted one in this run: a platform that fails every call, or
		// refuses the account, gets one call before the run stops, not a line's worth.
		while (posting.size >= (accepted ? POSTS_AT_ONCE : 1)) await Promise.race(posting);
	}
	await Promise.all(posting);
	if (failure !== undefined) throw failure;
}

/**
 * What the run leaves in the control row when it gives the lease back: the lines held and, when no call is in flight
 * and no contact due now, the idle gate (the table's updatedAt read before the reads that found nothing to do, when
 * the next contact is due): runs that find the table unchanged and nothing due end after two reads.
 */
export async function closingWrite(run: Run, progress: Progress): Promise<{ data: IDataObject; gate: Gate }> {
	const now = Date.now();
	const holds = [...run.lines.values()].filter((hold) => hold.until > now);
	let gate: Gate = { seen: '', dueAt: 0, inFlight: holds.length };
	if (holds.length === 0 && !run.stop && !run.halted) gate = await idleGate(run, progress);
	const data: IDataObject = {
		lines: linesColumn(now, holds),
		lastRowId: progress.lastRowId,
		gateSeen: gate.seen,
		gateDueAt: gate.dueAt,
		gateInFlight: gate.inFlight,
		timeline: timelineColumn(progress.timeline),
	};
	return { data, gate };
}

async function idleGate(run: Run, progress: Progress): Promise<Gate> {
	const [table] = await tablesById(run.ctx, [run.table.id]);
	const seen = String(table?.updatedAt ?? '');
	const dueAt = (await nextDueAt(run.ctx, run.table)) ?? Number.MAX_SAFE_INTEGER;
	const added = await newestRowAfter(run.ctx, run.table, progress.lastRowId);
	const settled = seen !== '' && Date.now() - Date.parse(seen) >= SETTLED_MS;
	if (added !== undefined || dueAt <= Date.now() || !settled) return { seen: '', dueAt: Math.min(dueAt, Date.now()), inFlight: 0 };
	return { seen, dueAt, inFlight: 0 };
}
