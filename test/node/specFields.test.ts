/**
 * Fields the nodes read from the platform that its interface document does not show are used when present and
 * never required (docs/spec-coverage.md, "Fields the nodes read"). The spec shows only `meta` in a list page ("an
 * object including meta"), no shape of the provider catalog, no field of a catalog entry beyond toolName,
 * subscriptionName and instanceName, and no field of an upload record: a platform that answers the least it could
 * must still work, or fail with a message that names what is missing and what to do. Every answer here is the
 * sandbox's spec answer or an `answer` fault standing for such a platform.
 */
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { runNode } from '../harness/engine';
import { useSandbox } from '../harness/sandbox';

import { byId, expectNoSecrets, loadOptionsContext, recorded } from './runtime-helpers';

const fx = useSandbox();

type ListSearch = (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) => Promise<INodeListSearchResult>;
const listSearch = new AssistantPlatform().methods.listSearch as Record<string, ListSearch>;

const ASSISTANTS = '/api/v1/assistants';
const meta = (count: number, nextCursor: string | null = null): IDataObject => ({
	count,
	totalCount: count,
	limit: 500,
	nextCursor,
	hasMore: nextCursor !== null,
});

/** The next `times` GETs of `path` (1 by default) answer `body`. */
function answerGet(path: string, body: unknown, times = 1): void {
	fx.sandbox.injectFault({ method: 'GET', path, kind: 'answer', body, times });
}

const getMany = (extra: IDataObject = {}) => ({
	parameters: { resource: 'assistant', operation: 'getAll', returnAll: true, ...extra },
	credentials: fx.credentials,
});

describe('list pages: the items are "data", else the one list beside meta', () => {
	test('Get Many walks pages whose items are under another name, the cursor as received', async () => {
		answerGet(ASSISTANTS, { assistants: [{ assistantId: 'a1' }, { assistantId: 'a2' }], meta: meta(2, 'c2') });
		answerGet(ASSISTANTS, { assistants: [{ assistantId: 'a3' }], meta: meta(1) });
		fx.sandbox.clearJournal();
		const { items, error } = await runNode(getMany());
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ assistantId: 'a1' }, { assistantId: 'a2' }, { assistantId: 'a3' }]);
		expect(fx.sandbox.journal.map((e) => e.query)).toEqual([{ limit: '500' }, { limit: '500', cursor: 'c2' }]);
	});

	test('a page with no list at all and meta.count 0 is an empty page', async () => {
		answerGet(ASSISTANTS, { meta: meta(0) });
		const { items, error } = await runNode(getMany());
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
	});

	test.each([
		['two lists beside meta', { assistants: [{ assistantId: 'a1' }], errors: [], meta: meta(1) }, '"assistants", "errors"'],
		['no list, yet meta.count 2', { meta: meta(2) }, 'no list beside "meta"'],
	])('%s: a clear error naming what is missing and what to do', async (_label, body, says) => {
		answerGet(ASSISTANTS, body);
		const { items, error } = await runNode(getMany());
		expect(items).toEqual([]);
		expect(error?.message).toBe('Pagination stopped: the platform answered a page whose items cannot be found');
		expect(error?.description).toContain(says);
		expect(error?.description).toContain('Custom API Request');
	});

	test('Custom API Request with Paginate reads the one list beside meta too', async () => {
		answerGet('/api/v1/knowledge', { items: [{ id: 'k1' }, { id: 'k2' }], meta: meta(2) });
		const { items, error } = await runNode({
			parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge', paginate: true, returnAll: true },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ id: 'k1' }, { id: 'k2' }]);
	});
});

describe('list search: the same pages, entries without their id left out', () => {
	test('the Assistant picker finds the list beside meta', async () => {
		answerGet(ASSISTANTS, { assistants: [{ assistantId: 'asst_1', name: 'Front desk' }, { name: 'no id' }], meta: meta(2) });
		const ctx = loadOptionsContext(fx, { resource: 'assistant', operation: 'delete', authentication: 'portalApi' });
		const result = await recorded(async () => await listSearch.searchAssistants.call(ctx));
		expect(result).toEqual({ results: [{ name: 'Front desk', value: 'asst_1' }], paginationToken: undefined });
	});

	test('the RAG Collection picker needs only ragId (a collection name is not shown)', async () => {
		answerGet('/api/v1/rag/collections', { collections: [{ ragId: 'rag_A1' }, {}], meta: meta(2) });
		const ctx = loadOptionsContext(fx, { resource: 'ragCollection', operation: 'delete', authentication: 'portalApi' });
		const result = await recorded(async () => await listSearch.searchRagCollections.call(ctx));
		expect(result).toEqual({ results: [{ name: 'rag_A1', value: 'rag_A1' }], paginationToken: undefined });
	});

	test('a page whose items cannot be found is a clear error, not an empty list', async () => {
		answerGet(ASSISTANTS, { a: [], b: [], meta: meta(0) });
		const ctx = loadOptionsContext(fx, { resource: 'assistant', operation: 'delete', authentication: 'portalApi' });
		await expect(recorded(async () => await listSearch.searchAssistants.call(ctx))).rejects.toThrow(
			'The platform answered a list page with no "data" list but several lists beside "meta" ("a", "b")',
		);
	});
});

