import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FaultSpec } from '../../sandbox';
import { maxInFlight } from '../../sandbox';
import type { DialerHooks } from '../../nodes/AssistantPlatform/resources/outboundCall/callsInFlight';
import { dialWithCap, MAX_FAILED_STATUS_READS } from '../../nodes/AssistantPlatform/resources/outboundCall/callsInFlight';
import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { assistantKeysOf, callerAssistant, startSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

/*
 * Max Calls in Flight against a platform whose status reads misbehave. A line is freed only by the call's own
 * status record (its internal_id, with a dial status): an empty answer, another call's record or a record without
 * a dial status keeps the call in flight, so the node never places more calls than the cap (the sandbox's call
 * journal counts the calls that overlapped and the refusals at the account's limit). Status reads that keep
 * failing stop the dialling with an error naming the calls still in flight, instead of holding every line for
 * Max Call Length. Run through n8n-core's WorkflowExecute against the sandbox, its clock 1,000 times faster.
 */

const CALLER = '+390212345678';
const STATUS_READS = '/getDialstatus/*';

/** Status answers a platform should not give while a call is live (or at all). */
const EMPTY_RECORD: Partial<FaultSpec> = { kind: 'answer', body: {} };
const ANOTHER_CALLS_RECORD: Partial<FaultSpec> = {
	kind: 'answer',
	body: { internal_id: 'another-call', dialStatus: 'ANSWER', billSec: 7, trafficCost: '0.087500' },
};
const RECORD_WITHOUT_DIAL_STATUS: Partial<FaultSpec> = { kind: 'answer', body: { billSec: 0 }, pathIdField: 'internal_id' };

const json = (items: INodeExecutionData[]) => items.map((item) => item.json);
const numbers = (count: number, from: number) => Array.from({ length: count }, (_, i) => `+1415556${String(from + i).padStart(4, '0')}`);

describe('Place Call with Max Calls in Flight against status reads that misbehave', () => {
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

	function dial(phones: string[], campaign: IDataObject, options: Partial<RunOptions> = {}) {
		return runNode({
			parameters: {
				resource: 'outboundCall',
				operation: 'placeCall',
				route: 'trunk',
				callerId: CALLER,
				dst: '={{ $json.phone }}',
				campaign: { statusCheckInterval: 0.01, ...campaign },
			},
			credentials: fx.credentials,
			items: phones.map((phone) => ({ json: { phone } })),
			...options,
		}).then((result) => {
			const text = JSON.stringify([result.items, result.error?.message, result.error?.description]);
			for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox)]) expect(text).not.toContain(key);
			return result;
		});
	}

	const statusFault = (fault: Partial<FaultSpec>) => fx.sandbox.injectFault({ method: 'GET', path: STATUS_READS, ...fault } as FaultSpec);
	const faulted = () => fx.sandbox.journal.filter((entry) => entry.method === 'GET' && entry.fault !== undefined).length;

	/** Every number placed exactly once, every item the record of its own call. */
	function expectEveryCallFollowedToItsEnd(out: INodeExecutionData[], phones: string[]) {
		const { calls } = fx.sandbox.callJournal;
		expect(calls.map((call) => call.dst).sort()).toEqual([...phones].sort());
		expect(out).toHaveLength(phones.length);
		for (const [i, item] of out.entries()) {
			const call = calls.find((c) => c.dst === phones[i])!;
			expect(item.json).toMatchObject({ internal_id: call.internal_id, dst: phones[i], dialStatus: 'ANSWER', pending: false, resultSource: 'status' });
		}
	}

	test('an empty record, another call\'s record and a record without a dial status never free a line: never more calls than the cap, none refused at the account\'s limit', async () => {
		// Calls of 20 to 40 s (20 to 40 ms of wall time): read a few times while live; 7 reads in 10 answered wrongly.
		fx.sandbox.setAccountLimit(3);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: [1000, 3000], durationSec: [20, 40] });
		for (const fault of [EMPTY_RECORD, ANOTHER_CALLS_RECORD, RECORD_WITHOUT_DIAL_STATUS]) statusFault({ ...fault, every: 3 });
		const phones = numbers(18, 0);
		const { items: out, error } = await dial(phones, { maxCallsInFlight: 3 });
		expect(error).toBeUndefined();
		expect(faulted()).toBeGreaterThan(10);
		expect(fx.sandbox.callJournal.refusals).toEqual([]);
		expect(maxInFlight(fx.sandbox.callJournal.calls)).toBeLessThanOrEqual(3);
		expectEveryCallFollowedToItsEnd(out, phones);
	});

	test.each([
		['an empty record ({})', EMPTY_RECORD],
		["another call's record", ANOTHER_CALLS_RECORD],
		['a record of the call without a dial status', RECORD_WITHOUT_DIAL_STATUS],
	])('%s answered to every other status read: the calls at once stay within the cap (no account limit)', async (_label, fault) => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 1000, durationSec: [20, 40] });
		statusFault({ ...fault, every: 2 });
		const phones = numbers(8, 100);
		const { items: out, error } = await dial(phones, { maxCallsInFlight: 2 });
		expect(error).toBeUndefined();
		expect(faulted()).toBeGreaterThan(0);
		expect(maxInFlight(fx.sandbox.callJournal.calls)).toBeLessThanOrEqual(2);
		expectEveryCallFollowedToItsEnd(out, phones);
		expect(json(out).map((item) => item.billSec)).not.toContain(7);
	});

	test('a status answer past the bound of a status record (1 MB) is not used: the call stays in flight until its own record is read', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 1000, durationSec: [20, 40] });
		statusFault({ kind: 'answer', body: { dialStatus: 'ANSWER', padding: 'x'.repeat(1100 * 1024) }, pathIdField: 'internal_id', every: 2 });
		const phones = numbers(4, 200);
		const { items: out, error } = await dial(phones, { maxCallsInFlight: 2 });
		expect(error).toBeUndefined();
		expect(faulted()).toBeGreaterThan(0);
		expectEveryCallFollowedToItsEnd(out, phones);
		expect(out.filter((item) => 'padding' in item.json)).toHaveLength(0);
	});

	describe(`status reads that keep failing stop the dialling (${MAX_FAILED_STATUS_READS} in a row)`, () => {
		// Calls of an hour (3.6 s of wall time): none ends while the node reads. Max Call Length is 3 s of wall time.
		beforeEach(() => fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 3600 }));
		const LONG = { maxCallMinutes: 0.05 };

		test('every read refused (429, retried at once): no new call is placed; the error names the calls in flight and says not to place them again', async () => {
			statusFault({ kind: 'status', status: 429, retryAfter: 0 });
			const phones = numbers(6, 300);
			const { error, items: out } = await dial(phones, { maxCallsInFlight: 3, ...LONG });
			expect(out).toEqual([]);
			const { calls } = fx.sandbox.callJournal;
			expect(calls.map((call) => call.dst)).toEqual(phones.slice(0, 3));
			expect(error?.message).toBe(
				`Stopped dialling: ${MAX_FAILED_STATUS_READS} status reads of the calls in flight failed in a row (Campaign > Max Calls in Flight)`,
			);
			const description = error?.description ?? '';
			expect(description).toContain('3 call(s) are still in flight');
			for (const [i, call] of calls.entries()) expect(description).toContain(`item ${i}: ${call.internal_id}`);
			expect(description).toContain('They were placed: do not place them again');
			expect(description).toContain('3 item(s) were not dialled (items 3, 4, 5)');
			expect(description).toContain('429');
			// Reads stopped with the dialling: the rounds it took to count the failures (a round reads the 3 calls at
			// once), each read tried 4 times by the transport.
			const reads = fx.sandbox.journal.filter((entry) => entry.method === 'GET').length;
			expect(reads).toBeLessThanOrEqual(4 * (MAX_FAILED_STATUS_READS + 3 - 1));
		});

		test('every read answered with an empty record counts as failed too', async () => {
			statusFault(EMPTY_RECORD);
			const phones = numbers(3, 400);
			const { error } = await dial(phones, { maxCallsInFlight: 2, ...LONG });
			expect(fx.sandbox.callJournal.calls).toHaveLength(2);
			expect(error?.message).toContain(`${MAX_FAILED_STATUS_READS} status reads of the calls in flight failed in a row`);
			expect(error?.description).toContain("not the call's record");
			for (const call of fx.sandbox.callJournal.calls) expect(error?.description).toContain(call.internal_id);
		});

		test('with Continue On Fail: the calls in flight come out saying so (outcome unknown, not called again), the items not dialled as errors', async () => {
			statusFault({ kind: 'status', status: 429, retryAfter: 0 });
			const phones = numbers(5, 500);
			const { error, items: out } = await dial(phones, { maxCallsInFlight: 2, ...LONG }, { continueOnFail: true });
			expect(error).toBeUndefined();
			const { calls } = fx.sandbox.callJournal;
			expect(calls.map((call) => call.dst)).toEqual(phones.slice(0, 2));
			expect(out.map((item) => item.pairedItem)).toEqual(phones.map((_, item) => ({ item })));
			for (const i of [0, 1]) {
				expect(out[i].json).toMatchObject({
					internal_id: calls[i].internal_id,
					pending: true,
					statusRecord: 'error',
					statusError: expect.stringContaining('429'),
					message: expect.stringContaining('do not place it again'),
					nextCall: { callAgain: false, reason: expect.stringContaining('outcome unknown') },
				});
			}
			for (const i of [2, 3, 4]) {
				expect(out[i].json).toMatchObject({
					error: expect.stringContaining(`Not dialled: ${MAX_FAILED_STATUS_READS} status reads of the calls in flight failed in a row`),
					placed: false,
					outcome: 'stopped',
					dst: phones[i],
					nextCall: { callAgain: false },
				});
			}
		});
	});
});

