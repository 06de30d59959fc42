/**
 * One call-result rule for every node that reads or outputs a call result (nodes/shared/calls/callResult.ts):
 * the same call-result posts are sent to the trigger's Call Result URL and to Call and Wait's resume URL
 * and must be accepted or refused alike, and every item about a call (Place Call, Call Status → Get,
 * Call and Wait, the trigger) carries the same fields.
 */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { CALL_RESULT_FIELDS, costNumber, wholeSeconds } from '../../../nodes/shared/calls/callResult';
import { registerNodeType, runNode } from '../../harness/engine';
import { resumeAfterTimeout, runUntilWait, startResumeServer } from '../../harness/resume';
import type { ResumeServer, WaitingExecution } from '../../harness/resume';
import { startSandbox } from '../../harness/sandbox';
import type { SandboxFixture } from '../../harness/sandbox';
import { registerSecret } from '../../harness/secretsGuard';
import type { TriggerHarness } from '../../harness/webhook';
import { post, startTrigger } from '../../harness/webhook';

const WAIT_TYPE = 'test.callResult.assistantPlatformCallAndWait';
registerNodeType(WAIT_TYPE, new AssistantPlatformCallAndWait());

const CALLER = '+390212345678';
const secret = randomBytes(24).toString('hex');
registerSecret(secret);

