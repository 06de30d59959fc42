/**
 * The hostile platform itself (test/harness/hostile.ts): each misbehaviour answers as described,
 * everything not ruled reaches the real sandbox, and both origins record what they receive.
 */
import { useHostile } from '../harness/hostile';

const fx = useHostile();

const portal = () => ({ Authorization: `Bearer ${fx.sandbox.portalKey}` });

test('without rules the front proxies to the sandbox and records the request', async () => {
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=2`, { headers: portal() });
	expect(res.status).toBe(200);
	const page = (await res.json()) as { data: unknown[]; meta: { limit: number } };
	expect(page.data).toHaveLength(2);
	expect(fx.hostile.requests).toEqual([expect.objectContaining({ method: 'GET', path: '/api/v1/assistants?limit=2' })]);
	expect(fx.hostile.requests[0].headers.authorization).toBe(`Bearer ${fx.sandbox.portalKey}`);
	expect(fx.hostile.foreign.requests).toEqual([]);
});

test('a redirect points at the same path and query on the foreign origin; the foreign origin records and accepts', async () => {
	fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'redirect', status: 307 } });
	const res = await fetch(`${fx.hostile.url}/webhook/outbound_call?x=1`, { method: 'POST', body: '{}', redirect: 'manual' });
	expect(res.status).toBe(307);
	expect(res.headers.get('location')).toBe(`${fx.hostile.foreign.url}/webhook/outbound_call?x=1`);
	const followed = await fetch(res.headers.get('location')!, { method: 'POST', body: '{"a":1}' });
	expect(await followed.json()).toEqual({ internal_id: 'foreign-1', status: 'queued' });
	expect(fx.hostile.foreign.requests).toEqual([expect.objectContaining({ method: 'POST', body: '{"a":1}' })]);
	const list = await fetch(`${fx.hostile.foreign.url}/api/v1/assistants?limit=5`);
	expect(await list.json()).toMatchObject({ data: [], meta: { hasMore: false, nextCursor: null, limit: 5 } });
});

test('a redirect to the front points at the front itself; `times` limits a rule', async () => {
	fx.hostile.rule({ path: /^\/api\/v1\/assistants/, behave: { kind: 'redirect', status: 302, to: 'front' }, times: 1 });
	const first = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal(), redirect: 'manual' });
	expect(first.headers.get('location')).toBe(`${fx.hostile.url}/api/v1/assistants`);
	const second = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal(), redirect: 'manual' });
	expect(second.status).toBe(200);
});

test('echo: an error echoes every header value and the body, nested and in the message', async () => {
	fx.hostile.rule({ behave: { kind: 'echo', status: 400, depth: 5 } });
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants`, { method: 'POST', headers: portal(), body: '{"secret":"s3cr3t-value"}' });
	expect(res.status).toBe(400);
	const body = (await res.json()) as { error: { message: string; details: unknown }; message: string };
	expect(body.error.message).toContain(fx.sandbox.portalKey);
	expect(body.error.message).toContain('s3cr3t-value');
	let nested = body.error.details as { nested?: unknown; headerValues?: string[]; body?: unknown };
	for (let level = 0; level < 5; level++) nested = nested.nested as typeof nested;
	expect(nested.headerValues).toContain(`Bearer ${fx.sandbox.portalKey}`);
	expect(nested.body).toEqual({ secret: 's3cr3t-value' });
});

test('echo with a 2xx is an acceptance that echoes: internal_id, status fields and a one-item page', async () => {
	fx.hostile.rule({ behave: { kind: 'echo', status: 200 } });
	const res = await fetch(`${fx.hostile.url}/webhook/outbound_call`, {
		method: 'POST',
		headers: { 'X-APIKEY-SECRET-SERVICE': fx.sandbox.outboundKey },
		body: '{"assistantApiKey":"k-123456789"}',
	});
	const body = (await res.json()) as Record<string, unknown>;
	expect(body.internal_id).toMatch(/^echo-/);
	expect(body).toMatchObject({ dialStatus: 'ANSWER', meta: { hasMore: false } });
	expect(JSON.stringify(body.echo)).toContain(fx.sandbox.outboundKey);
	expect(JSON.stringify(body.data)).toContain('k-123456789');
});

