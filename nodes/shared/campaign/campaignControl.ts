import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { markNoCallPlaced } from '../calls/messages';
import type { Condition, Row } from '../transport/dataTables';
import { insertRows, readRows, updateIfUnchanged, updateRows, versionOf, writeToken } from '../transport/dataTables';

import type { Timeline } from './timeline';
import { parseTimeline } from './timeline';

/*
 * A campaign's control row: one row per contacts table in the data table "Assistant Platform Campaign Control", the
 * one place for what is the campaign's and not a contact's:
 * - its status (running, paused, stopped), set by Pause, Resume and Stop;
 * - its dial lease (holder, until): one dial run at a time, so that the calls in flight are counted and the lines
 *   filled with no other run filling the same lines; renewed by the run's permission before each POST (`go`), which
 *   is also where a run learns, before every call, that the campaign was paused or stopped;
 * - the workflow that dials it (owner), so that two workflows on one table are refused, not silently sharing;
 * - the idle gate: what the last run that went idle saw (the contacts table's updatedAt, the next time a contact is
 *   due, no call in flight), so that a campaign with nothing to do costs one read of the table and one of this row;
 * - the lines of contacts whose rows vanished mid-call, and the highest contact row id seen;
 * - the count of suspicious results (a posted result its call's record contradicts);
 * - its timeline (timeline.ts): calls placed and lines busy over time, for Get Summary's picture.
 *
 * The row is found by the contacts table's id; its first row (lowest id) is the campaign's, should two be inserted at
 * once. A missing row is created with the lease held for LEASE_MS when the campaign has started (a run may still hold
 * the lease in a row someone deleted, and no run dials until that lease would have ended); a row that cannot be read
 * (a status or lease someone edited into something else) stops every run, naming it.
 */

export const CONTROL_TABLE = 'Assistant Platform Campaign Control';
export const CONTROL_COLUMNS = {
	contactsTable: 'string',
	status: 'string',
	statusChangedAt: 'number',
	holder: 'string',
	until: 'number',
	owner: 'string',
	ownerSeenAt: 'number',
	gateSeen: 'string',
	gateDueAt: 'number',
	gateInFlight: 'number',
	lastRowId: 'number',
	lines: 'string',
	suspiciousResults: 'number',
	timeline: 'string',
	version: 'number',
	token: 'string',
} as const;

/** How long a lease lasts from its last renewal: a crashed run's lines come back this long after its last call. */
export const LEASE_MS = 60_000;
/** A lease with less than this left is renewed before the next claim (more than a claim and its POST need). */
export const RENEW_BEFORE_MS = 45_000;
/** Another workflow may dial the campaign once its owner has not dialled for this long. */
export const OWNER_MS = 10 * 60_000;

