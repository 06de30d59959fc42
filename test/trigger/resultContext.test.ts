/**
 * The trigger's Call Result with a Result Context: the fields Place Call puts in the Call Result URL come back
 * under `context`, read only once the secret in the path matched; a result without them (placed without one, or
 * a platform that drops the query) has `context: null`; a context no placement makes is refused. The trigger
 * decides nothing about calling again (no `attempt`, no `nextCall`): a list is called by the Campaign resource.
 * Every Asterisk dial status (and others as text) in the Dial Status filter. End to end with Place Call and the
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

let trigger: TriggerHarness;

beforeAll(async () => {
	trigger = await startTrigger({
		parameters: {
			events: ['callResult'],
			webhookSecret: secret,
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
	test('the context comes back with the result, and nothing about calling again', async () => {
		const res = await post(url('?ctx_customer=C-1042&ctx_name=Ada+L%C3%B6we'), result('BUSY'));
		expect(res.status).toBe(200);
		const [item] = trigger.starts[0].items;
		expect(item.json).toMatchObject({
			event: 'callResult',
			internal_id: INTERNAL_ID,
			dialStatus: 'BUSY',
			context: { customer: 'C-1042', name: 'Ada Löwe' },
		});
		expect(item.json).not.toHaveProperty('attempt');
		expect(item.json).not.toHaveProperty('nextCall');
		// The URL itself (with the secret) is not in the output.
		expect(JSON.stringify(item.json)).not.toContain(secret);
	});

	test("a query parameter that is not context (the platform's own, a user's) is left alone", async () => {
		await post(url('?source=crm&ctx_customer=C-7'), result('ANSWER'));
		expect(trigger.starts[0].items[0].json).toMatchObject({ context: { customer: 'C-7' } });
	});

	test("a campaign's claim comes back as context like any field: the attempt the table holds is the only one", async () => {
		const res = await post(url('?ctx_campaignClaim=c-1'), result('BUSY'));
		expect(res.status).toBe(200);
		const [item] = trigger.starts[0].items;
		expect(item.json.context).toEqual({ campaignClaim: 'c-1' });
		expect(item.json).not.toHaveProperty('attempt');
		expect(item.json).not.toHaveProperty('nextCall');
	});

	test('context sent without the secret, or with another secret, is refused (401) before it is read: nothing starts', async () => {
		for (const target of [url('?ctx_customer=C-1', otherSecret), `${trigger.url}/webhook/${trigger.webhookId}/call-result?ctx_customer=C-1`]) {
			const res = await post(target, result('BUSY'));
			expect(res.status).toBe(401);
		}
		expect(trigger.starts).toHaveLength(0);
	});

	test('a result without context (placed without one, or the platform dropped the query): context null', async () => {
		const res = await post(url(), result('BUSY'));
		expect(res.status).toBe(200);
		const [item] = trigger.starts[0].items;
		expect(item.json).toMatchObject({ dialStatus: 'BUSY', context: null });
		expect(item.json).not.toHaveProperty('attempt');
		expect(item.json).not.toHaveProperty('nextCall');
	});

	test.each([
		['a claim given twice', '?ctx_campaignClaim=1%3Aa&ctx_campaignClaim=2%3Ab'],
		['a field name a placement never makes', '?ctx_first-name=Ada'],
		['a field given twice', '?ctx_customer=C-1&ctx_customer=C-2'],
		['a line break in a value', '?ctx_note=a%0Ab'],
		['a value longer than 200 characters', `?ctx_note=${'x'.repeat(201)}`],
		['more than 10 fields', `?${Array.from({ length: 11 }, (_, i) => `ctx_f${i}=x`).join('&')}`],
	])('context that no placement makes is refused with 400: %s', async (_label, query) => {
		const res = await post(url(query), result('BUSY'));
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: expect.stringContaining('the Result Context in the URL is not valid') });
		expect(trigger.starts).toHaveLength(0);
	});
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
		const res = await post(url('?ctx_customer=C-1'), result(status));
		expect(res.status).toBe(200);
		expect(trigger.starts).toHaveLength(started ? 1 : 0);
		if (!started) expect(res.body).toEqual({ received: true, started: false, reason: 'filtered out' });
	});
});

describe('end to end: Place Call with Options > Result Context, the sandbox posts the result, the trigger gives it back', () => {
	let fx: SandboxFixture;
	let results: TriggerHarness;
	const CALLER = '+390212345678';

	beforeAll(async () => {
		fx = await startSandbox();
		results = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: otherSecret } });
		await results.publish();
	});

	afterAll(async () => {
		await results.unpublish();
		await results.close();
		await fx.sandbox.stop();
	});

	test('each result names its contact', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Campaign', number: CALLER });
		registerSecret(assistant.assistantApiKey);
		fx.outbound.assistantApiKey = assistant.assistantApiKey;
		fx.sandbox.setDialOutcome({ dst: '+14155550124', dialstatus: 'BUSY', ringMs: 1000 });
		const contacts = [
			{ id: 'C-1', phone: '+14155550123' },
			{ id: 'C-2', phone: '+14155550124' },
		];
		const { items: placed, error } = await runNode({
			parameters: {
				resource: 'outboundCall',
				operation: 'placeCall',
				route: 'trunk',
				dst: '={{ $json.phone }}',
				callerId: CALLER,
				options: { callResultUrl: results.eventUrl('callResult'), resultContext: { fields: [{ name: 'contactId', value: '={{ $json.id }}' }] } },
			},
			items: contacts.map((json) => ({ json })),
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(placed.map((item) => item.json.context)).toEqual([{ contactId: 'C-1' }, { contactId: 'C-2' }]);
		expect(fx.sandbox.journal.filter((e) => e.method === 'POST').map((e) => String((e.body as { callResultUrl: string }).callResultUrl))).toEqual([
			`${results.eventUrl('callResult')}?ctx_contactId=C-1`,
			`${results.eventUrl('callResult')}?ctx_contactId=C-2`,
		]);
		await fx.sandbox.clock.advance(60_000);
		expect(fx.sandbox.callbacks.map((c) => c.status)).toEqual([200, 200]);
		const byContact = Object.fromEntries(results.starts.map((s) => [(s.items[0].json.context as { contactId: string }).contactId, s.items[0].json]));
		expect(byContact['C-1']).toMatchObject({ dialStatus: 'ANSWER' });
		expect(byContact['C-2']).toMatchObject({ dialStatus: 'BUSY' });
		for (const json of Object.values(byContact)) {
			expect(json).not.toHaveProperty('attempt');
			expect(json).not.toHaveProperty('nextCall');
		}
	});
});
