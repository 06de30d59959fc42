import type { INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { NO_CALL_PLACED } from '../calls/messages';

import { listPieces } from '../core/text';
import { isObject } from '../core/object';
import { kindOf, invalid } from '../core/validation';

/*
 * Calling hours: the days and the local times a contact may be called, in a time zone. Time zones come
 * from the platform's own Intl (IANA names, daylight-saving rules included); no library.
 *
 * A window starts on each chosen day at From and ends at the next To: the same day when To is later,
 * the next day when it is earlier (22:00 to 02:00 on Friday is Friday 22:00 to Saturday 02:00). Local
 * wall-clock times: on the day clocks go forward, a From inside the skipped hour opens the window when the
 * clocks jump; on the day they go back, the repeated hour is inside the window if its time is.
 */

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/**
 * The same days as Intl writes them in English (weekday "short": Sun, Mon, ...): how localTime reads a
 * day, and how a window names its days.
 */
const SHORT_DAYS: readonly string[] = WEEKDAYS.map((day) => `${day[0].toUpperCase()}${day.slice(1, 3)}`);

export interface CallingWindow {
	/** Days a window starts on (0 = Sunday). */
	days: Set<number>;
	/** Minutes after local midnight. */
	from: number;
	/** Minutes after local midnight (1440 = midnight at the end of the day); never equal to `from`. */
	to: number;
	timeZone: string;
	/** "Mon-Fri 09:00-20:00 Europe/Rome", for reasons. */
	label: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `timeZone` is a time zone this platform knows (an IANA name such as Europe/Rome, or UTC). */
export function isTimeZone(timeZone: string): boolean {
	try {
		formatter(timeZone);
		return true;
	} catch {
		return false;
	}
}

function formatter(timeZone: string): Intl.DateTimeFormat {
	let format = formatters.get(timeZone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
			weekday: 'short',
		});
		formatters.set(timeZone, format);
	}
	return format;
}

interface LocalTime {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	weekday: number;
}

