import type { Timeline } from '../../../shared/campaign/timeline';

/*
 * A campaign's progress as Get Summary's picture and page show it: the facts both draw from, and how they write
 * numbers and times (in the workflow's time zone).
 */

/** What the picture and the page show: Get Summary's counts, the timeline, when the campaign last changed. */
export interface CampaignFacts {
	campaign: string;
	status: string;
	dialling: boolean;
	contacts: number;
	/** Contacts by state: every campaign state, `new` and `other`. */
	counts: Record<string, number>;
	inFlight: number;
	linesHeld: number;
	done: number;
	dueNow: number;
	waiting: number;
	spent: number;
	spendReserved: number | null;
	suspiciousResults: number;
	cannotBeWorked: number;
	answeredLastHour: number;
	/** Calls placed, answered and lines busy over time, up to now. */
	timeline: Timeline;
	/** When a contact or the campaign's status last changed (ms), when known. */
	lastChangeAt: number | null;
	/** When the facts were read (ms). */
	now: number;
	/** The workflow's time zone: every time is written in it. */
	timeZone: string;
}

/** A whole number with thousands separators: 100,000. */
export function count(value: number): string {
	return Math.round(value).toLocaleString('en-US');
}

/** An amount with two decimals and thousands separators: 1,234.50. */
export function amount(value: number): string {
	return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

function parts(at: number, timeZone: string): Record<string, string> {
	const options: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
	let format: Intl.DateTimeFormat;
	try {
		format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone });
	} catch {
		format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' });
	}
	return Object.fromEntries(format.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
}

/** A time as a person reads it beside `now`: "14:05" the same day, "3 Mar 14:05" another. */
export function clock(at: number, now: number, timeZone: string): string {
	const time = parts(at, timeZone);
	const today = parts(now, timeZone);
	const hm = `${time.hour}:${time.minute}`;
	return time.day === today.day && time.month === today.month && Math.abs(now - at) < 86_400_000 ? hm : `${time.day} ${time.month} ${hm}`;
}

/** A bucket width in words: "1 min", "15 min", "3 h", "1 day", "1 week". */
export function span(ms: number): string {
	const minutes = Math.round(ms / 60_000);
	if (minutes < 60) return `${minutes} min`;
	if (minutes < 1440) return `${minutes / 60} h`;
	if (minutes < 10_080) return `${minutes / 1440} day${minutes === 1440 ? '' : 's'}`;
	return `${minutes / 10_080} week${minutes === 10_080 ? '' : 's'}`;
}

/** The states as the picture and the page list them: label and the counts they add up. */
export const STATE_GROUPS: Array<{ key: string; label: string; states: string[] }> = [
	{ key: 'answered', label: 'answered', states: ['answered'] },
	{ key: 'finished', label: 'finished', states: ['finished'] },
	{ key: 'failed', label: 'failed', states: ['failed'] },
	{ key: 'doNotCall', label: 'do not call', states: ['doNotCall'] },
	{ key: 'unknown', label: 'unknown', states: ['unknown'] },
	{ key: 'inFlight', label: 'in flight', states: ['claimed', 'placed'] },
	{ key: 'pending', label: 'pending', states: ['pending'] },
	{ key: 'new', label: 'new', states: ['new'] },
	{ key: 'other', label: 'other', states: ['other'] },
];

export function groupCount(facts: CampaignFacts, states: string[]): number {
	return states.reduce((sum, state) => sum + (facts.counts[state] ?? 0), 0);
}
