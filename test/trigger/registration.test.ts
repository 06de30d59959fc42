/**
 * Automatic registration: publishing configures the assistant's conversation-end webhook and data
 * extraction on the platform sandbox (checkExists/create through n8n-core's HookContext), unpublishing
 * turns them off, errors surface, and listening for a test event changes nothing on the platform.
 */
import { randomBytes } from 'node:crypto';

import { SAVED_AUTH_NAME } from '../../sandbox';
import type { SandboxFixture } from '../harness/sandbox';
import { startSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
registerSecret(secret);

let fx: SandboxFixture;
const open: TriggerHarness[] = [];

beforeAll(async () => {
	fx = await startSandbox();
});

afterAll(async () => {
	for (const h of open) await h.close();
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
});

afterEach(async () => {
	while (open.length > 0) await open.pop()!.close();
});

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

const SCHEMA_PARAMETER = {
	properties: [
		{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
		{ name: 'outcome', type: 'enum', enumValues: 'sale, no sale', description: 'How the call ended', required: false },
	],
};
const SCHEMA_SENT = [
	{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
	{ name: 'outcome', type: 'enum', description: 'How the call ended', required: false, values: ['sale', 'no sale'] },
];

async function trigger(parameters: Record<string, unknown>, credentials = fx.credentials): Promise<TriggerHarness> {
	const h = await startTrigger({
		parameters: { webhookSecret: secret, ...parameters },
		credentials,
	});
	open.push(h);
	return h;
}

function newAssistant(): string {
	return fx.sandbox.createAssistant({ name: 'Trigger registration' }).assistantId;
}

function fullParameters(assistantId: string): Record<string, unknown> {
	return {
		events: ['conversationEnd', 'extractedData'],
		assistantId: byId(assistantId),
		authName: SAVED_AUTH_NAME,
		extractionSchema: SCHEMA_PARAMETER,
	};
}

function errorText(error: unknown): string {
	const e = error as Error & { description?: string };
	return `${e.message} ${e.description ?? ''}`;
}

describe('publish and unpublish', () => {
	test('publishing PATCHes the conversation webhook and the extraction config with the production URLs, once', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		fx.sandbox.clearJournal();
		await h.publish();

		const conversationUrl = h.eventUrl('conversationEnd');
		const extractionUrl = h.eventUrl('extractedData');
		expect(conversationUrl).toBe(`${h.url}/webhook/${h.webhookId}/${secret}/conversation-end`);
		expect(fx.sandbox.journal).toHaveLength(2);
		const [webhook, schema] = fx.sandbox.journal;
		expect(webhook.method).toBe('PATCH');
		expect(webhook.path).toBe(`/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`);
		expect(webhook.auth).toBe('ok');
		expect(webhook.body).toEqual({ enabled: true, url: conversationUrl, authName: SAVED_AUTH_NAME });
		expect(webhook.status).toBe(200);
		expect(schema.method).toBe('PATCH');
		expect(schema.path).toBe(`/api/v1/assistants/${assistantId}/runtime/hangup/schema`);
		expect(schema.auth).toBe('ok');
		expect(schema.body).toEqual({ hangupUrl: extractionUrl, schema: SCHEMA_SENT });
		expect(schema.status).toBe(200);

		expect(fx.sandbox.state.conversationWebhooks.get(assistantId)).toEqual({
			enabled: true,
			url: conversationUrl,
			authName: SAVED_AUTH_NAME,
		});
		expect(fx.sandbox.state.extractionConfigs.get(assistantId)).toEqual({ hangupUrl: extractionUrl, schema: SCHEMA_SENT });

		// Unpublishing turns the webhook off and clears the extraction config.
		fx.sandbox.clearJournal();
		await h.unpublish();
		expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.body, e.status])).toEqual([
			['PATCH', `/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, { enabled: false, url: null, authName: null }, 200],
			['PATCH', `/api/v1/assistants/${assistantId}/runtime/hangup/schema`, { hangupUrl: null, schema: [] }, 200],
		]);
		expect(fx.sandbox.state.conversationWebhooks.get(assistantId)).toEqual({ enabled: false, url: null, authName: null });
		expect(fx.sandbox.state.extractionConfigs.get(assistantId)).toEqual({ hangupUrl: null, schema: [] });
		expect(h.staticData).toEqual({ [`node:${'Assistant Platform Trigger'}`]: {} });
	});

	test('what was registered is kept in static data; an n8n restart does not register again', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		await h.publish();
		const stored = Object.values(h.staticData)[0] as Record<string, unknown>;
		expect(stored.registration).toMatchObject({
			assistantId,
			conversationEndUrl: h.eventUrl('conversationEnd'),
			extractedDataUrl: h.eventUrl('extractedData'),
		});
		fx.sandbox.clearJournal();
		await h.restart();
		expect(fx.sandbox.journal).toHaveLength(0);
		expect(h.published).toBe(true);
	});

	test('only Conversation End: only the conversation webhook; no Authentication Name sends null', async () => {
		const assistantId = newAssistant();
		const h = await trigger({ events: ['callResult', 'conversationEnd'], assistantId: byId(assistantId) });
		fx.sandbox.clearJournal();
		await h.publish();
		expect(fx.sandbox.journal.map((e) => [e.path, e.body])).toEqual([
			[`/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, { enabled: true, url: h.eventUrl('conversationEnd'), authName: null }],
		]);
		expect(fx.sandbox.state.extractionConfigs.has(assistantId)).toBe(false);
		fx.sandbox.clearJournal();
		await h.unpublish();
		expect(fx.sandbox.journal.map((e) => e.path)).toEqual([`/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`]);
	});

	test('only Extracted Data: only the extraction config', async () => {
		const assistantId = newAssistant();
		const h = await trigger({ events: ['extractedData'], assistantId: byId(assistantId), extractionSchema: SCHEMA_PARAMETER });
		fx.sandbox.clearJournal();
		await h.publish();
		expect(fx.sandbox.journal.map((e) => e.path)).toEqual([`/api/v1/assistants/${assistantId}/runtime/hangup/schema`]);
		expect(fx.sandbox.state.conversationWebhooks.has(assistantId)).toBe(false);
	});

	test('Call Result only, or Configure Platform on Publish off: nothing is sent and no credential is needed', async () => {
		const assistantId = newAssistant();
		const callOnly = await trigger({ events: ['callResult'] }, {});
		const manual = await trigger({ ...fullParameters(assistantId), registerOnPublish: false }, {});
		fx.sandbox.clearJournal();
		await callOnly.publish();
		await manual.publish();
		await callOnly.unpublish();
		await manual.unpublish();
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('republishing with another assistant (static data from before): the old hooks are turned off first', async () => {
		const first = newAssistant();
		const second = newAssistant();
		const h = await trigger(fullParameters(first));
		await h.publish();
		// The workflow is changed and activated again without a deactivation in between (e.g. a restart).
		h.setParameters({ webhookSecret: secret, ...fullParameters(second) });
		fx.sandbox.clearJournal();
		await h.restart();
		expect(fx.sandbox.journal.map((e) => [e.path, e.body])).toEqual([
			[`/api/v1/assistants/${first}/runtime/hangup/conversation-webhook`, { enabled: false, url: null, authName: null }],
			[`/api/v1/assistants/${first}/runtime/hangup/schema`, { hangupUrl: null, schema: [] }],
			[`/api/v1/assistants/${second}/runtime/hangup/conversation-webhook`, { enabled: true, url: h.eventUrl('conversationEnd'), authName: SAVED_AUTH_NAME }],
			[`/api/v1/assistants/${second}/runtime/hangup/schema`, { hangupUrl: h.eventUrl('extractedData'), schema: SCHEMA_SENT }],
		]);
	});
});

describe('the test URL trap', () => {
	test('listening for a test event sends nothing to the platform, also while the workflow is published', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		fx.sandbox.clearJournal();
		await h.listenForTest();
		await h.stopTest();
		expect(fx.sandbox.journal).toHaveLength(0);

		await h.publish();
		fx.sandbox.clearJournal();
		await h.listenForTest();
		await h.stopTest();
		expect(fx.sandbox.journal).toHaveLength(0);
		// The production registration is untouched: the platform keeps calling the production URL.
		expect(fx.sandbox.state.conversationWebhooks.get(assistantId)).toMatchObject({
			enabled: true,
			url: h.eventUrl('conversationEnd', 'production'),
		});
	});
});

