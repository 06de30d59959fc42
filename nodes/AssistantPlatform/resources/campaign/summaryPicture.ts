import { Canvas } from '../../../shared/picture/canvas';
import type { Rgb } from '../../../shared/picture/png';
import { indexedPng } from '../../../shared/picture/png';
import { TIMELINE_BUCKETS } from '../../../shared/campaign/timeline';

import type { CampaignFacts } from './progress';
import { amount, clock, count, groupCount, span, STATE_GROUPS } from './progress';

/*
 * Get Summary's picture: the campaign at a glance, drawn on a canvas of palette indices (nodes/shared/picture) and
 * written as a PNG with a light palette and with a dark one (the same pixels). From the top: the campaign and its
 * status; contacts, done, in flight, left, spent; the contacts by state; calls placed and answered over time; lines
 * busy over time against Max Calls in Flight; what needs a person. Its size is fixed (PICTURE_WIDTH by
 * PICTURE_HEIGHT) whatever the campaign's size.
 */

export const PICTURE_WIDTH = 800;
export const PICTURE_HEIGHT = 568;
const PAD = 24;
const INNER = PICTURE_WIDTH - 2 * PAD;
const PLOT_TOP = 350;
const PLOT_HEIGHT = 110;
const CHART_WIDTH = (INNER - 24) / 2;
/** Where the picture shows what: the bar of contacts by state, the plots of the two charts. */
export const PICTURE_LAYOUT = {
	stateBar: { x: PAD, y: 170, width: INNER, height: 22 },
	callsPlot: { x: PAD + 44, y: PLOT_TOP, width: CHART_WIDTH - 44, height: PLOT_HEIGHT },
	linesPlot: { x: PAD + CHART_WIDTH + 24 + 44, y: PLOT_TOP, width: CHART_WIDTH - 44, height: PLOT_HEIGHT },
	attention: { x: PAD, y: 496, width: INNER, height: 64 },
};

/** Palette roles: one index each, a colour in each theme (light, dark). */
export const PICTURE_COLORS = {
	background: ['ffffff', '161b26'],
	border: ['d0d5dd', '333d4d'],
	text: ['1d2939', 'f2f4f7'],
	muted: ['667085', '98a2b3'],
	grid: ['eaecf0', '273142'],
	answered: ['12b76a', '32d583'],
	finished: ['6172f3', '8098f9'],
	failed: ['d92d20', 'f97066'],
	doNotCall: ['9e77ed', 'b692f6'],
	unknown: ['f79009', 'fdb022'],
	inFlight: ['2e90fa', '53b1fd'],
	pending: ['98a2b3', '667085'],
	new: ['d0d5dd', '475467'],
	other: ['dd2590', 'f670c7'],
	placed: ['b2ddff', '3e5f8a'],
	limit: ['d92d20', 'f97066'],
	good: ['067647', '47cd89'],
	warn: ['b54708', 'fdb022'],
	bad: ['b42318', 'f97066'],
} satisfies Record<string, [Rgb, Rgb]>;

type Role = keyof typeof PICTURE_COLORS;
const ROLES = Object.keys(PICTURE_COLORS) as Role[];
const ink = (role: Role) => ROLES.indexOf(role);
const paletteOf = (theme: 0 | 1): Rgb[] => ROLES.map((role) => PICTURE_COLORS[role][theme]);

const STATUS_ROLE: Record<string, Role> = { running: 'good', paused: 'warn', stopped: 'bad' };

