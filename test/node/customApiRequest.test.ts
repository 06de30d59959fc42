import type { IDataObject } from 'n8n-workflow';

import type { RunOptions } from '../harness/engine';
import { expectNoSecrets, useSandbox } from '../harness/sandbox';
import { runNode } from '../harness/engine';

const fx = useSandbox();


function request(parameters: IDataObject, extra: Partial<RunOptions> = {}): RunOptions {
	return {
		parameters: { resource: 'customApiRequest', operation: 'request', ...parameters },
		credentials: fx.credentials,
		...extra,
	};
}

describe('Custom API Request → single requests', () => {
	test('GET without pagination: one request, a bare array becomes one item per element', async () => {
		const total = fx.sandbox.state.knowledge.size;
		expect(total).toBeGreaterThan(1);
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(request({ method: 'GET', path: '/knowledge' }));
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'GET', path: '/api/v1/knowledge', query: {}, auth: 'ok', status: 200 });
		expect(items).toHaveLength(total);
		expect(items[0].json.knowledgeId).toMatch(/^kb_/);
		expect(items.map((i) => i.pairedItem).filter((p) => (p as { item: number }).item !== 0)).toEqual([]);
		expectNoSecrets(fx, items);
	});

	test('GET with query parameters and an object answer: one item, query sent as given', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(
			request({
				method: 'GET',
				path: '/filler-lists',
				queryParameters: { parameters: [{ name: 'limit', value: '2' }, { name: 'language', value: 'en' }] },
			}),
		);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'GET', path: '/api/v1/filler-lists', query: { limit: '2', language: 'en' } });
		expect(items).toHaveLength(1);
		expect((items[0].json.data as IDataObject[]).length).toBe(2);
		expect(items[0].json.meta).toMatchObject({ count: 2, limit: 2, hasMore: true });
	});

	test('PATCH sends the JSON body exactly and outputs the answer', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Custom' });
		const ragId = fx.sandbox.state.collections.list[0].ragId;
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(
			request({ method: 'PATCH', path: `/assistants/${assistant.assistantId}/runtime/rag`, body: JSON.stringify({ ragId }) }),
		);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'PATCH',
			path: `/api/v1/assistants/${assistant.assistantId}/runtime/rag`,
			auth: 'ok',
			body: { ragId },
			status: 200,
		});
		expect(fx.sandbox.journal[0].headers['content-type']).toContain('application/json');
		expect(items.map((i) => i.json)).toEqual([{ assistantId: assistant.assistantId, ragId }]);
		expect(fx.sandbox.state.ragAttachments.get(assistant.assistantId)).toBe(ragId);
		expectNoSecrets(fx, items);
	});

	test('POST creates; DELETE sends no body', async () => {
		fx.sandbox.clearJournal();
		const created = await runNode(request({ method: 'POST', path: '/rag/collections', body: '{"name":"Via custom request"}' }));
		expect(created.error).toBeUndefined();
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'POST', path: '/api/v1/rag/collections', body: { name: 'Via custom request' }, status: 201 });
		const ragId = String(created.items[0].json.ragId);

		fx.sandbox.clearJournal();
		const deleted = await runNode(request({ method: 'DELETE', path: `/rag/collections/${ragId}`, body: '{"ignored":true}' }));
		expect(deleted.error).toBeUndefined();
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'DELETE', path: `/api/v1/rag/collections/${ragId}`, body: null, status: 200 });
		expect(deleted.items[0].json).toEqual({ ragId, deleted: true });
	});

	test('a platform error is a NodeApiError with the platform code', async () => {
		const { error } = await runNode(request({ method: 'GET', path: '/rag/uploads/upl_nothing0000000000' }));
		expect(error?.message).toContain('NOT_FOUND');
		expect(error?.httpCode).toBe('404');
	});

	test('GET is a read: retried after a 503', async () => {
		fx.sandbox.injectFault({ method: 'GET', path: '/api/v1/knowledge', kind: 'status', status: 503, times: 1 });
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(request({ method: 'GET', path: '/knowledge' }));
		expect(error).toBeUndefined();
		expect(items.length).toBe(fx.sandbox.state.knowledge.size);
		expect(fx.sandbox.journal.map((e) => e.status)).toEqual([503, 200]);
	});

	test('POST is a write: a 503 is reported, never retried', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/api/v1/rag/collections', kind: 'status', status: 503, times: 1 });
		const before = fx.sandbox.state.collections.size;
		fx.sandbox.clearJournal();
		const { error } = await runNode(request({ method: 'POST', path: '/rag/collections', body: '{"name":"Once"}' }));
		expect(error?.message).toContain('503');
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.state.collections.size).toBe(before);
	});
});