describe('listening for a test event before the registration is configured', () => {
	test('works without an assistant or schema (they are only needed to publish)', async () => {
		const h = await trigger({ events: ['callResult', 'conversationEnd', 'extractedData'] }, {});
		fx.sandbox.clearJournal();
		await h.listenForTest();
		expect(h.listening).toBe(true);
		await h.stopTest();
		await expect(h.publish()).rejects.toThrow('Invalid "Assistant"');
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('registration errors surface', () => {
	test('a rejected portal key fails the publish with the 401, nothing is left registered', async () => {
		const assistantId = newAssistant();
		const badKey = `pk_wrong_${randomBytes(8).toString('hex')}`;
		registerSecret(badKey);
		const h = await trigger(fullParameters(assistantId), {
			assistantPlatformPortalApi: { ...fx.portal, portalApiKey: badKey },
		});
		fx.sandbox.clearJournal();
		const error = await h.publish().then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(error).toBeDefined();
		expect(errorText(error)).toContain('401');
		expect(errorText(error)).not.toContain(badKey);
		expect(errorText(error)).not.toContain(secret);
		expect(h.published).toBe(false);
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].auth).toBe('invalid');
		expect(fx.sandbox.state.conversationWebhooks.has(assistantId)).toBe(false);
	});

	test('an unknown assistant fails the publish with NOT_FOUND', async () => {
		const h = await trigger(fullParameters('asst_DoesNotExist000000'));
		await expect(h.publish()).rejects.toThrow(/NOT_FOUND|404/);
		expect(h.published).toBe(false);
	});

	test('an unknown Authentication Name fails the publish with the platform validation error', async () => {
		const assistantId = newAssistant();
		const h = await trigger({ ...fullParameters(assistantId), authName: 'no-such-auth' });
		fx.sandbox.clearJournal();
		await expect(h.publish()).rejects.toThrow(/VALIDATION_ERROR/);
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.state.conversationWebhooks.has(assistantId)).toBe(false);
	});

	test('when the extraction PATCH fails, the conversation webhook just enabled is turned off again', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		fx.sandbox.injectFault({ method: 'PATCH', path: `/api/v1/assistants/${assistantId}/runtime/hangup/schema`, kind: 'status', status: 500, times: 1 });
		fx.sandbox.clearJournal();
		await expect(h.publish()).rejects.toThrow(/500/);
		expect(fx.sandbox.journal.map((e) => [e.path, e.body, e.status])).toEqual([
			[`/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, { enabled: true, url: h.eventUrl('conversationEnd'), authName: SAVED_AUTH_NAME }, 200],
			[`/api/v1/assistants/${assistantId}/runtime/hangup/schema`, { hangupUrl: h.eventUrl('extractedData'), schema: SCHEMA_SENT }, 500],
			[`/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, { enabled: false, url: null, authName: null }, 200],
		]);
		expect(fx.sandbox.state.conversationWebhooks.get(assistantId)).toEqual({ enabled: false, url: null, authName: null });
		expect(h.published).toBe(false);
	});

	test('a failing unpublish surfaces its error and keeps the registration to retry', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		await h.publish();
		fx.sandbox.injectFault({ method: 'PATCH', path: `/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, kind: 'status', status: 503, times: 1 });
		await expect(h.unpublish()).rejects.toThrow(/503/);
		// Not retried automatically (writes are never retried): one attempt.
		expect(fx.sandbox.journal.filter((e) => e.status === 503)).toHaveLength(1);
		expect((Object.values(h.staticData)[0] as Record<string, unknown>).registration).toBeDefined();
	});

	test('unpublishing after the assistant was deleted: nothing left to turn off, registration cleared', async () => {
		const assistantId = newAssistant();
		const h = await trigger(fullParameters(assistantId));
		await h.publish();
		fx.sandbox.state.assistants.delete(assistantId);
		fx.sandbox.clearJournal();
		await h.unpublish();
		expect(fx.sandbox.journal.map((e) => e.status)).toEqual([404, 404]);
		expect((Object.values(h.staticData)[0] as Record<string, unknown>).registration).toBeUndefined();
	});
});

describe('configuration errors are reported before anything is sent', () => {
	test.each([
		['no assistant', { assistantId: byId('') }, 'Invalid "Assistant"'],
		['no schema property', { extractionSchema: {} }, 'Invalid "Extraction Schema": add at least one property'],
		[
			'a duplicate property name',
			{ extractionSchema: { properties: [{ name: 'a', type: 'string' }, { name: 'a', type: 'number' }] } },
			'Invalid "Extraction Schema › Property 2 › Name": must be unique',
		],
		[
			'an unnamed property',
			{ extractionSchema: { properties: [{ name: ' ', type: 'string' }] } },
			'Invalid "Extraction Schema › Property 1 › Name": must not be empty',
		],
		[
			'a header check without an Authentication Name',
			{ authName: '', options: { authHeaderName: 'X-Webhook-Auth', authHeaderValue: 'abc' } },
			'Invalid "Authentication Name"',
		],
	])('%s', async (_label, overrides, message) => {
		const assistantId = newAssistant();
		const h = await trigger({ ...fullParameters(assistantId), ...overrides });
		fx.sandbox.clearJournal();
		await expect(h.publish()).rejects.toThrow(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});