function header(canvas: Canvas, facts: CampaignFacts): void {
	const badge = facts.status.toUpperCase();
	const badgeWidth = Canvas.textWidth(badge) + 20;
	const role = STATUS_ROLE[facts.status] ?? 'muted';
	canvas.frame(PICTURE_WIDTH - PAD - badgeWidth, 22, badgeWidth, 30, ink(role), 2);
	canvas.text(PICTURE_WIDTH - PAD - badgeWidth / 2, 44, badge, ink(role), { align: 'center', bold: true });
	canvas.text(PAD, 44, Canvas.fit(facts.campaign, INNER - badgeWidth - 16), ink('text'), { bold: true });
	const changed = facts.lastChangeAt === null ? 'no change yet' : `changed ${clock(facts.lastChangeAt, facts.now, facts.timeZone)}`;
	const line = `${facts.dialling ? 'dialling now' : 'not dialling'}, ${changed}, drawn ${clock(facts.now, facts.now, facts.timeZone)} (${facts.timeZone})`;
	canvas.text(PAD, 74, Canvas.fit(line, INNER), ink('muted'));
}

function tiles(canvas: Canvas, facts: CampaignFacts): void {
	const percent = facts.contacts > 0 ? Math.floor((facts.done * 100) / facts.contacts) : 0;
	const width = INNER / 5;
	// A label with its detail when it fits the tile, else without.
	const label = (short: string, long: string) => (Canvas.textWidth(long) <= width - 8 ? long : short);
	const shown: Array<[string, string]> = [
		[count(facts.contacts), 'contacts'],
		[count(facts.done), `done, ${percent}%`],
		[count(facts.dueNow + facts.waiting), label('left', `left, ${count(facts.dueNow)} due`)],
		[count(facts.inFlight), 'in flight'],
		[amount(facts.spent), label('spent', `spent, ${amount(facts.spendReserved ?? 0)} held`)],
	];
	if (!facts.spendReserved) shown[4][1] = 'spent';
	shown.forEach(([value, text], i) => {
		const x = PAD + i * width;
		const scale = Canvas.textWidth(value, 3) <= width - 8 ? 3 : 2;
		canvas.text(x, 124, Canvas.fit(value, width - 8, scale), ink('text'), { scale, bold: true });
		canvas.text(x, 150, Canvas.fit(text, width - 8), ink('muted'));
	});
}

/** The contacts by state: one bar split by state, and its legend (three columns). */
function states(canvas: Canvas, facts: CampaignFacts): void {
	const { x: barX, y: top, width: barWidth, height } = PICTURE_LAYOUT.stateBar;
	canvas.rect(barX, top, barWidth, height, ink('grid'));
	let x = barX;
	let before = 0;
	for (const group of STATE_GROUPS) {
		const n = groupCount(facts, group.states);
		if (n === 0 || facts.contacts === 0) continue;
		before += n;
		const end = barX + Math.round((before * barWidth) / facts.contacts);
		// A state of a few contacts among many still shows: two pixels at least.
		const right = Math.max(end, x + 2);
		canvas.rect(x, top, right - x, height, ink(group.key as Role));
		x = right;
	}
	const column = INNER / 3;
	STATE_GROUPS.forEach((group, i) => {
		const cx = PAD + (i % 3) * column;
		const baseline = 224 + Math.floor(i / 3) * 26;
		const n = groupCount(facts, group.states);
		canvas.rect(cx, baseline - 14, 14, 14, ink(group.key as Role));
		canvas.text(cx + 20, baseline, group.label, ink(n > 0 ? 'text' : 'muted'));
		canvas.text(cx + column - 16, baseline, count(n), ink(n > 0 ? 'text' : 'muted'), { align: 'right', bold: n > 0 });
	});
}

/** 1, 2 or 5 times a power of ten, at least `value` (5 at least). */
function niceCeiling(value: number): number {
	if (value <= 5) return 5;
	const power = 10 ** Math.floor(Math.log10(value));
	return [1, 2, 5, 10].map((step) => step * power).find((nice) => nice >= value) as number;
}

/** A round number of the axis, short: 500, 2k, 10k, 1M. */
function compact(value: number): string {
	if (value >= 1_000_000) return `${value / 1_000_000}M`;
	return value >= 1000 ? `${value / 1000}k` : String(value);
}

