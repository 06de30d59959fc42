import { DirectoryLoader } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { registerNodeType, runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { assistantKeysOf, startSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';

/*
 * Call Status → Get through n8n-core's WorkflowExecute against the sandbox on its manual clock:
 * a call's record is persisted only when the test moves the clock.
 */

const LOADED_TYPE = 'test.assistantPlatform.loaded';
const loaded = new AssistantPlatform();
DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
registerNodeType(LOADED_TYPE, loaded);

const CALLER = '+390212345678';
/** Past ring (300 ms) + talk (up to 125 s here) + persistence (500 ms): every record is written. */
const UNTIL_PERSISTED_MS = 600_000;

let fx: SandboxFixture;
let assistantKey: string;

beforeAll(async () => {
	fx = await startSandbox({ clock: 'manual' });
});

afterAll(async () => {
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
	const assistant = fx.sandbox.createAssistant({ name: 'Caller', number: CALLER });
	assistantKey = assistant.assistantApiKey;
	registerSecret(assistantKey);
	fx.outbound.assistantApiKey = assistantKey;
});

function expectNoSecrets(value: unknown): void {
	const text = JSON.stringify(value);
	for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, assistantKey, ...assistantKeysOf(fx.sandbox)]) {
		expect(text).not.toContain(key);
	}
}

/** Places a call through the node and returns its internal_id; the journal is cleared afterwards. */
async function placeCall(dst = '+14155550123'): Promise<string> {
	const { items, error } = await runNode({
		nodeType: LOADED_TYPE,
		parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst, callerId: CALLER },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	fx.sandbox.clearJournal();
	return String(items[0].json.internal_id);
}

async function getStatus(parameters: IDataObject, options: Partial<Omit<RunOptions, 'parameters' | 'credentials'>> = {}) {
	const result = await runNode({
		nodeType: LOADED_TYPE,
		parameters: { resource: 'callStatus', operation: 'get', ...parameters },
		credentials: fx.credentials,
		...options,
	});
	expectNoSecrets(result.items);
	if (result.error) expectNoSecrets({ m: result.error.message, d: result.error.description });
	return result;
}

/** Runs the node while moving the sandbox clock forward, until the run ends. */
async function whileClockRuns<T>(run: Promise<T>, stepMs = 250): Promise<T> {
	let done = false;
	void run.finally(() => {
		done = true;
	});
	while (!done) {
		await fx.sandbox.clock.advance(stepMs);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return await run;
}

const gets = () => fx.sandbox.journal.filter((e) => e.method === 'GET');

describe('Call Status → Get', () => {
	test('404 before the record is persisted: a clear error; after the clock moves: the record', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 125 });
		const id = await placeCall();

		const early = await getStatus({ internalId: id });
		expect(early.items).toHaveLength(0);
		expect(early.error?.name).toBe('NodeApiError');
		expect(early.error?.message).toBe('The call record is not persisted yet (404)');
		expect(early.error?.description).toMatch(/Wait for Call Record/);
		expect(early.error?.httpCode).toBe('404');
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry).toMatchObject({ method: 'GET', path: `/getDialstatus/${id}`, auth: 'ok', status: 404 });
		expect(entry.query).toEqual({});
		expect(entry.headers['x-apikey-secret-service']).toBe('[masked]');

		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		fx.sandbox.clearJournal();
		const { items, error } = await getStatus({ internalId: id });
		expect(error).toBeUndefined();
		const call = fx.sandbox.state.calls.get(id)!;
		expect(call.trafficCost).toMatch(/^\d+\.\d{6}$/);
		expect(items).toHaveLength(1);
		expect(items[0].json).toEqual({
			internal_id: id,
			dialStatus: 'ANSWER',
			duration: null,
			billSec: 125,
			trafficCost: call.trafficCost,
			trafficCostNumber: Number(call.trafficCost),
			pending: false,
		});
		expect(typeof items[0].json.trafficCost).toBe('string');
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(gets()).toHaveLength(1);
		expect(gets()[0].status).toBe(200);
	});

	test('a cost with trailing zeros stays exactly as sent; the number is a copy', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 10 });
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const { items } = await getStatus({ internalId: id });
		const cost = fx.sandbox.state.calls.get(id)!.trafficCost;
		expect(cost).toMatch(/0$/);
		expect(items[0].json.trafficCost).toBe(cost);
		expect(items[0].json.trafficCostNumber).toBe(Number(cost));
	});

	test('a call that was not answered: its dial status and zero billed seconds', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'BUSY' });
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const { items } = await getStatus({ internalId: id });
		expect(items[0].json).toMatchObject({ internal_id: id, dialStatus: 'BUSY', billSec: 0, trafficCost: '0.000000', trafficCostNumber: 0 });
	});

	test('Internal ID is read from the input item by default (follows Place Call)', async () => {
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const { items, error } = await getStatus({}, { items: [{ json: { internal_id: id, dst: '+14155550123' } }] });
		expect(error).toBeUndefined();
		expect(items[0].json.internal_id).toBe(id);
		expect(gets()[0].path).toBe(`/getDialstatus/${id}`);
	});

	test('empty internal_id is rejected before anything is sent', async () => {
		const { error } = await getStatus({}, { items: [{ json: { something: 'else' } }] });
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toBe('Invalid "Internal ID": must not be empty');
		expect(fx.sandbox.journal).toHaveLength(0);

		const blank = await getStatus({ internalId: '={{ "   " }}' });
		expect(blank.error?.message).toBe('Invalid "Internal ID": must not be empty');
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('one empty internal_id among several items: nothing is sent', async () => {
		const items: INodeExecutionData[] = [{ json: { internal_id: 'a1' } }, { json: { internal_id: '' } }, { json: { internal_id: 'c3' } }];
		const { error } = await getStatus({}, { items });
		expect(error?.message).toBe('Invalid "Internal ID": must not be empty');
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('Call Status → Get: Wait for Call Record', () => {
	test('keeps reading while the record is 404 and returns it once persisted', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 3 });
		const id = await placeCall();
		const { items, error } = await whileClockRuns(
			getStatus({ internalId: id, waitForRecord: true, maxWait: 60, initialDelay: 10 }),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: id, dialStatus: 'ANSWER', billSec: 3 });
		const statuses = gets().map((e) => e.status);
		expect(statuses.length).toBeGreaterThanOrEqual(2);
		expect(statuses.slice(0, -1).filter((s) => s !== 404)).toEqual([]);
		expect(statuses[statuses.length - 1]).toBe(200);
		expect(gets().filter((e) => e.path !== `/getDialstatus/${id}`).map((e) => e.path)).toEqual([]);
	});

	test('a record already there is read once', async () => {
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const { items } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 60, initialDelay: 10 });
		expect(items[0].json.dialStatus).toBe('ANSWER');
		expect(gets()).toHaveLength(1);
	});

	test('Max Wait passes (On Timeout = Fail): a clear error after bounded reads', async () => {
		const id = await placeCall();
		const { error, items } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 0.3, initialDelay: 20 });
		expect(items).toHaveLength(0);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(new RegExp(`^The call record of "${id}" was not persisted within 0.3 s \\(\\d+ reads, all 404\\)$`));
		expect(error?.description).toMatch(/Raise Max Wait/);
		const reads = gets();
		expect(reads.length).toBeGreaterThanOrEqual(2);
		// Exponential backoff from 20 ms: at most 20, 40, 80, 160 ms pauses fit in 300 ms, plus the last read.
		expect(reads.length).toBeLessThanOrEqual(6);
		expect(reads.filter((e) => e.status !== 404).map((e) => e.status)).toEqual([]);
		expect(error?.message).toContain(`(${reads.length} reads`);
	});

	test('Max Wait passes (On Timeout = Output Pending Item): the pending item', async () => {
		const id = await placeCall();
		const { error, items } = await getStatus({
			internalId: id,
			waitForRecord: true,
			maxWait: 0.2,
			initialDelay: 20,
			onTimeout: 'pending',
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toEqual({
			internal_id: id,
			pending: true,
			dialStatus: null,
			duration: null,
			billSec: null,
			trafficCost: null,
			trafficCostNumber: null,
			attempts: gets().length,
			waitedSeconds: expect.any(Number),
			message: expect.stringMatching(/was not persisted within 0.2 s/),
		});
	});

	test('Max Wait 0: one read, then the timeout choice', async () => {
		const id = await placeCall();
		const { items } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 0, onTimeout: 'pending' });
		expect(items[0].json).toMatchObject({ pending: true, attempts: 1 });
		expect(gets()).toHaveLength(1);
	});
});

