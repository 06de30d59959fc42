import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { CONTROL_TABLE } from '../../nodes/shared/campaign/campaignControl';
import { STATE_COLUMNS } from '../../nodes/shared/campaign/contactLife';
import { CALLER, TABLE, useDurableCampaign } from '../harness/campaign';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { startTrigger } from '../harness/webhook';

/*
 * A campaign whose state lives in its contacts table (n8n's data tables, through n8n's API; here the in-memory API
 * of the engine tests): every transition of a contact is written before what it allows happens. A dial run claims
 * a contact (a conditional update only one run wins) before its POST and writes the platform's answer right after;
 * a crash in between leaves a claim the next run marks unknown, never dialled again. Calls in flight are counted
 * from the table, results are applied once by internal_id with the attempt the table holds, and the campaign can be
 * paused, resumed and stopped without editing the workflow.
 */

const { fx, n8nApi, posts, dialled, numbers, contacts, controlRows, stateOf, campaign, dial, prepared, endCalls } = useDurableCampaign();

describe('the contacts table', () => {
	test('without the campaign columns: refused naming them, before anything is dialled', async () => {
		n8nApi.store.seed(TABLE, [{ phone: '+14155550000' }]);
		const { error } = await dial();
		expect(error?.message).toBe(
			`The data table "${TABLE}" lacks the campaign column(s) ${Object.keys(STATE_COLUMNS).join(', ')}. No call was placed.`,
		);
		expect(posts()).toHaveLength(0);
	});

	test('without the phone column: refused naming it and the columns there are', async () => {
		n8nApi.store.seed(TABLE, [{ mobile: '+14155550000' }]);
		await campaign('prepare');
		const { error } = await dial();
		expect(error?.message).toMatch(/^The data table "Spring contacts" has no column "phone"/);
		expect(posts()).toHaveLength(0);
	});

	test('a phone column that is not text (a number column drops the +): refused naming it and the rule, before anything is claimed or sent', async () => {
		n8nApi.store.seed(TABLE, [{ phone: 14155550000, name: 'Ada' }], { phone: 'number' });
		await campaign('prepare');
		const { error } = await dial();
		expect(error?.message).toBe(
			`The column "phone" of the data table "${TABLE}" is a number column: Phone Column must name a text (string) column. No call was placed.`,
		);
		expect(posts()).toHaveLength(0);
		expect(contacts().map((row) => row.campaignState)).toEqual([null]);
	});

	const everyDay = { days: ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'], from: '00:00', to: '24:00' };

	test('Calling Hours with a Time Zone Column the table does not have: refused naming it and the rule, before anything is claimed or sent', async () => {
		await prepared(numbers(2));
		const { error } = await dial({ callingHours: { window: [everyDay] } });
		expect(error?.message).toMatch(
			/^The data table "Spring contacts" has no column "timezone": Calling Hours > Time Zone > Time Zone Column must name a text \(string\) column of the table, or be left empty with Without a Time Zone set to Use the Workflow's Time Zone/,
		);
		expect(posts()).toHaveLength(0);
		expect(contacts().map((row) => row.campaignState)).toEqual([null, null]);
	});

	test('Calling Hours with a Time Zone Column that is not text: refused naming it and the rule, before anything is claimed or sent', async () => {
		n8nApi.store.seed(TABLE, [{ phone: '+14155550000', zone: 2 }], { zone: 'number' });
		await campaign('prepare');
		const { error } = await dial({ callingHours: { window: [everyDay], timeZone: [{ timeZoneColumn: 'zone' }] } });
		expect(error?.message).toMatch(/^The column "zone" of the data table "Spring contacts" is a number column: Calling Hours > Time Zone > Time Zone Column must name a text \(string\) column/);
		expect(posts()).toHaveLength(0);
		expect(contacts().map((row) => row.campaignState)).toEqual([null]);
	});

	test("Calling Hours with the Time Zone Column left empty and Use the Workflow's Time Zone: a table without time zones is called in the workflow's time zone", async () => {
		await prepared(numbers(2));
		const { error } = await dial({ callingHours: { window: [everyDay], timeZone: [{ timeZoneColumn: '', withoutTimeZone: 'workflow' }] } });
		expect(error).toBeUndefined();
		expect(posts()).toHaveLength(2);
	});

	test('Calling Hours with the Time Zone Column left empty and Without a Time Zone left at Refuse: refused before anything is claimed, since no contact could be judged', async () => {
		await prepared(numbers(2));
		const { error } = await dial({ callingHours: { window: [everyDay], timeZone: [{ timeZoneColumn: '' }] } });
		expect(error?.message).toMatch(/^Invalid "Calling Hours > Time Zone > Time Zone Column": must name the contacts table's time zone column, or Without a Time Zone must be Use the Workflow's Time Zone/);
		expect(posts()).toHaveLength(0);
		expect(contacts().map((row) => row.campaignState)).toEqual([null, null]);
	});

	test('a contact whose time zone cell is empty is not dialled (its hours cannot be judged): failed, saying to fill it; the others are called', async () => {
		const [first, second] = numbers(2);
		await prepared([first, second], (phone) => ({ timezone: phone === first ? '' : 'Europe/Rome' }));
		const { error } = await dial({ callingHours: { window: [everyDay] } });
		expect(error).toBeUndefined();
		expect(posts()).toHaveLength(1);
		const [empty, known] = contacts();
		expect(empty.campaignState).toBe('failed');
		expect(String(empty.reason)).toMatch(/^not dialled: its time zone \(column timezone\) is empty, so its calling hours cannot be judged: fill it, then set the contact pending/);
		expect(known.campaignState).toBe('placed');
	});

	test('Prepare Contacts Table adds the campaign columns and keeps the rows', async () => {
		await prepared(numbers(2));
		const table = n8nApi.store.tables.find((t) => t.name === TABLE)!;
		expect(table.columns.map((c) => c.name)).toEqual(expect.arrayContaining(['phone', 'name', 'campaignState', 'version', 'writeToken']));
		expect(contacts()).toHaveLength(2);
	});
});

describe('Dial Due Contacts: short runs that share the lines through the table', () => {
	test('places the due contacts while lines are free, writes each internal_id, and ends', async () => {
		const phones = numbers(7);
		await prepared(phones);
		const { items, error } = await dial();
		expect(error).toBeUndefined();
		expect(posts()).toHaveLength(3);
		const placed = contacts().filter((row) => row.campaignState === 'placed');
		expect(placed.map((row) => row.phone).sort()).toEqual(dialled().sort());
		const ids = fx.sandbox.callJournal.calls.map((c) => c.internal_id).sort();
		expect(placed.map((row) => row.internalId).sort()).toEqual(ids);
		expect(placed.every((row) => row.attempt === 1)).toBe(true);
		expect(contacts().filter((row) => row.campaignState === 'pending')).toHaveLength(4);
		expect(items[0].json).toMatchObject({ campaign: TABLE, status: 'running', inFlightBefore: 0, placed: 3 });
		expect(items).toHaveLength(4);
	});

	test('a second run while the calls last places nothing: the calls in flight are counted from the table', async () => {
		await prepared(numbers(7));
		await dial();
		const second = await dial();
		expect(second.items[0].json).toMatchObject({ inFlightBefore: 3, placed: 0 });
		expect(posts()).toHaveLength(3);
	});

	test('once the calls end, the next run reads their records, records the results and dials the next ones', async () => {
		const phones = numbers(5);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial();
		await endCalls();
		const { items } = await dial();
		expect(items[0].json).toMatchObject({ resultsRead: 3, placed: 2 });
		expect(contacts().filter((row) => row.campaignState === 'answered')).toHaveLength(3);
		expect(new Set(dialled()).size).toBe(5);
	});

	test('Keep Dialling For: one run places more calls as lines free up, never more at once than Max Calls in Flight', async () => {
		const phones = numbers(6);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		const run = dial({ maxCallsInFlight: 2, maxCallsPerRun: 6, campaignOptions: { keepDiallingSeconds: 30, checkIntervalSeconds: 0.1 } });
		// The calls of each pass end while the run waits: the next pass reads their records and fills the lines.
		for (let waited = 0; dialled().length < 6 && waited < 250; waited++) {
			await new Promise((r) => setTimeout(r, 20));
			if (fx.sandbox.callsInFlight === 2) await endCalls();
		}
		const { items } = await run;
		expect(new Set(dialled()).size).toBe(6);
		expect(items[0].json).toMatchObject({ placed: 6 });
		expect(Math.max(...fx.sandbox.callJournal.calls.map((c) => fx.sandbox.callJournal.calls.filter((o) => o.startedAt <= c.startedAt && o.endedAt > c.startedAt).length))).toBeLessThanOrEqual(2);
	});

	test("Keep Dialling For: the control row is read once, the lease taken, each POST allowed by it (and the lease renewed), and given back: nothing written per pass", async () => {
		await prepared(numbers(3));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial({ maxCallsPerRun: 1 });
		const before = n8nApi.store.requests.length;
		const { items } = await dial({ maxCallsPerRun: 2, campaignOptions: { keepDiallingSeconds: 2, checkIntervalSeconds: 0.1 } });
		expect(items[0].json).toMatchObject({ placed: 2 });
		const control = n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!;
		const controlRequests = n8nApi.store.requests.slice(before).filter((r) => r.path.includes(control.id));
		// Read, taken, two POSTs allowed, given back; about 18 passes wrote nothing to it.
		expect(controlRequests.map((r) => r.method)).toEqual(['GET', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
		expect(n8nApi.store.tables.find((t) => t.name === 'Assistant Platform Call Limits')).toBeUndefined();
	});

	test("a dial run's requests to n8n's API: per run both tables at once, the control row and the lease; per pass one read of the lines held; per call its claim, its go and its answer", async () => {
		await prepared(numbers(40));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial();
		await endCalls();
		const before = n8nApi.store.requests.length;
		const { items } = await dial({ campaignOptions: { statusReads: 0 } });
		expect(items[0].json).toMatchObject({ inFlightBefore: 3, placed: 0 });
		const ids = new Map(n8nApi.store.tables.map((t) => [t.id, t.name]));
		const seen = n8nApi.store.requests.slice(before).map((r) => {
			const [, , id, rest] = r.path.split('/');
			return `${r.method} ${id ? `${ids.get(decodeURIComponent(id)) ?? id}${rest ? `/${rest}` : ''}` : '/data-tables'}`;
		});
		expect(seen).toEqual([
			'GET /data-tables', // the contacts table and the control table, by the ids the last run kept
			`GET ${CONTROL_TABLE}/rows`, // status, lease, gate
			`PATCH ${CONTROL_TABLE}/rows`, // the lease taken
			`GET ${TABLE}/rows`, // the lines held (all three busy: no due read)
			`PATCH ${CONTROL_TABLE}/rows`, // given back, with the lines it knows
		]);
		// The calls end: the next run settles them from the same read, then places three more.
		const from = n8nApi.store.requests.length;
		const next = await dial();
		expect(next.items[0].json).toMatchObject({ resultsRead: 3, placed: 3 });
		const contactsId = n8nApi.store.tables.find((t) => t.name === TABLE)!.id;
		const rows = n8nApi.store.requests.slice(from).filter((r) => r.path.includes(contactsId));
		expect(rows.filter((r) => r.method === 'GET')).toHaveLength(3); // lines held, rows added since, due
		expect(rows.filter((r) => r.method === 'PATCH')).toHaveLength(3 + 3 * 2); // three results applied, three claims and their answers
		const controlId = n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!.id;
		const control = n8nApi.store.requests.slice(from).filter((r) => r.path.includes(controlId));
		expect(control.map((r) => r.method)).toEqual(['GET', 'PATCH', 'PATCH', 'PATCH', 'PATCH', 'PATCH']); // read, taken, three go, given back
	});

	test('Keep Dialling For: a call still in progress is read again only once it has waited twice as long, not at every pass', async () => {
		// Two contacts, one line: the second stays due while the first call lasts, so the run keeps passing.
		await prepared(numbers(2));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		const { items } = await dial({ maxCallsInFlight: 1, campaignOptions: { keepDiallingSeconds: 2, checkIntervalSeconds: 0.1 } });
		expect(items[0].json).toMatchObject({ placed: 1 });
		// About 18 passes; the live call (no record yet) is read at ages of about 0.1, 0.2, 0.4, 0.8 and 1.6 s.
		const reads = fx.sandbox.journal.filter((e) => e.method === 'GET').length;
		expect(reads).toBeGreaterThanOrEqual(2);
		expect(reads).toBeLessThanOrEqual(8);
	});

	test('Keep Dialling For: a run with no contact due before it would end stops after its pass, whatever lines its calls hold', async () => {
		await prepared(numbers(2));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		const before = n8nApi.store.requests.length;
		const { items } = await dial({ campaignOptions: { keepDiallingSeconds: 30, checkIntervalSeconds: 0.1 } });
		expect(items[0].json).toMatchObject({ placed: 2 });
		// One pass: its reads, two claims and their answers, the next-due read, the closing write; not 300 passes.
		expect(n8nApi.store.requests.length - before).toBeLessThanOrEqual(25);
	});

	test('Keep Dialling For: a run that finds the lease held waits for it and takes over the lines when the run before ends', async () => {
		await prepared(numbers(4));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		const keep = (seconds: number) => ({ maxCallsInFlight: 2, campaignOptions: { keepDiallingSeconds: seconds, checkIntervalSeconds: 0.1 } });
		const first = dial(keep(1));
		while (dialled().length < 2) await new Promise((r) => setTimeout(r, 10));
		const second = dial(keep(5));
		const a = await first;
		expect(a.items[0].json).toMatchObject({ placed: 2 });
		await endCalls();
		const b = await second;
		// The second run read the ended calls' records and placed the other two, never more than 2 at once.
		expect(b.items[0].json).toMatchObject({ placed: 2, resultsRead: 2 });
		expect(new Set(dialled()).size).toBe(4);
		const calls = fx.sandbox.callJournal.calls;
		expect(Math.max(...calls.map((c) => calls.filter((o) => o.startedAt <= c.startedAt && o.endedAt > c.startedAt).length))).toBeLessThanOrEqual(2);
	});

	test('a pass that lasts longer than the lease: renewed before its claims, so a run started meanwhile finds it held and dials nothing', async () => {
		await prepared(numbers(20));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 3600 });
		// Each claim takes 45 s of n8n's clock (a slow n8n): one pass of 12 claims lasts 9 minutes, far past a one-minute lease.
		const started = Date.now();
		let shift = 0;
		const now = jest.spyOn(Date, 'now').mockImplementation(() => Math.round(performance.timeOrigin + performance.now()) + shift);
		const leaseAtClaims: number[] = [];
		let claims = 0;
		let otherRun: ReturnType<typeof dial> | undefined;
		n8nApi.store.onUpdate = (table, data) => {
			if (table !== TABLE || data.campaignState !== 'claimed') return;
			shift += 45_000;
			const lease = controlRows()[0];
			leaseAtClaims.push(Number(lease.until) - Date.now());
			// Another scheduled run, four and a half minutes into the pass.
			if (++claims === 6) otherRun = dial({ maxCallsInFlight: 12, maxCallsPerRun: 12 });
		};
		let other: Awaited<ReturnType<typeof dial>> | undefined;
		try {
			const { items, error } = await dial({ maxCallsInFlight: 12, maxCallsPerRun: 12 });
			other = await otherRun;
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({ placed: 12 });
		} finally {
			now.mockRestore();
		}
		expect(Date.now() - started).toBeLessThan(60_000);
		expect(other?.items[0].json).toMatchObject({ placed: 0, message: 'Another run of this campaign is dialling: nothing was dialled by this one.' });
		// At every claim the lease had time left (it is renewed when less than 45 s are left, before the claim).
		expect(leaseAtClaims).toHaveLength(12);
		expect(Math.min(...leaseAtClaims)).toBeGreaterThan(0);
		expect(dialled()).toHaveLength(12);
		expect(fx.sandbox.callsInFlight).toBe(12);
	});

	test('a run whose lease lapsed and was taken by another run (n8n stalled longer than the lease) claims nothing more', async () => {
		await prepared(numbers(6));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		const run = dial({ maxCallsInFlight: 1, maxCallsPerRun: 6, campaignOptions: { keepDiallingSeconds: 300, checkIntervalSeconds: 0.1 } });
		for (let waited = 0; dialled().length < 1 && waited < 500; waited++) await new Promise((r) => setTimeout(r, 10));
		// Three minutes pass at once (a stalled process): the lease ends, and another run takes it.
		const [later, from] = [Date.now() + 180_000, performance.now()];
		const now = jest.spyOn(Date, 'now').mockImplementation(() => later + (performance.now() - from));
		const lease = controlRows()[0];
		Object.assign(lease, { holder: 'another-run', until: later + 120_000, version: Number(lease.version) + 1 });
		try {
			await endCalls();
			const { items } = await run;
			expect(items[0].json).toMatchObject({ placed: 1 });
			expect(String(items[0].json.stoppedBecause)).toMatch(/the dial lease was taken by another run/);
		} finally {
			now.mockRestore();
		}
		expect(dialled()).toHaveLength(1);
		expect(lease.holder).toBe('another-run');
	});

	test('two runs started at once: one dials, the other ends at once (one lease per campaign), so no contact is claimed twice and the lines hold', async () => {
		await prepared(numbers(12));
		n8nApi.store.gate.close();
		const runs = [dial(), dial()];
		for (let waited = 0; n8nApi.store.gate.waiting() < 2 && waited < 300; waited++) await new Promise((r) => setTimeout(r, 10));
		n8nApi.store.gate.open();
		await Promise.all(runs);
		const all = dialled();
		expect(new Set(all).size).toBe(all.length);
		// One run holds the campaign's dial lease; the other ends at once: the lines are counted once.
		expect(all.length).toBe(3);
		const claimedOrPlaced = contacts().filter((row) => row.campaignState === 'placed');
		expect(claimedOrPlaced).toHaveLength(all.length);
	});

	test("two lease rows for one campaign (two first runs at once each inserted one): only the run that holds the campaign's first row dials", async () => {
		await prepared(numbers(6));
		await dial({ maxCallsPerRun: 1 });
		const leases = n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!;
		const [first] = leases.rows;
		// The first row is held by a run still dialling; a second row, free, was inserted by a run that started with it.
		Object.assign(first, { holder: 'another-run', until: Date.now() + 50_000 });
		n8nApi.store.insert(leases, [{ contactsTable: first.contactsTable, status: 'running', holder: '', until: 0, version: 0 }]);
		const { items } = await dial();
		expect(items[0].json).toMatchObject({ placed: 0, message: 'Another run of this campaign is dialling: nothing was dialled by this one.' });
		expect(dialled()).toHaveLength(1);
		// Its own row was given back: the holder of the first row is the campaign's one dialler.
		expect(leases.rows.filter((row) => row.holder !== '' && row.holder !== 'another-run')).toEqual([]);
	});

	test('the stored attempt counts: BUSY is called again up to Max Attempts, then finished', async () => {
		const [busy] = numbers(1);
		await prepared([busy]);
		fx.sandbox.setDialOutcome({ dst: busy, dialstatus: 'BUSY', ringMs: 0 });
		for (let run = 0; run < 4; run++) {
			await dial();
			await endCalls();
		}
		await dial();
		expect(dialled()).toEqual([busy, busy]);
		const row = contacts()[0];
		expect(row).toMatchObject({ campaignState: 'finished', attempt: 2, dialStatus: 'BUSY' });
		expect(String(row.reason)).toMatch(/out of attempts/);
	});

	test('a contact whose claim was never confirmed (n8n stopped between claim and POST) becomes unknown, never dialled again', async () => {
		const [first, second] = numbers(2);
		await prepared([first, second]);
		await dial({ maxCallsPerRun: 1 });
		// The state a crash right after the claim leaves: claimed, no internal_id, long ago.
		const row = contacts().find((r) => r.campaignState === 'pending')!;
		Object.assign(row, { campaignState: 'claimed', attempt: 1, claimedAt: Date.now() - 10 * 60_000, version: Number(row.version) + 1 });
		await endCalls();
		const { items } = await dial();
		expect(items[0].json).toMatchObject({ unconfirmedClaims: 1 });
		expect(row.campaignState).toBe('unknown');
		expect(String(row.reason)).toMatch(/may have been placed/);
		expect(dialled()).toHaveLength(1);
	});

	test("the platform accepted a call but the table could not be written: the output says so, the contact stays claimed and later becomes unknown", async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		n8nApi.store.faultWrites({ kind: 'fail', status: 503, times: 3, match: (data) => data.campaignState === 'placed' });
		const { error } = await dial();
		expect(error?.message).toMatch(/was placed \(internal_id .+\) but could not be recorded/);
		expect(stateOf(phone)).toBe('claimed');
		contacts()[0].claimedAt = Date.now() - 10 * 60_000;
		// The failed run could not give its dial lease back either: time passes until it ends.
		controlRows()[0].until = 0;
		await dial();
		expect(stateOf(phone)).toBe('unknown');
		expect(dialled()).toEqual([phone]);
	});

	test("the answer of the write that records a placed call is lost (n8n wrote it): read back by id and token, the contact is placed and the run goes on", async () => {
		const phones = numbers(2);
		await prepared(phones);
		n8nApi.store.faultWrites({ kind: 'lose', times: 1, match: (data) => data.campaignState === 'placed' });
		const { items, error } = await dial();
		expect(error).toBeUndefined();
		expect(contacts().map((row) => row.campaignState)).toEqual(['placed', 'placed']);
		expect(items.slice(1).map((item) => item.json.recorded)).toEqual([undefined, undefined]);
		expect(dialled().sort()).toEqual([...phones].sort());
	});

	test("the answer of a claim is lost (n8n wrote it): read back by id and token, the call is placed once and recorded", async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		n8nApi.store.faultWrites({ kind: 'lose', times: 1, match: (data) => data.campaignState === 'claimed' });
		const { error } = await dial();
		expect(error).toBeUndefined();
		expect(stateOf(phone)).toBe('placed');
		expect(dialled()).toEqual([phone]);
	});

	test('a write that n8n did not apply and whose answer failed is written again, once the row is read back unchanged', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		n8nApi.store.faultWrites({ kind: 'fail', status: 502, times: 1, match: (data) => data.campaignState === 'placed' });
		const { error } = await dial();
		expect(error).toBeUndefined();
		expect(stateOf(phone)).toBe('placed');
		expect(contacts()[0].internalId).toBe(fx.sandbox.callJournal.calls[0].internal_id);
	});

	describe("n8n's data tables at their size limit (n8n refuses every write, 400)", () => {
		const FULL = 'Validation error with data table request: Data table size limit exceeded: 200MB used, limit is 200MB';
		const cap = (times: number, match: (data: IDataObject) => boolean) => n8nApi.store.faultWrites({ kind: 'fail', status: 400, times, message: FULL, match });

		test('reached before a claim: nothing is dialled and the run says why, naming the limit', async () => {
			await prepared(numbers(3));
			cap(1000, (data) => data.campaignState === 'claimed');
			const { error } = await dial();
			expect(error?.message).toMatch(/^n8n refused the write: its data tables are at their size limit/);
			expect(error?.description).toMatch(/N8N_DATA_TABLES_MAX_SIZE_BYTES/);
			expect(posts()).toHaveLength(0);
			expect(contacts().every((row) => row.campaignState === 'pending')).toBe(true);
		});

		test("reached between a claim and its answer: that one call is reported as placed, naming the limit; no other contact is dialled; its result, unmatched to the POST, is held and the contact becomes unknown", async () => {
			const phones = numbers(3);
			await prepared(phones);
			fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
			cap(1, (data) => data.campaignState === 'placed');
			const { error } = await dial();
			expect(error?.message).toMatch(/was placed \(internal_id .+\) but could not be recorded/);
			expect(error?.description).toMatch(/its data tables are at their size limit/);
			expect(posts()).toHaveLength(1);
			const claimed = contacts().find((row) => row.campaignState === 'claimed')!;
			expect(contacts().filter((row) => row.campaignState === 'pending')).toHaveLength(2);
			// Space freed: the call's result carries the claim, but the POST's internal_id was never written to judge it by.
			await endCalls();
			const [call] = fx.sandbox.callJournal.calls;
			const result = { internal_id: call.internal_id, dialStatus: 'ANSWER', context: { campaignClaim: `${claimed.id}:${String(claimed.claimToken)}` } };
			const { items } = await campaign('recordResult', {}, [result]);
			expect(items[0].json).toMatchObject({ recorded: false, campaignState: 'claimed' });
			expect(claimed).toMatchObject({ campaignState: 'claimed', heldResult: expect.stringMatching(new RegExp(`^${call.internal_id} ANSWER`)) });
		});
	});

	test('a status answer larger than 1 MB is not read as a record: the line stays busy and the read counts as failed', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial();
		await endCalls();
		// The call's own record, padded past 1 MB: a dial run reads several at once, each bounded.
		const padding = 'x'.repeat(1024 * 1024 + 10);
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'answer', body: { dialStatus: 'ANSWER', billSec: 30, padding }, pathIdField: 'internal_id' });
		const { items, error } = await dial();
		fx.sandbox.clearFaults();
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ resultsRead: 0, statusReadsFailed: 1 });
		expect(stateOf(phone)).toBe('placed');
	});

	test.each([
		['an empty record ({})', {}],
		['a record without a dial status', { billSec: 30, trafficCost: '0.375000' }],
		["another call's record", { internal_id: 'another-call', dialStatus: 'BUSY', billSec: 0, trafficCost: '0.000000' }],
	])('%s never ends a call: the line stays busy; the next read of its own record (as the spec shows it) ends it', async (_label, body) => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial();
		await endCalls();
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'answer', body, times: 1 });
		const first = await dial();
		expect(first.error).toBeUndefined();
		expect(first.items[0].json).toMatchObject({ resultsRead: 0, statusReadsFailed: 1 });
		expect(stateOf(phone)).toBe('placed');
		const second = await dial();
		expect(second.items[0].json).toMatchObject({ resultsRead: 1, statusReadsFailed: 0 });
		expect(stateOf(phone)).toBe('answered');
		expect(dialled()).toEqual([phone]);
	});

	test("an unreadable dial lease stops the run before anything is dialled, naming the lease, not the call limit", async () => {
		await prepared(numbers(2));
		await dial({ maxCallsPerRun: 1 });
		controlRows()[0].until = 'soon';
		const { error } = await dial();
		expect(error?.message).toMatch(new RegExp(`^Not placed: the campaign's control row is unreadable \\(row \\d+ of the data table "${CONTROL_TABLE}": until must be a number\\)`));
		expect(error?.description).toMatch(/Delete that row: the next run creates it anew, holding the lines for a minute first/);
		expect(error?.description).not.toMatch(/Limit Calls Across Executions/);
		expect(posts()).toHaveLength(1);
	});

	test('the output stays bounded: at most Max Calls per Run items besides the summary, whatever happens to the contacts', async () => {
		await prepared(['12345', 'nope', '+1', 'x', '999', '+39'].concat(numbers(3)));
		const { items } = await dial({ maxCallsPerRun: 2 });
		expect(items.length).toBeLessThanOrEqual(3);
		expect(posts()).toHaveLength(0);
		expect(contacts().filter((row) => row.campaignState === 'failed')).toHaveLength(2);
	});

	test('an unknown outcome marks the contact unknown and ends the run: a failing platform does not use up the list', async () => {
		await prepared(numbers(5));
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 5 });
		const { items } = await dial();
		expect(posts()).toHaveLength(1);
		expect(contacts().filter((row) => row.campaignState === 'unknown')).toHaveLength(1);
		expect(contacts().filter((row) => row.campaignState === 'pending')).toHaveLength(4);
		expect(String(items[0].json.stoppedBecause)).toMatch(/outcome of a call is unknown/);
	});

	test("the platform refuses the account (401): the claim is given back and the run fails, naming it; nobody is marked failed", async () => {
		await prepared(numbers(3));
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 401, times: 1 });
		const { error } = await dial();
		expect(error?.message).toMatch(/No call was placed/);
		expect(contacts().every((row) => row.campaignState === 'pending' && row.attempt === 0)).toBe(true);
	});

	test('a malformed Allowed Destinations stops the run naming the field, before any contact is claimed', async () => {
		await prepared(numbers(3));
		const { error } = await dial({ allowedDestinations: '39' });
		expect(error?.message).toMatch(/^Invalid "Allowed Destinations": "39" is not a number prefix/);
		expect(contacts().filter((row) => ['claimed', 'failed', 'placed'].includes(String(row.campaignState)))).toEqual([]);
		expect(posts()).toHaveLength(0);
	});

	test('a number that appears twice is never in two calls at once', async () => {
		const [phone] = numbers(1);
		await prepared([phone, phone]);
		await dial();
		expect(dialled()).toEqual([phone]);
	});

	test('a number that cannot be dialled is marked failed from pending, never claimed: n8n stopping before that write leaves it pending, not unknown', async () => {
		const [phone] = numbers(1);
		await prepared(['n/a 449', phone]);
		// n8n refuses the write that marks it failed (as if it stopped right then): the row must not be left claimed.
		n8nApi.store.faultWrites({ kind: 'fail', status: 503, times: 3, match: (data) => data.campaignState === 'failed' });
		await dial();
		expect(stateOf('n/a 449')).toBe('pending');
		expect(contacts().find((row) => row.phone === 'n/a 449')?.attempt).toBe(0);
		await endCalls();
		await dial();
		expect(stateOf('n/a 449')).toBe('failed');
		expect(String(contacts().find((row) => row.phone === 'n/a 449')?.reason)).toMatch(/^not dialled: /);
		expect(dialled()).toEqual([phone]);
	});

	test('a row whose state someone edited to a word the campaign does not know is never dialled; the summary counts it apart', async () => {
		const phones = numbers(2);
		await prepared(phones);
		await campaign('dial', { callerId: CALLER, maxCallsInFlight: 5 }).then(() => undefined);
		expect(dialled()).toHaveLength(2);
		await endCalls();
		await dial();
		const row = contacts()[0];
		row.campaignState = 'done-by-hand';
		row.attempt = 0;
		await dial();
		expect(dialled()).toHaveLength(2);
		const { items } = await campaign('summary');
		expect(items[0].json).toMatchObject({ other: 1 });
	});

	test('a contact edited mid-campaign: a new number is dialled next time, and a placed call keeps its result', async () => {
		const [first, second] = numbers(2);
		await prepared([first, second]);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0 });
		await dial({ maxCallsInFlight: 1 });
		const placed = contacts().find((r) => r.campaignState === 'placed')!;
		const waiting = contacts().find((r) => r.campaignState === 'pending')!;
		placed.name = 'Renamed';
		waiting.phone = numbers(1, 77)[0];
		await endCalls();
		await dial({ maxCallsInFlight: 1 });
		expect(placed.campaignState).toBe('answered');
		expect(dialled()).toEqual([String(placed.phone), numbers(1, 77)[0]]);
	});

	test('outside calling hours a contact is not dialled: its next attempt moves to when its window opens', async () => {
		const [phone] = numbers(1);
		await prepared([phone], () => ({ timezone: 'Pacific/Kiritimati' }));
		const now = new Date();
		// A window of one minute, an hour ago in the contact's zone: closed now.
		const local = new Date(now.getTime() + 14 * 3_600_000 - 3_600_000);
		const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
		const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
		await dial({ callingHours: { window: [{ days, from: hhmm(local), to: hhmm(new Date(local.getTime() + 60_000)) }], timeZone: [{ timeZoneColumn: 'timezone' }] } });
		expect(posts()).toHaveLength(0);
		const row = contacts()[0];
		expect(row.campaignState).toBe('pending');
		expect(Number(row.nextAttemptAt)).toBeGreaterThan(Date.now());
		expect(String(row.reason)).toMatch(/outside calling hours/);
	});
});