interface Plot {
	x: number;
	width: number;
	/** Where the slot of a bucket index starts (undefined for one not shown: the buckets shown end now). */
	slot(index: number): number | undefined;
	slotWidth: number;
	y(value: number): number;
}

const MIN_SLOTS = 12;

type Box = (typeof PICTURE_LAYOUT)['callsPlot'];
/** Each entry: its colour, its words, and whether it is a dashed line (else a square). */
type Legend = Array<[Role, string, boolean?]>;

/** A chart's frame around its plot `box`: its title, legend, axis labels and grid; the plot to draw in. */
function chartFrame(canvas: Canvas, box: Box, title: string, legend: Legend, top: number, facts: CampaignFacts): Plot {
	const x = box.x - 44;
	canvas.text(x, 312, Canvas.fit(title, CHART_WIDTH), ink('text'), { bold: true });
	let lx = x;
	for (const [role, label, dashed] of legend) {
		if (dashed) canvas.dashes(lx, lx + 14, 331, ink(role), 3, 5, 4);
		else canvas.rect(lx, 324, 14, 14, ink(role));
		lx += 20 + canvas.text(lx + 20, 338, label, ink('muted')) + 14;
	}
	const { x: plotX, width } = box;
	const bottom = PLOT_TOP + PLOT_HEIGHT;
	canvas.rect(plotX, PLOT_TOP, width, 1, ink('grid'));
	canvas.rect(plotX, PLOT_TOP + PLOT_HEIGHT / 2, width, 1, ink('grid'));
	canvas.rect(plotX, bottom, width, 2, ink('border'));
	canvas.text(plotX - 8, PLOT_TOP + 7, compact(top), ink('muted'), { align: 'right' });
	canvas.text(plotX - 8, bottom, '0', ink('muted'), { align: 'right' });
	const { width: bucket, first: firstKept } = facts.timeline;
	const last = Math.floor(facts.now / bucket);
	// From the first bucket kept to now, MIN_SLOTS at least: a campaign's first minutes are not a sliver at the right.
	const slots = Math.min(TIMELINE_BUCKETS, Math.max(MIN_SLOTS, last - firstKept + 1));
	const first = last - slots + 1;
	canvas.text(plotX, bottom + 24, clock(first * bucket, facts.now, facts.timeZone), ink('muted'));
	canvas.text(plotX + width, bottom + 24, 'now', ink('muted'), { align: 'right' });
	const slotWidth = width / slots;
	return {
		x: plotX,
		width,
		slotWidth,
		slot: (index) => (index < first || index > last ? undefined : plotX + (index - first) * slotWidth),
		y: (value) => bottom - Math.round((Math.min(value, top) * PLOT_HEIGHT) / top),
	};
}

function bar(canvas: Canvas, plot: Plot, left: number, value: number, width: number, role: Role): void {
	if (value <= 0) return;
	const y = plot.y(value);
	canvas.rect(left, y, Math.max(1, width), Math.max(2, PLOT_TOP + PLOT_HEIGHT - y), ink(role));
}

/** Calls placed (wide bars) and answered (narrow bars on them) per bucket. */
function callsChart(canvas: Canvas, facts: CampaignFacts): void {
	const { timeline } = facts;
	const top = niceCeiling(Math.max(0, ...timeline.buckets.map((b) => Math.max(b.placed, b.answered))));
	const legend: Legend = [['placed', 'placed'], ['answered', `answered (${count(facts.answeredLastHour)}/h)`]];
	const plot = chartFrame(canvas, PICTURE_LAYOUT.callsPlot, `Calls per ${span(timeline.width)}`, legend, top, facts);
	timeline.buckets.forEach((bucket, k) => {
		const left = plot.slot(timeline.first + k);
		if (left === undefined) return;
		bar(canvas, plot, left, bucket.placed, plot.slotWidth - 1, 'placed');
		bar(canvas, plot, left + plot.slotWidth / 4, bucket.answered, plot.slotWidth / 2, 'answered');
	});
	if (!timeline.buckets.some((b) => b.placed > 0 || b.answered > 0)) noData(canvas, plot, 'no calls yet');
}

