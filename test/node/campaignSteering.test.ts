import type { IDataObject } from 'n8n-workflow';

import { CONTROL_TABLE, LEASE_MS, OWNER_MS } from '../../nodes/shared/campaign/campaignControl';
import { TABLE, useDurableCampaign } from '../harness/campaign';

/*
 * A campaign a person can steer: Pause and Stop act at once (no POST after they return, whatever run is dialling),
 * a deleted or garbled control row never lets two runs dial, two workflows on one table are refused, a campaign with
 * nothing to do costs two requests a run and reads no contact, a result posted with a call another POST returned
 * moves nobody, a line is freed only when its call is known to have ended, and every row the engine cannot work is
 * reported with what to fix.
 */

const { fx, n8nApi, posts, dialled, numbers, contacts, controlRows, stateOf, campaign, dial, prepared, endCalls } = useDurableCampaign();

const table = () => n8nApi.store.tables.find((t) => t.name === TABLE)!;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await pause(5);
	}
}
/** A control operation from another small workflow (Manual Trigger → Campaign → Stop), as the docs tell a person. */
const control = (operation: 'pause' | 'resume' | 'stop') => campaign(operation, {}, undefined, { workflowStaticData: {}, workflowName: 'Steer' });

/** Ends the calls in progress every `everyMs` until stopped: lines free up, so a run that keeps dialling keeps claiming. */
function endCallsWhileRunning(everyMs: number): () => void {
	let on = true;
	void (async () => {
		while (on) {
			await pause(everyMs);
			if (on) await fx.sandbox.clock.advance(3_600_000);
		}
	})();
	return () => {
		on = false;
	};
}

describe('Pause and Stop act at once', () => {
	test.each(['stop', 'pause'] as const)('%s while a run is placing calls: no POST after it returned; the run says so', async (operation) => {
		await prepared(numbers(40));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		// Each POST is answered 60 ms after it arrives: claims and POSTs are in progress when the change lands.
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 60 });
		const stopEnding = endCallsWhileRunning(40);
		try {
			const running = dial({ maxCallsInFlight: 3, maxCallsPerRun: 40, campaignOptions: { keepDiallingSeconds: 60, checkIntervalSeconds: 0.1 } });
			await until(() => posts().length >= 6, 'six POSTs');
			const steered = await control(operation);
			const atReturn = posts().length;
			expect(steered.error).toBeUndefined();
			expect(steered.items[0].json).toMatchObject({ status: operation === 'stop' ? 'stopped' : 'paused', previousStatus: 'running', claimsSettled: true });
			const { items, error } = await running;
			expect(error).toBeUndefined();
			// A POST allowed before the change may have been in flight; none was sent after it returned.
			expect(posts()).toHaveLength(atReturn);
			expect(items[0].json).toMatchObject({ status: operation === 'stop' ? 'stopped' : 'paused' });
			expect(String(items[0].json.message)).toMatch(/during this run: \d+ call\(s\) were placed before; nothing more was dialled/);
			expect(contacts().filter((row) => row.campaignState === 'claimed')).toEqual([]);
			// A claim the change overtook was given back: due again, its attempt not spent.
			expect(contacts().filter((row) => row.campaignState === 'pending').every((row) => row.attempt === 0)).toBe(true);
			const later = await dial();
			expect(later.items[0].json).toMatchObject({ placed: 0, message: `The campaign is ${operation === 'stop' ? 'stopped' : 'paused'}: nothing was dialled.` });
			expect(posts()).toHaveLength(atReturn);
		} finally {
			stopEnding();
		}
	});

	test('Resume: dial runs go on where they stopped; Stop is for good', async () => {
		await prepared(numbers(4));
		await control('pause');
		expect((await dial()).items[0].json).toMatchObject({ status: 'paused', placed: 0 });
		expect((await control('resume')).items[0].json).toMatchObject({ status: 'running', previousStatus: 'paused' });
		expect((await dial()).items[0].json).toMatchObject({ status: 'running', placed: 3 });
		await control('stop');
		const resumed = await control('resume');
		expect(resumed.error?.message).toBe(`The campaign "${TABLE}" is stopped: it cannot be resumed`);
		await endCalls();
		expect((await dial()).items[0].json).toMatchObject({ status: 'stopped', placed: 0 });
		expect(dialled()).toHaveLength(3);
	});

	test('a run waiting for the lease when the campaign is paused: it takes nothing and says so', async () => {
		await prepared(numbers(6));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 30 });
		await dial({ maxCallsPerRun: 1 });
		// Another run holds the lease; this one waits for it.
		Object.assign(controlRows()[0], { holder: 'another-run', until: Date.now() + 30_000 });
		const waiting = dial({ campaignOptions: { keepDiallingSeconds: 5, checkIntervalSeconds: 0.1 } });
		await pause(200);
		await control('pause');
		Object.assign(controlRows()[0], { holder: '', until: 0 });
		const { items } = await waiting;
		expect(items[0].json).toMatchObject({ status: 'paused', placed: 0, message: 'The campaign is paused: nothing was dialled.' });
		expect(dialled()).toHaveLength(1);
	});
});

