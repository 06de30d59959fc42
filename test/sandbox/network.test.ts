import { maxInFlight } from '../../sandbox';
import { call, expectError, expectRichError, Receiver, startSandbox, useSandboxAndReceiver, waitFor } from './helpers';

/*
 * The sandbox as a telephone network: outcomes per number and attempt, call lengths, results posted at
 * each call's end to its callResultUrl (query string kept), the record at hangup, the account's limit of
 * calls in flight (429 with a code and Retry-After), the call journal, and a clock that runs faster.
 */

const fx = useSandboxAndReceiver();

function caller() {
	const a = [...fx.sandbox.state.assistants].find((x) => x.name === 'Reception Desk')!;
	return { assistantApiKey: a.assistantApiKey, callerId: '+390200001001' };
}

async function place(dst: string, callResultUrl = `${fx.rx.url}/result`) {
	return await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { ...caller(), dst, callResultUrl } });
}

function status(id: string) {
	return call(fx.sandbox, 'GET', `/getDialstatus/${id}`);
}

describe('outcomes per number and attempt', () => {
	it('busy on the first two attempts, then answered: each call to the number takes the next step, the last repeats', async () => {
		fx.sandbox.setDialOutcome({
			dst: '+14155550111',
			persistDelayMs: 0,
			attempts: [
				{ dialstatus: 'BUSY', ringMs: 2000 },
				{ dialstatus: 'BUSY', ringMs: 3000 },
				{ dialstatus: 'ANSWER', ringMs: 5000, durationSec: 61 },
			],
		});
		const outcomes: Array<[string, number]> = [];
		for (const expected of [2000, 3000, 66_000, 66_000]) {
			fx.rx.clear();
			const { body } = await place('+14155550111');
			await fx.sandbox.clock.advance(expected - 1);
			expect(fx.rx.received).toHaveLength(0);
			await fx.sandbox.clock.advance(1);
			expect(fx.rx.received).toHaveLength(1);
			outcomes.push([fx.rx.received[0].body.dialstatus, fx.rx.received[0].body.duration]);
			expect(fx.rx.received[0].body.internal_id).toBe(body.internal_id);
		}
		expect(outcomes).toEqual([
			['BUSY', 0],
			['BUSY', 0],
			['ANSWER', 61],
			['ANSWER', 61],
		]);
		expect(fx.sandbox.callJournal.calls.map((c) => [c.attempt, c.dialstatus])).toEqual([
			[1, 'BUSY'],
			[2, 'BUSY'],
			[3, 'ANSWER'],
			[4, 'ANSWER'],
		]);
	});

	it('never answered, unavailable, and the statuses Asterisk adds (CHANUNAVAIL, DONTCALL, TORTURE, INVALIDARGS)', async () => {
		const numbers = {
			'+14155550121': 'NOANSWER',
			'+14155550122': 'CHANUNAVAIL',
			'+14155550123': 'DONTCALL',
			'+14155550124': 'TORTURE',
			'+14155550125': 'INVALIDARGS',
		} as const;
		for (const [dst, dialstatus] of Object.entries(numbers)) fx.sandbox.setDialOutcome({ dst, attempts: [{ dialstatus, ringMs: 100 }] });
		for (const dst of Object.keys(numbers)) await place(dst);
		for (const dst of Object.keys(numbers)) await place(dst);
		await fx.sandbox.clock.advance(100);
		expect(fx.rx.received.map((r) => r.body.dialstatus)).toEqual([...Object.values(numbers), ...Object.values(numbers)]);
	});

	it('prefix rules: the longest matching prefix wins, an exact number first, the default rule last', async () => {
		fx.sandbox.setDialOutcome({ prefix: '+1415', dialstatus: 'BUSY', ringMs: 10 });
		fx.sandbox.setDialOutcome({ prefix: '+141555', dialstatus: 'NOANSWER', ringMs: 10 });
		fx.sandbox.setDialOutcome({ dst: '+14155550131', dialstatus: 'CONGESTION', ringMs: 10 });
		fx.sandbox.setDialOutcome({ dialstatus: 'FAILED', ringMs: 10 });
		for (const dst of ['+14155550131', '+14155550132', '+14159990000', '+442079460000']) await place(dst, `${fx.rx.url}/${dst.slice(1)}`);
		await fx.sandbox.clock.advance(10);
		expect(Object.fromEntries(fx.rx.received.map((r) => [r.path, r.body.dialstatus]))).toEqual({
			'/14155550131': 'CONGESTION',
			'/14155550132': 'NOANSWER',
			'/14159990000': 'BUSY',
			'/442079460000': 'FAILED',
		});
	});

	it('call lengths from a range: drawn per number and attempt, the same on every run, within the range', async () => {
		const rule = { prefix: '+1202', attempts: [{ dialstatus: 'ANSWER' as const, ringMs: 0, durationSec: [50, 85] as [number, number] }] };
		const lengths = async () => {
			fx.sandbox.reset();
			fx.sandbox.setDialOutcome(rule);
			for (let i = 0; i < 40; i++) await place(`+1202555${String(i).padStart(4, '0')}`);
			return fx.sandbox.callJournal.calls.map((c) => c.durationSec);
		};
		const first = await lengths();
		expect(await lengths()).toEqual(first);
		expect(first.filter((d) => d < 50 || d > 85)).toEqual([]);
		expect(new Set(first).size).toBeGreaterThan(15);
	});

	it('the result is posted at the end of the call to its callResultUrl with the query string kept; the record appears at hangup', async () => {
		fx.sandbox.setDialOutcome({ dst: '+14155550141', dialstatus: 'ANSWER', ringMs: 1000, durationSec: 9, persistDelayMs: 0 });
		const url = `${fx.rx.url}/webhook/abc/secret/call-result?ctx_contactId=c-17&ctx_attempt=2&ctx_name=Ada%20L%C3%B6we`;
		const { body } = await place('+14155550141', url);
		expectError(await status(body.internal_id), 404, 'CALL_RECORD_NOT_FOUND');
		await fx.sandbox.clock.advance(9999);
		expectError(await status(body.internal_id), 404, 'CALL_RECORD_NOT_FOUND');
		expect(fx.rx.received).toHaveLength(0);
		await fx.sandbox.clock.advance(1);
		expect(fx.rx.received).toHaveLength(1);
		expect(fx.rx.received[0].path).toBe('/webhook/abc/secret/call-result?ctx_contactId=c-17&ctx_attempt=2&ctx_name=Ada%20L%C3%B6we');
		expect((await status(body.internal_id)).body).toStrictEqual({ dialStatus: 'ANSWER', billSec: 9, trafficCost: '0.112500' });
		expect(fx.sandbox.callJournal.calls[0].callResultUrl).toBe(url);
	});

	it('a rule with resultQuery plays a platform that mangles the Call Result URL: the result is posted with the text appended to its query; the journal keeps the URL received', async () => {
		fx.sandbox.setDialOutcome({ dst: '+14155550142', dialstatus: 'BUSY', ringMs: 1000, persistDelayMs: 0, resultQuery: 'ctx_attempt=one' });
		const plain = `${fx.rx.url}/webhook/abc/secret/call-result`;
		await place('+14155550142', plain);
		await place('+14155550142', `${plain}?a=1#top`);
		await fx.sandbox.clock.advance(1000);
		expect(fx.rx.received.map((r) => r.path).sort()).toEqual(['/webhook/abc/secret/call-result?a=1&ctx_attempt=one', '/webhook/abc/secret/call-result?ctx_attempt=one']);
		expect(fx.sandbox.callbacks.map((c) => c.url).sort()).toEqual([`${plain}?a=1&ctx_attempt=one#top`, `${plain}?ctx_attempt=one`]);
		expect(fx.sandbox.callJournal.calls.map((c) => c.callResultUrl)).toEqual([plain, `${plain}?a=1#top`]);
	});

	it('rules are refused when they cannot be followed', () => {
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', attempts: [] })).toThrow(/attempts/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', attempts: [{ dialstatus: 'LOST' as never }] })).toThrow(/attempts\[0\]\.dialstatus/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', dialstatus: 'ANSWER', durationSec: [9, 3] })).toThrow(/durationSec/);
		expect(() => fx.sandbox.setDialOutcome({ prefix: '1415', dialstatus: 'BUSY' })).toThrow(/prefix/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', prefix: '+1', dialstatus: 'BUSY' })).toThrow(/prefix/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199' })).toThrow(/dialstatus/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', dialstatus: 'BUSY', resultQuery: 'a=1#b' })).toThrow(/resultQuery/);
		expect(() => fx.sandbox.setDialOutcome({ dst: '+14155550199', dialstatus: 'BUSY', resultQuery: '' })).toThrow(/resultQuery/);
	});
});

