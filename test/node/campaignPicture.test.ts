import type { IBinaryData, IDataObject } from 'n8n-workflow';

import { CONTROL_COLUMNS, CONTROL_TABLE } from '../../nodes/shared/campaign/campaignControl';
import { STATE_COLUMNS } from '../../nodes/shared/campaign/contactLife';
import { emptyTimeline, record, timelineColumn } from '../../nodes/shared/campaign/timeline';
import { PICTURE_COLORS, PICTURE_HEIGHT, PICTURE_LAYOUT, PICTURE_WIDTH } from '../../nodes/AssistantPlatform/resources/campaign/summaryPicture';
import { TABLE, useDurableCampaign } from '../harness/campaign';
import type { DecodedPng } from '../harness/picture';
import { decodePng, findText, pixelsOf } from '../harness/picture';

/*
 * Get Summary's picture and page, through n8n-core's WorkflowExecute: what the picture shows at 0, 1 and 100,000
 * contacts (read back from the PNG: its text with the package's font, the share of each state in its bar, the
 * charts' bars), that its size does not grow with the campaign, and that drawing it costs no request to n8n's API
 * beyond the counts; the page made from the same read.
 */

const { n8nApi, numbers, contacts, campaign, dial, prepared, endCalls } = useDurableCampaign();

const light = (role: keyof typeof PICTURE_COLORS) => PICTURE_COLORS[role][0];
const dark = (role: keyof typeof PICTURE_COLORS) => PICTURE_COLORS[role][1];
/** The picture bounded whatever the campaign: 600 x 848 pixels, at most 48 kB. */
const MAX_PICTURE_BYTES = 48 * 1024;

async function summary(parameters: IDataObject = {}) {
	const before = n8nApi.store.requests.length;
	const { items, error } = await campaign('summary', parameters);
	expect(error).toBeUndefined();
	expect(items).toHaveLength(1);
	return { json: items[0].json, binary: items[0].binary ?? {}, requests: n8nApi.store.requests.length - before };
}

const bytesOf = (binary: IBinaryData) => Buffer.from(binary.data, 'base64');

function pictureOf(binary: Record<string, IBinaryData>): DecodedPng {
	expect(binary.picture).toMatchObject({ mimeType: 'image/png', fileExtension: 'png', fileName: 'Spring-contacts.png' });
	const image = decodePng(bytesOf(binary.picture));
	expect([image.width, image.height]).toEqual([PICTURE_WIDTH, PICTURE_HEIGHT]);
	expect(bytesOf(binary.picture).length).toBeLessThan(MAX_PICTURE_BYTES);
	return image;
}

/** The texts among `texts` the picture shows. */
const shown = (image: DecodedPng, texts: string[]) => texts.filter((text) => findText(image, text));

/** Each state's share of the bar of contacts by state, in pixels (its colour's pixels on the bar's middle row). */
function barShare(image: DecodedPng, role: keyof typeof PICTURE_COLORS): number {
	const { x, y, width, height } = PICTURE_LAYOUT.stateBar;
	return pixelsOf(image, light(role), { x, y: y + Math.floor(height / 2), width, height: 1 });
}

describe('the picture at 0 contacts', () => {
	test('an empty table: zeros, an empty bar, "no calls yet", and nothing needs a person', async () => {
		await prepared([]);
		const { json, binary } = await summary();
		expect(json).toMatchObject({ contacts: 0, done: 0, answeredLastHour: 0, lastChangeAt: expect.any(String) });
		expect(Object.keys(binary)).toEqual(['picture']);
		const image = pictureOf(binary);
		expect(shown(image, ['Spring contacts', 'RUNNING', 'not dialling', 'contacts', 'done, 0%', 'no calls yet', 'no dial run yet', 'nothing'])).toEqual([
			'Spring contacts',
			'RUNNING',
			'not dialling',
			'contacts',
			'done, 0%',
			'no calls yet',
			'no dial run yet',
			'nothing',
		]);
		expect(findText(image, 'nothing')?.color).toBe(light('good'));
		expect(barShare(image, 'grid')).toBe(PICTURE_LAYOUT.stateBar.width);
	});
});

