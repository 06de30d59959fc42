import type { ILoadOptionsFunctions, INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { PROVIDER_CATALOG, TOOL_CATALOG } from '../../sandbox';

import { addCatalogTools, fillerTools, fromList, loadOptionsContext, recorded } from './runtime-helpers';
import { useSandbox } from '../harness/sandbox';

const fx = useSandbox();
const node = new AssistantPlatform();

type ListSearch = (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>;
type LoadOptions = (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>;

const listSearch = node.methods.listSearch as Record<string, ListSearch>;
const loadOptions = node.methods.loadOptions as Record<string, LoadOptions>;

const setProviderParameters = (extra: Record<string, unknown> = {}) => ({
	resource: 'runtime',
	operation: 'setProvider',
	authentication: 'portalApi',
	...extra,
});

test('the node exposes the Runtime/Catalog methods under their unique names', () => {
	expect(typeof listSearch.searchProviders).toBe('function');
	expect(typeof listSearch.searchProviderModels).toBe('function');
	expect(typeof loadOptions.getCatalogTools).toBe('function');
	// The fields that use them point at those names.
	const props = node.description.properties;
	const provider = props.find((p) => p.name === 'providerId');
	expect(provider?.modes?.[0].typeOptions?.searchListMethod).toBe('searchProviders');
	const model = props.find((p) => p.name === 'model' && p.type === 'resourceLocator');
	expect(model?.modes?.[0].typeOptions?.searchListMethod).toBe('searchProviderModels');
});

describe('searchProviders', () => {
	test('lists the providers of the chosen kind from the live catalog', async () => {
		fx.sandbox.clearJournal();
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'tts' }));
		const result = await recorded(async () => await listSearch.searchProviders.call(ctx));
		expect(result.results.map((r) => r.value)).toEqual(PROVIDER_CATALOG.tts.map((p) => p.providerId));
		expect(result.results[0].name).toBe('ElevenLabs (elevenlabs)');
		expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.auth])).toEqual([
			['GET', '/api/v1/catalog/providers/tts', 'ok'],
		]);
	});

	test('filters by id or name, case-insensitive', async () => {
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm' }));
		const result = await listSearch.searchProviders.call(ctx, 'GEMINI');
		expect(result.results.map((r) => r.value)).toEqual(['google-gemini']);
	});

	test('an invalid kind gives a clear error and sends nothing', async () => {
		fx.sandbox.clearJournal();
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'video' }));
		await expect(recorded(async () => await listSearch.searchProviders.call(ctx))).rejects.toThrow(
			'Invalid "Kind": must be one of tts, asr, llm, audio-to-audio',
		);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a wrong key gives a 401 naming the credential, without the key', async () => {
		const wrongKey = 'pk_wrong_loadoptions_0123';
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm' }), {
			...fx.credentials,
			assistantPlatformPortalApi: { ...fx.portal, portalApiKey: wrongKey },
		});
		const error = (await recorded(async () => await listSearch.searchProviders.call(ctx)).catch((e: unknown) => e)) as Error & {
			description?: string;
		};
		expect(error.message).toContain('401');
		expect(error.description).toContain('Assistant Platform Portal API');
		expect(JSON.stringify({ m: error.message, d: error.description })).not.toContain(wrongKey);
	});
});

describe('searchProviderModels', () => {
	test("lists the chosen provider's models", async () => {
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm', providerId: fromList('anthropic') }));
		const result = await listSearch.searchProviderModels.call(ctx);
		expect(result.results).toEqual([
			{ name: 'claude-3-5-sonnet', value: 'claude-3-5-sonnet' },
			{ name: 'claude-3-5-haiku', value: 'claude-3-5-haiku' },
		]);
	});

	test('filters the models', async () => {
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm', providerId: fromList('openai') }));
		const result = await listSearch.searchProviderModels.call(ctx, 'mini');
		expect(result.results.map((r) => r.value)).toEqual(['gpt-4o-mini']);
	});

	test('no provider chosen yet: no models and no request', async () => {
		fx.sandbox.clearJournal();
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm', providerId: fromList('') }));
		const result = await listSearch.searchProviderModels.call(ctx);
		expect(result.results).toEqual([]);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a provider not in the catalog has no models', async () => {
		const ctx = loadOptionsContext(fx, setProviderParameters({ providerKind: 'llm', providerId: fromList('ghost') }));
		expect((await listSearch.searchProviderModels.call(ctx)).results).toEqual([]);
	});
});

describe('getCatalogTools', () => {
	test('offers every catalog tool, sorted, with kind and instance in the description', async () => {
		fx.sandbox.clearJournal();
		const ctx = loadOptionsContext(fx, { resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' });
		const options = await recorded(async () => await loadOptions.getCatalogTools.call(ctx));
		expect(options.map((o) => o.value)).toEqual(TOOL_CATALOG.map((t) => t.toolName).sort((a, b) => a.localeCompare(b)));
		const gcal = options.find((o) => o.value === 'google_calendar_create_event');
		expect(gcal?.description).toBe('plugin_tool · instance gcal-main · Creates a Google Calendar event');
		const lookup = options.find((o) => o.value === 'lookup_order');
		expect(lookup?.description).toBe('custom_tool · Looks up an order by number (HTTP endpoint)');
		expect(fx.sandbox.journal.map((e) => e.query)).toEqual([{ limit: '500' }]);
	});

	test('walks all pages of a large catalog', async () => {
		addCatalogTools(fx.sandbox, fillerTools(1_050));
		fx.sandbox.clearJournal();
		const ctx = loadOptionsContext(fx, { resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' });
		const options = await loadOptions.getCatalogTools.call(ctx);
		expect(options).toHaveLength(TOOL_CATALOG.length + 1_050);
		expect(fx.sandbox.journal).toHaveLength(3);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['500', '500', '500']);
		expect(fx.sandbox.journal.map((e) => typeof e.query.cursor)).toEqual(['undefined', 'string', 'string']);
	});

	test('a repeated cursor stops with a clear error instead of looping', async () => {
		addCatalogTools(fx.sandbox, fillerTools(600));
		// Serve page 1 for every request: the platform would keep returning the first cursor.
		const first = await fetch(`${fx.sandbox.url}/api/v1/catalog/tools?limit=500`, {
			headers: { Authorization: `Bearer ${fx.sandbox.portalKey}` },
		});
		const body = await first.text();
		const server = await import('node:http');
		const proxy = server.createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(body);
		});
		await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
		const port = (proxy.address() as { port: number }).port;
		try {
			const ctx = loadOptionsContext(fx, { resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' }, {
				...fx.credentials,
				assistantPlatformPortalApi: { ...fx.portal, baseUrl: `http://127.0.0.1:${port}` },
			});
			await expect(recorded(async () => await loadOptions.getCatalogTools.call(ctx))).rejects.toThrow(
				'Pagination stopped: the platform returned items already returned',
			);
		} finally {
			await new Promise((resolve) => proxy.close(resolve));
		}
	});
});
