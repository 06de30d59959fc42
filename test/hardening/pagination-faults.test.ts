/**
 * Pagination faults: a platform whose cursor pagination misbehaves. The sandbox's `page`
 * fault rewrites a page (see sandbox/README.md, "Faults"): a repeated cursor, `hasMore` true with a
 * null cursor, a cursor the platform then rejects (400 INVALID_CURSOR), a page that repeats items
 * already returned, a page that shrinks, and empty pages without end.
 *
 * Expected of every list (the list operations over walkList, and the programmatic
 * readers behind Add or Remove Tools and the tool dropdown): a clean stop with a clear error, no
 * loop (a bounded number of requests), no item output twice. A page shorter than the page size is
 * accepted and the walk follows its cursor (docs/assumptions.md, "Pagination").
 */
import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { MAX_EMPTY_PAGES } from '../../nodes/AssistantPlatform/helpers/lists';
import type { FaultSpec, PageOverride } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';
import { addCatalogTools, fillerTools, loadOptionsContext, portalGet, recorded } from '../node/runtime-helpers';

import { apNode, byId, expectNoSecretsIn, run } from './helpers';

const fx = useSandbox();

const ASSISTANTS = '/api/v1/assistants';
const TOOLS = '/api/v1/catalog/tools';

/** Assistant → Get Many, Return All, two assistants a page (the seed has five: three pages). */
const getAssistants = (extra: IDataObject = {}) =>
	run(fx, 'ap', { resource: 'assistant', operation: 'getAll', returnAll: true, options: { pageSize: 2 }, ...extra });

function pageFault(path: string, page: PageOverride, extra: Partial<FaultSpec> = {}): void {
	fx.sandbox.injectFault({ method: 'GET', path, kind: 'page', page, ...extra });
}

const requests = (path: string) => fx.sandbox.journal.filter((entry) => entry.path === path);

beforeEach(() => {
	fx.sandbox.clearJournal();
});

