/**
 * The trigger takes input from the platform, which may be hostile or a proxy gone wrong:
 * bodies nested deeper than MAX_JSON_DEPTH are refused, the secret or header value echoed back never
 * reaches the output, and repeated deliveries can be ignored on request.
 */
import { randomBytes } from 'node:crypto';

import { MAX_JSON_DEPTH } from '../../nodes/shared/redact';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { post, startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
registerSecret(secret);

let trigger: TriggerHarness | undefined;

afterEach(async () => {
	if (trigger) {
		await trigger.unpublish();
		await trigger.close();
		trigger = undefined;
	}
});

async function published(options: Record<string, unknown> = {}): Promise<TriggerHarness> {
	trigger = await startTrigger({
		parameters: { events: ['callResult', 'conversationEnd'], webhookSecret: secret, registerOnPublish: false, options },
	});
	await trigger.publish();
	return trigger;
}

function nested(depth: number): unknown {
	let value: unknown = { leaf: true };
	for (let i = 0; i < depth; i++) value = { a: value };
	return value;
}

describe('depth', () => {
	test('a body nested 100,000 levels is refused with 400 and starts nothing', async () => {
		const t = await published();
		const body = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
		const res = await post(t.eventUrl('conversationEnd'), body, { raw: true });
		expect(res.status).toBe(400);
		expect(JSON.stringify(res.body)).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
		expect(t.starts).toHaveLength(0);
	});

	test(`a body nested ${MAX_JSON_DEPTH - 2} levels is accepted`, async () => {
		const t = await published();
		const res = await post(t.eventUrl('conversationEnd'), { internal_id: 'c-1', payload: nested(MAX_JSON_DEPTH - 3) });
		expect(res.status).toBe(200);
		expect(t.starts).toHaveLength(1);
	});
});

test('the secret echoed in a body never reaches the output', async () => {
	const t = await published();
	const url = t.eventUrl('conversationEnd');
	const res = await post(url, { internal_id: 'c-2', echo: { deep: [`configured url: ${url}`] } });
	expect(res.status).toBe(200);
	const output = JSON.stringify(t.starts[0].items);
	expect(output).not.toContain(secret);
	expect(output).toContain('***');
});

describe('repeated deliveries', () => {
	const result = { internal_id: 'call-77', dialstatus: 'ANSWER', duration: 12 };

	test('off (the default): three deliveries of one call result start three executions', async () => {
		const t = await published();
		for (let i = 0; i < 3; i++) expect((await post(t.eventUrl('callResult'), result)).status).toBe(200);
		expect(t.starts).toHaveLength(3);
	});

	test('Ignore Repeated Deliveries: one execution per internal_id, the repeats answered 200', async () => {
		const t = await published({ ignoreRepeats: true });
		const answers = [];
		for (let i = 0; i < 3; i++) answers.push(await post(t.eventUrl('callResult'), result));
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(answers[1].body).toEqual({ received: true, started: false, reason: 'repeated delivery' });
		expect(await post(t.eventUrl('callResult'), { ...result, internal_id: 'call-78' })).toMatchObject({ status: 200 });
		expect(t.starts).toHaveLength(2);
		// The same internal_id on another event is another delivery.
		expect((await post(t.eventUrl('conversationEnd'), { internal_id: 'call-77' })).status).toBe(200);
		expect(t.starts).toHaveLength(3);
	});

	test('bodies without an internal_id are compared whole', async () => {
		const t = await published({ ignoreRepeats: true });
		await post(t.eventUrl('conversationEnd'), { transcript: 'hello' });
		await post(t.eventUrl('conversationEnd'), { transcript: 'hello' });
		await post(t.eventUrl('conversationEnd'), { transcript: 'bye' });
		expect(t.starts).toHaveLength(2);
	});
});
