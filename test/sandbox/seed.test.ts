import { PlatformSandbox } from '../../sandbox';
import { AUTHORIZED_PBX, DEMO_ASSISTANTS, FREE_DEMO_NUMBER, PURCHASED_NUMBERS } from '../../sandbox';
import { api, startSandbox } from './helpers';

describe('default seed', () => {
	let sb: PlatformSandbox;
	beforeAll(async () => {
		sb = await PlatformSandbox.start({ port: 0, clock: 'manual' });
	});
	afterAll(async () => {
		await sb.stop();
	});

	it('random keys and saved-auth value when none are given', () => {
		expect(sb.portalKey).toMatch(/^pk_[A-Za-z0-9]{32}$/);
		expect(sb.outboundKey).toMatch(/^ok_[A-Za-z0-9]{32}$/);
		expect(sb.savedAuthValue).toMatch(/^wh_[A-Za-z0-9]{24}$/);
		expect(sb.state.savedAuthentications.get('n8n-header-auth')).toEqual({ name: 'n8n-header-auth', header: 'X-Webhook-Auth', value: sb.savedAuthValue });
	});

	it('five readable assistants, each with its demo number', () => {
		const list = [...sb.state.assistants];
		expect(list.map((a) => a.name)).toEqual(DEMO_ASSISTANTS.map((d) => d.name));
		list.forEach((a, i) => {
			expect(a.numbers[0]).toBe(DEMO_ASSISTANTS[i].number);
			expect(sb.state.numbers.get(DEMO_ASSISTANTS[i].number)).toMatchObject({ kind: 'demo', assistantId: a.assistantId });
			expect(a.prompt).toBe(DEMO_ASSISTANTS[i].prompt);
		});
	});

	it('purchased numbers, one free demo number, authorized PBX', () => {
		expect(PURCHASED_NUMBERS.map((n) => sb.state.numbers.get(n)?.kind)).toEqual(['purchased', 'purchased', 'purchased']);
		expect(sb.state.numbers.get(FREE_DEMO_NUMBER)).toMatchObject({ kind: 'demo', assistantId: null });
		expect([...sb.state.authorizedPbx]).toEqual(AUTHORIZED_PBX);
		expect([...sb.state.numbers].filter((n) => n.assistantId === null).length).toBe(3);
	});

	it('catalogs: 2..4 providers per kind with models, voices for tts and audio-to-audio; tools of every kind', () => {
		for (const kind of ['tts', 'asr', 'llm', 'audio-to-audio'] as const) {
			const providers = sb.state.providerCatalog[kind];
			expect(providers.length).toBeGreaterThanOrEqual(2);
			expect(providers.length).toBeLessThanOrEqual(4);
			for (const p of providers) expect(p.models.length).toBeGreaterThan(0);
		}
		for (const p of [...sb.state.providerCatalog.tts, ...sb.state.providerCatalog['audio-to-audio']]) expect(p.voices?.length).toBeGreaterThan(0);
		const tools = [...sb.state.toolCatalog];
		expect(tools.filter((t) => t.kind === 'custom_tool').length).toBe(3);
		expect(tools.filter((t) => t.kind === 'plugin_tool').length).toBe(2);
		expect(tools.filter((t) => t.kind === 'custom_mcp_tool').length).toBe(2);
	});

	it('collections, documents and the extra lists', () => {
		expect([...sb.state.collections].map((c) => c.name)).toEqual(['Product FAQ', 'Price List 2025']);
		expect(sb.state.documents.size).toBe(3);
		expect(sb.state.knowledge.size).toBe(12);
		expect(sb.state.providerWalletKeys.size).toBe(3);
		expect(sb.state.pluginInstances.size).toBe(4);
		expect(sb.state.fillerLists.size).toBe(4);
		expect(sb.state.analyticsCalls.size).toBe(20);
	});

	it('seed({assistants: 10000}) and 100,000 (counts only)', async () => {
		sb.seed({ assistants: 10_000 });
		expect(sb.state.assistants.size).toBe(10_005);
		expect(sb.state.assistantKeys.size).toBe(10_005);
		const last = sb.state.assistants.list[10_004];
		expect(last.name).toBe('Load Test Assistant 10000');
		sb.seed({ assistants: 100_000 });
		expect(sb.state.assistants.size).toBe(110_005);
		expect(new Set(sb.state.assistants.list.map((a) => a.assistantId)).size).toBe(110_005);
		const page = await api(sb, 'GET', '/assistants?limit=500&name=10000');
		expect(page.body.meta.totalCount).toBeGreaterThan(0);
		sb.reset();
		expect(sb.state.assistants.size).toBe(5);
	});
});

