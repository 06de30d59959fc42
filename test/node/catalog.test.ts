import { PROVIDER_CATALOG, TOOL_CATALOG } from '../../sandbox';
import { runNode } from '../harness/engine';
import { useSandbox } from '../harness/sandbox';

import { addCatalogTools, byId, expectNoSecrets, fillerTools, portalGet } from './runtime-helpers';

const fx = useSandbox();

async function run(parameters: Record<string, unknown>, extra: Partial<Parameters<typeof runNode>[0]> = {}) {
	return await runNode({ parameters: { resource: 'catalog', ...parameters }, credentials: fx.credentials, ...extra });
}

/** The assistant the demo data binds two tools to. */
function supportAssistant(): string {
	for (const [assistantId, bindings] of fx.sandbox.state.toolBindings) if (bindings.length > 0) return assistantId;
	throw new Error('no assistant with tools in the demo data');
}

describe('Catalog → Get Providers', () => {
	test.each(['tts', 'asr', 'llm', 'audio-to-audio'] as const)('kind %s: one item per provider', async (kind) => {
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getProviders', providerKind: kind });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'GET',
			path: `/api/v1/catalog/providers/${kind}`,
			query: {},
			auth: 'ok',
			status: 200,
		});
		expect(fx.sandbox.journal[0].body ?? null).toBeNull();
		expect(items.map((i) => i.json)).toEqual(PROVIDER_CATALOG[kind].map((p) => ({ ...p, kind })));
		expect(items.map((i) => i.pairedItem)).toEqual(items.map(() => ({ item: 0 })));
		expectNoSecrets(fx, items);
	});

	test('a transient 503 is retried (reads only)', async () => {
		fx.sandbox.injectFault({ method: 'GET', path: '/api/v1/catalog/providers/llm', kind: 'status', status: 503, times: 1 });
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getProviders', providerKind: 'llm' });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => e.status)).toEqual([503, 200]);
		expect(items).toHaveLength(PROVIDER_CATALOG.llm.length);
	});

	test('an unknown kind from an expression is rejected before sending', async () => {
		fx.sandbox.clearJournal();
		const { error } = await run({ operation: 'getProviders', providerKind: '={{ "stt" }}' });
		expect(error?.message).toContain('Invalid "Kind": must be one of tts, asr, llm, audio-to-audio (got "stt")');
		expect(fx.sandbox.journal).toHaveLength(0);
	});

});