describe('dialWithCap: what it reads and when', () => {
	/** Hooks that place every call at once and count what the dialler did: calls placed, reads, calls in flight at most. */
	function hooksFor(read: DialerHooks['read'], extra: Partial<DialerHooks> = {}): DialerHooks & { placed: number[]; reads: number; mostInFlight: number } {
		const placed: number[] = [];
		let inFlight = 0;
		const hooks = {
			placed,
			reads: 0,
			mostInFlight: 0,
			skipOrDefer: () => false,
			place: async (index: number) => {
				placed.push(index);
				inFlight++;
				hooks.mostInFlight = Math.max(hooks.mostInFlight, inFlight);
				return { kind: 'placed' as const, internalId: `call-${index}` };
			},
			read: async (index: number, internalId: string) => {
				hooks.reads++;
				const state = await read(index, internalId);
				if (state === 'ended') inFlight--;
				return state;
			},
			giveUp: () => undefined,
			stopped: () => false,
			readsFailed: () => undefined,
			...extra,
		};
		return hooks;
	}

	test('status reads at once never exceed the cap (one per call in flight)', async () => {
		let reading = 0;
		let most = 0;
		const reads = new Map<number, number>();
		const hooks = hooksFor(async (index) => {
			reading++;
			most = Math.max(most, reading);
			await new Promise((resolve) => setImmediate(resolve));
			reading--;
			const count = (reads.get(index) ?? 0) + 1;
			reads.set(index, count);
			return count >= 3 ? 'ended' : 'pending';
		});
		await dialWithCap([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], { cap: 4, intervalMs: 1, maxCallMs: 60_000 }, hooks);
		expect(hooks.placed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
		expect(most).toBe(4);
		expect(hooks.mostInFlight).toBe(4);
		expect(hooks.reads).toBe(30);
	});

	test('failed reads are counted in a row: a read that answers (404 or the record) starts the count again', async () => {
		let n = 0;
		const stopped: Array<{ inFlight: unknown; notDialled: number[] }> = [];
		// One call in flight; its reads fail except every 9th, then the call ends at read 40.
		const hooks = hooksFor(
			async () => {
				n++;
				if (n === 40) return 'ended';
				if (n % MAX_FAILED_STATUS_READS === 0) return 'pending';
				throw new Error(`read ${n} failed`);
			},
			{ readsFailed: (inFlight, notDialled) => void stopped.push({ inFlight, notDialled }) },
		);
		await dialWithCap([0], { cap: 1, intervalMs: 1, maxCallMs: 60_000 }, hooks);
		expect(stopped).toEqual([]);
		expect(n).toBe(40);
	});

	test(`${MAX_FAILED_STATUS_READS} failed reads in a row: nothing more is placed; the hook gets the calls in flight, their last error, and the items not dialled`, async () => {
		const stopped: Array<{ inFlight: unknown; notDialled: number[]; error: Error }> = [];
		const hooks = hooksFor(
			async (index) => {
				throw new Error(`read of ${index} failed`);
			},
			{ readsFailed: (inFlight, notDialled, error) => void stopped.push({ inFlight, notDialled, error }) },
		);
		await dialWithCap([0, 1, 2, 3, 4], { cap: 2, intervalMs: 1, maxCallMs: 60_000 }, hooks);
		expect(hooks.placed).toEqual([0, 1]);
		expect(hooks.reads).toBe(MAX_FAILED_STATUS_READS);
		expect(stopped).toEqual([
			{
				inFlight: [
					{ index: 0, internalId: 'call-0', error: new Error('read of 0 failed') },
					{ index: 1, internalId: 'call-1', error: new Error('read of 1 failed') },
				],
				notDialled: [2, 3, 4],
				error: expect.any(Error),
			},
		]);
	});
});
