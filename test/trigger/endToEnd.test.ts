/**
 * End to end, in process: a call is placed on the platform sandbox with the trigger's Call Result
 * URL, the sandbox clock runs the call to its outcome, and the sandbox's own callbacks (call result,
 * conversation end with its saved authentication header, extracted data) reach the published trigger
 * over real HTTP.
 */
import { randomBytes } from 'node:crypto';

import { SAVED_AUTH_HEADER, SAVED_AUTH_NAME } from '../../sandbox';
import { runNode } from '../harness/engine';
import type { SandboxFixture } from '../harness/sandbox';
import { startSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
const wrongSecret = randomBytes(24).toString('hex');
registerSecret(secret);
registerSecret(wrongSecret);

const CALLER_ID = '+390212345678';
const DST = '+393331234567';
/** Long enough for ring time + talk time of every call below. */
const CALL_TIME_MS = 120_000;

let fx: SandboxFixture;
let trigger: TriggerHarness | undefined;
let assistantId: string;
let assistantApiKey: string;

beforeAll(async () => {
	fx = await startSandbox();
	registerSecret(fx.sandbox.savedAuthValue);
});

afterAll(async () => {
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
	const assistant = fx.sandbox.createAssistant({ name: 'E2E', number: CALLER_ID });
	assistantId = assistant.assistantId;
	assistantApiKey = assistant.assistantApiKey;
	registerSecret(assistantApiKey);
});

afterEach(async () => {
	if (trigger) {
		if (trigger.published) await trigger.unpublish();
		await trigger.close();
		trigger = undefined;
	}
});

async function publishTrigger(parameters: Record<string, unknown>): Promise<TriggerHarness> {
	trigger = await startTrigger({ parameters: { webhookSecret: secret, ...parameters }, credentials: fx.credentials });
	await trigger.publish();
	return trigger;
}

/** Places a call on the sandbox's outbound API over HTTP, as the Place Call operation does. */
async function placeCall(callResultUrl?: string): Promise<string> {
	const response = await fetch(`${fx.sandbox.url}/webhook/outbound_call`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'X-APIKEY-SECRET-SERVICE': fx.sandbox.outboundKey },
		body: JSON.stringify({ dst: DST, callerId: CALLER_ID, assistantApiKey, callResultUrl }),
	});
	expect(response.status).toBe(200);
	const body = (await response.json()) as { internal_id: string };
	return body.internal_id;
}

const allEvents = () => ({
	events: ['callResult', 'conversationEnd', 'extractedData'],
	assistantId: { __rl: true, mode: 'id', value: assistantId },
	authName: SAVED_AUTH_NAME,
	extractionSchema: {
		properties: [
			{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
			{ name: 'interested', type: 'boolean', description: 'Wants an offer', required: false },
		],
	},
	options: { authHeaderName: SAVED_AUTH_HEADER, authHeaderValue: fx.sandbox.savedAuthValue },
});

test('an answered call: call result, conversation end and extracted data each start the workflow once', async () => {
	const h = await publishTrigger(allEvents());
	fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 37 });
	const internalId = await placeCall(h.eventUrl('callResult'));
	expect(h.starts).toHaveLength(0);

	await fx.sandbox.clock.advance(CALL_TIME_MS);

	expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status])).toEqual(
		expect.arrayContaining([
			['callResult', 200],
			['conversationEnd', 200],
			['extractedData', 200],
		]),
	);
	expect(fx.sandbox.callbacks).toHaveLength(3);
	expect(h.starts).toHaveLength(3);
	const byEvent = Object.fromEntries(h.starts.map((s) => [s.items[0].json.event, s.items[0].json]));

	expect(byEvent.callResult).toEqual({
		event: 'callResult',
		internal_id: internalId,
		dialStatus: 'ANSWER',
		duration: 37,
		billSec: null,
		trafficCost: null,
		trafficCostNumber: null,
		pending: false,
		// Posted to a URL without Result Context.
		context: null,
		receivedAt: expect.any(String),
		body: { internal_id: internalId, dialstatus: 'ANSWER', duration: 37 },
	});
	expect(byEvent.conversationEnd).toMatchObject({
		event: 'conversationEnd',
		assistantId,
		internal_id: internalId,
		body: { event: 'conversation_end', assistantId, internal_id: internalId, durationSec: 37, to: DST, from: CALLER_ID },
	});
	expect(byEvent.extractedData).toMatchObject({
		event: 'extractedData',
		assistantId,
		internal_id: internalId,
		data: { customerName: 'sample customerName', interested: true },
	});
	expect(h.starts.map((s) => s.mode).filter((mode) => mode !== 'production')).toEqual([]);
	const output = JSON.stringify(h.starts.map((s) => s.items));
	expect(output).not.toContain(secret);
	expect(output).not.toContain(fx.sandbox.savedAuthValue);
});