test.each([
	['emptyObject', 200, '{}', 'application/json'],
	['emptyBody', 200, '', 'application/json'],
	['noContent', 204, '', null],
	['html', 200, '<html><body><h1>Welcome to the proxy</h1></body></html>', 'text/html'],
	['error200', 200, '{"error":{"code":"INTERNAL","message":"upstream failed"}}', 'application/json'],
] as const)('nonAccept %s', async (variant, status, text, type) => {
	fx.hostile.rule({ method: 'POST', behave: { kind: 'nonAccept', variant } });
	const res = await fetch(`${fx.hostile.url}/webhook/outbound_call`, { method: 'POST', body: '{}' });
	expect(res.status).toBe(status);
	expect(res.headers.get('content-type')).toBe(type);
	expect(await res.text()).toBe(text);
});

test('trickle: headers at once, then the real body one byte at a time', async () => {
	fx.hostile.rule({ behave: { kind: 'trickle', intervalMs: 1 } });
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=1`, { headers: portal() });
	expect(res.status).toBe(200);
	const chunks: number[] = [];
	const reader = res.body!.getReader();
	let text = '';
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		chunks.push(value.length);
		text += Buffer.from(value).toString('utf8');
	}
	expect(JSON.parse(text)).toMatchObject({ data: [expect.any(Object)], meta: { limit: 1 } });
	expect(chunks.length).toBeGreaterThan(10);
	expect(Math.max(...chunks)).toBeLessThanOrEqual(2);
});

test('trickle with totalMs: the body comes in slices at most intervalMs apart, the last after totalMs', async () => {
	fx.hostile.rule({ behave: { kind: 'trickle', intervalMs: 20, totalMs: 200 } });
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=3`, { headers: portal() });
	const reader = res.body!.getReader();
	let text = '';
	let reads = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		reads++;
		text += Buffer.from(value).toString('utf8');
	}
	expect(JSON.parse(text)).toMatchObject({ meta: { limit: 3 } });
	// 200 / 20 = 10 slices (the reader may join some).
	expect(reads).toBeGreaterThan(1);
	expect(reads).toBeLessThanOrEqual(10);
});

test('endlessList: empty pages first, then fresh ids and cursors, always hasMore', async () => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 2, emptyPagesFirst: 2, totalCount: 3 } });
	const pages = [];
	for (let i = 0; i < 4; i++) {
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=2`, { headers: portal() });
		pages.push((await res.json()) as { data: Array<{ id: string }>; meta: { hasMore: boolean; nextCursor: string; totalCount: number } });
	}
	expect(pages.map((p) => p.data.length)).toEqual([0, 0, 2, 2]);
	expect(pages.map((p) => p.meta)).toEqual(Array(4).fill(expect.objectContaining({ hasMore: true, totalCount: 3 })));
	expect(new Set(pages.map((p) => p.meta.nextCursor)).size).toBe(4);
	const ids = pages.flatMap((p) => p.data.map((d) => d.id));
	expect(new Set(ids).size).toBe(4);
});

test('endlessList with emptyBetween: every item page comes after that many empty pages', async () => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 1, emptyBetween: 2 } });
	const counts: number[] = [];
	for (let i = 0; i < 6; i++) {
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=5`, { headers: portal() });
		counts.push(((await res.json()) as { data: unknown[] }).data.length);
	}
	expect(counts).toEqual([0, 0, 1, 0, 0, 1]);
});

test('hugeError: a message of the given size', async () => {
	fx.hostile.rule({ behave: { kind: 'hugeError', bytes: 1_000_000, status: 502 } });
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal() });
	expect(res.status).toBe(502);
	const body = (await res.json()) as { error: { message: string } };
	expect(body.error.message.length).toBeGreaterThan(1_000_000);
});