describe('Catalog → Get Tools', () => {
	test('returns the catalog with its instance names (Limit default 50, one page)', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getTools' });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'GET',
			path: '/api/v1/catalog/tools',
			query: { limit: '50' },
			auth: 'ok',
		});
		expect(items.map((i) => i.json)).toEqual(TOOL_CATALOG);
	});

	test('Return All walks every page with the same limit and the cursor as received', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getTools', returnAll: true, options: { pageSize: 3 } });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.toolName)).toEqual(TOOL_CATALOG.map((t) => t.toolName));
		const journal = [...fx.sandbox.journal];
		expect(journal).toHaveLength(Math.ceil(TOOL_CATALOG.length / 3));
		for (const entry of journal) {
			expect(entry).toMatchObject({ method: 'GET', path: '/api/v1/catalog/tools', auth: 'ok' });
			expect(entry.query.limit).toBe('3');
		}
		expect(journal[0].query.cursor).toBeUndefined();
		// Each cursor is exactly the nextCursor of the page before.
		let query = '?limit=3';
		for (let i = 1; i < journal.length; i++) {
			const page = await portalGet(fx, `/catalog/tools${query}`);
			const next = (page.meta as { nextCursor: string }).nextCursor;
			expect(journal[i].query.cursor).toBe(next);
			query = `?limit=3&cursor=${encodeURIComponent(next)}`;
		}
	});

	test('Return All over a large catalog at the default page size (500)', async () => {
		addCatalogTools(fx.sandbox, fillerTools(1_200));
		const total = fx.sandbox.state.toolCatalog.size;
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getTools', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(total);
		expect(new Set(items.map((i) => i.json.toolName)).size).toBe(total);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['500', '500', '500']);
		expect(fx.sandbox.journal.map((e) => typeof e.query.cursor)).toEqual(['undefined', 'string', 'string']);
	});

	test('Limit stops requesting pages once it has enough', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getTools', returnAll: false, limit: 5, options: { pageSize: 2 } });
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.toolName)).toEqual(TOOL_CATALOG.slice(0, 5).map((t) => t.toolName));
		expect(fx.sandbox.journal).toHaveLength(3);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['2', '2', '2']);
	});

	test('a Limit below the page size asks for just that many', async () => {
		fx.sandbox.clearJournal();
		const { items } = await run({ operation: 'getTools', returnAll: false, limit: 2 });
		expect(items).toHaveLength(2);
		expect(fx.sandbox.journal.map((e) => e.query)).toEqual([{ limit: '2' }]);
	});

	test('Page Size outside 1..500 is rejected before sending', async () => {
		fx.sandbox.clearJournal();
		const { error } = await run({ operation: 'getTools', returnAll: true, options: { pageSize: 0 } });
		expect(error?.message).toContain('Invalid "Page Size": must be a whole number from 1 to 500');
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('Catalog → Get Assistant Tools', () => {
	test('lists the tools bound to the assistant', async () => {
		const assistantId = supportAssistant();
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'getAssistantTools', assistantId: byId(assistantId), returnAll: true });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'GET',
			path: `/api/v1/catalog/assistants/${assistantId}/tools`,
			query: { limit: '500' },
			auth: 'ok',
		});
		expect(items.map((i) => i.json)).toEqual([
			expect.objectContaining({ toolName: 'create_ticket', subscriptionName: null, kind: 'custom_tool' }),
			expect.objectContaining({ toolName: 'crm_search', subscriptionName: 'crm-mcp', kind: 'custom_mcp_tool' }),
		]);
	});

	test('pages through the bindings with the same limit', async () => {
		const assistantId = supportAssistant();
		fx.sandbox.clearJournal();
		const { items } = await run({ operation: 'getAssistantTools', assistantId: byId(assistantId), returnAll: true, options: { pageSize: 1 } });
		expect(items).toHaveLength(2);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['1', '1']);
		expect(typeof fx.sandbox.journal[1].query.cursor).toBe('string');
	});

	test('an assistant without tools gives no items', async () => {
		const { assistantId } = fx.sandbox.createAssistant({ name: 'No tools' });
		const { items, error } = await run({ operation: 'getAssistantTools', assistantId: byId(assistantId) });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(0);
	});

	test('an empty assistant is rejected before sending', async () => {
		fx.sandbox.clearJournal();
		const { error } = await run({ operation: 'getAssistantTools', assistantId: byId('={{ "" }}') });
		expect(error?.message).toContain('Invalid "Assistant": must not be empty');
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	async function continueOnFailRun() {
		const assistantId = supportAssistant();
		fx.sandbox.clearJournal();
		const result = await run(
			{ operation: 'getAssistantTools', assistantId: byId('={{ $json.id }}'), returnAll: true },
			{ items: [{ json: { id: 'asst_doesNotExist00' } }, { json: { id: assistantId } }], continueOnFail: true },
		);
		return { ...result, assistantId };
	}

	test('Continue On Fail: an unknown assistant is reported on its own item, the other item still runs', async () => {
		const { items, error, assistantId } = await continueOnFailRun();
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(String(items[0].json.error)).toContain('404');
		expect(items.slice(1).map((i) => i.json.toolName)).toEqual(['create_ticket', 'crm_search']);
		expect(fx.sandbox.journal.map((e) => e.path)).toEqual([
			'/api/v1/catalog/assistants/asst_doesNotExist00/tools',
			`/api/v1/catalog/assistants/${assistantId}/tools`,
		]);
		expectNoSecrets(fx, items);
	});

	test('Continue On Fail on a list keeps paired items', async () => {
		const { items } = await continueOnFailRun();
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 1 }]);
	});
});