describe('the picture at 1 contact', () => {
	test('called and answered: the bar all answered, a placed and an answered bar, its line busy against Max Calls in Flight', async () => {
		await prepared(numbers(1));
		await dial();
		await endCalls();
		await dial();
		expect(contacts()[0].campaignState).toBe('answered');
		const { json, binary } = await summary();
		expect(json).toMatchObject({ contacts: 1, answered: 1, done: 1, answeredLastHour: 1 });
		const image = pictureOf(binary);
		expect(shown(image, ['done, 100%', 'answered/hour', 'Calls per 1 min', 'Max Calls in Flight 3', 'no calls yet'])).toEqual([
			'done, 100%',
			'answered/hour',
			'Calls per 1 min',
			'Max Calls in Flight 3',
		]);
		expect(barShare(image, 'answered')).toBe(PICTURE_LAYOUT.stateBar.width);
		expect(pixelsOf(image, light('placed'), PICTURE_LAYOUT.callsPlot)).toBeGreaterThan(0);
		expect(pixelsOf(image, light('answered'), PICTURE_LAYOUT.callsPlot)).toBeGreaterThan(0);
		expect(pixelsOf(image, light('inFlight'), PICTURE_LAYOUT.linesPlot)).toBeGreaterThan(0);
		expect(pixelsOf(image, light('limit'), PICTURE_LAYOUT.linesPlot)).toBeGreaterThan(0);
	});

	test('a contact that may have been called: "unknown" needs a person, its count in the alarm colour', async () => {
		await prepared(numbers(1));
		const table = n8nApi.store.tables.find((t) => t.name === TABLE)!;
		n8nApi.store.edit(table, contacts()[0], { campaignState: 'unknown', attempt: 1, version: 1 });
		const image = pictureOf((await summary()).binary);
		const { attention } = PICTURE_LAYOUT;
		expect(findText(image, 'nothing')).toBeUndefined();
		expect(findText(image, 'unknown', 2, attention)?.color).toBe(light('text'));
		expect(findText(image, '1', 2, attention)?.color).toBe(light('bad'));
	});
});

describe('the picture at 100,000 contacts', () => {
	const answered = 40_000;
	const states: Array<[string, number]> = [
		['answered', answered],
		['finished', 10_000],
		['failed', 2_000],
		['doNotCall', 500],
		['unknown', 3],
		['placed', 5],
		['pending', 30_000],
		['', 17_492],
	];

	beforeEach(() => {
		const now = Date.now();
		const blank = Object.fromEntries(Object.keys(STATE_COLUMNS).map((column) => [column, null]));
		let i = 0;
		const rows = states.flatMap(([state, n]) =>
			Array.from({ length: n }, () => {
				i++;
				const row: IDataObject = { ...blank, phone: `+1415${String(i).padStart(7, '0')}`, name: `Contact ${i}`, campaignState: state === '' ? null : state };
				if (state === 'answered') Object.assign(row, { attempt: 1, version: 3, endedAt: now - (i % 180) * 60_000, dialStatus: 'ANSWER', spent: 0.025 });
				if (state === 'placed') Object.assign(row, { attempt: 1, version: 2, lineUntil: now + 600_000, internalId: `call-${i}` });
				if (state === 'pending') Object.assign(row, { attempt: 1, version: 2, nextAttemptAt: i % 2 === 0 ? 0 : now + 3_600_000 });
				if (state && !['answered', 'placed', 'pending'].includes(state)) Object.assign(row, { attempt: 2, version: 4 });
				return row as Record<string, string | number | null>;
			}),
		);
		const table = n8nApi.store.seed(TABLE, rows, { ...STATE_COLUMNS });
		// What the dial runs of the last three hours left in the campaign's control row.
		let timeline = emptyTimeline();
		for (let m = 180; m > 0; m--) timeline = record(timeline, now - m * 60_000, { placed: 300, lines: 280 + (m % 20), max: 300 });
		const control = Object.fromEntries(Object.keys(CONTROL_COLUMNS).map((column) => [column, null]));
		n8nApi.store.seed(CONTROL_TABLE, [{ ...control, contactsTable: table.id, status: 'running', until: 0, holder: '', version: 1, lines: '', timeline: timelineColumn(timeline) }], {
			...CONTROL_COLUMNS,
		});
	});

	test('the counts, each state\'s share of the bar, the calls of the last three hours; the same size, and no request more', async () => {
		// The first read finds the tables by name and the spend ledger (later reads know them): the three after it compare.
		const first = await summary({ picture: 'page' });
		expect(first.json).toMatchObject({ contacts: 100_000, answered, unknown: 3, inFlight: 5, done: 52_500, spent: 1000 });
		const image = pictureOf(first.binary);
		expect(shown(image, ['done, 52%', 'Calls per 5 min', 'Max Calls in Flight 300', 'nothing'])).toEqual(['done, 52%', 'Calls per 5 min', 'Max Calls in Flight 300']);
		expect([findText(image, '100,000', 3), findText(image, '52,500', 3)]).toEqual([expect.objectContaining({ color: light('text') }), expect.objectContaining({ color: light('text') })]);
		const bar = PICTURE_LAYOUT.stateBar.width;
		// Each state's share of the bar is its share of the contacts, to a few pixels: a state of a few contacts gets
		// two pixels, taken from the state after it.
		for (const [role, n] of [['answered', answered], ['finished', 10_000], ['pending', 30_000], ['new', 17_492]] as const) {
			expect(Math.abs(barShare(image, role) - (n * bar) / 100_000)).toBeLessThanOrEqual(6);
		}
		expect(barShare(image, 'unknown')).toBe(2);
		// Three hours of 5-minute buckets: 36 bars of calls answered at the foot of the chart.
		const { callsPlot } = PICTURE_LAYOUT;
		expect(pixelsOf(image, light('answered'), { ...callsPlot, y: callsPlot.y + callsPlot.height - 3, height: 1 })).toBeGreaterThan(30 * 2);
		expect(bytesOf(first.binary.page).length).toBeLessThan(3 * MAX_PICTURE_BYTES);
		const without = await summary({ picture: 'none' });
		const picture = await summary({ picture: 'image' });
		const page = await summary({ picture: 'page' });
		expect(Object.keys(without.binary)).toEqual([]);
		expect([picture.requests, page.requests]).toEqual([without.requests, without.requests]);
		// 400 pages of 250 rows, the two tables (one request) and the control row, the spend ledger.
		expect(without.requests).toBe(403);
		// Four reads of 100,000 rows through the engine: about 30 s alone, twice that beside other suites on two cores.
	}, 180_000);
});

