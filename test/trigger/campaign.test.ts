/**
 * The trigger's Call Result with a campaign: the attempt and Result Context Place Call puts in the Call
 * Result URL come back in the output, read only once the secret in the path matched; a result without
 * them (a platform that drops the query) is never called again; the Retry Policy's decision; every
 * Asterisk dial status (and others as text) in the Dial Status filter. End to end with Place Call and the
 * sandbox's own callback.
 */
import { randomBytes } from 'node:crypto';

import { runNode } from '../harness/engine';
import type { SandboxFixture } from '../harness/sandbox';
import { startSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { post, startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
const otherSecret = randomBytes(24).toString('hex');
registerSecret(secret);
registerSecret(otherSecret);

const INTERNAL_ID = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const POLICY = { maxAttempts: 3, busy: 5, noAnswer: 30, other: 'MYSTATUS=2' };

let trigger: TriggerHarness;

beforeAll(async () => {
	trigger = await startTrigger({
		parameters: {
			events: ['callResult'],
			webhookSecret: secret,
			retryPolicy: POLICY,
			filters: { dialStatuses: ['ANSWER', 'BUSY', 'NOANSWER', 'CHANUNAVAIL', 'DONTCALL'], otherDialStatuses: 'mystatus, SOMETHING_ELSE' },
		},
	});
	await trigger.publish();
});

afterAll(async () => {
	await trigger.unpublish();
	await trigger.close();
});

beforeEach(() => trigger.clear());

const url = (query = '', token = secret) => `${trigger.url}/webhook/${trigger.webhookId}/${token}/call-result${query}`;
const result = (dialstatus: string) => ({ internal_id: INTERNAL_ID, dialstatus, duration: dialstatus === 'ANSWER' ? 30 : 0 });

describe('Result Context from the Call Result URL', () => {
	test('attempt and context come back with the result, with the Retry Policy decision', async () => {
		const before = Date.now();
		const res = await post(url('?ctx_attempt=2&ctx_customer=C-1042&ctx_name=Ada+L%C3%B6we'), result('BUSY'));
		expect(res.status).toBe(200);
		const [item] = trigger.starts[0].items;
		expect(item.json).toMatchObject({
			event: 'callResult',
			internal_id: INTERNAL_ID,
			dialStatus: 'BUSY',
			attempt: 2,
			context: { customer: 'C-1042', name: 'Ada Löwe' },
			nextCall: { callAgain: true, attempt: 3, reason: 'BUSY: call again after 5 min (attempt 3 of 3)' },
		});
		const at = Date.parse(String((item.json.nextCall as { at: string }).at));
		expect(at - Date.parse(String(item.json.receivedAt))).toBe(5 * 60_000);
		expect(at).toBeGreaterThanOrEqual(before + 5 * 60_000);
		// The URL itself (with the secret) is not in the output.
		expect(JSON.stringify(item.json)).not.toContain(secret);
	});

	test('a query parameter that is not context (the platform\'s own, a user\'s) is left alone', async () => {
		await post(url('?source=crm&ctx_attempt=1&ctx_customer=C-7'), result('ANSWER'));
		expect(trigger.starts[0].items[0].json).toMatchObject({ attempt: 1, context: { customer: 'C-7' }, nextCall: { callAgain: false, reason: 'answered: never called again' } });
	});

	test('context sent without the secret, or with another secret, is refused (401) before it is read: nothing starts', async () => {
		for (const target of [
			url('?ctx_attempt=1&ctx_customer=C-1', otherSecret),
			`${trigger.url}/webhook/${trigger.webhookId}/call-result?ctx_attempt=1&ctx_customer=C-1`,
		]) {
			const res = await post(target, result('BUSY'));
			expect(res.status).toBe(401);
		}
		expect(trigger.starts).toHaveLength(0);
	});

	test('a result without context (placed without one, or the platform dropped the query): attempt unknown, never called again', async () => {
		const res = await post(url(), result('BUSY'));
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json).toMatchObject({
			attempt: null,
			context: null,
			nextCall: {
				callAgain: false,
				at: null,
				attempt: null,
				reason: expect.stringContaining('BUSY: not called again because the attempt is not known'),
			},
		});
	});

	test.each([
		['an attempt that is not a number', '?ctx_attempt=two'],
		['an attempt of 0', '?ctx_attempt=0'],
		['an attempt given twice', '?ctx_attempt=1&ctx_attempt=2'],
		['context without an attempt', '?ctx_customer=C-1'],
		['a field name a placement never makes', '?ctx_attempt=1&ctx_first-name=Ada'],
		['a line break in a value', '?ctx_attempt=1&ctx_note=a%0Ab'],
		['a value longer than 200 characters', `?ctx_attempt=1&ctx_note=${'x'.repeat(201)}`],
		['more than 10 fields', `?ctx_attempt=1&${Array.from({ length: 11 }, (_, i) => `ctx_f${i}=x`).join('&')}`],
	])('context that no placement makes is refused with 400: %s', async (_label, query) => {
		const res = await post(url(query), result('BUSY'));
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.stringContaining('the Result Context in the URL is not valid') });
		expect(trigger.starts).toHaveLength(0);
	});
});

