/**
 * A fresh assistant key in an answer (POST /assistants returns the new assistant's key once) is
 * output only when the user asks for it, by one rule for Assistant → Create and Custom API Request
 * (Include API Key in Output): otherwise only its last four characters, as assistantApiKeyHint, at
 * whatever depth the answer holds it and under its legacy name too.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import { allowSecretInOutput } from '../harness/secretsGuard';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const customPost = (extra: IDataObject = {}) => ({
	resource: 'customApiRequest',
	operation: 'request',
	method: 'POST',
	path: '/assistants',
	body: '{"name": "Fresh", "description": "", "mode": "text"}',
	...extra,
});

const keyOf = (assistantId: unknown) => fx.sandbox.state.assistants.get(String(assistantId))!.assistantApiKey;

test('Custom API Request → POST /assistants outputs a hint of the new key, not the key', async () => {
	const { error, items } = await runNode({ parameters: customPost(), credentials: fx.credentials });
	expect(error).toBeUndefined();
	const key = keyOf(items[0].json.assistantId);
	expect(items[0].json.assistantApiKey).toBeUndefined();
	expect(items[0].json.assistantApiKeyHint).toBe(`…${key.slice(-4)}`);
	expect(JSON.stringify(items)).not.toContain(key);
});

test('Custom API Request with Include API Key in Output: the key, as Assistant → Create gives it', async () => {
	const { error, items } = await runNode({ parameters: customPost({ includeApiKey: true }), credentials: fx.credentials });
	expect(error).toBeUndefined();
	const key = keyOf(items[0].json.assistantId);
	allowSecretInOutput(key);
	expect(items[0].json.assistantApiKey).toBe(key);
	const create = await runNode({
		parameters: { resource: 'assistant', operation: 'create', name: 'Created', mode: 'text', options: { includeApiKey: true } },
		credentials: fx.credentials,
	});
	allowSecretInOutput(keyOf(create.items[0].json.assistantId));
	// Create's output is the same answer, completed with the fields it sent (name, description, mode).
	expect(Object.keys(create.items[0].json).sort()).toEqual([...Object.keys(items[0].json), 'description', 'mode', 'name'].sort());
	expect(create.items[0].json.assistantApiKey).toBe(keyOf(create.items[0].json.assistantId));
});

test.each<[string, Record<string, unknown>, (json: IDataObject) => unknown]>([
	['nested in an object', { assistant: { assistantId: 'a1', assistantApiKey: 'ak_nestedFreshKey000000000000001' } }, (json) => (json.assistant as IDataObject).assistantApiKeyHint],
	['in a list', { created: [{ assistantApiKey: 'ak_listedFreshKey000000000000002' }] }, (json) => ((json.created as IDataObject[])[0] as IDataObject).assistantApiKeyHint],
	['under the legacy name', { apiKey_assistente: 'ak_legacyFreshKey000000000000003' }, (json) => json.assistantApiKeyHint],
])('any answer of Custom API Request with a key %s: only the hint', async (_where, body, hint) => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'contradictory', body } });
	const { error, items } = await runNode({
		parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge' },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	expect(JSON.stringify(items)).not.toMatch(/ak_\w+FreshKey/);
	expect(hint(items[0].json)).toMatch(/^…\d{4}$/);
});

test('Custom API Request with Paginate: items that carry a key show its hint', async () => {
	fx.hostile.rule({
		method: 'GET',
		behave: {
			kind: 'contradictory',
			body: { data: [{ assistantId: 'a1', assistantApiKey: 'ak_pagedFreshKey0000000000000004' }], meta: { count: 1, totalCount: 1, limit: 500, nextCursor: null, hasMore: false } },
		},
	});
	const { error, items } = await runNode({
		parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/assistants', paginate: true, returnAll: true },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	expect(items[0].json).toEqual({ assistantId: 'a1', assistantApiKeyHint: '…0004' });
});
