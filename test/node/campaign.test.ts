import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { maxInFlight } from '../../sandbox';
import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { assistantKeysOf, callerAssistant, startSandbox, useSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

/*
 * Outbound Call → Place Call with Campaign options, through n8n-core's WorkflowExecute against the
 * sandbox: the attempt and Result Context in the Call Result URL, calling hours and the Earliest Call
 * Time (items not dialled come out with the time they may be), numbers not dialled twice for an attempt,
 * Max Calls in Flight (calls followed to their end on Call Status, a 429 waited out), the Retry Policy's
 * decision, and every bad input refused before anything is dialled.
 */

const CALLER = '+390212345678';
const RESULT_URL = 'https://n8n.example.com/webhook/3f1c/0123456789abcdef0123456789abcdef/call-result';

function place(fx: SandboxFixture, parameters: IDataObject, options: Partial<Omit<RunOptions, 'parameters' | 'credentials'>> = {}) {
	return runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', callerId: CALLER, ...parameters },
		credentials: fx.credentials,
		...options,
	}).then((result) => {
		const text = JSON.stringify([result.items, result.error?.message, result.error?.description]);
		for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox)]) expect(text).not.toContain(key);
		return result;
	});
}

const json = (items: INodeExecutionData[]) => items.map((item) => item.json);
const posts = (fx: SandboxFixture) => fx.sandbox.journal.filter((e) => e.method === 'POST');
const items = (...rows: IDataObject[]) => rows.map((row) => ({ json: row }));