describe('Record Call Result: a result is a fact, applied once, by internal_id', () => {
	async function placedCall(dialstatus: 'ANSWER' | 'BUSY') {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus, ringMs: 0 });
		await dial();
		const internalId = String(contacts()[0].internalId);
		return { phone, internalId };
	}
	const record = (internal_id: string, dialStatus: string, extra: IDataObject = {}) =>
		campaign('recordResult', { retryPolicy: { busy: 0, maxAttempts: 3 }, ...extra }, [{ internal_id, dialStatus }]);
	/** Resolves once the sandbox has answered `count` status reads in all. */
	const statusReads = () => fx.sandbox.journal.filter((e) => e.method === 'GET' && e.path.startsWith('/getDialstatus/')).length;
	async function untilStatusReads(count: number) {
		for (let waited = 0; statusReads() < count && waited < 500; waited++) await new Promise((r) => setTimeout(r, 10));
	}

	test('a result whose record is there: recorded; the same result again: already recorded, nothing changes', async () => {
		const { internalId } = await placedCall('ANSWER');
		await endCalls();
		const first = await record(internalId, 'ANSWER');
		expect(first.items[0].json).toMatchObject({ recorded: true, campaignState: 'answered', attempt: 1, suspicious: false });
		const version = contacts()[0].version;
		const again = await record(internalId, 'ANSWER');
		expect(again.items[0].json).toMatchObject({ recorded: false, reason: 'already recorded: the contact is answered', suspicious: false });
		expect(contacts()[0].version).toBe(version);
	});

	test('a forged BUSY for an answered call changes nothing, schedules no retry, and is reported suspicious', async () => {
		const { internalId } = await placedCall('ANSWER');
		await endCalls();
		await record(internalId, 'ANSWER');
		const row = { ...contacts()[0] };
		const forged = await record(internalId, 'BUSY');
		expect(forged.items[0].json).toMatchObject({
			internal_id: internalId,
			recorded: false,
			reason: 'already recorded: the contact is answered',
			suspicious: true,
			postedDialStatus: 'BUSY',
			recordedDialStatus: 'ANSWER',
		});
		// The final row is not written again: same version, same write token.
		expect(contacts()[0]).toEqual(row);
	});

	test('a result posted while the call is still live (no record within Wait for Call Record) is not believed: it waits for the record', async () => {
		const { internalId } = await placedCall('ANSWER');
		const early = await record(internalId, 'BUSY', { recordWaitSeconds: 0.2 });
		expect(early.items[0].json).toMatchObject({ recorded: false, suspicious: false });
		expect(String(early.items[0].json.reason)).toMatch(/no status record yet/);
		expect(contacts()[0].campaignState).toBe('placed');
		await endCalls();
		const real = await record(internalId, 'ANSWER');
		expect(real.items[0].json).toMatchObject({ recorded: true, campaignState: 'answered', suspicious: false });
	});

	test("a result that disagrees with the record: the record's outcome is applied, the delivery reported suspicious, never unknown", async () => {
		const { internalId } = await placedCall('ANSWER');
		await endCalls();
		const { items } = await record(internalId, 'BUSY');
		expect(items[0].json).toMatchObject({
			internal_id: internalId,
			recorded: true,
			campaignState: 'answered',
			dialStatus: 'ANSWER',
			attempt: 1,
			suspicious: true,
			postedDialStatus: 'BUSY',
			recordedDialStatus: 'ANSWER',
		});
		expect(contacts()[0]).toMatchObject({ campaignState: 'answered', dialStatus: 'ANSWER', attempt: 1 });
	});

	test('16 answered calls, each sent a forged BUSY before or after its real result: all stay answered, nobody is called again, each forgery counted', async () => {
		const phones = numbers(16);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial({ maxCallsInFlight: 16, maxCallsPerRun: 16 });
		expect(posts()).toHaveLength(16);
		await endCalls();
		const ids = contacts().map((row) => String(row.internalId));
		const input = (list: string[], dialStatus: string) => list.map((internal_id) => ({ internal_id, dialStatus }));
		const policy = { retryPolicy: { busy: 0, maxAttempts: 3 } };
		// Half the real results first; then a forged BUSY for every call; then the other half of the real results.
		await campaign('recordResult', policy, input(ids.slice(0, 8), 'ANSWER'));
		const forged = await campaign('recordResult', policy, input(ids, 'BUSY'));
		const late = await campaign('recordResult', policy, input(ids.slice(8), 'ANSWER'));
		expect(forged.error).toBeUndefined();
		expect(forged.items.map((item) => item.json)).toEqual(
			ids.map((id) => expect.objectContaining({ internal_id: id, suspicious: true, postedDialStatus: 'BUSY', recordedDialStatus: 'ANSWER' })),
		);
		expect(late.items.every((item) => item.json.recorded === false && item.json.suspicious === false)).toBe(true);
		expect(contacts().map((row) => row.campaignState)).toEqual(Array(16).fill('answered'));
		expect(contacts().every((row) => row.attempt === 1 && row.dialStatus === 'ANSWER')).toBe(true);
		await dial({ maxCallsInFlight: 16 });
		expect(posts()).toHaveLength(16);
		const { items } = await campaign('summary');
		expect(items[0].json).toMatchObject({ answered: 16, pending: 0, unknown: 0, suspiciousResults: 16 });
		// Kept in n8n's data tables (it survives a restart), in the campaign's control row: no contact row holds it.
		expect(controlRows()[0].suspiciousResults).toBe(16);
	});

	test('suspicious deliveries counted by two executions at once: neither count is lost', async () => {
		const phones = numbers(2);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial();
		await endCalls();
		const [a, b] = contacts().map((row) => String(row.internalId));
		await campaign('recordResult', {}, [{ internal_id: a, dialStatus: 'ANSWER' }, { internal_id: b, dialStatus: 'ANSWER' }, { internal_id: a, dialStatus: 'BUSY' }]);
		// Both read the count's row at the same version; one compare-and-set wins, the other reads again.
		n8nApi.store.gate.close();
		const both = [record(a, 'NOANSWER'), record(b, 'BUSY')];
		for (let waited = 0; n8nApi.store.gate.waiting() < 2 && waited < 300; waited++) await new Promise((r) => setTimeout(r, 10));
		expect(n8nApi.store.gate.waiting()).toBe(2);
		n8nApi.store.gate.open();
		const results = await Promise.all(both);
		expect(results.map((r) => r.items[0].json)).toEqual([
			expect.objectContaining({ suspicious: true, suspiciousCounted: true }),
			expect.objectContaining({ suspicious: true, suspiciousCounted: true }),
		]);
		expect((await campaign('summary')).items[0].json).toMatchObject({ answered: 2, suspiciousResults: 3 });
	});

	test('a forged BUSY arriving before the real result, while the call is live: the contact ends as the record says', async () => {
		const { internalId } = await placedCall('ANSWER');
		const forged = record(internalId, 'BUSY', { recordWaitSeconds: 30 });
		// The call ends (and its record is written) while the forged result waits for the record.
		await untilStatusReads(1);
		await endCalls();
		const { items } = await forged;
		expect(items[0].json).toMatchObject({ recorded: true, campaignState: 'answered', suspicious: true, postedDialStatus: 'BUSY', recordedDialStatus: 'ANSWER' });
		const real = await record(internalId, 'ANSWER');
		expect(real.items[0].json).toMatchObject({ recorded: false, reason: 'already recorded: the contact is answered', suspicious: false });
		expect(contacts()[0]).toMatchObject({ campaignState: 'answered', attempt: 1, dialStatus: 'ANSWER' });
		expect((await campaign('summary')).items[0].json).toMatchObject({ answered: 1, suspiciousResults: 1 });
	});

	test('a result without internal_id, or of a call the campaign does not know, is reported, not an error', async () => {
		await placedCall('ANSWER');
		const { items, error } = await campaign('recordResult', {}, [{ internal_id: '' }, { internal_id: 'not-ours-123', dialStatus: 'BUSY' }]);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.recorded)).toEqual([false, false]);
		expect(String(items[1].json.reason)).toMatch(/no contact of the campaign/);
	});

	test("one owner of the Retry Policy: a result is applied under the policy the dial run claimed the contact under (its retryPolicy column), whatever Record Call Result's node says", async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus: 'BUSY', ringMs: 0 });
		await dial({ retryPolicy: { busy: 30, maxAttempts: 4 } });
		expect(JSON.parse(String(contacts()[0].retryPolicy))).toEqual({ maxAttempts: 4, delays: { BUSY: 30 * 60_000 } });
		await endCalls();
		const { items } = await campaign('recordResult', { retryPolicy: { maxAttempts: 1 } }, [{ internal_id: contacts()[0].internalId, dialStatus: 'BUSY' }]);
		expect(items[0].json).toMatchObject({ recorded: true, campaignState: 'pending', dialStatus: 'BUSY' });
		expect(String(items[0].json.reason)).toMatch(/call again after 30 min \(attempt 2 of 4\)/);
		const due = Number(contacts()[0].nextAttemptAt) - Date.now();
		expect(due).toBeGreaterThan(29 * 60_000);
		expect(due).toBeLessThanOrEqual(30 * 60_000);
	});

	test("a person's note in reason keeps the policy (it has a column of its own); a retryPolicy cell cleared: an ANSWER is still recorded, a BUSY is left to the next dial run", async () => {
		const phones = numbers(3);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dst: phones[0], dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		fx.sandbox.setDialOutcome({ dst: phones[1], dialstatus: 'BUSY', ringMs: 0 });
		fx.sandbox.setDialOutcome({ dst: phones[2], dialstatus: 'BUSY', ringMs: 0 });
		await dial({ retryPolicy: { busy: 0, maxAttempts: 2 } });
		await endCalls();
		for (const row of contacts()) row.reason = 'called about the spring offer';
		contacts()[0].retryPolicy = null;
		contacts()[1].retryPolicy = '';
		const byPhone = (phone: string) => contacts().find((row) => row.phone === phone)!;
		const { items } = await campaign('recordResult', {}, phones.map((phone) => ({ internal_id: byPhone(phone).internalId, dialStatus: phone === phones[0] ? 'ANSWER' : 'BUSY' })));
		expect(items.map((item) => item.json.recorded)).toEqual([true, false, true]);
		expect(String(items[1].json.reason)).toMatch(/retryPolicy cell cannot be read: the next dial run records this result under its own Retry Policy/);
		expect(phones.map((phone) => byPhone(phone).campaignState)).toEqual(['answered', 'placed', 'pending']);
		const next = await dial({ retryPolicy: { busy: 0, maxAttempts: 1 }, maxCallsPerRun: 1 });
		expect(next.items[0].json).toMatchObject({ resultsRead: 1 });
		expect(byPhone(phones[1]).campaignState).toBe('finished');
	});

	test('BUSY with attempts left: pending again, due after the Retry Policy delay, the next dial places attempt 2', async () => {
		const { phone, internalId } = await placedCall('BUSY');
		await endCalls();
		await record(internalId, 'BUSY');
		expect(contacts()[0]).toMatchObject({ campaignState: 'pending', attempt: 1, dialStatus: 'BUSY' });
		await dial();
		expect(dialled()).toEqual([phone, phone]);
		expect(contacts()[0]).toMatchObject({ campaignState: 'placed', attempt: 2 });
	});
});

