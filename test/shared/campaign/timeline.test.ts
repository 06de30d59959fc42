import type { Timeline } from '../../../nodes/shared/campaign/timeline';
import { combined, emptyTimeline, parseTimeline, record, TIMELINE_BUCKETS, TIMELINE_WIDTHS, timelineColumn } from '../../../nodes/shared/campaign/timeline';

// A campaign's timeline keeps what its dial runs saw in at most TIMELINE_BUCKETS buckets, however long the campaign
// runs: the buckets widen (merging whole) and, at the widest, the oldest go. Totals survive every widening.

const MINUTE = 60_000;
const START = Date.parse('2026-11-02T08:00:00Z');

const total = (t: Timeline, field: 'placed' | 'answered') => t.buckets.reduce((sum, bucket) => sum + bucket[field], 0);
const start = (t: Timeline) => t.first * t.width;

describe('record', () => {
	it('adds samples to the bucket of their time: placed and answered add up, lines and Max Calls in Flight keep the most', () => {
		let t = emptyTimeline();
		t = record(t, START + 10_000, { placed: 2, lines: 3, max: 5 });
		t = record(t, START + 50_000, { placed: 1, lines: 1, max: 4, answered: 1 });
		t = record(t, START + 3 * MINUTE, { placed: 4, lines: 5, max: 5 });
		expect(t.width).toBe(MINUTE);
		expect(start(t)).toBe(START);
		expect(t.buckets).toEqual([
			{ placed: 3, answered: 1, lines: 3, max: 5 },
			{ placed: 0, answered: 0, lines: 0, max: 0 },
			{ placed: 0, answered: 0, lines: 0, max: 0 },
			{ placed: 4, answered: 0, lines: 5, max: 5 },
		]);
	});

	it('a sample before the first bucket extends the timeline backwards', () => {
		let t = record(emptyTimeline(), START + 5 * MINUTE, { placed: 1 });
		t = record(t, START, { placed: 2 });
		expect(start(t)).toBe(START);
		expect(t.buckets.map((b) => b.placed)).toEqual([2, 0, 0, 0, 0, 1]);
	});

	it('widens to 5 minutes, then 15, as a campaign goes on: totals and maxima kept', () => {
		let t = emptyTimeline();
		for (let m = 0; m < 5 * 60; m++) t = record(t, START + m * MINUTE, { placed: 1, lines: m % 7, max: m < 100 ? 5 : 8 });
		expect(t.width).toBe(5 * MINUTE);
		expect(t.buckets).toHaveLength(60);
		expect(total(t, 'placed')).toBe(300);
		expect(t.buckets.every((b) => b.placed === 5 && b.lines >= 4)).toBe(true);
		expect(t.buckets.map((b) => b.max)).toEqual([...Array(20).fill(5), ...Array(40).fill(8)]);
		t = record(t, START + 5 * 60 * MINUTE, { placed: 1 });
		expect(t.width).toBe(15 * MINUTE);
		expect(total(t, 'placed')).toBe(301);
	});

	it('a year of samples a minute stays within its buckets, and its column within two kilobytes', () => {
		let t = emptyTimeline();
		for (let m = 0; m < 365 * 24 * 60; m += 7) t = record(t, START + m * MINUTE, { placed: 1, lines: 9, max: 10 });
		expect(t.buckets.length).toBeLessThanOrEqual(TIMELINE_BUCKETS);
		expect(t.width).toBe(7 * 24 * 60 * MINUTE);
		expect(total(t, 'placed')).toBe(Math.ceil((365 * 24 * 60) / 7));
		expect(timelineColumn(t).length).toBeLessThan(2048);
	});

	it('at the widest buckets (4 weeks) the oldest go, and a sample older than what is kept is left out', () => {
		const widest = TIMELINE_WIDTHS[TIMELINE_WIDTHS.length - 1];
		let t = record(emptyTimeline(), START, { placed: 1 });
		t = record(t, START + 100 * widest, { placed: 2 });
		expect(t.width).toBe(widest);
		expect(t.buckets).toHaveLength(TIMELINE_BUCKETS);
		expect(total(t, 'placed')).toBe(2);
		const kept = structuredClone(t);
		expect(record(t, START, { placed: 5 })).toEqual(kept);
	});

	it('leaves a time that is not one out', () => {
		const t = record(emptyTimeline(), START, { placed: 1 });
		const kept = structuredClone(t);
		expect(record(t, Number.NaN, { placed: 5 })).toEqual(kept);
		expect(record(t, -1, { placed: 5 })).toEqual(kept);
	});
});

describe('combined', () => {
	it('puts the calls answered (from the contacts) beside the dial runs\' buckets, at the wider width', () => {
		let runs = emptyTimeline();
		for (let m = 0; m < 120; m += 1) runs = record(runs, START + m * MINUTE, { placed: 2, lines: 4, max: 5 });
		let answered = emptyTimeline();
		for (let m = 0; m < 120; m += 2) answered = record(answered, START + m * MINUTE + 30_000, { answered: 1 });
		const both = combined(runs, answered);
		expect(both.width).toBe(5 * MINUTE);
		expect(total(both, 'placed')).toBe(240);
		expect(total(both, 'answered')).toBe(60);
		expect(combined(emptyTimeline(), answered)).toEqual(answered);
	});
});

describe('the column', () => {
	it('reads back what it wrote (answered is never stored)', () => {
		let t = emptyTimeline();
		t = record(t, START, { placed: 3, lines: 2, max: 5, answered: 9 });
		t = record(t, START + 2 * MINUTE, { placed: 1, lines: 1, max: 5 });
		expect(timelineColumn(t)).toBe(`{"w":60000,"f":${START / MINUTE},"b":[[3,2,5],[0,0,0],[1,1,5]]}`);
		expect(parseTimeline(timelineColumn(t))).toEqual({ ...t, buckets: t.buckets.map((b) => ({ ...b, answered: 0 })) });
	});

	it.each([
		['empty', ''],
		['not JSON', '{"w":'],
		['a width that is none of the widths', '{"w":7,"f":1,"b":[]}'],
		['too many buckets', JSON.stringify({ w: MINUTE, f: 1, b: Array(61).fill([1, 1, 1]) })],
		['a number', 42],
		['null', null],
	])('anything else (%s) is an empty timeline', (_name, value) => {
		expect(parseTimeline(value)).toEqual(emptyTimeline());
	});

	it('counts that are not counts read as 0', () => {
		expect(parseTimeline('{"w":60000,"f":5,"b":[[-1,"x",2.6],"junk"]}').buckets).toEqual([
			{ placed: 0, answered: 0, lines: 0, max: 3 },
			{ placed: 0, answered: 0, lines: 0, max: 0 },
		]);
	});
});