describe('the Retry Policy decision', () => {
	test.each([
		['ANSWER', 1, { callAgain: false, reason: 'answered: never called again' }],
		['NOANSWER', 2, { callAgain: true, attempt: 3, reason: 'NOANSWER: call again after 30 min (attempt 3 of 3)' }],
		['NOANSWER', 3, { callAgain: false, reason: 'NOANSWER: out of attempts (attempt 3 of 3)' }],
		['CHANUNAVAIL', 1, { callAgain: false, reason: 'CHANUNAVAIL: the Retry Policy does not call CHANUNAVAIL again' }],
		['DONTCALL', 1, { callAgain: false, reason: 'DONTCALL: the person asked not to be called; never called again' }],
		['MYSTATUS', 1, { callAgain: true, attempt: 2, reason: 'MYSTATUS: call again after 2 min (attempt 2 of 3)' }],
	])('%s at attempt %d', async (status, attempt, decision) => {
		const res = await post(url(`?ctx_attempt=${attempt}`), result(status));
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json.nextCall).toMatchObject(decision);
	});
});

test('a Retry Policy that does not read (an expression gone wrong) never loses the result: it says it did not decide', async () => {
	const broken = await startTrigger({
		parameters: { events: ['callResult'], webhookSecret: secret, retryPolicy: { maxAttempts: '={{ ) }}', busy: 5 } },
	});
	await broken.publish();
	try {
		const res = await post(`${broken.url}/webhook/${broken.webhookId}/${secret}/call-result?ctx_attempt=1`, result('BUSY'));
		expect(res.status).toBe(200);
		expect(broken.starts[0].items[0].json).toMatchObject({
			dialStatus: 'BUSY',
			attempt: 1,
			nextCall: { callAgain: false, reason: expect.stringContaining('not decided: ') },
		});
	} finally {
		await broken.unpublish();
		await broken.close();
	}
});

describe('the Dial Status filter knows every Asterisk status and takes others as text', () => {
	test.each([
		['CHANUNAVAIL', true],
		['DONTCALL', true],
		['chanunavail', true],
		['MYSTATUS', true],
		['something_else', true],
		['TORTURE', false],
		['CONGESTION', false],
	])('%s started: %s', async (status, started) => {
		const res = await post(url('?ctx_attempt=1'), result(status));
		expect(res.status).toBe(200);
		expect(trigger.starts).toHaveLength(started ? 1 : 0);
		if (!started) expect(res.body).toEqual({ received: true, started: false, reason: 'filtered out' });
	});
});

describe('end to end: Place Call with Result Context, the sandbox posts the result, the trigger gives it back', () => {
	let fx: SandboxFixture;
	let results: TriggerHarness;
	const CALLER = '+390212345678';

	beforeAll(async () => {
		fx = await startSandbox();
		results = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: otherSecret, retryPolicy: { busy: 10 } } });
		await results.publish();
	});

	afterAll(async () => {
		await results.unpublish();
		await results.close();
		await fx.sandbox.stop();
	});

	test('each result names its contact and attempt, and the busy one says when to call again', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Campaign', number: CALLER });
		registerSecret(assistant.assistantApiKey);
		fx.outbound.assistantApiKey = assistant.assistantApiKey;
		fx.sandbox.setDialOutcome({ dst: '+14155550124', dialstatus: 'BUSY', ringMs: 1000 });
		const contacts = [
			{ id: 'C-1', phone: '+14155550123', attempt: 1 },
			{ id: 'C-2', phone: '+14155550124', attempt: 2 },
		];
		const { error } = await runNode({
			parameters: {
				resource: 'outboundCall',
				operation: 'placeCall',
				route: 'trunk',
				dst: '={{ $json.phone }}',
				callerId: CALLER,
				options: { callResultUrl: results.eventUrl('callResult') },
				campaign: { attempt: '={{ $json.attempt }}', resultContext: { fields: [{ name: 'contactId', value: '={{ $json.id }}' }] } },
			},
			items: contacts.map((json) => ({ json })),
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		await fx.sandbox.clock.advance(60_000);
		expect(fx.sandbox.callbacks.map((c) => c.status)).toEqual([200, 200]);
		const byContact = Object.fromEntries(results.starts.map((s) => [(s.items[0].json.context as { contactId: string }).contactId, s.items[0].json]));
		expect(byContact['C-1']).toMatchObject({ attempt: 1, dialStatus: 'ANSWER', nextCall: { callAgain: false } });
		expect(byContact['C-2']).toMatchObject({ attempt: 2, dialStatus: 'BUSY', nextCall: { callAgain: true, attempt: 3 } });
	});
});