describe('Record Call Result: a result posted at hangup, before its record is written', () => {
	const secret = randomBytes(24).toString('hex');
	registerSecret(secret);
	let trigger: TriggerHarness;

	beforeAll(async () => {
		trigger = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
		await trigger.publish();
	});
	afterAll(async () => {
		await trigger.unpublish();
		await trigger.close();
	});
	beforeEach(() => trigger.clear());

	const statusReads = () => fx.sandbox.journal.filter((e) => e.method === 'GET' && e.path.startsWith('/getDialstatus/')).length;

	/** A contact whose call ends after 30 s; the platform posts its result at hangup and writes its record a second later. */
	async function hungUp() {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus: 'ANSWER', ringMs: 0, durationSec: 30, persistDelayMs: 1000 });
		await dial({ options: { callResultUrl: trigger.eventUrl('callResult') } });
		await fx.sandbox.clock.advance(30_000);
		await trigger.waitForStarts(1);
		return { phone, posted: trigger.starts[0].items[0].json };
	}

	test('recorded in the same execution once its record is there, so the next dial run counts the line free at once', async () => {
		const { posted } = await hungUp();
		const recording = campaign('recordResult', {}, [posted]);
		// The record is written a second after hangup, while Record Call Result waits for it.
		for (let waited = 0; statusReads() < 1 && waited < 500; waited++) await new Promise((r) => setTimeout(r, 10));
		await fx.sandbox.clock.advance(1000);
		const { items, error } = await recording;
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: posted.internal_id, recorded: true, campaignState: 'answered', dialStatus: 'ANSWER', suspicious: false });
		expect(statusReads()).toBeGreaterThanOrEqual(2);
		const next = await dial();
		expect(next.items[0].json).toMatchObject({ inFlightBefore: 0 });
	});

	test("n8n stopped after the POST, before the call's internal_id was written: its result cannot be matched to the contact's own call, so it is kept, moves nobody, and the contact becomes unknown", async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus: 'BUSY', ringMs: 0, durationSec: 30 });
		n8nApi.store.faultWrites({ kind: 'fail', status: 503, times: 3, match: (data) => data.campaignState === 'placed' });
		const placing = await dial({ options: { callResultUrl: trigger.eventUrl('callResult') }, retryPolicy: { busy: 0, maxAttempts: 3 } });
		expect(placing.error?.message).toMatch(/was placed \(internal_id .+\) but could not be recorded/);
		expect(stateOf(phone)).toBe('claimed');
		await fx.sandbox.clock.advance(31_000);
		await trigger.waitForStarts(1);
		const posted = trigger.starts[0].items[0].json;
		expect(posted.context).toEqual({ campaignClaim: expect.stringMatching(/^\d+:/) });
		// Anybody with the URL could have posted it: held in the row, not applied, the line kept.
		const { items, error } = await campaign('recordResult', {}, [posted]);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ recorded: false, campaignState: 'claimed', suspicious: false });
		expect(String(items[0].json.reason)).toMatch(/^held: the contact's call is still being placed/);
		expect(contacts()[0]).toMatchObject({ campaignState: 'claimed', heldResult: expect.stringMatching(new RegExp(`^${String(posted.internal_id)} BUSY posted `)) });
		// The next run finds the claim unconfirmed: unknown (may have been called), never dialled again automatically.
		contacts()[0].claimedAt = Date.now() - 10 * 60_000;
		controlRows().forEach((row) => Object.assign(row, { until: 0 }));
		await dial();
		expect(stateOf(phone)).toBe('unknown');
		const again = await campaign('recordResult', {}, [posted]);
		expect(again.items[0].json).toMatchObject({ recorded: false, campaignState: 'unknown' });
		expect(String(again.items[0].json.reason)).toMatch(/never confirmed by the platform/);
		const { items: summary } = await campaign('summary');
		expect(summary[0].json).toMatchObject({ unknown: 1, cannotBeWorked: 1 });
		expect((summary[0].json.needsAttention as IDataObject[])[0]).toMatchObject({ rowId: contacts()[0].id, problem: expect.stringMatching(/a result was posted for it/) });
		expect(dialled()).toEqual([phone]);
	});

	test('a claim the contact does not hold (forged, or of an earlier attempt) finds nothing and changes nothing', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		n8nApi.store.faultWrites({ kind: 'fail', status: 503, times: 3, match: (data) => data.campaignState === 'placed' });
		await dial({ options: { callResultUrl: trigger.eventUrl('callResult') } });
		await fx.sandbox.clock.advance(31_000);
		await trigger.waitForStarts(1);
		const posted = trigger.starts[0].items[0].json;
		const rowId = String(contacts()[0].id);
		const { items } = await campaign('recordResult', {}, [{ ...posted, context: { campaignClaim: `${rowId}:not-the-claim` } }]);
		expect(items[0].json).toMatchObject({ recorded: false });
		expect(String(items[0].json.reason)).toMatch(/no contact of the campaign "Spring contacts" holds this claim/);
		expect(stateOf(phone)).toBe('claimed');
		expect(contacts()[0].heldResult).toBe('');
	});

	test('Wait for Call Record 0: one read; the result waits for a later read, the line counted busy meanwhile', async () => {
		const { posted } = await hungUp();
		const { items } = await campaign('recordResult', { recordWaitSeconds: 0 }, [posted]);
		expect(items[0].json).toMatchObject({ recorded: false, suspicious: false });
		expect(String(items[0].json.reason)).toMatch(/no status record yet/);
		expect(statusReads()).toBe(1);
		expect(contacts()[0].campaignState).toBe('placed');
		const busy = await dial();
		expect(busy.items[0].json).toMatchObject({ inFlightBefore: 1 });
		await fx.sandbox.clock.advance(1000);
		const next = await dial();
		expect(next.items[0].json).toMatchObject({ resultsRead: 1, inFlightBefore: 0 });
		expect(contacts()[0].campaignState).toBe('answered');
	});
});

