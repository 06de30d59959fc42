/**
 * One focused test for each guarantee the node keeps against a misbehaving platform (the table-driven
 * suite beside this file, platform-misbehaves.test.ts, runs every operation against every misbehaviour):
 * a redirect is an error and carries no key to another origin; keys the platform echoes are redacted;
 * Additional Fields (JSON) cannot bypass the checks; a 2xx without an internal_id is never a placed call;
 * Timeout bounds the whole answer; ids that are dot segments are refused; runaway lists stop.
 */
import type { IDataObject } from 'n8n-workflow';

import { AP_TYPE, byId, WAIT_TYPE } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import { loadOptionsContext } from '../node/runtime-helpers';
import { portalRequest } from '../../nodes/shared/transport/request';

import { prepare, prepared } from './targets';
import { FREE_DEMO_NUMBER as CALLER } from '../../sandbox';

const fx = useHostile();


beforeEach(async () => {
	fx.sandbox.reset();
	await prepare(fx);
});

const keys = () => [fx.sandbox.portalKey, fx.sandbox.outboundKey, prepared.creditKey, prepared.overrideKey];

function expectNoKeys(value: unknown): void {
	const text = JSON.stringify(value, (_key, v: unknown) =>
		v instanceof Error ? { ...v, message: v.message, description: (v as { description?: unknown }).description } : v,
	);
	for (const key of keys()) expect(text).not.toContain(key);
}

async function run(parameters: IDataObject, options: Partial<RunOptions> = {}, wait = false) {
	const result = await runNode({
		nodeType: wait ? WAIT_TYPE : AP_TYPE,
		parameters,
		credentials: fx.credentials,
		...options,
	});
	expectNoKeys(result.items);
	if (result.error) {
		expectNoKeys({
			message: result.error.message,
			description: result.error.description,
			errorResponse: (result.error as { errorResponse?: unknown }).errorResponse,
		});
	}
	return result;
}

const placeCall = (extra: IDataObject = {}): IDataObject => ({
	resource: 'outboundCall',
	operation: 'placeCall',
	route: 'trunk',
	dst: '+14155550123',
	callerId: CALLER,
	...extra,
});
const posts = () => fx.hostile.requests.filter((r) => r.method === 'POST');

describe('a redirect is an error, and no key reaches another origin', () => {
	test.each([301, 302, 303, 307, 308])('Place Call answered %i: nothing reaches the foreign origin', async (status) => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'redirect', status: status as 307 } });
		const { error, items } = await run(placeCall());
		expect(items).toHaveLength(0);
		expect(error?.message).toContain(`answered ${status}, a redirect to ${fx.hostile.foreign.url}`);
		expect(error?.message).toMatch(/^Outcome unknown: /);
		expect(fx.hostile.foreign.requests).toEqual([]);
		expect(posts()).toHaveLength(1);
	});

	test('a read answered 302 names the target origin, never its query, and is not followed', async () => {
		fx.hostile.rule({ method: 'GET', path: /^\/api\/v1\/assistants/, behave: { kind: 'redirect', status: 302 } });
		const { error } = await run({ resource: 'assistant', operation: 'getAll', returnAll: false, limit: 5 });
		expect(error?.message).toBe(`The platform answered 302, a redirect to ${fx.hostile.foreign.url}, which is not followed`);
		expect(error?.message).not.toContain('limit=');
		expect(fx.hostile.foreign.requests).toEqual([]);
	});

	test.each([
		['an absolute URL', (foreign: string) => `${foreign}/api/v1/assistants`],
		['a protocol-relative URL', (foreign: string) => `//${new URL(foreign).host}/api/v1/assistants`],
	])('the transport itself refuses %s on another origin, before sending', async (_what, url) => {
		const ctx = loadOptionsContext(fx, { resource: 'assistant', operation: 'getAll', authentication: 'portalApi' });
		const target = url(fx.hostile.foreign.url);
		await expect(portalRequest(ctx, 'GET', target, { retry: false })).rejects.toThrow(
			`Invalid "URL": must stay on the credential's host ${fx.hostile.url}`,
		);
		expect(fx.hostile.foreign.requests).toEqual([]);
		expect(fx.hostile.requests).toEqual([]);
	});
});

describe('keys echoed by the platform are redacted everywhere', () => {
	test('an error that echoes every header and the body: no key in message, description, errorResponse', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'echo', status: 400, depth: 6 } });
		const { error } = await run(placeCall({ options: { assistantApiKeyOverride: prepared.overrideKey } }));
		expect(error?.httpCode).toBe('400');
		expect(String(error?.message)).toContain('***');
	});

	test('with Continue On Fail the error item holds no key either', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'echo', status: 500, depth: 3 } });
		const { items, error } = await run({ resource: 'assistant', operation: 'getAll', returnAll: true }, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(String(items[0].json.error)).toContain('***');
	});

	test('an accept that echoes the request under nested fields: the output holds no key', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'echo', status: 200, depth: 8 } });
		const { items, error } = await run(placeCall());
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(JSON.stringify(items[0].json)).toContain('***');
	});

	test('a 5 MB error message is cut to a readable size', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'hugeError', bytes: 5_000_000, status: 400 } });
		const { error } = await run({ resource: 'assistant', operation: 'getAll', returnAll: true });
		expect(error?.httpCode).toBe('400');
		expect(String(error?.message).length).toBeLessThan(2_000);
		expect(String(error?.description ?? '').length).toBeLessThan(2_000);
		expect(JSON.stringify((error as { errorResponse?: unknown }).errorResponse).length).toBeLessThan(2_000);
	});
});