describe('the control row: one campaign, one dialling run', () => {
	test('deleted while a run dials: that run places no further call, and the next run holds the lines for a minute before it dials', async () => {
		await prepared(numbers(12));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		const stopEnding = endCallsWhileRunning(30);
		let afterDelete = 0;
		try {
			const running = dial({ maxCallsInFlight: 2, maxCallsPerRun: 12, campaignOptions: { keepDiallingSeconds: 30, checkIntervalSeconds: 0.1 } });
			await until(() => posts().length >= 3, 'three POSTs');
			const controlTable = n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!;
			n8nApi.store.remove(controlTable, [...controlTable.rows]);
			afterDelete = posts().length;
			const { items } = await running;
			expect(String(items[0].json.stoppedBecause)).toMatch(/the dial lease was lost \(the campaign's control row \(row \d+\) was deleted\)/);
		} finally {
			stopEnding();
		}
		// At most the POST whose go was written before the delete.
		expect(posts().length - afterDelete).toBeLessThanOrEqual(1);
		const sent = posts().length;
		await endCalls();
		const next = await dial();
		expect(next.items[0].json).toMatchObject({ placed: 0, message: 'Another run of this campaign is dialling: nothing was dialled by this one.' });
		expect(controlRows()).toHaveLength(1);
		expect(Number(controlRows()[0].until)).toBeGreaterThan(Date.now() + LEASE_MS - 5_000);
		expect(posts()).toHaveLength(sent);
		const later = Date.now() + LEASE_MS + 1_000;
		const now = jest.spyOn(Date, 'now').mockImplementation(() => later);
		try {
			expect((await dial()).items[0].json).toMatchObject({ placed: 3 });
		} finally {
			now.mockRestore();
		}
	});

	test('a status someone edited into another word stops every run, naming the row and the fix', async () => {
		await prepared(numbers(2));
		await dial({ maxCallsPerRun: 1 });
		controlRows()[0].status = 'halted';
		const { error } = await dial();
		expect(error?.message).toMatch(new RegExp(`^Not placed: the campaign's control row is unreadable \\(row \\d+ of the data table "${CONTROL_TABLE}": status "halted" is none of running, paused, stopped\\)`));
		expect(dialled()).toHaveLength(1);
	});

	test('another workflow on the same contacts table is refused, saying which, until the first one has not dialled for ten minutes', async () => {
		await prepared(numbers(6));
		await dial({ maxCallsPerRun: 1 });
		const other = await campaign('dial', { callerId: '+390212345678', maxCallsInFlight: 3 }, undefined, { workflowStaticData: {}, workflowName: 'Copy' });
		expect(other.error?.message).toMatch(/^This contacts table is dialled by another workflow \(id test-workflow, its last run 0 minute\(s\) ago\): one workflow dials a campaign\. No call was placed\.$/);
		expect(other.error?.description).toMatch(/Unpublish the other workflow/);
		expect(dialled()).toHaveLength(1);
		const later = Date.now() + OWNER_MS + 1_000;
		const now = jest.spyOn(Date, 'now').mockImplementation(() => later);
		try {
			const taken = await campaign('dial', { callerId: '+390212345678', maxCallsInFlight: 3 }, undefined, { workflowStaticData: {}, workflowName: 'Copy' });
			expect(taken.error).toBeUndefined();
			expect(controlRows()[0].owner).toBe('copy-workflow');
		} finally {
			now.mockRestore();
		}
	});
});

describe('nothing spent while idle: two requests a run, no contact read', () => {
	/** The requests of one more dial run, as "METHOD table/rows". */
	async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
		const before = n8nApi.store.requests.length;
		await run();
		const names = new Map(n8nApi.store.tables.map((t) => [t.id, t.name]));
		return n8nApi.store.requests.slice(before).map((r) => {
			const [, , id, rest] = r.path.split('/');
			return `${r.method} ${id ? `${names.get(decodeURIComponent(id)) ?? id}${rest ? `/${rest}` : ''}` : '/data-tables'}`;
		});
	}
	const IDLE = ['GET /data-tables', `GET ${CONTROL_TABLE}/rows`];

	/** Runs `work` with n8n's clock `ms` ahead (the table's last write is then that much older). */
	async function later<T>(ms: number, work: () => Promise<T>): Promise<T> {
		const shifted = jest.spyOn(Date, 'now').mockImplementation(() => Math.round(performance.timeOrigin + performance.now()) + ms);
		try {
			return await work();
		} finally {
			shifted.mockRestore();
		}
	}

	async function finished(): Promise<void> {
		await prepared(numbers(2));
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		await dial();
		await endCalls();
		// The run that finds the calls ended records them; the one after finds the table settled and writes the gate.
		await dial();
		await later(3_000, () => dial());
	}

	test('every contact done: a run reads the tables and the control row, nothing else, and says so', async () => {
		await finished();
		expect(contacts().map((row) => row.campaignState)).toEqual(['answered', 'answered']);
		const seen = await later(60_000, () => requestsOf(() => dial()));
		expect(seen).toEqual(IDLE);
		const { items } = await later(120_000, () => dial());
		expect(items[0].json).toMatchObject({ status: 'running', placed: 0, idle: true, nextDueAt: null, message: 'No contact is due: every contact is done. Nothing was dialled.' });
	});

	test.each(['pause', 'stop'] as const)('%s: a run costs the same two reads', async (operation) => {
		await prepared(numbers(3));
		await dial();
		await control(operation);
		const seen = await requestsOf(() => dial());
		expect(seen).toEqual(IDLE);
	});

	test('nothing due until a retry: two reads a run until it is due, then the retry is dialled', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		fx.sandbox.setDialOutcome({ dst: phone, dialstatus: 'BUSY', ringMs: 0 });
		await dial({ retryPolicy: { busy: 10, maxAttempts: 2 } });
		await endCalls();
		await dial({ retryPolicy: { busy: 10, maxAttempts: 2 } });
		expect(stateOf(phone)).toBe('pending');
		await later(3_000, () => dial());
		const { items } = await later(60_000, () => dial());
		expect(items[0].json).toMatchObject({ idle: true, placed: 0 });
		expect(Date.parse(String(items[0].json.nextDueAt))).toBe(Number(contacts()[0].nextAttemptAt));
		expect(await later(120_000, () => requestsOf(() => dial()))).toEqual(IDLE);
		const due = await later(11 * 60_000, () => dial());
		expect(due.items[0].json).toMatchObject({ placed: 1 });
		expect(dialled()).toEqual([phone, phone]);
	});

	test('a row added, or a contact set back to pending by a person, is dialled by the next run: the table changed', async () => {
		await finished();
		const [added] = numbers(1, 50);
		n8nApi.store.insert(table(), [{ phone: added, name: 'Added' }]);
		const next = await later(60_000, () => dial());
		expect(next.items[0].json).toMatchObject({ placed: 1 });
		await endCalls();
		await later(61_000, () => dial());
		await later(64_000, () => dial());
		expect(await later(120_000, () => requestsOf(() => dial()))).toEqual(IDLE);
		// At its last attempt (Max Attempts 2 here: attempt 1 was answered, the policy is not consulted for a person).
		const again = contacts()[0];
		n8nApi.store.edit(table(), again, { campaignState: 'pending', attempt: 2 });
		const requeued = await later(180_000, () => dial());
		expect(requeued.items[0].json).toMatchObject({ placed: 1 });
		expect(again).toMatchObject({ campaignState: 'placed', attempt: 3 });
	});
});