describe('the page', () => {
	test('the counts of the JSON, the state of every contact as the table has it, the pictures inside it, reloading itself', async () => {
		await prepared(numbers(4));
		await dial({ maxCallsInFlight: 2 });
		const { json, binary } = await summary({ picture: 'page', pageRefreshSeconds: 15 });
		expect(binary.page).toMatchObject({ mimeType: 'text/html; charset=utf-8', fileName: 'Spring-contacts.html' });
		const html = bytesOf(binary.page).toString('utf8');
		const counts = Object.fromEntries([...html.matchAll(/<td data-count="(\w+)">([\d,.]+)<\/td>/g)].map(([, field, value]) => [field, Number(value.replace(/,/g, ''))]));
		const byState: Record<string, number> = {};
		for (const row of contacts()) byState[String(row.campaignState ?? 'new')] = (byState[String(row.campaignState ?? 'new')] ?? 0) + 1;
		expect(byState).toEqual({ placed: 2, pending: 2 });
		expect(counts).toMatchObject({ contacts: 4, placed: 2, pending: 2, inFlight: 2, dueNow: json.dueNow, left: 2, new: 0, answered: 0 });
		expect(html).toContain('<meta http-equiv="refresh" content="15">');
		expect(html).toContain(`<time data-field="lastChangeAt" datetime="${String(json.lastChangeAt)}">`);
		const [, lightPng] = /<img src="data:image\/png;base64,([^"]+)"/.exec(html)!;
		const [, darkPng] = /<source media="\(prefers-color-scheme: dark\)" srcset="data:image\/png;base64,([^"]+)"/.exec(html)!;
		expect(lightPng).toBe(binary.picture.data);
		const night = decodePng(Buffer.from(darkPng, 'base64'));
		expect(findText(night, 'Spring contacts')?.color).toBe(dark('text'));
		expect(html).not.toMatch(/<script/i);
	});

	test('what the campaign\'s rows say is escaped: a table name or a row edited into HTML stays text', async () => {
		const name = 'Spring <b>contacts</b> & "friends"';
		n8nApi.store.seed(name, [{ phone: '+14155550000' }]);
		expect((await campaign('prepare', { contactsTable: name })).error).toBeUndefined();
		const table = n8nApi.store.tables.find((t) => t.name === name)!;
		n8nApi.store.edit(table, table.rows[0], { campaignState: '<img src=x onerror=alert(1)>' });
		const { items } = await campaign('summary', { contactsTable: name, picture: 'page' });
		const html = bytesOf(items[0].binary!.page).toString('utf8');
		expect(html).toContain('<h1 data-field="campaign">Spring &#60;b&#62;contacts&#60;/b&#62; &#38; &#34;friends&#34;</h1>');
		expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
		expect(html).not.toContain('<img src=x');
		expect(html).not.toContain('<b>');
	});

	test('Picture and Page Refresh are checked before anything is read', async () => {
		await prepared(numbers(1));
		const before = n8nApi.store.requests.length;
		expect((await campaign('summary', { picture: 'poster' })).error?.message).toMatch(/^Invalid "Picture": must be one of "image", "page", "none"/);
		expect((await campaign('summary', { picture: 'page', pageRefreshSeconds: 1 })).error?.message).toMatch(/^Invalid "Page Refresh \(Seconds\)": must be a whole number from 5 to 3600/);
		expect(n8nApi.store.requests.length).toBe(before);
	});
});