describe('Call Status → Get: only the call\'s own record with its outcome ends the call', () => {
	const ANOTHER_CALLS_RECORD = { internal_id: 'another-call', dialStatus: 'ANSWER', billSec: 7, trafficCost: '0.087500' };
	const statusFault = (body: IDataObject, times?: number) =>
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'answer', body, ...(times === undefined ? {} : { times }) });

	test.each(['spec', 'rich'] as const)('a record as the platform gives it (%s answers) is the record of the call its URL names', async (answers) => {
		fx.sandbox.setAnswers(answers);
		fx.sandbox.setDialOutcome({ dialstatus: 'BUSY' });
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const { items, error } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 60, initialDelay: 10 });
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ internal_id: id, dialStatus: 'BUSY', duration: null, billSec: 0, trafficCost: '0.000000', trafficCostNumber: 0, pending: false });
		expect(gets()).toHaveLength(1);
	});

	test('another call\'s record is refused, never output as this call\'s', async () => {
		const id = await placeCall();
		statusFault(ANOTHER_CALLS_RECORD);
		const { items, error } = await getStatus({ internalId: id });
		expect(items).toHaveLength(0);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe(`The status read of "${id}" answered the record of another call (internal_id "another-call"): not used`);
		expect(error?.description).toMatch(/names the call in its URL/);
	});

	test('a record that contradicts itself (a dial status and an error): the call has ended, its outcome not known; never read as its dial status', async () => {
		const id = await placeCall();
		statusFault({ dialStatus: 'BUSY', billSec: 0, trafficCost: '0.000000', error: { code: 'INTERNAL', message: 'record unavailable' } });
		const { items, error } = await getStatus({ internalId: id });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: id, dialStatus: null, pending: false, outcomeUnknown: true, contradiction: 'error: code "INTERNAL"' });
	});

	test.each([
		['an empty record ({})', {}],
		['a record without a dial status', { billSec: 0, trafficCost: '0.000000' }],
	])('%s: the call is still pending', async (_label, body) => {
		const id = await placeCall();
		statusFault(body);
		const { items, error } = await getStatus({ internalId: id });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: id, dialStatus: null, pending: true });
	});

	test.each([
		['an empty record ({})', {}],
		['a record without a dial status', { billSec: 0 }],
		["another call's record", ANOTHER_CALLS_RECORD],
	])('Wait for Call Record reads again after %s, until the call\'s own record', async (_label, body) => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 3 });
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		statusFault(body, 2);
		const { items, error } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 60, initialDelay: 10 });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: id, dialStatus: 'ANSWER', billSec: 3, pending: false });
		expect(gets().map((e) => e.fault ?? e.status)).toEqual(['answer', 'answer', 200]);
	});

	test('Max Wait passes while the answers give no outcome: the message says what was answered', async () => {
		const id = await placeCall();
		statusFault({ billSec: 0 });
		const { error, items } = await getStatus({ internalId: id, waitForRecord: true, maxWait: 0.2, initialDelay: 20 });
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(
			new RegExp(`^The status of "${id}" gave no outcome of the call within 0.2 s \\(\\d+ reads; the last answered a record without a dial status\\)$`),
		);
	});
});