test('clear() drops rules and recorded requests', async () => {
	fx.hostile.rule({ behave: { kind: 'hugeError', bytes: 10 } });
	await fetch(`${fx.hostile.foreign.url}/x`);
	fx.hostile.clear();
	expect(fx.hostile.requests).toEqual([]);
	expect(fx.hostile.foreign.requests).toEqual([]);
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=1`, { headers: portal() });
	expect(res.status).toBe(200);
});

describe('oversize: a JSON answer of a given decoded size, produced as it is read', () => {
	async function read(res: Response): Promise<Buffer> {
		return Buffer.from(await res.arrayBuffer());
	}

	test.each(['identity', 'gzip', 'br', 'deflate'] as const)('%s, chunked: decodes to exactly the size, a valid acceptance and last page', async (encoding) => {
		fx.hostile.rule({ behave: { kind: 'oversize', bytes: 300_000, encoding } });
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=7`, { headers: portal() });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-length')).toBeNull();
		expect(res.headers.get('content-encoding')).toBe(encoding === 'identity' ? null : encoding);
		const body = await read(res);
		expect(body.length).toBe(300_000);
		const json = JSON.parse(body.toString('utf8')) as { internal_id: string; data: unknown[]; meta: { hasMore: boolean; limit: number }; padding: string };
		expect(json).toMatchObject({ data: [], meta: { hasMore: false, limit: 7 } });
		expect(json.internal_id).toMatch(/^big-/);
	});

	test.each(['identity', 'gzip'] as const)('%s with its true Content-Length', async (encoding) => {
		fx.hostile.rule({ behave: { kind: 'oversize', bytes: 200_000, encoding, framing: 'length' } });
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal() });
		const declared = Number(res.headers.get('content-length'));
		if (encoding === 'identity') expect(declared).toBe(200_000);
		else expect(declared).toBeLessThan(10_000);
		expect((await read(res)).length).toBe(200_000);
	});

	test('a lying Content-Length: the header says 64 bytes, the body goes on', async () => {
		fx.hostile.rule({ behave: { kind: 'oversize', bytes: 100_000, framing: 'lying' } });
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal() });
		expect(res.headers.get('content-length')).toBe('64');
		const text = (await read(res)).toString('utf8');
		expect(text.length).toBe(64);
		expect(() => JSON.parse(text)).toThrow();
	});

	test('a client that stops reading stops the stream (a 1 GiB body is never produced in full)', async () => {
		fx.hostile.rule({ behave: { kind: 'oversize', bytes: 1024 ** 3, encoding: 'gzip' } });
		const controller = new AbortController();
		const res = await fetch(`${fx.hostile.url}/api/v1/assistants`, { headers: portal(), signal: controller.signal });
		const reader = res.body!.getReader();
		let bytes = 0;
		while (bytes < 1_000_000) bytes += (await reader.read()).value!.length;
		controller.abort();
		await expect(reader.read()).rejects.toThrow();
	});
});

test('contradictory: a 2xx naming a call that says it was not placed', async () => {
	fx.hostile.rule({ behave: { kind: 'contradictory' }, times: 1 });
	const res = await fetch(`${fx.hostile.url}/webhook/outbound_call`, { method: 'POST', body: '{}' });
	expect(res.status).toBe(200);
	expect(await res.json()).toEqual({ internal_id: expect.stringMatching(/^contra-/), placed: false, outcome: 'rejected' });
	fx.hostile.rule({ behave: { kind: 'contradictory', status: 201, body: { internal_id: 'x-{id}', status: 'failed' } } });
	const other = await fetch(`${fx.hostile.url}/webhook/outbound_call`, { method: 'POST', body: '{}' });
	expect(other.status).toBe(201);
	expect(await other.json()).toEqual({ internal_id: expect.stringMatching(/^x-contra-/), status: 'failed' });
});

test('endlessList with itemBytes and a hasMore of the wrong type', async () => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 3, itemBytes: 1000, hasMore: 'true' } });
	const res = await fetch(`${fx.hostile.url}/api/v1/assistants?limit=3`, { headers: portal() });
	const page = (await res.json()) as { data: unknown[]; meta: { hasMore: unknown } };
	expect(page.meta.hasMore).toBe('true');
	expect(page.data.map((item) => JSON.stringify(item).length)).toEqual([1000, 1000, 1000]);
});
