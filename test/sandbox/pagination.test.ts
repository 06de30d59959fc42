import { api, expectError, expectRichError, useSandboxAndReceiver } from './helpers';

const fx = useSandboxAndReceiver({ maxPageSize: 500 });

interface Walk {
	items: { [key: string]: unknown }[];
	pages: { count: number; totalCount: number; limit: number; hasMore: boolean; nextCursor: string | null }[];
}

async function walk(path: string, limit: number, extra = ''): Promise<Walk> {
	const items: { [key: string]: unknown }[] = [];
	const pages: Walk['pages'] = [];
	let cursor: string | null = null;
	for (let i = 0; i < 1000; i++) {
		const sep = path.includes('?') ? '&' : '?';
		const q: string = `${sep}limit=${limit}${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
		const res = await api(fx.sandbox, 'GET', path + q);
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
		expect(Object.keys(res.body.meta).sort()).toEqual(['count', 'hasMore', 'limit', 'nextCursor', 'totalCount']);
		expect(res.body.meta.count).toBe(res.body.data.length);
		items.push(...res.body.data);
		pages.push(res.body.meta);
		cursor = res.body.meta.nextCursor;
		expect(res.body.meta.hasMore).toBe(cursor !== null);
		if (!cursor) break;
	}
	return { items, pages };
}

describe('pagination envelope', () => {
	it('unpaginated: a bare array when neither limit nor cursor is given', async () => {
		const res = await api(fx.sandbox, 'GET', '/rag/collections');
		expect(Array.isArray(res.body)).toBe(true);
		expect(res.body.map((c: { name: string }) => c.name)).toEqual(['Product FAQ', 'Price List 2025']);
	});

	it('meta fields on a first page', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=2');
		expect(res.body.data.map((a: { name: string }) => a.name)).toEqual(['Reception Desk', 'Sales Qualifier']);
		expect(res.body.meta).toEqual({ count: 2, totalCount: 5, limit: 2, nextCursor: expect.any(String), hasMore: true });
		expect(res.body.meta.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
	});

	it('walking 0 items: one empty page, hasMore false, nextCursor null', async () => {
		const created = await api(fx.sandbox, 'POST', '/rag/collections', { body: { name: 'Empty' } });
		const res = await api(fx.sandbox, 'GET', `/rag/collections/${created.body.ragId}/documents?limit=10`);
		expect(res.body).toEqual({ data: [], meta: { count: 0, totalCount: 0, limit: 10, nextCursor: null, hasMore: false } });
	});

	it('walking exactly one full page: hasMore false on it', async () => {
		fx.sandbox.seed({ assistants: 495, assistantNamePrefix: 'Page' });
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=500');
		expect(res.body.meta).toEqual({ count: 500, totalCount: 500, limit: 500, nextCursor: null, hasMore: false });
		const filtered = await walk('/assistants', 495, '&name=page');
		expect(filtered.pages).toEqual([{ count: 495, totalCount: 495, limit: 495, nextCursor: null, hasMore: false }]);
	});

	it('walking 1,234 items with limit 100: 13 pages, every item once, in order', async () => {
		fx.sandbox.seed({ assistants: 1234, assistantNamePrefix: 'Bulk' });
		const { items, pages } = await walk('/assistants', 100, '&name=BULK');
		expect(pages.length).toBe(13);
		expect(pages.map((p) => p.count)).toEqual([100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 34]);
		expect(pages.filter((p) => p.totalCount !== 1234 || p.limit !== 100)).toEqual([]);
		expect(items.length).toBe(1234);
		expect(new Set(items.map((a) => a.assistantId)).size).toBe(1234);
		expect(items[0].name).toBe('Bulk 00001');
		expect(items[1233].name).toBe('Bulk 01234');
		expect(pages[12].nextCursor).toBeNull();
	});

	it('walks the whole list (unfiltered) including the seeded assistants', async () => {
		fx.sandbox.seed({ assistants: 1234 });
		const { items, pages } = await walk('/assistants', 500);
		expect(items.length).toBe(1239);
		expect(pages.map((p) => p.count)).toEqual([500, 500, 239]);
	});

	it('clamps a larger limit to the maximum and reports it in meta.limit', async () => {
		fx.sandbox.seed({ assistants: 600 });
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=10000');
		expect(res.body.meta).toMatchObject({ count: 500, totalCount: 605, limit: 500, hasMore: true });
	});

	it('a cursor without limit keeps the page size it was made with', async () => {
		fx.sandbox.seed({ assistants: 20 });
		const first = await api(fx.sandbox, 'GET', '/assistants?limit=7');
		const second = await api(fx.sandbox, 'GET', `/assistants?cursor=${first.body.meta.nextCursor}`);
		expect(second.body.meta).toMatchObject({ count: 7, limit: 7, totalCount: 25 });
		expect(second.body.data[0].name).toBe('Load Test Assistant 00003');
	});

	it.each(['0', '-1', '1.5', 'abc', ''])('rejects limit=%s with 400 VALIDATION_ERROR', async (limit) => {
		expectError(await api(fx.sandbox, 'GET', `/assistants?limit=${limit}`), 400, 'VALIDATION_ERROR');
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await api(fx.sandbox, 'GET', `/assistants?limit=${limit}`), 400, 'VALIDATION_ERROR', 'limit');
	});

	it('rejects a repeated limit', async () => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await api(fx.sandbox, 'GET', '/assistants?limit=1&limit=2'), 400, 'VALIDATION_ERROR', 'limit');
	});

	it('rejects an altered cursor with 400 INVALID_CURSOR', async () => {
		const first = await api(fx.sandbox, 'GET', '/assistants?limit=2');
		const cursor: string = first.body.meta.nextCursor;
		const last = cursor[cursor.length - 1];
		const altered = cursor.slice(0, -1) + (last === 'A' ? 'B' : 'A');
		expectError(await api(fx.sandbox, 'GET', `/assistants?limit=2&cursor=${altered}`), 400, 'INVALID_CURSOR');
		// A hand-made cursor that decodes to a plausible position.
		const forged = Buffer.concat([Buffer.alloc(16), Buffer.from(JSON.stringify({ l: 'assistants', s: 1, n: 2, f: null }))]).toString('base64url');
		expectError(await api(fx.sandbox, 'GET', `/assistants?limit=2&cursor=${forged}`), 400, 'INVALID_CURSOR');
		expectError(await api(fx.sandbox, 'GET', '/assistants?cursor=not*base64'), 400, 'INVALID_CURSOR');
		expectError(await api(fx.sandbox, 'GET', '/assistants?cursor=AAAA'), 400, 'INVALID_CURSOR');
	});

	it('rejects a cursor from another list, and from another sandbox', async () => {
		const tools = await api(fx.sandbox, 'GET', '/catalog/tools?limit=2');
		const cursor = tools.body.meta.nextCursor;
		expect(cursor).toEqual(expect.any(String));
		expectError(await api(fx.sandbox, 'GET', `/assistants?limit=2&cursor=${cursor}`), 400, 'INVALID_CURSOR');
		expectError(await api(fx.sandbox, 'GET', `/knowledge?cursor=${cursor}`), 400, 'INVALID_CURSOR');
		const a = [...fx.sandbox.state.assistants][3];
		const b = [...fx.sandbox.state.assistants][4];
		await api(fx.sandbox, 'PATCH', `/assistants/${b.assistantId}/runtime/tools`, {
			body: { tools: [{ toolName: 'lookup_order', subscriptionName: null }, { toolName: 'create_ticket', subscriptionName: null }] },
		});
		const own = await api(fx.sandbox, 'GET', `/catalog/assistants/${a.assistantId}/tools?limit=1`);
		expectError(await api(fx.sandbox, 'GET', `/catalog/assistants/${b.assistantId}/tools?cursor=${own.body.meta.nextCursor}`), 400, 'INVALID_CURSOR');
	});

	it('keeps the filter across pages; a different filter with the cursor is rejected', async () => {
		fx.sandbox.seed({ assistants: 30, assistantNamePrefix: 'Alpha' });
		fx.sandbox.seed({ assistants: 30, assistantNamePrefix: 'Beta' });
		const { items } = await walk('/assistants', 7, '&name=alpha');
		expect(items.length).toBe(30);
		expect(items.map((a) => String(a.name)).filter((name) => !name.startsWith('Alpha'))).toEqual([]);
		const first = await api(fx.sandbox, 'GET', '/assistants?limit=7&name=alpha');
		const sameFilterImplicit = await api(fx.sandbox, 'GET', `/assistants?cursor=${first.body.meta.nextCursor}`);
		expect(sameFilterImplicit.body.data.map((a: { name: string }) => a.name).filter((name: string) => !name.startsWith('Alpha'))).toEqual([]);
		expect(sameFilterImplicit.body.meta.totalCount).toBe(30);
		expectError(await api(fx.sandbox, 'GET', `/assistants?limit=7&name=beta&cursor=${first.body.meta.nextCursor}`), 400, 'INVALID_CURSOR');
	});

	it('the name filter is a case-insensitive substring, also unpaginated', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants?name=CALL');
		expect(res.body.map((a: { name: string }) => a.name)).toEqual(['Survey Caller']);
		const none = await api(fx.sandbox, 'GET', '/assistants?limit=5&name=zzz');
		expect(none.body).toEqual({ data: [], meta: { count: 0, totalCount: 0, limit: 5, nextCursor: null, hasMore: false } });
	});

	it('an item deleted between pages does not shift the walk', async () => {
		fx.sandbox.seed({ assistants: 10, assistantNamePrefix: 'Shift' });
		const first = await api(fx.sandbox, 'GET', '/assistants?limit=4&name=shift');
		const removed = first.body.data[3].assistantId;
		await api(fx.sandbox, 'DELETE', `/assistants/${removed}`);
		const second = await api(fx.sandbox, 'GET', `/assistants?limit=4&name=shift&cursor=${first.body.meta.nextCursor}`);
		expect(second.body.data.map((a: { name: string }) => a.name)).toEqual(['Shift 00005', 'Shift 00006', 'Shift 00007', 'Shift 00008']);
	});

	it.each([
		['/rag/collections', 2],
		['/catalog/tools', 7],
		['/knowledge', 12],
		['/provider-wallet/keys', 3],
		['/plugin-instances', 4],
		['/filler-lists', 4],
		['/analytics/calls', 20],
		['/numbers', 9],
	])('%s is paginated (%i seeded items)', async (path, total) => {
		const { items, pages } = await walk(path, 2);
		expect(items.length).toBe(total);
		expect(pages[0].totalCount).toBe(total);
		expect(pages.length).toBe(Math.ceil(total / 2));
		const bare = await api(fx.sandbox, 'GET', path);
		expect(bare.body).toEqual(items);
	});

});