describe('catalogs: the shape of the provider catalog and the kind of a tool are not shown', () => {
	const providerCtx = (extra: IDataObject = {}) =>
		loadOptionsContext(fx, { resource: 'runtime', operation: 'setProvider', authentication: 'portalApi', providerKind: 'tts', ...extra });

	test('the provider picker finds the providers in the one list of an object', async () => {
		answerGet('/api/v1/catalog/providers/tts', { providers: [{ providerId: 'p1', models: ['m1'] }] }, 2);
		const providers = await recorded(async () => await listSearch.searchProviders.call(providerCtx()));
		expect(providers.results).toEqual([{ name: 'p1', value: 'p1' }]);
		const models = await recorded(async () => await listSearch.searchProviderModels.call(providerCtx({ providerId: byId('p1') })));
		expect(models.results).toEqual([{ name: 'm1', value: 'm1' }]);
	});

	test('providers without providerId: a clear error that says to choose the provider By ID', async () => {
		answerGet('/api/v1/catalog/providers/tts', [{ id: 'p1' }, { name: 'P2' }]);
		await expect(recorded(async () => await listSearch.searchProviders.call(providerCtx()))).rejects.toThrow(
			'The provider catalog (tts) has 2 entries, none with a providerId: choose the provider By ID',
		);
	});

	test('a provider whose entry has no models list: a clear error that says to type the model By Name', async () => {
		answerGet('/api/v1/catalog/providers/tts', [{ providerId: 'p1' }]);
		await expect(
			recorded(async () => await listSearch.searchProviderModels.call(providerCtx({ providerId: byId('p1') }))),
		).rejects.toThrow('The provider catalog lists no models for "p1": type the model By Name, or leave Model empty for the provider\'s default');
	});

	test('Add or Remove Tools: a catalog entry without kind is a custom tool without an instanceName, a plugin or MCP tool with one', async () => {
		const assistantId = fx.sandbox.createAssistant({ name: 'Tools' }).assistantId;
		answerGet('/api/v1/catalog/tools', {
			data: [
				{ toolName: 'lookup_order', instanceName: null },
				{ toolName: 'google_calendar_create_event', instanceName: 'gcal-main' },
				{ toolName: 'kb_search', instanceName: 'kb-mcp' },
			],
			meta: meta(3),
		});
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'runtime',
				operation: 'updateTools',
				assistantId: byId(assistantId),
				toolsToAdd: {
					tools: [
						{ toolName: 'lookup_order' },
						{ toolName: 'google_calendar_create_event' },
						{ toolName: 'kb_search', toolKind: 'custom_mcp_tool' },
					],
				},
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => [e.method, e.path])).toEqual([
			['GET', '/api/v1/catalog/tools'],
			['PATCH', `/api/v1/assistants/${assistantId}/runtime/tools`],
		]);
		expect(fx.sandbox.journal[1].body).toEqual({
			tools: [
				{ toolName: 'lookup_order', subscriptionName: null },
				{ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main' },
				{ toolName: 'kb_search', subscriptionName: 'kb-mcp' },
			],
			deleteTools: [],
		});
		expect(items).toHaveLength(1);
	});
});

describe('uploads: no field of an upload record is shown', () => {
	const UPLOAD = '/api/v1/rag/uploads/upl_spec0000000001';

	test('Wait for Processing on a record without status stops at once, naming status and what to do', async () => {
		answerGet(UPLOAD, { uploadId: 'upl_spec0000000001', progress: 40 }, 5);
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: {
				resource: 'ragCollection',
				operation: 'getUploadProgress',
				uploadId: 'upl_spec0000000001',
				waitForProcessing: true,
				waitOptions: { maxWaitSeconds: 2, pollIntervalMs: 100 },
			},
			credentials: fx.credentials,
		});
		expect(error?.message).toBe('The upload record of upl_spec0000000001 has no "status": Wait for Processing cannot tell when processing is over');
		expect(error?.description).toContain('Turn off Wait for Processing');
		expect(fx.sandbox.journal).toHaveLength(1);
	});

	test('Upload Documents waits with an answer that holds only the uploadId', async () => {
		const ragId = 'rag_Spec1';
		fx.sandbox.injectFault({ method: 'POST', path: `/api/v1/rag/collections/${ragId}/documents`, kind: 'answer', status: 202, body: { uploadId: 'upl_spec0000000001' } });
		answerGet(UPLOAD, { status: 'completed' });
		const { items, error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'uploadDocuments', ragId: byId(ragId), waitForProcessing: true, waitOptions: { pollIntervalMs: 100 } },
			items: [{ json: {}, binary: { data: { data: Buffer.from('text').toString('base64'), mimeType: 'text/plain', fileName: 'a.txt' } } }],
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json)).toEqual([{ uploadId: 'upl_spec0000000001', status: 'completed', timedOut: false }]);
	});
});

describe('answers as the spec shows them', () => {
	test('Assistant → Create with the spec answer {assistantId, assistantApiKey}: the id, the key hint and what was sent', async () => {
		const { items, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'create', name: 'Front desk' },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(Object.keys(items[0].json).sort()).toEqual(['assistantApiKeyHint', 'assistantId', 'description', 'mode', 'name']);
		expect(items[0].json).toMatchObject({ name: 'Front desk', description: '', mode: 'text' });
		expectNoSecrets(fx, items);
	});

	test('an error body without code or message: a NodeApiError from the HTTP status', async () => {
		fx.sandbox.injectFault({ method: 'DELETE', path: '/api/v1/rag/collections/*', kind: 'answer', status: 409, body: {} });
		const { error } = await runNode({
			parameters: { resource: 'ragCollection', operation: 'delete', ragId: byId('rag_A1') },
			credentials: fx.credentials,
		});
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe('The platform rejected the request (409)');
		expect(error?.httpCode).toBe('409');
	});
});
