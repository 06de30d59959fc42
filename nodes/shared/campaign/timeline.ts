/*
 * A campaign's timeline: what its dial runs saw, in at most TIMELINE_BUCKETS buckets of time, kept in its control
 * row (campaignControl.ts) and written by each dial run when it gives its lease back. Each bucket holds the calls
 * placed in it, the most lines busy and the Max Calls in Flight of the runs then; the calls answered are counted
 * from the contacts when the timeline is read (Get Summary reads every row anyway).
 *
 * Its cost is bounded whatever the campaign's size or length: when a sample falls outside the buckets, they widen
 * to the next width (each width divides the next, so buckets merge whole: a campaign of a morning is shown per 5
 * minutes, one of a week per 3 hours); past the widest, the oldest buckets are dropped. The column is a few hundred
 * characters, read with the control row. A timeline that cannot be read is an empty one: it only feeds a picture,
 * and never stops a run.
 */

export const TIMELINE_BUCKETS = 60;
const MINUTE = 60_000;
/** Bucket widths, each dividing the next: 1, 5, 15, 30 minutes; 1, 3, 6, 12 hours; 1 day, 1 week, 4 weeks. */
export const TIMELINE_WIDTHS = [1, 5, 15, 30, 60, 180, 360, 720, 1440, 10_080, 40_320].map((minutes) => minutes * MINUTE);

export interface Bucket {
	/** Calls placed. */
	placed: number;
	/** Calls answered (counted from the contacts when read; never stored). */
	answered: number;
	/** The most lines busy at once. */
	lines: number;
	/** The highest Max Calls in Flight of the runs. */
	max: number;
}

export interface Timeline {
	/** Bucket width (ms), one of TIMELINE_WIDTHS. */
	width: number;
	/** The index of buckets[0]: it starts at first × width ms since 1970. */
	first: number;
	/** Contiguous buckets, at most TIMELINE_BUCKETS. */
	buckets: Bucket[];
}

export function emptyTimeline(): Timeline {
	return { width: TIMELINE_WIDTHS[0], first: 0, buckets: [] };
}

const zero = (): Bucket => ({ placed: 0, answered: 0, lines: 0, max: 0 });

function addTo(bucket: Bucket, sample: Partial<Bucket>): void {
	bucket.placed += sample.placed ?? 0;
	bucket.answered += sample.answered ?? 0;
	bucket.lines = Math.max(bucket.lines, sample.lines ?? 0);
	bucket.max = Math.max(bucket.max, sample.max ?? 0);
}

/** The timeline with buckets `width` wide (a width of TIMELINE_WIDTHS at least its own): buckets merged whole. */
function widened(timeline: Timeline, width: number): Timeline {
	if (width === timeline.width) return timeline;
	const first = Math.floor((timeline.first * timeline.width) / width);
	const buckets: Bucket[] = [];
	timeline.buckets.forEach((bucket, k) => {
		const at = Math.floor(((timeline.first + k) * timeline.width) / width) - first;
		for (let i = buckets.length; i <= at; i++) buckets.push(zero());
		addTo(buckets[at], bucket);
	});
	return { width, first, buckets };
}

/**
 * The timeline with `sample` added at `at` (ms): widened while the span it then covers is more than
 * TIMELINE_BUCKETS, its oldest buckets dropped at the widest (a sample older than what is kept is left out). An empty
 * sample only extends the timeline to `at`. The timeline given may be changed: use the one returned.
 */
export function record(timeline: Timeline, at: number, sample: Partial<Bucket>): Timeline {
	if (!Number.isFinite(at) || at < 0) return timeline;
	let out = timeline;
	for (;;) {
		const index = Math.floor(at / out.width);
		if (out.buckets.length === 0) out = { width: out.width, first: index, buckets: [zero()] };
		const low = Math.min(out.first, index);
		const high = Math.max(out.first + out.buckets.length - 1, index);
		const wider = TIMELINE_WIDTHS.find((width) => width > out.width);
		if (high - low >= TIMELINE_BUCKETS && wider !== undefined) {
			out = widened(out, wider);
			continue;
		}
		if (high - low >= TIMELINE_BUCKETS) {
			// The widest buckets: the oldest go.
			if (index < out.first) return out;
			const drop = high - TIMELINE_BUCKETS + 1 - out.first;
			out = { ...out, first: out.first + drop, buckets: out.buckets.slice(drop) };
		}
		for (; out.first > index; out.first--) out.buckets.unshift(zero());
		while (out.first + out.buckets.length <= index) out.buckets.push(zero());
		addTo(out.buckets[index - out.first], sample);
		return out;
	}
}

/** Both timelines in one (buckets of the wider width, or wider still to hold both spans). */
export function combined(a: Timeline, b: Timeline): Timeline {
	if (b.buckets.length === 0) return a;
	let out = a.buckets.length === 0 ? { ...a, width: Math.max(a.width, b.width) } : widened(a, Math.max(a.width, b.width));
	b.buckets.forEach((bucket, k) => {
		out = record(out, (b.first + k) * b.width, bucket);
	});
	return out;
}

/** The timeline as its column holds it: `{"w": width ms, "f": first, "b": [[placed, lines, max], …]}`. */
export function timelineColumn(timeline: Timeline): string {
	return JSON.stringify({ w: timeline.width, f: timeline.first, b: timeline.buckets.map((b) => [b.placed, b.lines, b.max]) });
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0);

/** A timeline column read back; anything that is not one (empty, edited, cut short) is an empty timeline. */
export function parseTimeline(text: unknown): Timeline {
	if (typeof text !== 'string' || text === '') return emptyTimeline();
	try {
		const value = JSON.parse(text) as { w?: unknown; f?: unknown; b?: unknown };
		if (!TIMELINE_WIDTHS.includes(value.w as number) || !Number.isSafeInteger(value.f) || (value.f as number) < 0) return emptyTimeline();
		if (!Array.isArray(value.b) || value.b.length > TIMELINE_BUCKETS) return emptyTimeline();
		const buckets = value.b.map((entry: unknown) => {
			const [placed, lines, max] = Array.isArray(entry) ? entry : [];
			return { placed: count(placed), answered: 0, lines: count(lines), max: count(max) };
		});
		return { width: value.w as number, first: value.f as number, buckets };
	} catch {
		return emptyTimeline();
	}
}