describe('Additional Fields (JSON) cannot bypass the checks', () => {
	test.each([
		['dst', '{"dst": "+0000 not a number"}'],
		['callResultUrl', '{"callResultUrl": "javascript:alert(1)"}'],
		['url_esito_chiamata', '{"url_esito_chiamata": "ftp://example.com/x"}'],
		['assistantApiKey', '{"assistantApiKey": "ak_some_other_key_000000"}'],
		['ipPbx', '{"ipPbx": "not an address"}'],
	])('"%s" in Additional Fields is refused before anything is sent', async (field, json) => {
		const { error, items } = await run(placeCall({ additionalFieldsJson: json }));
		expect(items).toHaveLength(0);
		expect(error?.message).toContain('Invalid "Additional Fields (JSON)"');
		expect(error?.message).toContain(`"${field}"`);
		expect(fx.hostile.requests).toEqual([]);
	});

	test('other fields pass through, and the output states what was sent', async () => {
		const { error, items } = await run(placeCall({ additionalFieldsJson: '{"campaign": "spring"}' }));
		expect(error).toBeUndefined();
		const sent = JSON.parse(posts()[0].body) as IDataObject;
		expect(sent).toMatchObject({ dst: '+14155550123', campaign: 'spring' });
		expect(items[0].json).toMatchObject({ dst: '+14155550123' });
	});

	test('a management operation: a field the node sets is not overridden by Additional Fields', async () => {
		const { error } = await run({ resource: 'assistant', operation: 'create', name: 'Checked', additionalFieldsJson: '{"name": ""}' });
		expect(error?.message).toContain('Invalid "Additional Fields (JSON)"');
		expect(error?.message).toContain('"name"');
		expect(fx.hostile.requests).toEqual([]);
	});
});

describe('a 2xx without an internal_id is never a placed call', () => {
	// The *Id variants: the same internal_id rule as the call-result post (nodes/shared/calls/callResult.ts isInternalId).
	test.each(['emptyObject', 'emptyBody', 'noContent', 'html', 'error200', 'roundedId', 'fractionalId', 'longId'] as const)('%s: outcome unknown', async (variant) => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'nonAccept', variant } });
		const { error, items } = await run(placeCall(), { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ outcome: 'unknown', placed: 'unknown' });
		expect(items[0].json.internal_id).toBeUndefined();
		expect(String(items[0].json.error)).toMatch(/^Outcome unknown: /);
		expect(posts()).toHaveLength(1);
	});

	test('Call and Wait does not wait for a call without an internal_id', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'nonAccept', variant: 'emptyObject' } });
		const result = await run({ route: 'trunk', dst: '+14155550123', callerId: CALLER }, {}, true);
		expect(result.waitTill).toBeUndefined();
		expect(result.error?.message).toMatch(/^Outcome unknown: /);
		expect(result.error?.message).toContain('internal_id');
	});
});

describe('Timeout is a deadline for the whole answer', () => {
	test('a read whose body trickles ends with the timeout error', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'trickle', intervalMs: 200 } });
		const { error } = await run({
			resource: 'assistant',
			operation: 'getAll',
			returnAll: false,
			limit: 50,
			requestOptions: { timeout: 1_500 },
		});
		expect(error?.message).toBe('The platform did not answer within 1500 ms (timeout)');
	});

	test('Place Call whose accept trickles: outcome unknown, one POST', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'trickle', intervalMs: 200 } });
		const { error } = await run(placeCall({ requestOptions: { timeout: 1_500 } }));
		expect(error?.message).toBe(
			'Outcome unknown: The platform did not answer within 1500 ms (timeout). The call to +14155550123 may have been placed: do not place it again. No internal_id came back, so Call Status cannot check it: the call log on the platform tells whether it was placed.',
		);
		expect(posts()).toHaveLength(1);
	});
});

