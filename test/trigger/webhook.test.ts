/**
 * The trigger's webhook handler over real HTTP (test/harness/webhook.ts serves it the way n8n does):
 * URLs, every event with a valid body, every rejection, filters, test vs production URLs.
 */
import { randomBytes } from 'node:crypto';

import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { post, startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
const otherSecret = randomBytes(24).toString('hex');
const headerValue = `hv-${randomBytes(16).toString('hex')}`;
registerSecret(secret);
registerSecret(otherSecret);
registerSecret(headerValue);

const INTERNAL_ID = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';

let trigger: TriggerHarness;

beforeAll(async () => {
	trigger = await startTrigger({
		parameters: { events: ['callResult', 'conversationEnd', 'extractedData'], webhookSecret: secret, registerOnPublish: false },
	});
	await trigger.publish();
});

afterAll(async () => {
	await trigger.unpublish();
	await trigger.close();
});

beforeEach(() => {
	trigger.clear();
});

function base(mode: 'webhook' | 'webhook-test' = 'webhook'): string {
	return `${trigger.url}/${mode}/${trigger.webhookId}`;
}

function expectNoStart(): void {
	expect(trigger.starts).toHaveLength(0);
}

describe('URLs', () => {
	test('each selected event has its own URL carrying the secret, test and production', async () => {
		expect(trigger.visibleUrls('production')).toEqual([
			`${base()}/${secret}/call-result`,
			`${base()}/${secret}/conversation-end`,
			`${base()}/${secret}/extracted-data`,
		]);
		expect(trigger.visibleUrls('test')).toEqual([
			`${base('webhook-test')}/${secret}/call-result`,
			`${base('webhook-test')}/${secret}/conversation-end`,
			`${base('webhook-test')}/${secret}/extracted-data`,
		]);
	});

	test('only the URLs of the selected events are shown; the catch-alls never are', async () => {
		const other = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
		try {
			expect(other.visibleUrls()).toEqual([`${other.url}/webhook/${other.webhookId}/${secret}/call-result`]);
		} finally {
			await other.close();
		}
	});

	test('two triggers never store the same webhook path (n8n refuses duplicates on publish)', async () => {
		const a = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
		const b = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: otherSecret } });
		try {
			const pathsOf = (h: TriggerHarness) => h.webhooks(h.workflow({}), h.additionalData()).map((w) => w.path);
			const pathsA = pathsOf(a);
			const pathsB = pathsOf(b);
			expect(pathsA).toHaveLength(5);
			for (const path of pathsA) expect(pathsB).not.toContain(path);
		} finally {
			await a.close();
			await b.close();
		}
	});
});