/** The wall-clock time at instant `ms` in `timeZone`. */
export function localTime(ms: number, timeZone: string): LocalTime {
	const parts: Record<string, string> = {};
	for (const part of formatter(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
	return {
		year: Number(parts.year),
		month: Number(parts.month),
		day: Number(parts.day),
		hour: Number(parts.hour) % 24,
		minute: Number(parts.minute),
		second: Number(parts.second),
		weekday: SHORT_DAYS.indexOf(parts.weekday),
	};
}

/** How far `timeZone` is ahead of UTC at instant `ms` (ms, whole seconds). */
function offsetAt(ms: number, timeZone: string): number {
	const t = localTime(ms, timeZone);
	const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
	return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant the clocks of `timeZone` show the wall-clock time `wall` (its fields written as if in UTC:
 * Date.UTC(2031, 2, 9, 2, 30) for 2031-03-09 02:30), the inverse of localTime. Deterministic where the
 * clocks are not one to one: a time skipped when they go forward gives the instant they jump (the first
 * instant at which they show a later time); a time shown twice when they go back gives the first.
 */
export function wallClockInstant(wall: number, timeZone: string): number {
	// The offsets a day either side cover every change near `wall` (changes are months apart).
	const before = offsetAt(wall - 86_400_000, timeZone);
	const after = offsetAt(wall + 86_400_000, timeZone);
	const shows = (ms: number) => offsetAt(ms, timeZone) === wall - ms;
	const candidates = [wall - before, wall - after].filter(shows).sort((a, b) => a - b);
	if (candidates.length > 0) return candidates[0];
	// Skipped: find the instant the offset changes between the two readings (to the second).
	let low = Math.min(wall - before, wall - after);
	let high = Math.max(wall - before, wall - after);
	const lowOffset = offsetAt(low, timeZone);
	while (high - low > 1000) {
		const mid = Math.floor((low + high) / 2000) * 1000;
		if (offsetAt(mid, timeZone) === lowOffset) low = mid;
		else high = mid;
	}
	return high;
}

/**
 * The instant the clocks of `timeZone` show `minutes` after midnight on the given date (wallClockInstant's
 * rule for times skipped or shown twice).
 */
export function zonedInstant(year: number, month: number, day: number, minutes: number, timeZone: string): number {
	return wallClockInstant(Date.UTC(year, month - 1, day, 0, minutes), timeZone);
}

/** Whether the window is open at instant `ms`. */
export function isOpen(window: CallingWindow, ms: number): boolean {
	const t = localTime(ms, window.timeZone);
	const minute = t.hour * 60 + t.minute;
	if (window.from < window.to) return window.days.has(t.weekday) && minute >= window.from && minute < window.to;
	return (window.days.has(t.weekday) && minute >= window.from) || (window.days.has((t.weekday + 6) % 7) && minute < window.to);
}

/** The first instant at or after `ms` the window is open. */
export function nextOpening(window: CallingWindow, ms: number): number {
	if (isOpen(window, ms)) return ms;
	const today = localTime(ms, window.timeZone);
	for (let offset = 0; offset <= 8; offset++) {
		const date = new Date(Date.UTC(today.year, today.month - 1, today.day + offset));
		if (!window.days.has(date.getUTCDay())) continue;
		const opens = zonedInstant(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), window.from, window.timeZone);
		if (opens > ms) return opens;
	}
	// Unreachable with at least one day chosen: every week has one.
	throw new Error('calling window has no day');
}

// ------------------------------------------------------------------------------------------------- reading

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

function clock(minutes: number): string {
	return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function readTime(node: INode, field: string, value: unknown, itemIndex: number, allowEndOfDay: boolean): number {
	const text = typeof value === 'string' ? value.trim() : '';
	if (allowEndOfDay && text === '24:00') return 1440;
	const match = TIME.exec(text);
	if (!match) {
		throw invalid(
			node,
			field,
			`must be a time of day as HH:MM, e.g. 09:00 or 20:30${allowEndOfDay ? ' (24:00 for the end of the day)' : ''} (got ${typeof value === 'string' ? `"${value}"` : kindOf(value)})`,
			itemIndex,
		);
	}
	return Number(match[1]) * 60 + Number(match[2]);
}

/**
 * Reads the Calling Hours fields ({days, from, to, timeZone}); an empty time zone is the workflow's.
 * Errors name the field and the rule.
 */
export function readCallingWindow(
	node: INode,
	raw: { days?: unknown; from?: unknown; to?: unknown; timeZone?: unknown },
	workflowTimeZone: string,
	itemIndex: number,
): CallingWindow {
	// Pieces as typed: an empty day is refused, and a wrong one quoted as it was written.
	const rawDays = typeof raw.days === 'string' ? listPieces(raw.days) : raw.days;
	if (!Array.isArray(rawDays) || rawDays.length === 0) {
		throw invalid(node, 'Calling Hours > Days', 'must name at least one day of the week', itemIndex);
	}
	const days = new Set<number>();
	for (const day of rawDays) {
		const index = WEEKDAYS.indexOf(String(day).trim().toLowerCase() as Weekday);
		if (index < 0) throw invalid(node, 'Calling Hours > Days', `must be days of the week, e.g. monday (got "${String(day)}")`, itemIndex);
		days.add(index);
	}
	const from = readTime(node, 'Calling Hours > From', raw.from, itemIndex, false);
	const to = readTime(node, 'Calling Hours > To', raw.to, itemIndex, true);
	if (to === from) {
		throw invalid(
			node,
			'Calling Hours > To',
			`must differ from From (${clock(from)}): a window that ends when it starts is empty; for the whole day use 00:00 to 24:00`,
			itemIndex,
		);
	}
	const zone = raw.timeZone;
	if (zone !== undefined && zone !== null && typeof zone !== 'string') {
		throw invalid(node, 'Calling Hours > Time Zone', `must be a time zone name such as Europe/Rome, not ${kindOf(zone)}`, itemIndex);
	}
	const timeZone = typeof zone === 'string' && zone.trim() !== '' ? zone.trim() : workflowTimeZone;
	if (!isTimeZone(timeZone)) {
		throw invalid(
			node,
			'Calling Hours > Time Zone',
			`unknown time zone "${timeZone}": use an IANA name such as Europe/Rome, America/New_York or UTC`,
			itemIndex,
		);
	}
	const dayList = [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)).map((d) => SHORT_DAYS[d]);
	return { days, from, to, timeZone, label: `${dayList.join(' ')} ${clock(from)}-${clock(to)} ${timeZone}` };
}

/** The days and hours of a calling window, as Dial Due Contacts' Calling Hours and Calling Hours of Place Call and Call and Wait ask them. */
export const CALLING_WINDOW_FIELDS: INodeProperties[] = [
	{
		displayName: 'Days',
		name: 'days',
		type: 'multiOptions',
		default: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
		description: 'Days a window starts on',
		options: WEEKDAYS.map((day) => ({ name: day[0].toUpperCase() + day.slice(1), value: day })),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '09:00',
		placeholder: 'e.g. 09:00',
		description: 'Local time the window opens (HH:MM)',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '20:00',
		placeholder: 'e.g. 20:00',
		description:
			'Local time the window closes (HH:MM, 24:00 for midnight). Earlier than From: the window ends the next day (22:00 to 02:00).',
	},
];

/** Calling Hours > Time Zone > Without a Time Zone: what a call whose time zone is not known gets. */
export type WithoutTimeZone = 'refuse' | 'workflow';

/**
 * Calling hours of several windows in one time zone (Monday to Friday 08:00-21:00 and Saturday 10:00-14:00): open
 * when any window is, so a rule that differs by weekday is one window per rule.
 */
export interface CallingHours {
	windows: CallingWindow[];
	timeZone: string;
	label: string;
}

/** The days and hours of each window as typed: `Calling Hours > Window` entries (one entry, or a list). */
type RawWindow = { days?: unknown; from?: unknown; to?: unknown };

/** Reads Calling Hours' windows in `timeZone` (empty: the workflow's); at least one window. Errors name the field. */
export function readCallingHours(node: INode, windows: unknown, timeZone: unknown, workflowTimeZone: string, itemIndex: number): CallingHours {
	const list = (Array.isArray(windows) ? windows : windows === undefined || windows === null ? [] : [windows]) as RawWindow[];
	if (list.length === 0) throw invalid(node, 'Calling Hours > Window', 'must be added at least once: the days and hours calls are allowed', itemIndex);
	const read = list.map((raw) => readCallingWindow(node, { days: raw.days, from: raw.from, to: raw.to, timeZone }, workflowTimeZone, itemIndex));
	const zone = read[0].timeZone;
	return { windows: read, timeZone: zone, label: `${read.map((w) => w.label.slice(0, -zone.length - 1)).join(', ')} ${zone}` };
}

/** Whether any window of the hours is open at instant `ms`. */
export function hoursOpen(hours: CallingHours, ms: number): boolean {
	return hours.windows.some((window) => isOpen(window, ms));
}

/** The first instant at or after `ms` a window of the hours is open. */
export function hoursOpening(hours: CallingHours, ms: number): number {
	return Math.min(...hours.windows.map((window) => nextOpening(window, ms)));
}

/** The calling hours of one call as the guard reads them: the windows, the call's time zone, and the rule without one. */
export interface HoursSettings {
	windows: unknown;
	timeZone: unknown;
	withoutTimeZone: WithoutTimeZone;
}

/** Why a call may not be placed now because of its calling hours (and when it may be), or undefined when it may. */
export type HoursVerdict = { refusal: NodeOperationError; until?: number; noTimeZone?: boolean } | undefined;

/**
 * The calling-hours guard: a call outside every window, in the called person's time zone, is refused (a campaign
 * defers it to `until`); a call whose time zone is not known is refused unless the workflow's time zone was allowed
 * for it. Errors of the fields themselves (a wrong time or day) are thrown, naming the field.
 */
export function hoursVerdict(node: INode, settings: HoursSettings, workflowTimeZone: string, itemIndex: number, now: number): HoursVerdict {
	const zone = typeof settings.timeZone === 'string' ? settings.timeZone.trim() : settings.timeZone;
	const known = typeof zone === 'string' && zone !== '';
	if (!known && settings.withoutTimeZone !== 'workflow') {
		// The fields are still checked: a wrong From or day names its field, whatever the call.
		readCallingHours(node, settings.windows, workflowTimeZone, workflowTimeZone, itemIndex);
		return {
			noTimeZone: true,
			refusal: new NodeOperationError(node, `Not placed: the called person's time zone is not known, so whether it is inside the calling hours cannot be judged. ${NO_CALL_PLACED}`, {
				itemIndex,
				description:
					"Calling Hours judges the hours in the called person's time zone (Calling Hours > Time Zone, usually an expression reading it from the item; a campaign's Time Zone Column). Give it, or set Without a Time Zone to Use the Workflow's Time Zone.",
			}),
		};
	}
	const hours = readCallingHours(node, settings.windows, known ? zone : undefined, workflowTimeZone, itemIndex);
	if (hoursOpen(hours, now)) return undefined;
	const until = hoursOpening(hours, now);
	const local = localTime(now, hours.timeZone);
	return {
		until,
		refusal: new NodeOperationError(
			node,
			`Not placed: it is ${clock(local.hour * 60 + local.minute)} on ${SHORT_DAYS[local.weekday]} in ${hours.timeZone}, outside the calling hours (${hours.label}). ${NO_CALL_PLACED} The hours open at ${new Date(until).toISOString()}.`,
			{ itemIndex, description: "Calling Hours (in this node) allows calls only inside these hours, in the called person's time zone." },
		),
	};
}

/** The Calling Hours field as set (Window entries, and the Time Zone entry: its fields), or undefined when nothing was added. */
export interface HoursField {
	windows: unknown[];
	zone: Record<string, unknown>;
	withoutTimeZone: WithoutTimeZone;
}

/** Reads the Calling Hours field's value (`{ window: [...], timeZone: [{...}] }`); the Time Zone entry may be added once. */
export function readHoursField(node: INode, raw: unknown, itemIndex: number): HoursField | undefined {
	if (!isObject(raw)) return undefined;
	const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : isObject(value) ? [value] : []);
	const windows = listOf(raw.window);
	const zones = listOf(raw.timeZone);
	if (windows.length === 0 && zones.length === 0) return undefined;
	if (zones.length > 1) throw invalid(node, 'Calling Hours > Time Zone', 'must be added once: every window is in the called person\'s time zone', itemIndex);
	const zone = (zones[0] ?? {}) as Record<string, unknown>;
	const without = zone.withoutTimeZone ?? 'refuse';
	if (without !== 'refuse' && without !== 'workflow') {
		throw invalid(node, 'Calling Hours > Time Zone > Without a Time Zone', "must be Refuse the Call or Use the Workflow's Time Zone", itemIndex);
	}
	return { windows, zone, withoutTimeZone: without };
}
