import { PlatformSandbox } from '../../sandbox';

/*
 * What the product tests rely on in the sandbox's seeding: keys distinct enough for the secrets guard to find,
 * the same ids on every start when asked (the e2e, queue and demo runs print and reuse them), an empty start
 * on request, and options that fail loudly when mistyped.
 */
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
	it('rejects invalid options', async () => {
		await expect(PlatformSandbox.start({ maxPageSize: 0 })).rejects.toThrow(/maxPageSize/);
		await expect(PlatformSandbox.start({ clock: 'fast' as never })).rejects.toThrow(/clock/);
		await expect(PlatformSandbox.start({ ringMs: -1 })).rejects.toThrow(/ringMs/);
		await expect(PlatformSandbox.start({ seed: { assistants: 1.5 } })).rejects.toThrow(/assistants/);
	});

});