describe('a leaked Call Result URL moves nobody', () => {
	test("another call's id posted to a call's URL while its POST is in flight: held, judged suspicious once the POST answers, nobody moved or called again; the real result is recorded", async () => {
		const [first, second] = numbers(2);
		await prepared([first, second]);
		fx.sandbox.setDialOutcome({ dst: first, dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		fx.sandbox.setDialOutcome({ dst: second, dialstatus: 'ANSWER', ringMs: 0, durationSec: 5 });
		await dial({ maxCallsInFlight: 1, maxCallsPerRun: 1 });
		await endCalls();
		const earlier = contacts().find((row) => row.phone === first)!;
		await campaign('recordResult', {}, [{ internal_id: earlier.internalId, dialStatus: 'ANSWER' }]);
		expect(earlier.campaignState).toBe('answered');
		// The second contact's POST is held for a second, as a slow platform holds it.
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 1000, times: 1 });
		const running = dial({ maxCallsInFlight: 1, maxCallsPerRun: 1 });
		const target = contacts().find((row) => row.phone === second)!;
		await until(() => target.campaignState === 'claimed' && posts().length === 2, 'the claimed contact and its POST');
		const forged = await campaign('recordResult', {}, [{ internal_id: earlier.internalId, dialStatus: 'BUSY', context: { campaignClaim: `${target.id}:${String(target.claimToken)}` } }]);
		expect(forged.items[0].json).toMatchObject({ recorded: false, campaignState: 'claimed', suspicious: false });
		const { items } = await running;
		const placed = items.find((item) => item.json.rowId === target.id)!.json;
		expect(placed).toMatchObject({ campaignState: 'placed', suspicious: true, suspiciousCounted: true, postedInternalId: earlier.internalId });
		expect(target).toMatchObject({ campaignState: 'placed', attempt: 1 });
		expect(target.internalId).not.toBe(earlier.internalId);
		expect(controlRows()[0].suspiciousResults).toBe(1);
		// Its line is still held: the call is live.
		expect((await dial()).items[0].json).toMatchObject({ inFlightBefore: 1, placed: 0 });
		// The same forgery after the POST answered: refused at once, counted again.
		const afterwards = await campaign('recordResult', {}, [{ internal_id: earlier.internalId, dialStatus: 'BUSY', context: { campaignClaim: `${target.id}:${String(target.claimToken)}` } }]);
		expect(afterwards.items[0].json).toMatchObject({ recorded: false, suspicious: true, postedInternalId: earlier.internalId });
		await endCalls();
		const real = await campaign('recordResult', {}, [{ internal_id: target.internalId, dialStatus: 'ANSWER', context: { campaignClaim: `${target.id}:${String(target.claimToken)}` } }]);
		expect(real.items[0].json).toMatchObject({ recorded: true, campaignState: 'answered' });
		expect(controlRows()[0].suspiciousResults).toBe(2);
		await dial();
		expect(dialled()).toEqual([first, second]);
	});
});