describe('control without editing the workflow', () => {
	test('Pause: dial runs place nothing; Resume: they go on; Stop: for good', async () => {
		await prepared(numbers(4));
		expect((await campaign('pause')).items[0].json).toMatchObject({ status: 'paused', previousStatus: 'running' });
		const paused = await dial();
		expect(paused.items[0].json).toMatchObject({ status: 'paused', placed: 0 });
		expect(posts()).toHaveLength(0);
		await campaign('resume');
		await dial();
		expect(posts()).toHaveLength(3);
		await campaign('stop');
		const { error } = await campaign('resume');
		expect(error?.message).toMatch(/is stopped: it cannot be resumed/);
		await endCalls();
		await dial();
		expect(posts()).toHaveLength(3);
	});

	test('Get Summary counts the contacts by state, in flight and due', async () => {
		await prepared(numbers(5));
		await dial();
		n8nApi.store.seed('other', [{ phone: '+1' }]);
		const { items } = await campaign('summary');
		expect(items[0].json).toMatchObject({ campaign: TABLE, status: 'running', contacts: 5, placed: 3, pending: 2, inFlight: 3, dueNow: 2, answered: 0, unknown: 0, suspiciousResults: 0 });
	});

	test('Get Contacts: the results view, one item per contact (its own columns, state, attempts, outcome, next call, why), filtered by state', async () => {
		const phones = numbers(3);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dst: phones[0], dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		fx.sandbox.setDialOutcome({ dst: phones[1], dialstatus: 'BUSY', ringMs: 0 });
		await dial({ maxCallsInFlight: 2, retryPolicy: { busy: 10, maxAttempts: 2 } });
		await endCalls();
		await dial({ maxCallsInFlight: 2, maxCallsPerRun: 1, retryPolicy: { busy: 10, maxAttempts: 2 } });
		const all = await campaign('contacts', { returnAll: true });
		expect(all.error).toBeUndefined();
		const byPhone = new Map(all.items.map((item) => [item.json.phone, item.json]));
		expect(byPhone.get(phones[0])).toMatchObject({ name: `Contact ${phones[0].slice(-4)}`, state: 'answered', attempts: 1, dialStatus: 'ANSWER', nextCallAt: null, internal_id: expect.any(String) });
		const busy = byPhone.get(phones[1])!;
		expect(busy).toMatchObject({ state: 'pending', attempts: 1, dialStatus: 'BUSY' });
		expect(Date.parse(String(busy.nextCallAt)) - Date.now()).toBeGreaterThan(9 * 60_000);
		expect(String(busy.reason)).toMatch(/call again after 10 min/);
		for (const item of all.items) expect(Object.keys(item.json).filter((key) => ['version', 'writeToken', 'claimToken', 'retryPolicy'].includes(key))).toEqual([]);
		const answered = await campaign('contacts', { states: ['answered'], returnAll: false, limit: 10 });
		expect(answered.items.map((item) => item.json.phone)).toEqual([phones[0]]);
		const one = await campaign('contacts', { returnAll: false, limit: 1 });
		expect(one.items).toHaveLength(1);
		const bad = await campaign('contacts', { states: ['done'] });
		expect(bad.error?.message).toMatch(/^Invalid "States": must be a list of new, pending, claimed/);
	});

	test('contacts added while the campaign runs are dialled by the next run', async () => {
		await prepared(numbers(1));
		await dial();
		const table = n8nApi.store.tables.find((t) => t.name === TABLE)!;
		table.rows.push({ id: 9999, phone: numbers(1, 50)[0], name: 'Late', campaignState: null } as never);
		await dial();
		expect(dialled()).toEqual([numbers(1)[0], numbers(1, 50)[0]]);
	});
});