describe('Call Status → Get: transient errors and rejections', () => {
	test('429 with Retry-After: waits as told, then reads again', async () => {
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'status', status: 429, retryAfter: 1, times: 1 });
		const started = Date.now();
		const { items, error } = await getStatus({ internalId: id });
		const elapsed = Date.now() - started;
		expect(error).toBeUndefined();
		expect(items[0].json.dialStatus).toBe('ANSWER');
		expect(gets().map((e) => e.status)).toEqual([429, 200]);
		// Retry-After: 1 was honoured (a lower bound: the read waited at least that long).
		expect(elapsed).toBeGreaterThanOrEqual(1000);
	});

	test('503 twice, then the record: three reads', async () => {
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'status', status: 503, times: 2 });
		const { items, error } = await getStatus({ internalId: id });
		expect(error).toBeUndefined();
		expect(items[0].json.billSec).toBe(2);
		expect(gets().map((e) => e.status)).toEqual([503, 503, 200]);
	});

	test('a reset connection is read again', async () => {
		const id = await placeCall();
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'reset', times: 1 });
		const { items, error } = await getStatus({ internalId: id });
		expect(error).toBeUndefined();
		expect(items[0].json.dialStatus).toBe('ANSWER');
		expect(gets()).toHaveLength(2);
	});

	test('5xx that does not stop: bounded retries, then a NodeApiError', async () => {
		const id = await placeCall();
		fx.sandbox.injectFault({ method: 'GET', path: '/getDialstatus/*', kind: 'status', status: 500 });
		const { error } = await getStatus({ internalId: id });
		expect(error?.name).toBe('NodeApiError');
		expect(error?.httpCode).toBe('500');
		expect(gets()).toHaveLength(4);
	});

	test('wrong outbound key: 401 with a hint, no key in the error', async () => {
		const id = await placeCall();
		const result = await runNode({
			nodeType: LOADED_TYPE,
			parameters: { resource: 'callStatus', operation: 'get', internalId: id },
			credentials: { ...fx.credentials, assistantPlatformOutboundApi: { ...fx.outbound, outboundApiKey: 'not-the-outbound-key-42' } },
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('401');
		expect(result.error?.description).toContain('Assistant Platform Outbound API');
		expect(`${result.error?.message} ${result.error?.description}`).not.toContain('not-the-outbound-key-42');
		expect(gets()[0].auth).toBe('invalid');
	});

	test('with Continue On Fail every item reports: a record, and an error for a pending one', async () => {
		const done = await placeCall('+14155550001');
		await fx.sandbox.clock.advance(UNTIL_PERSISTED_MS);
		const pending = await placeCall('+14155550002');
		const { items, error } = await getStatus(
			{},
			{ items: [{ json: { internal_id: done } }, { json: { internal_id: pending } }, { json: {} }], continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json).toMatchObject({ internal_id: done, dialStatus: 'ANSWER' });
		expect(items[1].json).toEqual({ error: 'The call record is not persisted yet (404)', internal_id: pending });
		expect(items[2].json).toEqual({ error: 'Invalid "Internal ID": must not be empty' });
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(gets()).toHaveLength(2);
	});

	test('the operation only reads: it never places a call', async () => {
		const id = await placeCall();
		const before = fx.sandbox.state.calls.size;
		await getStatus({ internalId: id, waitForRecord: true, maxWait: 0.1, initialDelay: 20, onTimeout: 'pending' });
		expect(fx.sandbox.state.calls.size).toBe(before);
		expect(fx.sandbox.journal.filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`)).toEqual([]);
	});
});