describe('no line freed on a guess', () => {
	test("a POST whose outcome is unknown holds its line until Max Call Length after its claim: the account's limit holds", async () => {
		const [lost, next] = numbers(2);
		await prepared([lost, next]);
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 502, times: 1 });
		const options = { maxCallsInFlight: 1, campaignOptions: { maxCallMinutes: 10, claimMinutes: 2 } };
		await dial(options);
		expect(stateOf(lost)).toBe('unknown');
		const held = await dial(options);
		expect(held.items[0].json).toMatchObject({ inFlightBefore: 1, placed: 0 });
		const shifted = Date.now() + 12 * 60_000 + 1_000;
		const now = jest.spyOn(Date, 'now').mockImplementation(() => shifted);
		try {
			expect((await dial(options)).items[0].json).toMatchObject({ inFlightBefore: 0, placed: 1 });
		} finally {
			now.mockRestore();
		}
		expect(dialled()).toEqual([lost, next]);
	});

	test('a row deleted while its call is live keeps its line until its Max Call Length', async () => {
		const phones = numbers(3);
		await prepared(phones);
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 600 });
		const options = { maxCallsInFlight: 1, campaignOptions: { maxCallMinutes: 10 } };
		await dial(options);
		const live = contacts().find((row) => row.campaignState === 'placed')!;
		n8nApi.store.remove(table(), [live]);
		const held = await dial(options);
		expect(held.items[0].json).toMatchObject({ inFlightBefore: 1, placed: 0, linesOfDeletedRows: 1 });
		const held2 = await dial(options);
		expect(held2.items[0].json).toMatchObject({ inFlightBefore: 1, placed: 0 });
		const shifted = Date.now() + 10 * 60_000 + 1_000;
		const now = jest.spyOn(Date, 'now').mockImplementation(() => shifted);
		try {
			expect((await dial(options)).items[0].json).toMatchObject({ inFlightBefore: 0, placed: 1 });
		} finally {
			now.mockRestore();
		}
		expect(dialled()).toHaveLength(2);
	});

	test('a status record that contradicts itself ends the call with no known outcome: unknown, its line freed, never dialled again', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		await dial();
		await endCalls();
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'answer', body: { dialStatus: 'ANSWER', billSec: 3, trafficCost: '0.010000', success: false }, times: 1 });
		const { items } = await dial();
		expect(items[0].json).toMatchObject({ resultsRead: 1, placed: 0 });
		expect(contacts()[0]).toMatchObject({ campaignState: 'unknown', lineUntil: 0 });
		expect(String(contacts()[0].reason)).toMatch(/status record contradicts itself \(success: false\)/);
		expect((await dial()).items[0].json).toMatchObject({ inFlightBefore: 0, placed: 0 });
		expect(dialled()).toEqual([phone]);
	});
});