describe('the account limit of calls in flight', () => {
	it('over the limit a placement is refused with 429 CALL_LIMIT_REACHED and Retry-After; nothing is placed; a call that hangs up frees its line', async () => {
		fx.sandbox.setAnswers('rich'); // the refusal's details {limit, inFlight} are in rich answers only
		fx.sandbox.setAccountLimit(2);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		expect((await place('+14155550151')).status).toBe(200);
		await fx.sandbox.clock.advance(10_000);
		expect((await place('+14155550152')).status).toBe(200);
		expect(fx.sandbox.callsInFlight).toBe(2);
		const refused = await place('+14155550153');
		expectRichError(refused, 429, 'CALL_LIMIT_REACHED');
		expect(refused.body.error.details).toEqual({ limit: 2, inFlight: 2 });
		expect(refused.headers['retry-after']).toBe('20');
		expect(fx.sandbox.state.calls.size).toBe(2);
		expect(fx.sandbox.callJournal.refusals).toEqual([
			expect.objectContaining({ dst: '+14155550153', code: 'CALL_LIMIT_REACHED', limit: 2, inFlight: 2, retryAfter: 20 }),
		]);
		await fx.sandbox.clock.advance(20_000);
		expect(fx.sandbox.callsInFlight).toBe(1);
		const placed = await place('+14155550153');
		expect(placed.status).toBe(200);
		// The refused call did not count as an attempt at the number.
		expect(fx.sandbox.callJournal.calls.find((c) => c.internal_id === placed.body.internal_id)?.attempt).toBe(1);
	});

	it('the limit is checked after the request is validated and authorized (a refused request of another kind is not a refusal of the limit)', async () => {
		fx.sandbox.setAccountLimit(1);
		await place('+14155550161');
		const wrongKey = await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { ...caller(), assistantApiKey: 'ak_wrong', dst: '+14155550162' } });
		expectError(wrongKey, 401, 'INVALID_ASSISTANT_KEY');
		expect(fx.sandbox.callJournal.refusals).toHaveLength(0);
	});

	it('starts with the option maxConcurrentCalls and keeps it across reset; null lifts it', async () => {
		const limited = await startSandbox({ maxConcurrentCalls: 1 });
		try {
			const a = [...limited.state.assistants].find((x) => x.name === 'Reception Desk')!;
			const body = { assistantApiKey: a.assistantApiKey, callerId: '+390200001001', dst: '+14155550171' };
			expect((await call(limited, 'POST', '/webhook/outbound_call', { body })).status).toBe(200);
			expectError(await call(limited, 'POST', '/webhook/outbound_call', { body }), 429, 'CALL_LIMIT_REACHED');
			limited.reset();
			expect((await call(limited, 'POST', '/webhook/outbound_call', { body })).status).toBe(200);
			expectError(await call(limited, 'POST', '/webhook/outbound_call', { body }), 429, 'CALL_LIMIT_REACHED');
			limited.setAccountLimit(null);
			expect((await call(limited, 'POST', '/webhook/outbound_call', { body })).status).toBe(200);
		} finally {
			await limited.stop();
		}
	});
});