/** Lines busy (bars, the most in each bucket) against Max Calls in Flight (a dashed line). */
function linesChart(canvas: Canvas, facts: CampaignFacts): void {
	const { timeline } = facts;
	const limit = [...timeline.buckets].reverse().find((b) => b.max > 0)?.max ?? 0;
	const top = niceCeiling(Math.max(0, ...timeline.buckets.map((b) => Math.max(b.lines, b.max))));
	// The bars are the title's; the legend names the line.
	const legend: Legend = [['limit', `Max Calls in Flight${limit > 0 ? ` ${limit}` : ''}`, true]];
	const plot = chartFrame(canvas, PICTURE_LAYOUT.linesPlot, `Lines busy (most per ${span(timeline.width)})`, legend, top, facts);
	// The limit as a dashed line over each stretch of buckets with the same Max Calls in Flight (a gap: no run).
	let stretch: { from: number; to: number; max: number } | undefined;
	const draw = () => stretch && canvas.dashes(Math.round(stretch.from), Math.round(stretch.to), plot.y(stretch.max), ink('limit'), 2, 6, 4);
	timeline.buckets.forEach((bucket, k) => {
		const left = plot.slot(timeline.first + k);
		if (left === undefined || bucket.max === 0) return;
		bar(canvas, plot, left, bucket.lines, plot.slotWidth - 1, 'inFlight');
		if (stretch && stretch.max === bucket.max && Math.abs(stretch.to - left) < 1) stretch.to = left + plot.slotWidth;
		else {
			draw();
			stretch = { from: left, to: left + plot.slotWidth, max: bucket.max };
		}
	});
	draw();
	if (!timeline.buckets.some((b) => b.max > 0)) noData(canvas, plot, 'no dial run yet');
}

function noData(canvas: Canvas, plot: Plot, message: string): void {
	canvas.text(plot.x + plot.width / 2, PLOT_TOP + PLOT_HEIGHT / 2 + 7, message, ink('muted'), { align: 'center' });
}

/** What needs a person: contacts that may have been called, suspicious results, rows the engine cannot work. */
function attention(canvas: Canvas, facts: CampaignFacts): void {
	const { y } = PICTURE_LAYOUT.attention;
	canvas.rect(PAD, y, INNER, 1, ink('grid'));
	const items: Array<[number, string]> = [
		[facts.counts.unknown ?? 0, 'unknown'],
		[facts.suspiciousResults, 'suspicious'],
		[facts.cannotBeWorked, 'rows to fix'],
	];
	const any = items.some(([n]) => n > 0);
	const width = canvas.text(PAD, y + 28, 'Needs a person:', ink('text'), { bold: true });
	if (!any) canvas.text(PAD + width + 12, y + 28, 'nothing', ink('good'), { bold: true });
	const column = INNER / 3;
	items.forEach(([n, label], i) => {
		const x = PAD + i * column;
		const shown = canvas.text(x, y + 56, count(n), ink(n > 0 ? 'bad' : 'muted'), { bold: n > 0 });
		canvas.text(x + shown + 10, y + 56, label, ink(n > 0 ? 'text' : 'muted'));
	});
}

/** The picture of `facts`, as a PNG with the light palette and with the dark one. */
export function summaryPictures(facts: CampaignFacts): { light: Buffer; dark: Buffer } {
	const canvas = new Canvas(PICTURE_WIDTH, PICTURE_HEIGHT, ink('background'));
	canvas.frame(0, 0, PICTURE_WIDTH, PICTURE_HEIGHT, ink('border'));
	header(canvas, facts);
	tiles(canvas, facts);
	states(canvas, facts);
	callsChart(canvas, facts);
	linesChart(canvas, facts);
	attention(canvas, facts);
	const png = indexedPng(canvas);
	return { light: png(paletteOf(0)), dark: png(paletteOf(1)) };
}
