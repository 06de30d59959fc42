import { Canvas } from '../../../shared/picture/canvas';
import type { Rgb } from '../../../shared/picture/png';
import { indexedPng } from '../../../shared/picture/png';
import { TIMELINE_BUCKETS } from '../../../shared/campaign/timeline';

import type { CampaignFacts } from './progress';
import { amount, clock, count, groupCount, span, STATE_GROUPS } from './progress';

/*
 * Get Summary's picture: the campaign at a glance, drawn on a canvas of palette indices (nodes/shared/picture) and
 * written as a PNG with a light palette and with a dark one (the same pixels). From the top: the campaign and its
 * status; contacts, done, left, in flight, spent; the contacts by state; calls placed and answered over time; lines
 * busy over time against Max Calls in Flight; what needs a person. Its size is fixed whatever the campaign's size,
 * and narrow enough for n8n's output panel, which shrinks it to its width (about 450 pixels beside a node's
 * parameters): some 46 characters a line.
 */

export const PICTURE_WIDTH = 600;
export const PICTURE_HEIGHT = 848;
const PAD = 20;
const INNER = PICTURE_WIDTH - 2 * PAD;
/** Room left of a chart's plot for its axis labels. */
const AXIS = 48;
const PLOT_HEIGHT = 90;

/** Where the picture shows what: the bar of contacts by state, the plots of the two charts, what needs a person. */
export const PICTURE_LAYOUT = {
	stateBar: { x: PAD, y: 214, width: INNER, height: 22 },
	callsPlot: { x: PAD + AXIS, y: 458, width: INNER - AXIS, height: PLOT_HEIGHT },
	linesPlot: { x: PAD + AXIS, y: 642, width: INNER - AXIS, height: PLOT_HEIGHT },
	attention: { x: PAD, y: 772, width: INNER, height: 70 },
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
	canvas.frame(PICTURE_WIDTH - PAD - badgeWidth, 18, badgeWidth, 30, ink(role), 2);
	canvas.text(PICTURE_WIDTH - PAD - badgeWidth / 2, 40, badge, ink(role), { align: 'center', bold: true });
	canvas.text(PAD, 40, Canvas.fit(facts.campaign, INNER - badgeWidth - 16), ink('text'), { bold: true });
	const changed = facts.lastChangeAt === null ? 'no change yet' : `changed ${clock(facts.lastChangeAt, facts.now, facts.timeZone)}`;
	const line = `${facts.dialling ? 'dialling' : 'not dialling'}, ${changed}, drawn ${clock(facts.now, facts.now, facts.timeZone)}`;
	// The time zone when it fits (the page says it in full).
	const zoned = `${line} (${facts.timeZone})`;
	canvas.text(PAD, 68, Canvas.textWidth(zoned) <= INNER ? zoned : Canvas.fit(line, INNER), ink('muted'));
}

function tiles(canvas: Canvas, facts: CampaignFacts): void {
	const percent = facts.contacts > 0 ? Math.floor((facts.done * 100) / facts.contacts) : 0;
	const width = INNER / 3;
	// A label with its detail when it fits the tile, else without.
	const label = (short: string, long: string) => (Canvas.textWidth(long) <= width - 12 ? long : short);
	const shown: Array<[string, string]> = [
		[count(facts.contacts), 'contacts'],
		[count(facts.done), `done, ${percent}%`],
		[count(facts.dueNow + facts.waiting), label('left', `left, ${count(facts.dueNow)} due`)],
		[count(facts.inFlight), 'in flight'],
		[amount(facts.spent), 'spent'],
		[count(facts.answeredLastHour), 'answered/hour'],
	];
	// Two rows of three.
	shown.forEach(([value, text], i) => {
		const x = PAD + (i % 3) * width;
		const baseline = 110 + Math.floor(i / 3) * 62;
		const scale = Canvas.textWidth(value, 3) <= width - 12 ? 3 : 2;
		canvas.text(x, baseline, Canvas.fit(value, width - 12, scale), ink('text'), { scale, bold: true });
		canvas.text(x, baseline + 24, Canvas.fit(text, width - 12), ink('muted'));
	});
}

/** The contacts by state: one bar split by state, and its legend (two columns). */
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
	const column = INNER / 2;
	STATE_GROUPS.forEach((group, i) => {
		const cx = PAD + (i % 2) * column;
		const baseline = 270 + Math.floor(i / 2) * 26;
		const n = groupCount(facts, group.states);
		canvas.rect(cx, baseline - 14, 14, 14, ink(group.key as Role));
		canvas.text(cx + 20, baseline, group.label, ink(n > 0 ? 'text' : 'muted'));
		canvas.text(cx + column - 24, baseline, count(n), ink(n > 0 ? 'text' : 'muted'), { align: 'right', bold: n > 0 });
	});
	canvas.rect(PAD, 392, INNER, 1, ink('grid'));
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
	bottom: number;
	/** Where the slot of a bucket index starts (undefined for one not shown: the buckets shown end now). */
	slot(index: number): number | undefined;
	slotWidth: number;
	y(value: number): number;
}