describe('the call journal', () => {
	it('records each call: dst, internal_id, attempt, outcome, start and end in sandbox and wall time', async () => {
		fx.sandbox.setDialOutcome({ dst: '+14155550181', dialstatus: 'ANSWER', ringMs: 500, durationSec: 4 });
		const before = Date.now();
		const { body } = await place('+14155550181');
		const [entry] = fx.sandbox.callJournal.calls;
		expect(entry).toMatchObject({
			internal_id: body.internal_id,
			dst: '+14155550181',
			callerId: '+390200001001',
			route: 'trunk',
			attempt: 1,
			dialstatus: 'ANSWER',
			durationSec: 4,
			endedWallAt: null,
		});
		expect(entry.endedAt - entry.startedAt).toBe(4500);
		expect(entry.startedWallAt).toBeGreaterThanOrEqual(before);
		await fx.sandbox.clock.advance(4500);
		expect(entry.endedWallAt).toBeGreaterThanOrEqual(entry.startedWallAt);
		fx.sandbox.clearCallJournal();
		expect(fx.sandbox.callJournal.calls).toEqual([]);
	});

	it('maxInFlight counts the calls that overlap (a line freed at t is free for a call starting at t)', () => {
		const entry = (startedAt: number, endedAt: number) =>
			({ startedAt, endedAt, startedWallAt: startedAt, endedWallAt: endedAt }) as Parameters<typeof maxInFlight>[0][number];
		expect(maxInFlight([])).toBe(0);
		expect(maxInFlight([entry(0, 10), entry(10, 20), entry(20, 30)])).toBe(1);
		expect(maxInFlight([entry(0, 10), entry(5, 20), entry(6, 7), entry(19, 30)])).toBe(3);
		expect(maxInFlight([entry(0, 10), { ...entry(5, 20), endedWallAt: null }, entry(30, 40)], 'wall')).toBe(2);
	});
});

