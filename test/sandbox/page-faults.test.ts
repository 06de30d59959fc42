/**
 * The sandbox's `page` fault kind and the `skip` option (added for the pagination-fault suite,
 * test/hardening/pagination-faults.test.ts): a page rewritten after it was served normally.
 */
import { api, expectError, useSandboxAndReceiver } from './helpers';

const fx = useSandboxAndReceiver();

interface Page {
	data: Array<{ assistantId: string }>;
	meta: { count: number; totalCount: number; limit: number; nextCursor: string | null; hasMore: boolean };
}

const page = async (query: string): Promise<Page> => {
	const res = await api(fx.sandbox, 'GET', `/assistants${query}`);
	expect(res.status).toBe(200);
	return res.body as Page;
};

describe('page faults', () => {
	it('meta is merged last: hasMore true with a null cursor', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { meta: { hasMore: true, nextCursor: null } } });
		const body = await page('?limit=2');
		expect(body.data).toHaveLength(2);
		expect(body.meta).toMatchObject({ count: 2, totalCount: 5, limit: 2, hasMore: true, nextCursor: null });
		expect(fx.sandbox.journal[0]).toMatchObject({ path: '/api/v1/assistants', status: 200, fault: 'page' });
	});

	it('repeatCursor: the next cursor is the one the request carried', async () => {
		const first = await page('?limit=2');
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { repeatCursor: true } });
		const second = await page(`?limit=2&cursor=${first.meta.nextCursor}`);
		expect(second.meta.nextCursor).toBe(first.meta.nextCursor);
		expect(second.meta.hasMore).toBe(true);
		expect(second.data.map((a) => a.assistantId)).not.toEqual(first.data.map((a) => a.assistantId));
	});

	it('data replaces the page and keep truncates it; count follows, the cursor stays valid', async () => {
		const first = await page('?limit=2');
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { data: first.data.slice(0, 1) }, times: 1 });
		const replaced = await page('?limit=2');
		expect(replaced.data).toEqual(first.data.slice(0, 1));
		expect(replaced.meta.count).toBe(1);
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { keep: 0 }, times: 1 });
		const empty = await page('?limit=2');
		expect(empty).toMatchObject({ data: [], meta: { count: 0, hasMore: true } });
		// Its cursor still points after the two real items.
		const next = await page(`?limit=2&cursor=${empty.meta.nextCursor}`);
		expect(next.data[0].assistantId).toBe(fx.sandbox.state.assistants.list[2].assistantId);
	});

	it('a forged nextCursor is refused by the sandbox on the next request (400 INVALID_CURSOR)', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { meta: { nextCursor: 'forged' } }, times: 1 });
		const first = await page('?limit=2');
		expect(first.meta.nextCursor).toBe('forged');
		expectError(await api(fx.sandbox, 'GET', '/assistants?limit=2&cursor=forged'), 400, 'INVALID_CURSOR');
	});

	it('a bare array and error answers are left alone', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { keep: 0 } });
		const bare = await api(fx.sandbox, 'GET', '/assistants');
		expect(Array.isArray(bare.body)).toBe(true);
		expect(bare.body).toHaveLength(5);
		expectError(await api(fx.sandbox, 'GET', '/assistants?limit=0'), 400, 'VALIDATION_ERROR');
	});

	it('is validated like every fault', () => {
		expect(() => fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page' })).toThrow(/page/);
		expect(() => fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'page', page: { keep: -1 } })).toThrow(/page.keep/);
		expect(() => fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 500, page: {} })).toThrow(/page/);
		expect(() => fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'reset', skip: -1 })).toThrow(/skip/);
	});
});

describe('skip', () => {
	it('lets the first matching requests through untouched, then applies (times counts applications only)', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 503, skip: 2, times: 1 });
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(503);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
		expect(fx.sandbox.journal.map((e) => e.fault ?? null)).toEqual([null, null, 'status', null]);
	});

	it('a skipped request can still be hit by a later fault', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 503, skip: 1 });
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 502, times: 1 });
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(502);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(503);
	});
});