/** "HH:MM" in UTC, `minutes` from now. */
function utcClock(minutes: number): string {
	const d = new Date(Date.now() + minutes * 60_000);
	return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

describe('Place Call with Campaign options (manual clock)', () => {
	const fx = useSandbox();
	beforeEach(() => callerAssistant(fx, CALLER));

	describe('attempt and Result Context travel in the Call Result URL', () => {
		test('the query gets ctx_attempt and one ctx_<name> per field; the output carries them; the URL is shown without its query', async () => {
			const { items: out, error } = await place(fx, {
				dst: '={{ $json.phone }}',
				options: { callResultUrl: RESULT_URL },
				campaign: {
					attempt: '={{ $json.attempt }}',
					resultContext: {
						fields: [
							{ name: 'customer', value: '={{ $json.customer }}' },
							{ name: 'name', value: '={{ $json.name }}' },
							{ name: 'score', value: '={{ $json.score }}' },
						],
					},
				},
			}, { items: items({ phone: '+14155550123', attempt: 2, customer: 'C-1042', name: 'Ada Löwe & co', score: 7 }) });
			expect(error).toBeUndefined();
			const [post] = posts(fx);
			expect(post.body).toMatchObject({
				callResultUrl: `${RESULT_URL}?ctx_attempt=2&ctx_customer=C-1042&ctx_name=Ada+L%C3%B6we+%26+co&ctx_score=7`,
			});
			expect(json(out)).toEqual([
				expect.objectContaining({
					internal_id: expect.any(String),
					pending: true,
					callResultUrl: 'https://n8n.example.com/webhook/3f1c/***/call-result?***',
					attempt: 2,
					context: { customer: 'C-1042', name: 'Ada Löwe & co', score: '7' },
					nextCall: expect.objectContaining({ callAgain: false, at: null, attempt: null, reason: expect.stringContaining('not known yet') }),
				}),
			]);
		});

		test('a query the URL has already is kept; the context is added after it', async () => {
			await place(fx, {
				dst: '+14155550123',
				options: { callResultUrl: `${RESULT_URL}?source=crm#top` },
				campaign: { resultContext: { fields: [{ name: 'customer', value: 'C-1' }] } },
			});
			expect(posts(fx)[0].body).toMatchObject({ callResultUrl: `${RESULT_URL}?source=crm&ctx_attempt=1&ctx_customer=C-1#top` });
		});

		test('legacy field names: the context goes into url_esito_chiamata', async () => {
			await place(fx, {
				dst: '+14155550123',
				options: { callResultUrl: RESULT_URL, legacyFieldNames: true },
				campaign: { attempt: 3 },
			});
			expect(posts(fx)[0].body).toMatchObject({ url_esito_chiamata: `${RESULT_URL}?ctx_attempt=3` });
		});

		test('without a Call Result URL nothing is added to the request; the output still carries attempt and context', async () => {
			const { items: out } = await place(fx, { dst: '+14155550123', campaign: { resultContext: { fields: [{ name: 'customer', value: 'C-9' }] } } });
			expect(posts(fx)[0].body).not.toHaveProperty('callResultUrl');
			expect(out[0].json).toMatchObject({ attempt: 1, context: { customer: 'C-9' } });
		});

		test('without Campaign options Place Call sends and outputs what it did before', async () => {
			const { items: out } = await place(fx, { dst: '+14155550123', options: { callResultUrl: RESULT_URL } });
			expect(posts(fx)[0].body).toMatchObject({ callResultUrl: RESULT_URL });
			expect(out[0].json).not.toHaveProperty('attempt');
			expect(out[0].json).not.toHaveProperty('nextCall');
		});
	});

	describe('bad input: a clear error naming the field, nothing dialled', () => {
		const cases: Array<[string, IDataObject, string]> = [
			[
				'more fields than allowed',
				{ resultContext: { fields: Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, value: 'x' })) } },
				'Invalid "Campaign > Result Context": has 11 fields; at most 10 are carried to the result',
			],
			[
				'a value that is too long',
				{ resultContext: { fields: [{ name: 'note', value: 'x'.repeat(201) }] } },
				'Invalid "Campaign > Result Context": "note" has 201 characters; at most 200 are carried',
			],
			[
				'a context too large once encoded',
				{ resultContext: { fields: Array.from({ length: 10 }, (_, i) => ({ name: `f${i}`, value: 'é'.repeat(30) })) } },
				'Invalid "Campaign > Result Context": is 1893 bytes once encoded for the Call Result URL; at most 1024',
			],
			[
				'a line break in a value',
				{ resultContext: { fields: [{ name: 'note', value: 'first\nsecond' }] } },
				'Invalid "Campaign > Result Context": "note" contains a control character',
			],
			[
				'a broken character (an unpaired surrogate) in a value',
				{ resultContext: { fields: [{ name: 'note', value: 'a\ud800b' }] } },
				'Invalid "Campaign > Result Context": "note" contains a control character (line break, tab, ...) or a broken character',
			],
			[
				'a name with a character a query name should not have',
				{ resultContext: { fields: [{ name: 'first-name', value: 'Ada' }] } },
				'Invalid "Campaign > Result Context": field name "first-name" is not allowed',
			],
			[
				'the name "attempt"',
				{ resultContext: { fields: [{ name: 'attempt', value: '2' }] } },
				'Invalid "Campaign > Result Context": must not name a field "attempt": set Campaign > Attempt instead',
			],
			[
				'a name twice',
				{ resultContext: { fields: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] } },
				'Invalid "Campaign > Result Context": names "a" twice',
			],
			[
				'an object as a value',
				{ resultContext: { fields: [{ name: 'a', value: '={{ { x: 1 } }}' }] } },
				'Invalid "Campaign > Result Context": "a" must be text or a number, not an object',
			],
			['an attempt that is not a number', { attempt: '={{ "second" }}' }, 'Invalid "Campaign > Attempt": must be a whole number from 1 to 100 (got "second")'],
			['an attempt of 0', { attempt: 0 }, 'Invalid "Campaign > Attempt": must be a whole number from 1 to 100 (got 0)'],
			['an attempt of 1.5', { attempt: 1.5 }, 'Invalid "Campaign > Attempt": must be a whole number from 1 to 100 (got 1.5)'],
			[
				'an unknown time zone',
				{ callingHours: { window: { days: ALL_DAYS, from: '09:00', to: '17:00', timeZone: 'Mars/Olympus_Mons' } } },
				'Invalid "Calling Hours > Time Zone": unknown time zone "Mars/Olympus_Mons"',
			],
			[
				'a window whose end equals its start',
				{ callingHours: { window: { days: ALL_DAYS, from: '10:00', to: '10:00', timeZone: 'UTC' } } },
				'Invalid "Calling Hours > To": must differ from From (10:00)',
			],
			['a cap of 0', { maxCallsInFlight: 0 }, 'Invalid "Campaign > Max Calls in Flight": must be a whole number from 1 to 1000 (got 0)'],
			['a cap that is not a number', { maxCallsInFlight: 'five' }, 'Invalid "Campaign > Max Calls in Flight": must be a whole number from 1 to 1000 (got "five")'],
			['an Earliest Call Time that is not a time', { notBefore: 'tomorrow-ish' }, 'Invalid "Campaign > Earliest Call Time": must be a date and time'],
			['a status check interval of 0', { maxCallsInFlight: 2, statusCheckInterval: 0 }, 'Invalid "Campaign > Status Check Interval (Seconds)": must be a number from 0.01 to 600 (got 0)'],
		];

		test.each(cases)('%s', async (_label, campaign, message) => {
			const { error } = await place(fx, { dst: '={{ $json.phone }}', options: { callResultUrl: RESULT_URL }, campaign }, {
				items: items({ phone: '+14155550123' }, { phone: '+14155550124' }),
			});
			expect(error?.message).toContain(message);
			expect(error?.description).toContain('rejected before anything was sent');
			expect(fx.sandbox.journal).toHaveLength(0);
		});

		test('a retry policy that cannot be followed: an attempt count that is not a number, a status never called again', async () => {
			for (const [retryPolicy, message] of [
				[{ maxAttempts: 'three' }, 'Invalid "Retry Policy > Max Attempts": must be a whole number from 1 to 20 (got "three")'],
				[{ other: 'ANSWER=5' }, 'Invalid "Retry Policy > Retry Other Dial Statuses": must not list ANSWER: answered: never called again'],
				[{ other: 'DONTCALL=60' }, 'Invalid "Retry Policy > Retry Other Dial Statuses": must not list DONTCALL'],
				[{ other: 'TORTURE' }, 'Invalid "Retry Policy > Retry Other Dial Statuses": each entry must be STATUS=minutes'],
				[{ busy: -1 }, 'Invalid "Retry Policy > Retry BUSY After (Minutes)": must be a number of minutes from 0 to 10080 (got -1)'],
			] as Array<[IDataObject, string]>) {
				const { error } = await place(fx, { dst: '+14155550123', campaign: { attempt: 1 }, retryPolicy });
				expect(error?.message).toEqual(expect.stringContaining(message));
			}
			expect(fx.sandbox.journal).toHaveLength(0);
		});

		test('a Call Result URL that has context parameters already', async () => {
			const { error } = await place(fx, { dst: '+14155550123', options: { callResultUrl: `${RESULT_URL}?ctx_attempt=9` }, campaign: { attempt: 1 } });
			expect(error?.message).toBe(
				'Invalid "Call Result URL": must not have a query parameter starting with "ctx_" (ctx_attempt): Campaign > Attempt and Result Context add them. No call was placed.',
			);
			expect(fx.sandbox.journal).toHaveLength(0);
		});

		test('with Continue On Fail the bad item says why and the others are dialled', async () => {
			const { items: out, error } = await place(
				fx,
				{ dst: '={{ $json.phone }}', campaign: { attempt: '={{ $json.attempt }}' } },
				{ items: items({ phone: '+14155550123', attempt: 1 }, { phone: '+14155550124', attempt: 'x' }), continueOnFail: true },
			);
			expect(error).toBeUndefined();
			expect(out[1].json).toMatchObject({ outcome: 'invalid', placed: false, error: expect.stringContaining('Campaign > Attempt') });
			expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123']);
		});
	});

	describe('calling hours and Earliest Call Time', () => {
		test('an item outside its window is not dialled; it comes out (not an error) with the time the window opens', async () => {
			const closed = { days: ALL_DAYS, from: utcClock(120), to: utcClock(180), timeZone: 'UTC' };
			const before = Date.now();
			const { items: out, error } = await place(fx, { dst: '+14155550123', campaign: { callingHours: { window: closed } } });
			expect(error).toBeUndefined();
			expect(fx.sandbox.journal).toHaveLength(0);
			const opens = Math.floor((before + 120 * 60_000) / 60_000) * 60_000;
			expect(out[0].json).toEqual({
				placed: false,
				outcome: 'deferred',
				reason: expect.stringMatching(/^outside calling hours \(Mon Tue Wed Thu Fri Sat Sun \d\d:\d\d-\d\d:\d\d UTC\): not dialled; the window opens at /),
				route: 'trunk',
				dst: '+14155550123',
				callerId: CALLER,
				attempt: 1,
				context: {},
				nextCall: { callAgain: true, at: new Date(opens).toISOString(), attempt: 1, reason: expect.stringContaining('outside calling hours') },
			});
		});

		test("each item in its own time zone (an expression): the one whose local time is inside is dialled, the other waits for its 09:00", async () => {
			const hour = new Date().getUTCHours();
			const zoneAt = (localHour: number) => {
				let offset = localHour - hour;
				if (offset > 12) offset -= 24;
				if (offset < -11) offset += 24;
				return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
			};
			const { items: out } = await place(
				fx,
				{
					dst: '={{ $json.phone }}',
					campaign: { callingHours: { window: { days: ALL_DAYS, from: '09:00', to: '17:00', timeZone: '={{ $json.tz }}' } } },
				},
				{ items: items({ phone: '+14155550123', tz: zoneAt(12) }, { phone: '+14155550124', tz: zoneAt(3) }) },
			);
			expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123']);
			expect(out[0].json).toMatchObject({ pending: true, attempt: 1 });
			const next = Date.parse(String((out[1].json.nextCall as IDataObject).at));
			// 03:xx local now, so 09:00 local is 5 to 6 hours away, on the hour.
			expect(next - Date.now()).toBeGreaterThan(5 * 3600_000 - 60_000);
			expect(next - Date.now()).toBeLessThanOrEqual(6 * 3600_000);
			expect(next % 3600_000).toBe(0);
		});

		test('an Earliest Call Time still to come defers the item until then; one that has passed does not', async () => {
			const later = new Date(Date.now() + 90_000).toISOString();
			const { items: out } = await place(
				fx,
				{ dst: '={{ $json.phone }}', campaign: { notBefore: '={{ $json.callAt }}', attempt: 2 } },
				{ items: items({ phone: '+14155550123', callAt: later }, { phone: '+14155550124', callAt: new Date(Date.now() - 1000).toISOString() }) },
			);
			expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550124']);
			expect(out[0].json).toMatchObject({
				placed: false,
				outcome: 'deferred',
				reason: `Earliest Call Time not reached: not dialled before ${later}`,
				nextCall: { callAgain: true, at: later, attempt: 2 },
			});
		});

		test('an Earliest Call Time inside closed calling hours waits for the window after it', async () => {
			const notBefore = new Date(Date.now() + 60_000).toISOString();
			const { items: out } = await place(fx, {
				dst: '+14155550123',
				campaign: { notBefore, callingHours: { window: { days: ALL_DAYS, from: utcClock(240), to: utcClock(300), timeZone: 'UTC' } } },
			});
			const at = Date.parse(String((out[0].json.nextCall as IDataObject).at));
			expect(at).toBeGreaterThan(Date.now() + 230 * 60_000);
		});
	});

	describe('no number twice in one execution', () => {
		test('the same number for the same attempt is dialled once; the next item says so; another attempt is dialled', async () => {
			const { items: out } = await place(
				fx,
				{ dst: '={{ $json.phone }}', campaign: { attempt: '={{ $json.attempt }}' } },
				{
					items: items(
						{ phone: '+14155550123', attempt: 1 },
						{ phone: '+14155550123', attempt: 1 },
						{ phone: '+14155550124', attempt: 1 },
						{ phone: '+14155550123', attempt: 2 },
					),
				},
			);
			expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123', '+14155550124', '+14155550123']);
			expect(out[1].json).toEqual({
				placed: false,
				outcome: 'skipped',
				reason: '+14155550123 was already dialled in this execution for attempt 1 (item 0): not dialled again',
				route: 'trunk',
				dst: '+14155550123',
				callerId: CALLER,
				attempt: 1,
				context: {},
				nextCall: { callAgain: false, at: null, attempt: null, reason: expect.stringContaining('already dialled') },
			});
			expect(out.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		});

		test('two items of one batch with the same number: one call (the number is taken before the POST)', async () => {
			await place(
				fx,
				{ dst: '={{ $json.phone }}', campaign: { attempt: 1 }, requestOptions: { batching: { batch: { batchSize: 5, batchInterval: 0 } } } },
				{ items: items({ phone: '+14155550123' }, { phone: '+14155550123' }, { phone: '+14155550123' }) },
			);
			expect(posts(fx)).toHaveLength(1);
		});

		test('a refused call does not take the number: the next item with it is dialled', async () => {
			const { items: out } = await place(
				fx,
				{ dst: '={{ $json.phone }}', callerId: '={{ $json.callerNumber }}', campaign: { attempt: 1 } },
				{ items: items({ phone: '+14155550123', callerNumber: '+390299999999' }, { phone: '+14155550123', callerNumber: CALLER }), continueOnFail: true },
			);
			expect(out.map((item) => item.json.outcome ?? 'placed')).toEqual(['rejected', 'placed']);
			expect(out[0].json).toMatchObject({ code: 'CALLER_ID_NOT_ASSIGNED', attempt: 1, nextCall: { callAgain: false, reason: expect.stringContaining('not placed') } });
		});

		test('a placement whose outcome is unknown is never called again, in the words Call and Wait uses', async () => {
			fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
			const { items: out } = await place(fx, { dst: '+14155550123', campaign: { attempt: 1 } }, { items: items({}), continueOnFail: true });
			expect(out[0].json).toMatchObject({
				outcome: 'unknown',
				nextCall: { callAgain: false, at: null, attempt: null, reason: 'outcome unknown: the call may have been placed; never called again automatically' },
			});
		});

		test('Skip Numbers Already Called off: every item is dialled', async () => {
			await place(fx, { dst: '+14155550123', campaign: { skipRepeatedNumbers: false } }, { items: items({}, {}) });
			expect(posts(fx)).toHaveLength(2);
		});
	});
});