describe('a clock that runs faster than wall time', () => {
	it('at speed 1000 a 60 s call ends within a fraction of a second of wall time; the journal shows both times', async () => {
		const fast = await startSandbox({ clock: 'real', clockSpeed: 1000 });
		const receiver = await Receiver.start();
		try {
			fast.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 2000, durationSec: 58, persistDelayMs: 0 });
			const a = [...fast.state.assistants].find((x) => x.name === 'Reception Desk')!;
			const started = Date.now();
			const res = await call(fast, 'POST', '/webhook/outbound_call', {
				body: { assistantApiKey: a.assistantApiKey, callerId: '+390200001001', dst: '+14155550191', callResultUrl: `${receiver.url}/r` },
			});
			expect(res.status).toBe(200);
			await waitFor(() => receiver.received.length === 1, 5000);
			expect(receiver.received[0].body).toEqual({ internal_id: res.body.internal_id, dialstatus: 'ANSWER', duration: 58 });
			const [entry] = fast.callJournal.calls;
			expect(entry.endedAt - entry.startedAt).toBe(60_000);
			expect(entry.endedWallAt! - entry.startedWallAt).toBeLessThan(1000);
			expect(Date.now() - started).toBeLessThan(5000);
			expect(fast.clock.speed).toBe(1000);
		} finally {
			await receiver.stop();
			await fast.stop();
		}
	});

	it('the speed can change while calls ring (pending calls end at the new pace); reset restores the start speed', async () => {
		const fast = await startSandbox({ clock: 'real', clockSpeed: 1 });
		try {
			fast.setDialOutcome({ dialstatus: 'BUSY', ringMs: 30_000 });
			const a = [...fast.state.assistants].find((x) => x.name === 'Reception Desk')!;
			await call(fast, 'POST', '/webhook/outbound_call', { body: { assistantApiKey: a.assistantApiKey, callerId: '+390200001001', dst: '+14155550192' } });
			const before = fast.clock.now();
			fast.clock.setSpeed(2000);
			expect(fast.clock.now()).toBeGreaterThanOrEqual(before);
			await waitFor(() => fast.callsInFlight === 0, 5000);
			expect(fast.callJournal.calls[0].endedWallAt).not.toBeNull();
			fast.reset();
			expect(fast.clock.speed).toBe(1);
		} finally {
			await fast.stop();
		}
	});

	it('a manual clock has no speed; a speed must be a number above 0', async () => {
		expect(() => fx.sandbox.clock.setSpeed(10)).toThrow(/manual clock/);
		await expect(startSandbox({ clock: 'manual', clockSpeed: 10 })).rejects.toThrow(/real clock/);
		await expect(startSandbox({ clock: 'real', clockSpeed: 0 })).rejects.toThrow(/speed/);
	});
});