describe('ids that are dot segments are refused before anything is sent', () => {
	const rows: Array<[string, IDataObject, string]> = [
		['Assistant → Delete', { resource: 'assistant', operation: 'delete', assistantId: byId('.') }, 'Assistant'],
		['Assistant → Delete', { resource: 'assistant', operation: 'delete', assistantId: byId('..') }, 'Assistant'],
		['Assistant → Update Prompt', { resource: 'assistant', operation: 'updatePrompt', assistantId: byId('a/b'), prompt: 'x' }, 'Assistant'],
		['Assistant → Update Prompt', { resource: 'assistant', operation: 'updatePrompt', assistantId: byId('..'), prompt: 'x' }, 'Assistant'],
		['Runtime → Attach RAG Collection', { resource: 'runtime', operation: 'attachRag', assistantId: byId('..'), ragId: byId('rag_abc') }, 'Assistant'],
		['Call Status → Get', { resource: 'callStatus', operation: 'get', internalId: '..' }, 'Internal ID'],
		['Call Status → Get', { resource: 'callStatus', operation: 'get', internalId: '.' }, 'Internal ID'],
	];
	test.each(rows)('%s with %j', async (_name, parameters, field) => {
		const { error } = await run(parameters);
		expect(error?.message).toContain(`Invalid "${field}"`);
		expect(fx.hostile.requests).toEqual([]);
	});
});

describe('Retry On Fail, Continue On Fail and URLs in the output: nothing is said placed that was not, no token is shown', () => {
	test('Retry On Fail with Continue On Fail: every item says that nothing was placed', async () => {
		const { error, items } = await run(placeCall(), {
			items: [{ json: { n: 1 } }, { json: { n: 2 } }],
			continueOnFail: true,
			nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		for (const item of items) {
			expect(item.json).toMatchObject({ outcome: 'invalid', placed: false });
			expect(String(item.json.error)).toContain('Retry On Fail');
		}
		expect(fx.hostile.requests).toEqual([]);
	});

	test('Call and Wait with Retry On Fail and Continue On Fail: the item says nothing was placed', async () => {
		const { error, items, waitTill } = await run(
			{ route: 'trunk', dst: '+14155550123', callerId: CALLER },
			{ continueOnFail: true, nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } },
			true,
		);
		expect(error).toBeUndefined();
		expect(waitTill).toBeUndefined();
		expect(items[0].json).toMatchObject({ outcome: 'invalid', placed: false });
		expect(fx.hostile.requests).toEqual([]);
	});

	test('Configure Conversation Webhook outputs the URL it set without its token, like Place Call', async () => {
		const token = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
		const assistantId = fx.sandbox.createAssistant({ name: 'Hooked' }).assistantId;
		const { error, items } = await run({
			resource: 'runtime',
			operation: 'configureConversationWebhook',
			assistantId: byId(assistantId),
			webhookUrl: `https://n8n.example.com/webhook/${token}/conversation-end?sig=abc`,
		});
		expect(error).toBeUndefined();
		const text = JSON.stringify(items);
		expect(text).not.toContain(token);
		expect(text).not.toContain('sig=abc');
		expect(items[0].json.url).toMatch(/^https:\/\/n8n\.example\.com\/webhook\/\*\*\*\/.*\?\*\*\*$/);
	});
});

describe('runaway lists stop with a clear error', () => {
	const getAll = (options: IDataObject = {}) => ({ resource: 'assistant', operation: 'getAll', returnAll: true, options });
	const gets = () => fx.hostile.requests.filter((r) => r.method === 'GET');

	test('a walk that goes well past meta.totalCount stops', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 100, totalCount: 250 } });
		const { error, items } = await run(getAll());
		expect(items).toHaveLength(0);
		expect(error?.message).toBe('Pagination stopped: the platform returned more items than the list holds (meta.totalCount 250)');
		// 250 + one requested page (500) is passed at the 8th page of 100.
		expect(gets()).toHaveLength(8);
	});

	test('without a consistent totalCount, Max Pages bounds the walk and can be raised', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 10, totalCount: 1e12 } });
		const { error } = await run(getAll({ pageSize: 10, maxPages: 25 }));
		expect(error?.message).toBe('Pagination stopped: the list has more than 25 pages (Options > Max Pages)');
		expect(gets()).toHaveLength(25);
		fx.hostile.requests.length = 0;
		const raised = await run(getAll({ pageSize: 10, maxPages: 60 }));
		expect(raised.error?.message).toContain('more than 60 pages');
		expect(gets()).toHaveLength(60);
	});

	test('the default bound is 1,000 pages', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 1, totalCount: 1e12 } });
		const { error } = await run(getAll({ pageSize: 1 }));
		expect(error?.message).toContain('more than 1000 pages');
		expect(gets()).toHaveLength(1000);
	});

	test('9 empty pages then one item, again and again, does not slip past the empty-page guard', async () => {
		for (let cycle = 0; cycle < 3; cycle++) {
			fx.hostile.rule([
				{ method: 'GET', behave: { kind: 'endlessList', perPage: 0, totalCount: 1e12 }, times: 9 },
				{ method: 'GET', behave: { kind: 'endlessList', perPage: 1, totalCount: 1e12 }, times: 1 },
			]);
		}
		const { error } = await run(getAll());
		expect(error?.message).toBe('Pagination stopped: the platform returned 10 empty pages');
		expect(gets()).toHaveLength(11);
	});
});