test('the Place Call operation of the action node, with the trigger URL as Call Result URL', async () => {
	// Place Call shows where its Call Result URL points, with the trigger's token masked; the
	// secrets guard checks the token never reaches its output.
	const placeCallSecret = randomBytes(24).toString('hex');
	registerSecret(placeCallSecret);
	trigger = await startTrigger({
		parameters: { webhookSecret: placeCallSecret, events: ['callResult'] },
		credentials: fx.credentials,
	});
	const h = trigger;
	await h.publish();
	fx.sandbox.setDialOutcome({ dialstatus: 'BUSY' });
	const { items, error } = await runNode({
		parameters: {
			resource: 'outboundCall',
			operation: 'placeCall',
			route: 'trunk',
			dst: DST,
			callerId: CALLER_ID,
			options: { assistantApiKeyOverride: assistantApiKey, callResultUrl: h.eventUrl('callResult') },
		},
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	const internalId = items[0].json.internal_id;
	expect(typeof internalId).toBe('string');
	expect(items[0].json.callResultUrl).toMatch(/\/\*\*\*\/call-result$/);
	expect(JSON.stringify(items)).not.toContain(placeCallSecret);

	await fx.sandbox.clock.advance(CALL_TIME_MS);
	expect(h.starts).toHaveLength(1);
	expect(h.starts[0].items[0].json).toMatchObject({ event: 'callResult', internal_id: internalId, dialStatus: 'BUSY', duration: 0 });
});

test('an unanswered call: only the call result arrives, and the dial status filter drops it with a 200', async () => {
	const h = await publishTrigger({ ...allEvents(), filters: { dialStatuses: ['ANSWER'] } });
	fx.sandbox.setDialOutcome({ dialstatus: 'NOANSWER' });
	await placeCall(h.eventUrl('callResult'));
	await fx.sandbox.clock.advance(CALL_TIME_MS);
	expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status])).toEqual([['callResult', 200]]);
	expect(h.starts).toHaveLength(0);
});

test('a Call Result URL with a wrong token: the platform gets 401 and nothing starts', async () => {
	const h = await publishTrigger({ events: ['callResult'] });
	await placeCall(h.eventUrl('callResult').replace(secret, wrongSecret));
	await fx.sandbox.clock.advance(CALL_TIME_MS);
	expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status])).toEqual([['callResult', 401]]);
	expect(h.starts).toHaveLength(0);
});

test('a conversation end without the expected header (another saved authentication) is refused with 401', async () => {
	fx.sandbox.addSavedAuthentication('other-auth', { header: SAVED_AUTH_HEADER, value: 'not-the-expected-value' });
	const h = await publishTrigger({ ...allEvents(), events: ['conversationEnd'], authName: 'other-auth' });
	await placeCall();
	await fx.sandbox.clock.advance(CALL_TIME_MS);
	expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status])).toEqual([['conversationEnd', 401]]);
	expect(h.starts).toHaveLength(0);
});

test('after unpublishing, the platform no longer posts conversation ends or extracted data', async () => {
	const h = await publishTrigger(allEvents());
	await h.unpublish();
	fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 5 });
	await placeCall(h.eventUrl('callResult'));
	await fx.sandbox.clock.advance(CALL_TIME_MS);
	// The call result URL belongs to the call, not to the registration: it is still posted, to a
	// trigger that is no longer published (n8n answers 404).
	expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status])).toEqual([['callResult', 404]]);
	expect(h.starts).toHaveLength(0);
});

test('while only listening for a test event, the registered production URL is what the platform calls', async () => {
	trigger = await startTrigger({ parameters: { webhookSecret: secret, ...allEvents() }, credentials: fx.credentials });
	const h = trigger;
	await h.publish();
	await h.listenForTest();
	fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 5 });
	await placeCall(h.eventUrl('callResult', 'test'));
	await fx.sandbox.clock.advance(CALL_TIME_MS);
	const modes = h.starts.map((s) => [s.items[0].json.event, s.mode]);
	expect(modes).toEqual(
		expect.arrayContaining([
			['callResult', 'test'],
			['conversationEnd', 'production'],
			['extractedData', 'production'],
		]),
	);
	expect(modes).toHaveLength(3);
});