type Box = (typeof PICTURE_LAYOUT)['callsPlot'];
/** Each entry: its colour, its words, and whether it is a dashed line (else a square). */
type Legend = Array<[Role, string, boolean?]>;
const MIN_SLOTS = 12;

/** A chart's frame around its plot `box`: its title, legend, axis labels and grid; the plot to draw in. */
function chartFrame(canvas: Canvas, box: Box, title: string, legend: Legend, top: number, facts: CampaignFacts): Plot {
	const { x, y, width, height } = box;
	canvas.text(PAD, y - 38, Canvas.fit(title, INNER), ink('text'), { bold: true });
	let lx = PAD;
	for (const [role, label, dashed] of legend) {
		if (dashed) canvas.dashes(lx, lx + 14, y - 19, ink(role), 3, 5, 4);
		else canvas.rect(lx, y - 26, 14, 14, ink(role));
		lx += 20 + canvas.text(lx + 20, y - 12, label, ink('muted')) + 16;
	}
	const bottom = y + height;
	canvas.rect(x, y, width, 1, ink('grid'));
	canvas.rect(x, y + height / 2, width, 1, ink('grid'));
	canvas.rect(x, bottom, width, 2, ink('border'));
	canvas.text(x - 8, y + 7, compact(top), ink('muted'), { align: 'right' });
	canvas.text(x - 8, bottom, '0', ink('muted'), { align: 'right' });
	const { width: bucket, first: firstKept } = facts.timeline;
	const last = Math.floor(facts.now / bucket);
	// From the first bucket kept to now, MIN_SLOTS at least: a campaign's first minutes are not a sliver at the right.
	const slots = Math.min(TIMELINE_BUCKETS, Math.max(MIN_SLOTS, last - firstKept + 1));
	const first = last - slots + 1;
	canvas.text(x, bottom + 22, clock(first * bucket, facts.now, facts.timeZone), ink('muted'));
	canvas.text(x + width, bottom + 22, 'now', ink('muted'), { align: 'right' });
	const slotWidth = width / slots;
	return {
		x,
		width,
		bottom,
		slotWidth,
		slot: (index) => (index < first || index > last ? undefined : x + (index - first) * slotWidth),
		y: (value) => bottom - Math.round((Math.min(value, top) * height) / top),
	};
}

function bar(canvas: Canvas, plot: Plot, left: number, value: number, width: number, role: Role): void {
	if (value <= 0) return;
	const y = plot.y(value);
	canvas.rect(left, y, Math.max(1, width), Math.max(2, plot.bottom - y), ink(role));
}

/** Calls placed (wide bars) and answered (narrow bars on them) per bucket. */
function callsChart(canvas: Canvas, facts: CampaignFacts): void {
	const { timeline } = facts;
	const top = niceCeiling(Math.max(0, ...timeline.buckets.map((b) => Math.max(b.placed, b.answered))));
	const legend: Legend = [['placed', 'placed'], ['answered', 'answered']];
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
	const legend: Legend = [['inFlight', 'busy'], ['limit', `Max Calls in Flight${limit > 0 ? ` ${limit}` : ''}`, true]];
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
	canvas.text(plot.x + plot.width / 2, plot.bottom - PLOT_HEIGHT / 2 + 7, message, ink('muted'), { align: 'center' });
}

/** What needs a person: contacts that may have been called, suspicious results, rows the engine cannot work. */
function attention(canvas: Canvas, facts: CampaignFacts): void {
	const { y } = PICTURE_LAYOUT.attention;
	canvas.rect(PAD, y, INNER, 1, ink('grid'));
	const items: Array<[number, string]> = [
		[facts.counts.unknown ?? 0, 'unknown'],
		[facts.suspiciousResults, 'suspicious'],
		[facts.cannotBeWorked, 'to fix'],
	];
	const width = canvas.text(PAD, y + 30, 'Needs a person:', ink('text'), { bold: true });
	if (!items.some(([n]) => n > 0)) canvas.text(PAD + width + 12, y + 30, 'nothing', ink('good'), { bold: true });
	const column = INNER / 3;
	items.forEach(([n, label], i) => {
		const x = PAD + i * column;
		const shown = canvas.text(x, y + 58, count(n), ink(n > 0 ? 'bad' : 'muted'), { bold: n > 0 });
		canvas.text(x + shown + 10, y + 58, label, ink(n > 0 ? 'text' : 'muted'));
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
