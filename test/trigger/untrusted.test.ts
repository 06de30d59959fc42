/**
 * The trigger takes input from the platform, which may be hostile or a proxy gone wrong:
 * bodies nested deeper than MAX_JSON_DEPTH are refused, the secret or header value echoed back never
 * reaches the output, and repeated deliveries can be ignored on request.
 */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { MAX_JSON_DEPTH } from '../../nodes/shared/core/redact';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { post, startTrigger } from '../harness/webhook';
import { isRepeat, triggerMemoryKey } from '../../nodes/AssistantPlatformTrigger/repeats';

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

	// n8n gives each production request its own copy of the static data, read when the request arrives, and
	// writes it back whole after answering (LiveWebhooks): requests that overlap hold copies of the same state.
	describe('requests that overlap in one n8n process (each with its own copy of the static data)', () => {
		const window = 60 * 60_000;
		const copyOf = (saved: IDataObject) => JSON.parse(JSON.stringify(saved)) as IDataObject;

		test('a repeat arriving before the first delivery was answered is a repeat', () => {
			const memory = triggerMemoryKey('webhook', 'wf-overlap-1', 'Platform Event');
			const saved = {};
			const first = copyOf(saved);
			const second = copyOf(saved);
			expect(isRepeat(first, 'callResult:id:c-1', 1000, window, memory)).toBe(false);
			expect(isRepeat(second, 'callResult:id:c-1', 1001, window, memory)).toBe(true);
		});

		test('the copy written back last keeps what the overlapping requests recorded', () => {
			const memory = triggerMemoryKey('webhook', 'wf-overlap-2', 'Platform Event');
			const saved = {};
			const copies = ['c-1', 'c-2', 'c-3'].map(() => copyOf(saved));
			copies.forEach((copy, i) => expect(isRepeat(copy, `callResult:id:c-${i + 1}`, 1000 + i, window, memory)).toBe(false));
			// Written back in any order (here the first request's copy last): what the next request reads, in this
			// process or another one, holds all three.
			const last = copyOf(copies[0]);
			for (const id of ['c-1', 'c-2', 'c-3']) expect(isRepeat(copyOf(last), `callResult:id:${id}`, 2000, window)).toBe(true);
		});

		test('another trigger, workflow or mode shares nothing', () => {
			const saved = {};
			expect(isRepeat(copyOf(saved), 'callResult:id:c-1', 1000, window, triggerMemoryKey('webhook', 'wf-overlap-3', 'A'))).toBe(false);
			expect(isRepeat(copyOf(saved), 'callResult:id:c-1', 1000, window, triggerMemoryKey('webhook', 'wf-overlap-3', 'B'))).toBe(false);
			expect(isRepeat(copyOf(saved), 'callResult:id:c-1', 1000, window, triggerMemoryKey('webhook', 'wf-overlap-4', 'A'))).toBe(false);
			expect(isRepeat(copyOf(saved), 'callResult:id:c-1', 1000, window, triggerMemoryKey('trigger', 'wf-overlap-3', 'A'))).toBe(false);
		});

		test('a delivery older than the window is forgotten here too', () => {
			const memory = triggerMemoryKey('webhook', 'wf-overlap-5', 'Platform Event');
			expect(isRepeat({}, 'callResult:id:c-1', 1000, window, memory)).toBe(false);
			expect(isRepeat({}, 'callResult:id:c-1', 1000 + window, window, memory)).toBe(false);
		});
	});

	test('bodies without an internal_id are compared whole', async () => {
		const t = await published({ ignoreRepeats: true });
		await post(t.eventUrl('conversationEnd'), { transcript: 'hello' });
		await post(t.eventUrl('conversationEnd'), { transcript: 'hello' });
		await post(t.eventUrl('conversationEnd'), { transcript: 'bye' });
		expect(t.starts).toHaveLength(2);
	});
});