export const CAMPAIGN_STATUSES = ['running', 'paused', 'stopped'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** A line held by a contact whose call may be live: its row, until when, and its number. */
export interface LineHold {
	rowId: number;
	until: number;
	number: string;
}

export interface Gate {
	/** The contacts table's updatedAt when the run that wrote the gate last read it ('' : look again). */
	seen: string;
	/** When a contact is due next (0: now). */
	dueAt: number;
	/** Calls in flight when the gate was written. */
	inFlight: number;
}

export interface Control {
	tableId: string;
	rowId: number;
	status: CampaignStatus;
	statusChangedAt: number | null;
	holder: string;
	until: number;
	owner: string;
	ownerSeenAt: number;
	gate: Gate;
	lastRowId: number;
	/** Lines known to the last run, with when it read them. */
	lines: { at: number; holds: LineHold[] };
	suspiciousResults: number;
	/** What the dial runs saw over time (an empty timeline when the column cannot be read: it never stops a run). */
	timeline: Timeline;
	version: number | null;
	/** Rows of the campaign beyond its first (two inserted at once); the first is the campaign's. */
	extraRows: number;
}

const WHY = 'Dial Due Contacts refuses to dial while it cannot tell which run holds the lines or whether the campaign was paused.';

function unreadable(ctx: IExecuteFunctions, row: Row, what: string): Error {
	return markNoCallPlaced(
		new NodeOperationError(ctx.getNode(), `Not placed: the campaign's control row is unreadable (row ${row.id} of the data table "${CONTROL_TABLE}": ${what})`, {
			description: `${WHY} Delete that row: the next run creates it anew, holding the lines for a minute first so that no run that may hold the old row dials at the same time. Pause, Resume and Stop are kept in it: set the campaign's status again afterwards.`,
		}),
	);
}

function parseLines(text: unknown): Control['lines'] | undefined {
	if (text === null || text === undefined || text === '') return { at: 0, holds: [] };
	try {
		const value = JSON.parse(String(text)) as { at?: unknown; holds?: unknown };
		if (typeof value.at !== 'number' || !Array.isArray(value.holds)) return undefined;
		const holds: LineHold[] = [];
		for (const hold of value.holds) {
			if (!Array.isArray(hold) || typeof hold[0] !== 'number' || typeof hold[1] !== 'number') return undefined;
			holds.push({ rowId: hold[0], until: hold[1], number: String(hold[2] ?? '') });
		}
		return { at: value.at, holds };
	} catch {
		return undefined;
	}
}

export function linesColumn(at: number, holds: LineHold[]): string {
	return JSON.stringify({ at, holds: holds.map((hold) => [hold.rowId, hold.until, hold.number]) });
}

const num = (value: unknown, fallback = 0) => (typeof value === 'number' && Number.isFinite(value) ? value : value === null || value === undefined || value === '' ? fallback : Number.NaN);

/** The campaign's control row as read (its first row), checked; a row that cannot be read throws, naming it. */
function asControl(ctx: IExecuteFunctions, tableId: string, rows: Row[]): Control | undefined {
	if (rows.length === 0) return undefined;
	const row = rows.reduce((low, r) => (r.id < low.id ? r : low));
	const status = row.status === null || row.status === undefined || row.status === '' ? 'running' : row.status;
	if (typeof status !== 'string' || !(CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
		throw unreadable(ctx, row, `status ${JSON.stringify(row.status)} is none of ${CAMPAIGN_STATUSES.join(', ')}`);
	}
	const until = num(row.until);
	if (Number.isNaN(until)) throw unreadable(ctx, row, 'until must be a number');
	const lines = parseLines(row.lines);
	if (!lines) throw unreadable(ctx, row, 'lines is not what a dial run writes');
	const version = versionOf(row.version);
	if (Number.isNaN(version)) throw unreadable(ctx, row, 'version must be a whole number');
	return {
		tableId,
		rowId: row.id,
		status: status as CampaignStatus,
		statusChangedAt: typeof row.statusChangedAt === 'number' ? row.statusChangedAt : null,
		holder: String(row.holder ?? ''),
		until,
		owner: String(row.owner ?? ''),
		ownerSeenAt: num(row.ownerSeenAt) || 0,
		gate: { seen: String(row.gateSeen ?? ''), dueAt: num(row.gateDueAt) || 0, inFlight: num(row.gateInFlight) || 0 },
		lastRowId: num(row.lastRowId) || 0,
		lines,
		suspiciousResults: num(row.suspiciousResults) || 0,
		timeline: parseTimeline(row.timeline),
		version,
		extraRows: rows.length - 1,
	};
}

function ofCampaign(contactsTableId: string): Condition {
	return { columnName: 'contactsTable', condition: 'eq', value: contactsTableId };
}

/** The campaign's control row, or undefined when it has none. */
export async function readControl(ctx: IExecuteFunctions, tableId: string, contactsTableId: string): Promise<Control | undefined> {
	return asControl(ctx, tableId, await readRows(ctx, tableId, [ofCampaign(contactsTableId)], 10));
}

/**
 * The campaign's control row, created when it has none: with the lease held for LEASE_MS when `started` says the
 * campaign has dialled before (its row was deleted: a run may still hold the old lease), else free.
 */
export async function openControl(ctx: IExecuteFunctions, tableId: string, contactsTableId: string, started: () => Promise<boolean>): Promise<Control> {
	const found = await readControl(ctx, tableId, contactsTableId);
	if (found) return found;
	const hold = await started();
	await insertRows(ctx, tableId, [
		{ contactsTable: contactsTableId, status: 'running', statusChangedAt: Date.now(), holder: '', until: hold ? Date.now() + LEASE_MS : 0, version: 0, lines: '' },
	]);
	const created = await readControl(ctx, tableId, contactsTableId);
	if (!created) throw new NodeOperationError(ctx.getNode(), `The campaign's control row could not be created in the data table "${CONTROL_TABLE}"`);
	return created;
}

/** Sets the campaign's status (Pause, Resume, Stop); the row as written. */
export async function setStatus(ctx: IExecuteFunctions, control: Control, status: CampaignStatus): Promise<void> {
	await updateRows(ctx, control.tableId, [{ columnName: 'id', condition: 'eq', value: control.rowId }], { status, statusChangedAt: Date.now() }, undefined, false);
}

/** Adds one to the campaign's count of suspicious results (a compare-and-set on the row's version, read again when another writer came first). */
export async function countSuspicious(ctx: IExecuteFunctions, tableId: string, contactsTableId: string): Promise<void> {
	for (let attempt = 0; attempt < 10; attempt++) {
		const control = await readControl(ctx, tableId, contactsTableId);
		if (!control) throw new NodeOperationError(ctx.getNode(), `The campaign has no control row in the data table "${CONTROL_TABLE}" to count in`);
		const counted = await updateIfUnchanged(ctx, tableId, { id: control.rowId, version: control.version }, { suspiciousResults: control.suspiciousResults + 1 }, { tokenColumn: 'token' });
		if (counted) return;
		await sleep(5 + Math.floor(Math.random() * 20 * (attempt + 1)));
	}
	throw new NodeOperationError(ctx.getNode(), `The count of suspicious results kept changing under 10 attempts to add one`);
}

/** Why a run may not dial: the campaign's status, or the lease is someone else's. */
export type NoGo = { kind: 'status'; status: CampaignStatus } | { kind: 'lease'; why: string };

export interface DialLease {
	/** Takes the lease for this run's workflow; a NoGo when the campaign is not running or another run holds it. */
	take(): Promise<NoGo | undefined>;
	/**
	 * Before each POST: renews the lease where this run holds it and the campaign is running; a NoGo otherwise. A POST
	 * is sent only after its `go` was written, so once a status change is written no run sends another.
	 */
	go(): Promise<NoGo | undefined>;
	/** Between passes: renews the lease when less than RENEW_BEFORE_MS is left; false when this run lost it. */
	keep(): Promise<boolean>;
	/** Gives the lease back, writing `data` (the gate, the lines) with it. */
	release(data?: IDataObject): Promise<void>;
	holds(): boolean;
	/**
	 * The campaign's timeline as the row was when this run took the lease (no other run writes it until this one
	 * gives the lease back); the control row's as read before, when the take's answer did not show it.
	 */
	timeline(): Timeline;
}

/**
 * The lease of one run on `control`. Every change is one conditional update of the campaign's row whose `holder`
 * (unique to this run) says who won; a write whose answer is lost is read back.
 */
export function dialLease(ctx: IExecuteFunctions, control: Control, workflowId: string): DialLease {
	const holder = writeToken(ctx);
	let until = 0;
	const id: Condition = { columnName: 'id', condition: 'eq', value: control.rowId };
	const mine: Condition = { columnName: 'holder', condition: 'eq', value: holder };
	const running: Condition = { columnName: 'status', condition: 'eq', value: 'running' };
	let taken: Row | undefined;
	/** The row as written when this write won, else undefined. */
	const write = async (where: Condition[], data: IDataObject): Promise<Row | undefined> => {
		let rows: Row[] | undefined;
		let lost: unknown;
		try {
			rows = await updateRows(ctx, control.tableId, [id, ...where], data);
		} catch (error) {
			lost = error;
		}
		if (rows) return rows.find((row) => row.id === control.rowId && row.holder === data.holder);
		// The answer may be lost, not the write: the row says whether it was written.
		const [now] = await readRows(ctx, control.tableId, [id], 1).catch(() => [] as Row[]);
		if (!now) throw lost;
		return now.holder === data.holder && now.until === data.until ? now : undefined;
	};
	/** Why a renewal did not land: the row as it is now. */
	const why = async (): Promise<NoGo> => {
		const [row] = await readRows(ctx, control.tableId, [id], 1);
		if (!row) return { kind: 'lease', why: `the campaign's control row (row ${control.rowId}) was deleted` };
		const status = String(row.status ?? 'running');
		if (status === 'paused' || status === 'stopped') return { kind: 'status', status };
		return { kind: 'lease', why: 'another run took the lease (this run could not renew it in time)' };
	};
	const renew = async (conditions: Condition[]): Promise<boolean> => {
		const next = Date.now() + LEASE_MS;
		if (await write(conditions, { holder, until: next })) {
			until = next;
			return true;
		}
		until = 0;
		return false;
	};
	return {
		async take() {
			const now = Date.now();
			const next = now + LEASE_MS;
			const data = { holder, until: next, owner: workflowId, ownerSeenAt: now };
			taken = await write([{ columnName: 'until', condition: 'lt', value: now }, running], data);
			if (taken) {
				until = next;
				return undefined;
			}
			const noGo = await why();
			return noGo.kind === 'status' ? noGo : { kind: 'lease', why: 'another run of this campaign is dialling' };
		},
		async go() {
			if (until === 0) return { kind: 'lease', why: 'this run does not hold the lease' };
			if (await renew([mine, running])) return undefined;
			return await why();
		},
		async keep() {
			if (until === 0) return false;
			if (until - Date.now() >= RENEW_BEFORE_MS) return true;
			return await renew([mine]);
		},
		async release(data = {}) {
			// A run that no longer holds the lease writes nothing: the row is another run's now.
			if (until === 0) return;
			until = 0;
			await updateRows(ctx, control.tableId, [id, mine], { ...data, holder: '', until: 0 }, undefined, false);
		},
		holds: () => until !== 0,
		timeline: () => (taken && 'timeline' in taken ? parseTimeline(taken.timeline) : control.timeline),
	};
}