describe('Place Call with Max Calls in Flight (sandbox clock 1,000 times faster)', () => {
	let fx: SandboxFixture;
	beforeAll(async () => {
		fx = await startSandbox({ clock: 'real', clockSpeed: 1000, persistDelayMs: 0 });
	});
	afterAll(async () => {
		await fx.sandbox.stop();
	});
	beforeEach(() => {
		fx.sandbox.reset();
		callerAssistant(fx, CALLER);
	});

	const numbers = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`);
	const dial = (phones: string[], campaign: IDataObject, extra: IDataObject = {}, options: Partial<RunOptions> = {}) =>
		place(
			fx,
			{ dst: '={{ $json.phone }}', campaign: { statusCheckInterval: 0.01, ...campaign }, ...extra },
			{ items: items(...phones.map((phone) => ({ phone }))), ...options },
		);

	test('never more calls ringing or talking than the cap; every call placed once and followed to its end', async () => {
		// Calls of 20 to 40 s (20 to 40 ms of wall time).
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: [1000, 3000], durationSec: [20, 40] });
		const phones = numbers(24);
		const { items: out, error } = await dial(phones, { maxCallsInFlight: 3 });
		expect(error).toBeUndefined();
		const calls = fx.sandbox.callJournal.calls;
		expect(calls.map((c) => c.dst).sort()).toEqual([...phones].sort());
		expect(maxInFlight(calls)).toBe(3);
		expect(fx.sandbox.callJournal.refusals).toHaveLength(0);
		expect(out).toHaveLength(24);
		for (const [i, item] of out.entries()) {
			const call = calls.find((c) => c.dst === phones[i])!;
			expect(item.json).toMatchObject({
				internal_id: call.internal_id,
				dst: phones[i],
				dialStatus: 'ANSWER',
				billSec: call.durationSec,
				pending: false,
				resultSource: 'status',
				attempt: 1,
				nextCall: { callAgain: false, reason: 'answered: never called again' },
			});
			expect(item.json).not.toHaveProperty('status');
		}
		// A status read only for calls in progress, never more than one per call per check.
		const reads = fx.sandbox.journal.filter((e) => e.method === 'GET').length;
		expect(reads).toBeGreaterThanOrEqual(24);
	});

	test('each ended call carries the Retry Policy decision: when, which attempt, why', async () => {
		const [busy, noAnswer, lastTry, unavailable, dontCall] = numbers(5, 100);
		fx.sandbox.setDialOutcome({ dst: busy, dialstatus: 'BUSY', ringMs: 2000 });
		fx.sandbox.setDialOutcome({ dst: noAnswer, dialstatus: 'NOANSWER', ringMs: 5000 });
		fx.sandbox.setDialOutcome({ dst: lastTry, dialstatus: 'NOANSWER', ringMs: 5000 });
		fx.sandbox.setDialOutcome({ dst: unavailable, dialstatus: 'CHANUNAVAIL', ringMs: 1000 });
		fx.sandbox.setDialOutcome({ dst: dontCall, dialstatus: 'DONTCALL', ringMs: 1000 });
		const { items: out } = await place(
			fx,
			{
				dst: '={{ $json.phone }}',
				campaign: { maxCallsInFlight: 5, statusCheckInterval: 0.01, attempt: '={{ $json.attempt }}' },
				retryPolicy: { maxAttempts: 3, busy: 5, noAnswer: 30 },
			},
			{ items: items({ phone: busy, attempt: 1 }, { phone: noAnswer, attempt: 2 }, { phone: lastTry, attempt: 3 }, { phone: unavailable, attempt: 1 }, { phone: dontCall, attempt: 1 }) },
		);
		const decisions = out.map((item) => item.json.nextCall as IDataObject);
		const readAt = (i: number) => Date.parse(String(out[i].json.resultReadAt));
		expect(decisions[0]).toEqual({ callAgain: true, at: new Date(readAt(0) + 5 * 60_000).toISOString(), attempt: 2, reason: 'BUSY: call again after 5 min (attempt 2 of 3)' });
		expect(decisions[1]).toEqual({ callAgain: true, at: new Date(readAt(1) + 30 * 60_000).toISOString(), attempt: 3, reason: 'NOANSWER: call again after 30 min (attempt 3 of 3)' });
		expect(decisions[2]).toEqual({ callAgain: false, at: null, attempt: null, reason: 'NOANSWER: out of attempts (attempt 3 of 3)' });
		expect(decisions[3]).toEqual({ callAgain: false, at: null, attempt: null, reason: 'CHANUNAVAIL: the Retry Policy does not call CHANUNAVAIL again' });
		expect(decisions[4]).toEqual({ callAgain: false, at: null, attempt: null, reason: 'DONTCALL: the person asked not to be called; never called again' });
	});

	test('a 429 from an account that other workflows share is waited out and the same call placed then: no call lost, none twice', async () => {
		fx.sandbox.setAccountLimit(2);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: [20, 30] });
		const phones = numbers(10, 200);
		const { items: out, error } = await dial(phones, { maxCallsInFlight: 4 });
		expect(error).toBeUndefined();
		const { calls, refusals } = fx.sandbox.callJournal;
		expect(refusals.length).toBeGreaterThan(0);
		expect(calls.map((c) => c.dst).sort()).toEqual([...phones].sort());
		expect(new Set(calls.map((c) => c.dst)).size).toBe(10);
		expect(maxInFlight(calls)).toBe(2);
		expect(out.filter((item) => item.json.dialStatus !== 'ANSWER').map((item) => item.json)).toEqual([]);
	});

	test("outside calling hours and already dialled are decided when the item's turn comes, with the cap too", async () => {
		const phones = numbers(3, 300);
		const { items: out } = await place(
			fx,
			{
				dst: '={{ $json.phone }}',
				campaign: {
					maxCallsInFlight: 2,
					statusCheckInterval: 0.01,
					callingHours: { window: { days: ALL_DAYS, from: '={{ $json.from }}', to: '={{ $json.to }}', timeZone: 'UTC' } },
				},
			},
			{
				items: items(
					{ phone: phones[0], from: utcClock(-60), to: utcClock(60) },
					{ phone: phones[1], from: utcClock(60), to: utcClock(120) },
					{ phone: phones[0], from: utcClock(-60), to: utcClock(60) },
				),
			},
		);
		expect(out.map((item) => item.json.outcome ?? item.json.dialStatus)).toEqual(['ANSWER', 'deferred', 'skipped']);
		expect(fx.sandbox.callJournal.calls.map((c) => c.dst)).toEqual([phones[0]]);
	});

	test('a call whose record never appears is given up on after Max Call Length: its line counted free, its outcome unknown', async () => {
		const [stuck, fine] = numbers(2, 400);
		fx.sandbox.setDialOutcome({ dst: stuck, dialstatus: 'ANSWER', ringMs: 0, durationSec: 3600 }); // 3.6 s of wall time
		fx.sandbox.setDialOutcome({ dst: fine, dialstatus: 'BUSY', ringMs: 100 });
		const { items: out } = await dial([stuck, fine], { maxCallsInFlight: 1, maxCallMinutes: 0.01 }, { retryPolicy: { busy: 1 } });
		expect(out[0].json).toMatchObject({
			pending: true,
			dialStatus: null,
			statusRecord: 'pending',
			message: expect.stringContaining('did not appear within Max Call Length'),
			nextCall: { callAgain: false, reason: expect.stringContaining('outcome unknown') },
		});
		expect(out[1].json).toMatchObject({ dialStatus: 'BUSY', nextCall: { callAgain: true, attempt: 2 } });
	});

	test('a failure without Continue On Fail stops placing and names the calls already placed', async () => {
		const phones = numbers(4, 500);
		const { error } = await place(
			fx,
			{ dst: '={{ $json.phone }}', callerId: '={{ $json.callerNumber }}', campaign: { maxCallsInFlight: 2, statusCheckInterval: 0.01 } },
			{ items: items({ phone: phones[0], callerNumber: CALLER }, { phone: phones[1], callerNumber: '+390299999999' }, { phone: phones[2], callerNumber: CALLER }) },
		);
		expect(error?.message).toContain('CALLER_ID_NOT_ASSIGNED');
		expect(error?.description).toContain('1 call(s) were already placed in this run');
		expect(fx.sandbox.callJournal.calls.map((c) => c.dst)).toEqual([phones[0]]);
	});
});