describe('no silent stall', () => {
	test('a pending row whose version was never written (added by hand) is dialled', async () => {
		const [phone] = numbers(1);
		await prepared([phone]);
		n8nApi.store.edit(table(), contacts()[0], { campaignState: 'pending', attempt: 0, nextAttemptAt: 0, version: null });
		expect((await dial()).items[0].json).toMatchObject({ placed: 1 });
		expect(stateOf(phone)).toBe('placed');
	});

	test('rows added while many are due are made due by the next run with a free line, not once the due ones run short', async () => {
		await prepared(numbers(60));
		await dial();
		const added = n8nApi.store.insert(table(), numbers(5, 100).map((phone) => ({ phone, name: 'Added' })));
		await endCalls();
		await dial();
		expect(added.map((row) => row.campaignState)).toEqual(Array(5).fill('pending'));
	});

	test('rows the engine cannot work are reported with what to fix: by the run that met them and by Get Summary', async () => {
		const phones = numbers(3);
		await prepared(phones);
		await dial({ maxCallsPerRun: 1 });
		const [, odd, stale] = contacts();
		n8nApi.store.edit(table(), odd, { campaignState: 'pending', attempt: 'two' });
		n8nApi.store.edit(table(), stale, { campaignState: 'call me later' });
		await endCalls();
		const { items } = await dial();
		expect(items.map((item) => item.json)).toContainEqual(expect.objectContaining({ rowId: odd.id, campaignState: 'cannot be worked', reason: expect.stringMatching(/attempt that is not a whole number.*fix the row/) }));
		const { items: summary } = await campaign('summary');
		expect(summary[0].json).toMatchObject({ other: 1, cannotBeWorked: 2 });
		const attention = summary[0].json.needsAttention as IDataObject[];
		expect(attention.map((row) => row.rowId).sort()).toEqual([odd.id, stale.id].sort());
		expect(attention.every((row) => typeof row.fix === 'string' && row.fix !== '')).toBe(true);
	});
});