describe('Custom API Request → pagination', () => {
	test('0 items: one request with limit and the filters', async () => {
		const created = await runNode(request({ method: 'POST', path: '/rag/collections', body: '{"name":"Empty"}' }));
		const ragId = String(created.items[0].json.ragId);
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(
			request({
				method: 'GET',
				path: `/rag/collections/${ragId}/documents`,
				queryParameters: { parameters: [{ name: 'status', value: 'completed' }] },
				paginate: true,
				returnAll: true,
				options: { pageSize: 10 },
			}),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(0);
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].query).toEqual({ status: 'completed', limit: '10' });
	});

	test('exactly one full page: one request', async () => {
		const total = fx.sandbox.state.knowledge.size;
		fx.sandbox.clearJournal();
		const { items } = await runNode(
			request({ method: 'GET', path: '/knowledge', paginate: true, returnAll: true, options: { pageSize: total } }),
		);
		expect(items).toHaveLength(total);
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].query).toEqual({ limit: String(total) });
	});

	test('many pages: limit and filters ride on every page, the cursor as received', async () => {
		fx.sandbox.seed({ listItems: 1_000 });
		const total = fx.sandbox.state.analyticsCalls.size;
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(
			request({
				method: 'GET',
				path: '/analytics/calls',
				queryParameters: { parameters: [{ name: 'direction', value: 'inbound' }, { name: 'from', value: '2025-01-01' }] },
				paginate: true,
				returnAll: true,
				options: { pageSize: 300 },
			}),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(total);
		expect(new Set(items.map((i) => i.json.callId)).size).toBe(total);
		const journal = fx.sandbox.journal;
		expect(journal).toHaveLength(Math.ceil(total / 300));
		for (const entry of journal) {
			expect(entry).toMatchObject({ method: 'GET', path: '/api/v1/analytics/calls', auth: 'ok' });
			expect(entry.query).toMatchObject({ limit: '300', direction: 'inbound', from: '2025-01-01' });
		}
		expect(journal[0].query.cursor).toBeUndefined();
		for (const entry of journal.slice(1)) expect(typeof entry.query.cursor).toBe('string');
		expect(new Set(journal.slice(1).map((e) => e.query.cursor)).size).toBe(journal.length - 1);
		expectNoSecrets(fx, items);
	});

	test('Limit stops once it has enough, with limit on every page', async () => {
		fx.sandbox.clearJournal();
		const { items } = await runNode(
			request({ method: 'GET', path: '/knowledge', paginate: true, returnAll: false, limit: 7, options: { pageSize: 5 } }),
		);
		expect(items).toHaveLength(7);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['5', '5']);
	});

	test('also reaches provider-wallet keys, plugin instances and numbers', async () => {
		for (const [path, idField] of [
			['/provider-wallet/keys', 'keyId'],
			['/plugin-instances', 'instanceName'],
			['/numbers', 'number'],
		]) {
			fx.sandbox.clearJournal();
			const { items, error } = await runNode(request({ method: 'GET', path, paginate: true, returnAll: true, options: { pageSize: 2 } }));
			expect(error).toBeUndefined();
			expect(items.length).toBeGreaterThan(0);
			expect(items[0].json[idField]).toBeDefined();
			expect(fx.sandbox.journal.length).toBe(Math.max(1, Math.ceil(items.length / 2)));
			for (const entry of fx.sandbox.journal) expect(entry.query.limit).toBe('2');
		}
	});
});