describe('Assistant → Get Many (walkList)', () => {
	test('baseline: three pages, five assistants, each once', async () => {
		const { items, error } = await getAssistants();
		expect(error).toBeUndefined();
		expect(requests(ASSISTANTS)).toHaveLength(3);
		const ids = items.map((item) => item.json.assistantId);
		expect(ids).toHaveLength(5);
		expect(new Set(ids).size).toBe(5);
	});

	test('a repeated cursor: stops at page 2 with a clear error, no third request', async () => {
		pageFault(ASSISTANTS, { repeatCursor: true }, { skip: 1 });
		const { items, error } = await getAssistants();
		expect(items).toEqual([]);
		expect(error?.message).toBe('Pagination stopped: the platform returned the same cursor twice');
		expect(error?.description).toContain(`Page 2 of /assistants repeated an earlier cursor`);
		// Page 2's own items were new: they count, and nothing was output.
		expect(error?.description).toContain('4 items were read before the stop');
		const sent = requests(ASSISTANTS);
		expect(sent).toHaveLength(2);
		expect(typeof sent[1].query.cursor).toBe('string');
	});

	test('hasMore true with a null cursor: stops after page 1 with a clear error', async () => {
		pageFault(ASSISTANTS, { meta: { hasMore: true, nextCursor: null } });
		const { items, error } = await getAssistants();
		expect(items).toEqual([]);
		expect(error?.message).toBe('Pagination stopped: the platform said there are more items but gave no cursor');
		expect(error?.description).toContain('meta.hasMore true and meta.nextCursor null');
		expect(requests(ASSISTANTS)).toHaveLength(1);
	});

	test('a cursor the platform rejects (400 INVALID_CURSOR): one try, the error says where the walk stopped', async () => {
		pageFault(ASSISTANTS, { meta: { nextCursor: 'forged-cursor' } }, { times: 1 });
		const { items, error } = await getAssistants();
		expect(items).toEqual([]);
		expect(error?.message).toBe('INVALID_CURSOR: The platform rejected the pagination cursor');
		expect(error?.description).toContain('run the list again from the first page');
		expect(error?.description).toContain('Pagination stopped at page 2 of /assistants; 2 items were read before.');
		const sent = requests(ASSISTANTS);
		expect(sent.map((entry) => [entry.query.cursor ?? null, entry.status])).toEqual([
			[null, 200],
			['forged-cursor', 400],
		]);
	});

	test('INVALID_CURSOR on a later page (injected): not retried, a clear error', async () => {
		fx.sandbox.injectFault({ method: 'GET', path: ASSISTANTS, kind: 'status', status: 400, code: 'INVALID_CURSOR', skip: 2 });
		const { error } = await getAssistants();
		expect(error?.message).toBe('INVALID_CURSOR: The platform rejected the pagination cursor');
		expect(error?.description).toContain('Pagination stopped at page 3 of /assistants; 4 items were read before.');
		expect(requests(ASSISTANTS)).toHaveLength(3);
	});

	test('a page that repeats items already returned: stops with a clear error naming the item, nothing output twice', async () => {
		const first = (await portalGet(fx, '/assistants?limit=2')).data as IDataObject[];
		fx.sandbox.clearJournal();
		pageFault(ASSISTANTS, { data: [first[1]] }, { skip: 1 });
		const { items, error } = await getAssistants();
		expect(items).toEqual([]);
		expect(error?.message).toBe('Pagination stopped: the platform returned items already returned');
		expect(error?.description).toContain(`(first: assistantId ${JSON.stringify(first[1].assistantId)})`);
		expect(requests(ASSISTANTS)).toHaveLength(2);
	});

	test('a page that repeats an item under a changed name is still caught (keyed by assistantId)', async () => {
		const first = (await portalGet(fx, '/assistants?limit=2')).data as IDataObject[];
		fx.sandbox.clearJournal();
		pageFault(ASSISTANTS, { data: [{ ...first[0], name: 'Renamed meanwhile' }] }, { skip: 1 });
		const { error } = await getAssistants();
		expect(error?.message).toBe('Pagination stopped: the platform returned items already returned');
	});

	test('with Continue On Fail the stop becomes an error item, paired, and nothing else is output', async () => {
		pageFault(ASSISTANTS, { repeatCursor: true }, { skip: 1 });
		const tolerant = await run(
			fx,
			'ap',
			{ resource: 'assistant', operation: 'getAll', returnAll: true, options: { pageSize: 2 } },
			{ continueOnFail: true },
		);
		expect(tolerant.error).toBeUndefined();
		expect(tolerant.items).toEqual([
			{
				json: {
					error: 'Pagination stopped: the platform returned the same cursor twice',
					description: expect.stringContaining('nothing was output twice'),
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('the rule for a page that shrinks: accepted, the walk follows its cursor, no duplicates, no loop', async () => {
		// Page 2 comes back with one assistant instead of two (hasMore still true, its cursor valid).
		pageFault(ASSISTANTS, { keep: 1 }, { skip: 1, times: 1 });
		const { items, error } = await getAssistants();
		expect(error).toBeUndefined();
		expect(requests(ASSISTANTS)).toHaveLength(3);
		const ids = items.map((item) => item.json.assistantId);
		// The platform dropped one item from page 2: the node cannot know, but outputs no item twice.
		expect(ids).toHaveLength(4);
		expect(new Set(ids).size).toBe(4);
	});

	test('an empty page in the middle (hasMore true, a new cursor) is accepted too', async () => {
		pageFault(ASSISTANTS, { keep: 0 }, { skip: 1, times: 1 });
		const { items, error } = await getAssistants();
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(requests(ASSISTANTS)).toHaveLength(3);
	});

	test(`empty pages without end: stops after ${MAX_EMPTY_PAGES} empty pages`, async () => {
		fx.sandbox.seed({ assistants: 40 });
		pageFault(ASSISTANTS, { keep: 0 }, { skip: 1 });
		const { items, error } = await run(fx, 'ap', {
			resource: 'assistant',
			operation: 'getAll',
			returnAll: true,
			options: { pageSize: 1 },
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(`Pagination stopped: the platform returned ${MAX_EMPTY_PAGES} empty pages`);
		expect(requests(ASSISTANTS)).toHaveLength(1 + MAX_EMPTY_PAGES);
	});

	test('Limit mode: a repeated page stops too (no duplicates even below the limit)', async () => {
		pageFault(ASSISTANTS, { repeatCursor: true }, { skip: 1 });
		const { error } = await run(fx, 'ap', {
			resource: 'assistant',
			operation: 'getAll',
			returnAll: false,
			limit: 5,
			options: { pageSize: 2 },
		});
		expect(error?.message).toBe('Pagination stopped: the platform returned the same cursor twice');
		expect(requests(ASSISTANTS)).toHaveLength(2);
	});
});

describe('other lists walked by walkList', () => {
	test('Catalog → Get Tools (no id field): an identical item repeated is caught by its JSON', async () => {
		const first = (await portalGet(fx, '/catalog/tools?limit=3')).data as IDataObject[];
		fx.sandbox.clearJournal();
		pageFault(TOOLS, { data: [first[2]] }, { skip: 1 });
		const { items, error } = await run(fx, 'ap', {
			resource: 'catalog',
			operation: 'getTools',
			returnAll: true,
			options: { pageSize: 3 },
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('Pagination stopped: the platform returned items already returned');
		expect(error?.description).toContain('(first: an identical item)');
		expect(requests(TOOLS)).toHaveLength(2);
	});

	test('RAG Collection → Get Many Documents: a repeated cursor stops cleanly', async () => {
		const ragId = fx.sandbox.state.collections.list.find((c) => c.name === 'Product FAQ')!.ragId;
		const path = `/api/v1/rag/collections/${ragId}/documents`;
		pageFault(path, { repeatCursor: true }, { skip: 1 });
		const { error } = await run(fx, 'ap', {
			resource: 'ragCollection',
			operation: 'getManyDocuments',
			ragId: byId(ragId),
			returnAll: true,
			options: { pageSize: 1 },
		});
		expect(error?.message).toBe('Pagination stopped: the platform returned the same cursor twice');
		expect(requests(path)).toHaveLength(2);
	});

	test('Custom API Request with Paginate: hasMore with a null cursor stops cleanly', async () => {
		pageFault('/api/v1/knowledge', { meta: { hasMore: true, nextCursor: null } }, { skip: 1 });
		const { error } = await run(fx, 'ap', {
			resource: 'customApiRequest',
			operation: 'request',
			method: 'GET',
			path: '/knowledge',
			paginate: true,
			returnAll: true,
			options: { pageSize: 5 },
		});
		expect(error?.message).toBe('Pagination stopped: the platform said there are more items but gave no cursor');
		expect(error?.description).toContain('Page 2 of /knowledge');
		expect(requests('/api/v1/knowledge')).toHaveLength(2);
	});
});

describe('the tool catalog read by code (tool dropdown, Add or Remove Tools)', () => {
	type LoadOptions = (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>;
	const getCatalogTools = (apNode.methods.loadOptions as Record<string, LoadOptions>).getCatalogTools;

	async function dropdown(): Promise<{ options?: INodePropertyOptions[]; error?: Error & { description?: string } }> {
		const ctx = loadOptionsContext(fx, { resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' });
		try {
			return { options: await recorded(async () => await getCatalogTools.call(ctx)) };
		} catch (error) {
			expectNoSecretsIn(fx, { message: (error as Error).message });
			return { error: error as Error & { description?: string } };
		}
	}

	beforeEach(() => {
		// 607 tools: two pages of 500.
		addCatalogTools(fx.sandbox, fillerTools(600));
		fx.sandbox.clearJournal();
	});

	test('a repeated cursor: a clear error, two requests', async () => {
		pageFault(TOOLS, { repeatCursor: true }, { skip: 1 });
		const { error } = await dropdown();
		expect(error?.message).toBe('Pagination stopped: the platform returned the same cursor twice');
		expect(requests(TOOLS)).toHaveLength(2);
	});

	test('hasMore with a null cursor: a clear error, one request', async () => {
		pageFault(TOOLS, { meta: { hasMore: true, nextCursor: null } });
		const { error } = await dropdown();
		expect(error?.message).toBe('Pagination stopped: the platform said there are more items but gave no cursor');
		expect(requests(TOOLS)).toHaveLength(1);
	});

	test('a rejected cursor: INVALID_CURSOR, not retried', async () => {
		pageFault(TOOLS, { meta: { nextCursor: 'forged-cursor' } }, { times: 1 });
		const { error } = await dropdown();
		expect(error?.message).toBe('INVALID_CURSOR: The platform rejected the pagination cursor');
		expect(requests(TOOLS)).toHaveLength(2);
	});

	test('a page that repeats items already returned: a clear error, not a dropdown with duplicates', async () => {
		const first = (await portalGet(fx, '/catalog/tools?limit=500')).data as IDataObject[];
		fx.sandbox.clearJournal();
		pageFault(TOOLS, { data: first.slice(0, 3) }, { skip: 1 });
		const { error, options } = await dropdown();
		expect(options).toBeUndefined();
		expect(error?.message).toBe('Pagination stopped: the platform returned items already returned');
		expect(error?.description).toContain('repeated 3 item(s) already read');
		expect(requests(TOOLS)).toHaveLength(2);
	});

	test('Add or Remove Tools: a repeated catalog page stops before anything is written', async () => {
		const first = (await portalGet(fx, '/catalog/tools?limit=500')).data as IDataObject[];
		fx.sandbox.clearJournal();
		pageFault(TOOLS, { data: first.slice(0, 1) }, { skip: 1 });
		const supportId = fx.sandbox.state.assistants.list.find((a) => a.name === 'Support Triage')!.assistantId;
		const { error } = await run(fx, 'ap', {
			resource: 'runtime',
			operation: 'updateTools',
			assistantId: byId(supportId),
			toolsToAdd: { tools: [{ toolName: 'crm_search', toolKind: 'fromCatalog', subscriptionName: '' }] },
		});
		expect(error?.message).toBe('Pagination stopped: the platform returned items already returned');
		expect(fx.sandbox.journal.filter((entry) => entry.method !== 'GET')).toEqual([]);
	});
});