describe('Call Result', () => {
	test('a valid call result starts the workflow once with the normalised item', async () => {
		const body = { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 42 };
		const res = await post(`${base()}/${secret}/call-result`, body);
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ message: 'Workflow was started' });
		expect(trigger.starts).toHaveLength(1);
		expect(trigger.starts[0].mode).toBe('production');
		const [item] = trigger.starts[0].items;
		expect(item.json).toEqual({
			event: 'callResult',
			internal_id: INTERNAL_ID,
			dialStatus: 'ANSWER',
			duration: 42,
			billSec: null,
			trafficCost: null,
			trafficCostNumber: null,
			pending: false,
			// Posted to a URL without Result Context.
			context: null,
			receivedAt: expect.any(String),
			body,
		});
		expect({ receivedAt: item.json.receivedAt, parsed: Date.parse(String(item.json.receivedAt)) }).not.toMatchObject({ parsed: NaN });
		expect(JSON.stringify(trigger.starts.map((s) => s.items))).not.toContain(secret);
	});

	test('internal_id is kept exactly as sent (a number stays a number)', async () => {
		const res = await post(`${base()}/${secret}/call-result`, { internal_id: 12345, dialstatus: 'BUSY', duration: 0 });
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json.internal_id).toBe(12345);
		expect(trigger.starts[0].items[0].json.duration).toBe(0);
	});

	test('the variant dialStatus is normalised; the original body is kept', async () => {
		const body = { internal_id: INTERNAL_ID, dialStatus: 'NOANSWER', duration: 0 };
		const res = await post(`${base()}/${secret}/call-result`, body);
		expect(res.status).toBe(200);
		const json = trigger.starts[0].items[0].json;
		expect(json.dialStatus).toBe('NOANSWER');
		expect(json.body).toEqual(body);
	});

	test('a duration sent as a string of digits is converted', async () => {
		const res = await post(`${base()}/${secret}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: '17' });
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json.duration).toBe(17);
		expect((trigger.starts[0].items[0].json.body as { duration: unknown }).duration).toBe('17');
	});

	test('a JSON body sent as text/plain is accepted', async () => {
		const res = await post(
			`${base()}/${secret}/call-result`,
			JSON.stringify({ internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 3 }),
			{ raw: true, contentType: 'text/plain' },
		);
		expect(res.status).toBe(200);
		expect(trigger.starts).toHaveLength(1);
	});
});

describe('Conversation End and Extracted Data', () => {
	test('a conversation end starts the workflow with its correlation fields and the body', async () => {
		const body = {
			event: 'conversation_end',
			assistantId: 'asst_AbCdEfGh12345678',
			internal_id: INTERNAL_ID,
			callId: 'call_1',
			durationSec: 61,
		};
		const res = await post(`${base()}/${secret}/conversation-end`, body);
		expect(res.status).toBe(200);
		expect(trigger.starts).toHaveLength(1);
		expect(trigger.starts[0].items[0].json).toEqual({
			event: 'conversationEnd',
			assistantId: 'asst_AbCdEfGh12345678',
			internal_id: INTERNAL_ID,
			receivedAt: expect.any(String),
			body,
		});
	});

	test('any JSON object is a conversation end (the body is not shown in the spec)', async () => {
		const res = await post(`${base()}/${secret}/conversation-end`, { anything: true });
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json).toEqual({
			event: 'conversationEnd',
			receivedAt: expect.any(String),
			body: { anything: true },
		});
	});

	test('extracted data starts the workflow with data and the body', async () => {
		const body = {
			event: 'extracted_data',
			assistantId: 'asst_AbCdEfGh12345678',
			callId: 'call_2',
			data: { customerName: 'Ada', interested: true },
		};
		const res = await post(`${base()}/${secret}/extracted-data`, body);
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json).toEqual({
			event: 'extractedData',
			assistantId: 'asst_AbCdEfGh12345678',
			data: { customerName: 'Ada', interested: true },
			receivedAt: expect.any(String),
			body,
		});
	});

	test('extracted data without a data object: data is the whole body', async () => {
		const res = await post(`${base()}/${secret}/extracted-data`, { customerName: 'Ada' });
		expect(res.status).toBe(200);
		expect(trigger.starts[0].items[0].json.data).toEqual({ customerName: 'Ada' });
	});
});

describe('Rejections start nothing', () => {
	const valid = { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 5 };

	test.each([
		['no token', () => `${base()}/call-result`],
		['a wrong token of the same length', () => `${base()}/${otherSecret}/call-result`],
		['a wrong token that is a prefix of the secret', () => `${base()}/${secret.slice(0, 20)}/call-result`],
		['the secret plus a character', () => `${base()}/${secret}x/call-result`],
	])('%s → 401', async (_label, url) => {
		const res = await post(url(), valid);
		expect(res.status).toBe(401);
		expect(res.body).toEqual({ error: 'missing or wrong token' });
		expectNoStart();
	});

	test('a wrong token on the other events → 401', async () => {
		for (const slug of ['conversation-end', 'extracted-data', 'no-such-event']) {
			const res = await post(`${base()}/${otherSecret}/${slug}`, { a: 1 });
			expect(res.status).toBe(401);
		}
		expectNoStart();
	});

	test('the right token on an unknown event → 404', async () => {
		const res = await post(`${base()}/${secret}/something-else`, valid);
		expect(res.status).toBe(404);
		expect(res.body).toEqual({ error: 'unknown event' });
		expectNoStart();
	});

	test.each([
		['text that is not JSON (text/plain)', 'hello', 'text/plain', 'the body is not valid JSON'],
		['text that is not JSON (no content type)', '{"internal_id":', 'application/octet-stream', 'the body is not valid JSON'],
		['an array', '[1,2]', 'application/json', 'the body must be a JSON object, not an array'],
		['a string', '"ANSWER"', 'application/json', 'the body must be a JSON object, not a string'],
		['null', 'null', 'application/json', 'the body must be a JSON object, not null'],
		['an empty body', '', 'application/json', 'the body is empty; a JSON object is expected'],
	])('%s → 400', async (_label, raw, contentType, reason) => {
		const res = await post(`${base()}/${secret}/call-result`, raw, { raw: true, contentType });
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: reason });
		expectNoStart();
	});

	test('invalid JSON sent as application/json is refused by n8n itself (422) before the node runs', async () => {
		const res = await post(`${base()}/${secret}/call-result`, '{"internal_id":', { raw: true });
		expect(res.status).toBe(422);
		expectNoStart();
	});

	test('a conversation end that is an array → 400', async () => {
		const res = await post(`${base()}/${secret}/conversation-end`, [{ a: 1 }]);
		expect(res.status).toBe(400);
		expectNoStart();
	});

	test.each([
		['internal_id missing', { dialstatus: 'ANSWER', duration: 5 }, 'internal_id is missing'],
		['internal_id empty', { internal_id: '  ', dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string'],
		['internal_id an object', { internal_id: { a: 1 }, dialstatus: 'ANSWER', duration: 5 }, 'internal_id must be a non-empty string'],
		['dialstatus missing', { internal_id: INTERNAL_ID, duration: 5 }, 'dialstatus is missing'],
		['dialstatus empty', { internal_id: INTERNAL_ID, dialstatus: '', duration: 5 }, 'dialstatus must be a non-empty string'],
		['dialstatus a number', { internal_id: INTERNAL_ID, dialstatus: 1, duration: 5 }, 'dialstatus must be a non-empty string'],
		['duration missing', { internal_id: INTERNAL_ID, dialstatus: 'ANSWER' }, 'duration is missing'],
		['duration -1', { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: -1 }, 'duration must be a non-negative whole number of seconds'],
		['duration 1.5', { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 1.5 }, 'duration must be a non-negative whole number of seconds'],
		['duration "x"', { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 'x' }, 'duration must be a non-negative whole number of seconds'],
		['duration "-3"', { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: '-3' }, 'duration must be a non-negative whole number of seconds'],
	])('call result with %s → 400', async (_label, body, reason) => {
		const res = await post(`${base()}/${secret}/call-result`, body);
		expect(res.status).toBe(400);
		expect(res.body).toEqual({ error: reason });
		expectNoStart();
	});

	test('a body over 1 MiB → 413', async () => {
		const body = { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 5, padding: 'x'.repeat(1024 * 1024) };
		const res = await post(`${base()}/${secret}/call-result`, body);
		expect(res.status).toBe(413);
		expect(res.body).toEqual({ error: 'body larger than 1048576 bytes' });
		expectNoStart();
	});

	test('a body just under 1 MiB is accepted', async () => {
		const body = { event: 'conversation_end', padding: 'x'.repeat(1024 * 1024 - 100) };
		const res = await post(`${base()}/${secret}/conversation-end`, body);
		expect(res.status).toBe(200);
		expect(trigger.starts).toHaveLength(1);
	});

	test('a GET is not served', async () => {
		const res = await fetch(`${base()}/${secret}/call-result`);
		expect(res.status).toBe(404);
		expectNoStart();
	});
});

describe('Options', () => {
	async function withTrigger(
		parameters: Record<string, unknown>,
		run: (h: TriggerHarness, root: string) => Promise<void>,
	): Promise<void> {
		const h = await startTrigger({ parameters: { webhookSecret: secret, ...parameters } });
		try {
			await h.publish();
			await run(h, `${h.url}/webhook/${h.webhookId}/${secret}`);
		} finally {
			await h.unpublish();
			await h.close();
		}
	}

	test('IP allowlist: a client outside it → 403, inside it → started', async () => {
		await withTrigger({ events: ['callResult'], options: { ipAllowlist: '203.0.113.0/24, 2001:db8::/32' } }, async (h, root) => {
			const res = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 1 });
			expect(res.status).toBe(403);
			expect(res.body).toEqual({ error: 'address not allowed' });
			expect(h.starts).toHaveLength(0);
		});
		await withTrigger({ events: ['callResult'], options: { ipAllowlist: '203.0.113.0/24\n127.0.0.0/8' } }, async (h, root) => {
			const res = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 1 });
			expect(res.status).toBe(200);
			expect(h.starts).toHaveLength(1);
		});
	});

	test('IP allowlist is checked before the token: a wrong token from outside → 403', async () => {
		await withTrigger({ events: ['callResult'], options: { ipAllowlist: '10.0.0.0/8' } }, async (h) => {
			const res = await post(`${h.url}/webhook/${h.webhookId}/${otherSecret}/call-result`, {});
			expect(res.status).toBe(403);
		});
	});

	test('IP allowlist with X-Forwarded-For: the last address (added by the proxy) is checked', async () => {
		await withTrigger(
			{ events: ['callResult'], options: { ipAllowlist: '198.51.100.0/24', useForwardedFor: true } },
			async (h, root) => {
				const body = { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 1 };
				const inside = await post(`${root}/call-result`, body, { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' } });
				expect(inside.status).toBe(200);
				// A client cannot spoof its way in by putting an allowed address first.
				const spoofed = await post(`${root}/call-result`, body, { headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
				expect(spoofed.status).toBe(403);
				const none = await post(`${root}/call-result`, body);
				expect(none.status).toBe(403);
				expect(h.starts).toHaveLength(1);
			},
		);
	});

	test('conversation-end auth header: missing or wrong → 401, right → started', async () => {
		await withTrigger(
			{
				events: ['conversationEnd'],
				registerOnPublish: false,
				options: { authHeaderName: 'X-Webhook-Token', authHeaderValue: headerValue },
			},
			async (h, root) => {
				const missing = await post(`${root}/conversation-end`, { a: 1 });
				expect(missing.status).toBe(401);
				expect(missing.body).toEqual({ error: 'missing or wrong authentication header' });
				const wrong = await post(`${root}/conversation-end`, { a: 1 }, { headers: { 'X-Webhook-Token': `${headerValue}0` } });
				expect(wrong.status).toBe(401);
				expect(h.starts).toHaveLength(0);
				const right = await post(`${root}/conversation-end`, { a: 1 }, { headers: { 'x-webhook-token': headerValue } });
				expect(right.status).toBe(200);
				expect(h.starts).toHaveLength(1);
				// The header (a secret) is not part of the output.
				expect(JSON.stringify(h.starts.map((s) => s.items))).not.toContain(headerValue);
			},
		);
	});

	test('an event that is not selected → 404, nothing started', async () => {
		await withTrigger({ events: ['callResult'] }, async (h, root) => {
			const res = await post(`${root}/extracted-data`, { data: {} });
			expect(res.status).toBe(404);
			expect(res.body).toEqual({ error: 'event not enabled on this trigger' });
			expect(h.starts).toHaveLength(0);
		});
	});

	test('dial status filter: other statuses are answered 200 and start nothing', async () => {
		await withTrigger({ events: ['callResult'], filters: { dialStatuses: ['ANSWER'] } }, async (h, root) => {
			const busy = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'BUSY', duration: 0 });
			expect(busy.status).toBe(200);
			expect(busy.body).toEqual({ received: true, started: false, reason: 'filtered out' });
			expect(h.starts).toHaveLength(0);
			const answered = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'answer', duration: 9 });
			expect(answered.status).toBe(200);
			expect(answered.body).toEqual({ message: 'Workflow was started' });
			expect(h.starts).toHaveLength(1);
			expect(h.starts[0].items[0].json.dialStatus).toBe('answer');
		});
	});

	test('minimum duration filter', async () => {
		await withTrigger({ events: ['callResult'], filters: { minDuration: 10 } }, async (h, root) => {
			const short = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 9 });
			expect(short.status).toBe(200);
			expect(h.starts).toHaveLength(0);
			const long = await post(`${root}/call-result`, { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 10 });
			expect(long.status).toBe(200);
			expect(h.starts).toHaveLength(1);
		});
	});

	test('filters do not apply to other events', async () => {
		await withTrigger(
			{ events: ['callResult', 'conversationEnd'], registerOnPublish: false, filters: { dialStatuses: ['ANSWER'] } },
			async (h, root) => {
				const res = await post(`${root}/conversation-end`, { dialstatus: 'BUSY' });
				expect(res.status).toBe(200);
				expect(h.starts).toHaveLength(1);
			},
		);
	});
});

describe('Test URL vs production URL', () => {
	test('the test URL works only while listening, for one event; the production URL only while published', async () => {
		const h = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
		try {
			const body = { internal_id: INTERNAL_ID, dialstatus: 'ANSWER', duration: 1 };
			const testUrl = h.eventUrl('callResult', 'test');
			const productionUrl = h.eventUrl('callResult', 'production');
			expect((await post(testUrl, body)).status).toBe(404);
			expect((await post(productionUrl, body)).status).toBe(404);

			await h.listenForTest();
			// A refused post does not end the test listen.
			expect((await post(testUrl.replace(secret, otherSecret), body)).status).toBe(401);
			expect(h.listening).toBe(true);
			expect((await post(testUrl, body)).status).toBe(200);
			expect(h.starts.map((s) => s.mode)).toEqual(['test']);
			expect(h.listening).toBe(false);
			expect((await post(testUrl, body)).status).toBe(404);

			await h.publish();
			expect((await post(productionUrl, body)).status).toBe(200);
			expect(h.starts.map((s) => s.mode)).toEqual(['test', 'production']);
			await h.unpublish();
			expect((await post(productionUrl, body)).status).toBe(404);
		} finally {
			await h.close();
		}
	});
});

describe('Configuration is checked when publishing and when listening for a test event', () => {
	test.each([
		['an empty secret', { webhookSecret: '' }, 'Invalid "Webhook Secret": is required'],
		['a short secret', { webhookSecret: 'abcdefghij0123456789' }, 'Invalid "Webhook Secret": must be at least 32 characters long'],
		['a secret with characters not allowed in a URL', { webhookSecret: `${secret}/x` }, 'Invalid "Webhook Secret": may only contain'],
		['a hand-made secret', { webhookSecret: 'abababababababababababababababab' }, 'Invalid "Webhook Secret": looks hand-made'],
		['no event', { events: [] }, 'Invalid "Events": choose at least one event'],
		['an invalid allowlist', { options: { ipAllowlist: '10.0.0.0/8, 300.1.2.3' } }, 'Invalid "IP Allowlist": not an IP address or CIDR range: "300.1.2.3"'],
		['a header name without a value', { options: { authHeaderName: 'X-Token' } }, 'Invalid "Auth Header Value": set both'],
	])('%s', async (_label, parameters, message) => {
		const h = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret, ...parameters } });
		try {
			await expect(h.publish()).rejects.toThrow(message);
			expect(h.published).toBe(false);
			await expect(h.listenForTest()).rejects.toThrow(message);
			expect(h.listening).toBe(false);
		} finally {
			await h.close();
		}
	});
});