/** Posts that are not a call result, with the reason both receivers give. */
const REFUSED: Array<[string, IDataObject, string]> = [
	['internal_id missing', { dialstatus: 'ANSWER', duration: 5 }, 'internal_id is missing'],
	['internal_id empty', { internal_id: '  ', dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string'],
	['internal_id an object', { internal_id: { a: 1 }, dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string'],
	['dialstatus missing', { internal_id: 'x1', duration: 5 }, 'dialstatus is missing'],
	['dialstatus empty', { internal_id: 'x1', dialstatus: '', duration: 5 }, 'dialstatus must be a non-empty string'],
	['dialstatus a number', { internal_id: 'x1', dialstatus: 1, duration: 5 }, 'dialstatus must be a non-empty string'],
	['duration missing', { internal_id: 'x1', dialstatus: 'ANSWER' }, 'duration is missing'],
	['duration -1', { internal_id: 'x1', dialstatus: 'ANSWER', duration: -1 }, 'duration must be a non-negative whole number of seconds'],
	['duration 1.5', { internal_id: 'x1', dialstatus: 'ANSWER', duration: 1.5 }, 'duration must be a non-negative whole number of seconds'],
	['duration "x"', { internal_id: 'x1', dialstatus: 'ANSWER', duration: 'x' }, 'duration must be a non-negative whole number of seconds'],
	['duration "-3"', { internal_id: 'x1', dialstatus: 'ANSWER', duration: '-3' }, 'duration must be a non-negative whole number of seconds'],
	['duration past a safe integer', { internal_id: 'x1', dialstatus: 'ANSWER', duration: 2 ** 53 }, 'duration must be a non-negative whole number of seconds'],
	['duration 1e300', { internal_id: 'x1', dialstatus: 'ANSWER', duration: 1e300 }, 'duration must be a non-negative whole number of seconds'],
	['duration "1e3"', { internal_id: 'x1', dialstatus: 'ANSWER', duration: '1e3' }, 'duration must be a non-negative whole number of seconds'],
	['internal_id a number past 2^53 (already rounded by JSON)', { internal_id: 2 ** 53 + 2, dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string of at most 200 characters, or a whole number up to 2^53'],
	['internal_id 1.5', { internal_id: 1.5, dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string of at most 200 characters, or a whole number up to 2^53'],
	['internal_id of 201 characters', { internal_id: 'i'.repeat(201), dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string of at most 200 characters, or a whole number up to 2^53'],
	['dialstatus of 101 characters', { internal_id: 'x1', dialstatus: 'A'.repeat(101), duration: 5 }, 'dialstatus must be a non-empty string of at most 100 characters'],
];

/** Call-result posts for call `id`, and the outcome and duration both receivers output. */
const ACCEPTED: Array<[string, (id: string) => IDataObject, { dialStatus: string; duration: number }]> = [
	['dialstatus and a numeric duration', (id) => ({ internal_id: id, dialstatus: 'ANSWER', duration: 42 }), { dialStatus: 'ANSWER', duration: 42 }],
	['the variant spelling dialStatus', (id) => ({ internal_id: id, dialStatus: 'NOANSWER', duration: 0 }), { dialStatus: 'NOANSWER', duration: 0 }],
	['a duration sent as digits', (id) => ({ internal_id: id, dialstatus: 'BUSY', duration: ' 17 ' }), { dialStatus: 'BUSY', duration: 17 }],
	['a long duration sent as digits', (id) => ({ internal_id: id, dialstatus: 'ANSWER', duration: '1234567890' }), { dialStatus: 'ANSWER', duration: 1234567890 }],
];

let fx: SandboxFixture;
let server: ResumeServer;
let trigger: TriggerHarness;
let run = 0;

beforeAll(async () => {
	// Real clock: a call rings 100 ms, talks 1 s, and its record is written 300 ms after it ends.
	fx = await startSandbox({ clock: 'real', ringMs: 100, durationSec: 1, persistDelayMs: 300 });
	server = await startResumeServer();
	trigger = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
	await trigger.publish();
});

afterAll(async () => {
	await trigger.unpublish();
	await trigger.close();
	await server.stop();
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
	const assistant = fx.sandbox.createAssistant({ name: 'On duty', number: CALLER });
	registerSecret(assistant.assistantApiKey);
	fx.outbound.assistantApiKey = assistant.assistantApiKey;
	trigger.clear();
	run++;
});

const callResultUrl = () => `${trigger.url}/webhook/${trigger.webhookId}/${secret}/call-result`;

/** Places a call with Call and Wait and waits; `silent`: the sandbox never posts its own result. */
async function waitingCall(silent: boolean): Promise<{ execution: WaitingExecution; internalId: string; resumeUrl: string }> {
	if (silent) fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 600_000 });
	const execution = await runUntilWait({
		nodeType: WAIT_TYPE,
		parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER, options: { resultRecordWait: 0 } },
		credentials: fx.credentials,
		webhookBaseUrl: server.baseUrl,
		executionId: `call-result-${run}`,
	});
	expect(execution.error).toBeUndefined();
	server.register(execution);
	const token = (JSON.parse(execution.stored) as { resumeToken?: string }).resumeToken;
	const resumeUrl = `${server.baseUrl}/webhook-waiting/${execution.executionId}${token ? `?signature=${token}` : ''}`;
	return { execution, internalId: [...fx.sandbox.state.calls.values()][0].internalId, resumeUrl };
}

function expectCallResultFields(item: IDataObject): void {
	for (const field of CALL_RESULT_FIELDS) expect(item).toHaveProperty(field);
	expect(item.pending).toBe(item.dialStatus === null);
}

describe('the same posts are refused alike by the trigger and by Call and Wait', () => {
	test.each(REFUSED)('trigger: %s', async (_what, body, reason) => {
		const res = await post(callResultUrl(), body);
		expect(res.status).toBe(400);
		expect((res.body as IDataObject).error).toContain(reason);
		expect(trigger.starts).toHaveLength(0);
	});

	test('Call and Wait: every one is refused and the execution keeps waiting', async () => {
		const { execution, resumeUrl } = await waitingCall(true);
		for (const [what, body, reason] of REFUSED) {
			const res = await post(resumeUrl, body);
			expect({ what, status: res.status }).toEqual({ what, status: 400 });
			expect((res.body as IDataObject).error).toContain(reason);
		}
		expect(execution.finished).toBe(false);
	});
});

describe('the same posts are accepted alike, with the same output', () => {
	test.each(ACCEPTED)('trigger: %s', async (_what, body, expected) => {
		const res = await post(callResultUrl(), body('0a1b2c3d'));
		expect(res.status).toBe(200);
		const json = trigger.starts[0].items[0].json;
		expect(json).toMatchObject({ internal_id: '0a1b2c3d', ...expected, pending: false });
		expectCallResultFields(json);
	});

	test.each(ACCEPTED)('Call and Wait: %s', async (_what, body, expected) => {
		const { execution, internalId, resumeUrl } = await waitingCall(true);
		const res = await post(resumeUrl, body(internalId));
		expect(res.status).toBe(200);
		const resumed = await server.resumed(execution.executionId);
		const json = resumed.afterItems[0].json;
		// `dialstatus`: the spelling of the first outputs, kept for saved workflows.
		expect(json).toMatchObject({ internal_id: internalId, ...expected, dialstatus: expected.dialStatus, pending: false });
		expectCallResultFields(json);
	});
});

describe('every item about a call carries the call-result fields', () => {
	test('Place Call: the outcome is pending; Call Status → Get: the record, then the outcome', async () => {
		const placed = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', callerId: CALLER },
			credentials: fx.credentials,
		});
		expect(placed.error).toBeUndefined();
		const item = placed.items[0].json;
		expectCallResultFields(item);
		expect(item).toMatchObject({ dialStatus: null, duration: null, billSec: null, pending: true, status: null });

		const pending = await runNode({
			parameters: { resource: 'callStatus', operation: 'get', waitForRecord: true, maxWait: 0, initialDelay: 1, onTimeout: 'pending' },
			items: [{ json: item }],
			credentials: fx.credentials,
		});
		expectCallResultFields(pending.items[0].json);
		expect(pending.items[0].json).toMatchObject({ internal_id: item.internal_id, dialStatus: null, pending: true });

		const found = await runNode({
			parameters: { resource: 'callStatus', operation: 'get', waitForRecord: true, maxWait: 10, initialDelay: 50 },
			items: [{ json: item }],
			credentials: fx.credentials,
		});
		expect(found.error).toBeUndefined();
		expectCallResultFields(found.items[0].json);
		expect(found.items[0].json).toMatchObject({ internal_id: item.internal_id, dialStatus: 'ANSWER', billSec: 1, pending: false });
	});

	test('Call and Wait: while waiting and after the sandbox\'s own result', async () => {
		const answered = await waitingCall(false);
		const waitingItem = answered.execution.nodeItems[0].json;
		expectCallResultFields(waitingItem);
		expect(waitingItem).toMatchObject({ resultSource: 'waiting', dialStatus: null, pending: true });
		const resumed = await server.resumed(answered.execution.executionId);
		const result = resumed.afterItems[0].json;
		expectCallResultFields(result);
		expect(result).toMatchObject({ resultSource: 'callback', dialStatus: 'ANSWER', dialstatus: 'ANSWER', pending: false });
		// The placement's answer is not the state of a call that has ended.
		expect(result).not.toHaveProperty('status');
	});

	test('Call and Wait: after Max Wait', async () => {
		const silent = await waitingCall(true);
		const timedOut = await resumeAfterTimeout(silent.execution);
		const timeoutItem = timedOut.afterItems[0].json;
		expectCallResultFields(timeoutItem);
		expect(timeoutItem).toMatchObject({ resultSource: 'timeout', dialStatus: null, dialstatus: null, pending: true });
	});
});

describe('number rules', () => {
	test.each([
		[0, 0],
		[42, 42],
		['17', 17],
		[' 8 ', 8],
		[-1, null],
		[1.5, null],
		['1e3', null],
		['', null],
		[null, null],
		[2 ** 53, null],
	])('whole seconds of %p: %p', (value, expected) => {
		expect(wholeSeconds(value)).toBe(expected);
	});

	test.each([
		['0.012000', 0.012],
		['0.000000', 0],
		[0.5, 0.5],
		['abc', null],
		[null, null],
		[Number.NaN, null],
	])('cost number of %p: %p', (value, expected) => {
		expect(costNumber(value)).toBe(expected);
	});
});