describe('deterministic seeding', () => {
	it('same seeded ids and keys on every start with deterministic: true, different without', async () => {
		const [a, b, c] = await Promise.all([
			PlatformSandbox.start({ port: 0, clock: 'manual', seed: { deterministic: true } }),
			PlatformSandbox.start({ port: 0, clock: 'manual', seed: { deterministic: true } }),
			PlatformSandbox.start({ port: 0, clock: 'manual' }),
		]);
		try {
			const ids = (sb: PlatformSandbox) => [...sb.state.assistants].map((x) => [x.assistantId, x.assistantApiKey]);
			const rags = (sb: PlatformSandbox) => [...sb.state.collections].map((x) => x.ragId);
			expect(ids(a)).toEqual(ids(b));
			expect(rags(a)).toEqual(rags(b));
			expect(ids(c)).not.toEqual(ids(a));
			a.seed({ assistants: 3 });
			b.seed({ assistants: 3 });
			expect(ids(a)).toEqual(ids(b));
			for (const x of ids(a)) {
				expect(x[0]).toMatch(/^asst_[A-Za-z0-9]{16}$/);
				expect(x[1]).toMatch(/^ak_[A-Za-z0-9]{32}$/);
			}
			// reset keeps the seeded ids in both modes (keys printed at start stay valid)
			const before = ids(c);
			c.reset();
			expect(ids(c)).toEqual(before);
		} finally {
			await Promise.all([a.stop(), b.stop(), c.stop()]);
		}
	});

	it('demo: false starts empty; start-time seed options also apply on reset', async () => {
		const sb = await PlatformSandbox.start({ port: 0, clock: 'manual', seed: { demo: false, assistants: 7, listItems: 2 } });
		try {
			expect(sb.state.assistants.size).toBe(7);
			expect(sb.state.numbers.size).toBe(0);
			expect(sb.state.toolCatalog.size).toBe(0);
			expect(sb.state.knowledge.size).toBe(2);
			sb.seed({ assistants: 1 });
			sb.reset();
			expect(sb.state.assistants.size).toBe(7);
		} finally {
			await sb.stop();
		}
	});
});

describe('options', () => {
	it('maxPageSize clamps pages', async () => {
		const sb = await startSandbox({ maxPageSize: 3 });
		try {
			const res = await api(sb, 'GET', '/assistants?limit=10');
			expect(res.body.meta).toMatchObject({ count: 3, limit: 3, totalCount: 5, hasMore: true });
		} finally {
			await sb.stop();
		}
	});

	it('rejects invalid options', async () => {
		await expect(PlatformSandbox.start({ maxPageSize: 0 })).rejects.toThrow(/maxPageSize/);
		await expect(PlatformSandbox.start({ clock: 'fast' as never })).rejects.toThrow(/clock/);
		await expect(PlatformSandbox.start({ ringMs: -1 })).rejects.toThrow(/ringMs/);
		await expect(PlatformSandbox.start({ seed: { assistants: 1.5 } })).rejects.toThrow(/assistants/);
	});

	it('stop() is idempotent', async () => {
		const sb = await startSandbox();
		await sb.stop();
		await sb.stop();
	});
});