describe('Custom API Request → bad input is rejected before sending', () => {
	test.each<[string, IDataObject, string]>([
		['a path with ://', { path: '/knowledge?next=http://evil.example/x' }, 'Invalid "Path": must be a path relative to /api/v1, not a URL: it must not contain "://"'],
		['an absolute URL', { path: 'https://evil.example/api/v1/knowledge' }, 'must not contain "://"'],
		['an encoded ://', { path: '/redirect/https%3A%2F%2Fevil.example' }, 'must not contain "://"'],
		['a protocol-relative URL', { path: '//evil.example/knowledge' }, 'Invalid "Path": must not start with "//"'],
		['a path without a leading slash', { path: 'knowledge' }, 'Invalid "Path": must start with "/"'],
		['..', { path: '/rag/../assistants' }, 'Invalid "Path": must not contain ".."'],
		['an encoded ..', { path: '/rag/%2e%2E/assistants' }, 'Invalid "Path": must not contain ".."'],
		['a backslash', { path: '/\\evil.example' }, 'Invalid "Path": must not contain a backslash'],
		['a query string in the path', { path: '/knowledge?limit=1' }, 'Invalid "Path": must not contain "?" or "#"'],
		['the /api/v1 prefix', { path: '/api/v1/knowledge' }, 'Invalid "Path": is already relative to /api/v1: write "/knowledge"'],
		['a blank path', { path: '  ' }, 'Invalid "Path": must not be empty'],
		['spaces', { path: '/knowledge items' }, 'Invalid "Path": must not contain spaces'],
		['a malformed escape', { path: '/knowledge/%E0%A4%A' }, 'Invalid "Path": contains a malformed %-escape'],
		['malformed JSON in Body', { method: 'POST', path: '/rag/collections', body: '{"name": "x",}' }, 'Invalid "Body": must be valid JSON'],
		['a Body that is not an object or array', { method: 'PUT', path: '/rag/collections', body: '42' }, 'Invalid "Body": must be a JSON object or array'],
		['a query parameter without a name', { queryParameters: { parameters: [{ name: ' ', value: 'x' }] } }, 'Invalid "Query Parameters": every parameter needs a name'],
		['a query parameter set twice', { queryParameters: { parameters: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] } }, 'Invalid "Query Parameters": the parameter "a" is set twice'],
		['limit in the query with Paginate', { paginate: true, returnAll: true, queryParameters: { parameters: [{ name: 'limit', value: '5' }] } }, 'Invalid "Query Parameters": "limit" is set by Paginate'],
		['a Page Size over 500', { paginate: true, returnAll: true, options: { pageSize: 501 } }, 'Invalid "Page Size": must be a whole number from 1 to 500'],
	])('rejects %s', async (_label, fields, message) => {
		fx.sandbox.clearJournal();
		const { error, items } = await runNode(request({ method: 'GET', path: '/knowledge', ...fields }));
		expect(error?.message).toContain(message);
		expect(items).toHaveLength(0);
		expect(fx.sandbox.journal).toHaveLength(0);
		expectNoSecrets(fx, [error?.message, error?.description]);
	});

	test('Continue On Fail: a rejected path becomes an error item, the others run, pairing kept', async () => {
		const [first, second] = fx.sandbox.state.collections.list;
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(
			request({ method: 'GET', path: '={{ $json.path }}' }, {
				items: [
					{ json: { path: `/rag/collections/${first.ragId}` } },
					{ json: { path: 'http://evil.example/rag/collections' } },
					{ json: { path: `/rag/collections/${second.ragId}` } },
				],
				continueOnFail: true,
			}),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.ragId).toBe(first.ragId);
		expect(String(items[1].json.error)).toContain('Invalid "Path": must be a path relative to /api/v1, not a URL');
		expect(items[2].json.ragId).toBe(second.ragId);
		expect(fx.sandbox.journal.map((e) => e.path)).toEqual([
			`/api/v1/rag/collections/${first.ragId}`,
			`/api/v1/rag/collections/${second.ragId}`,
		]);
	});
});
