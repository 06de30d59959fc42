import { request } from 'undici';

import { api, call, expectError, useSandboxAndReceiver, waitFor } from './helpers';

const fx = useSandboxAndReceiver();

const auth = () => ({ authorization: `Bearer ${fx.sandbox.portalKey}` });

describe('status faults', () => {
	it('429 with Retry-After and the error body', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 429, retryAfter: 7 });
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=1');
		expectError(res, 429, 'RATE_LIMITED');
		expect(res.headers['retry-after']).toBe('7');
		expect(fx.sandbox.journal[0]).toMatchObject({ path: '/api/v1/assistants', status: 429, fault: 'status' });
	});

	it('429 without retryAfter still sends Retry-After: 1', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 429 });
		const res = await api(fx.sandbox, 'GET', '/assistants');
		expect(res.headers['retry-after']).toBe('1');
	});

	it('any status with a custom code; no Retry-After unless asked', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 503, code: 'MAINTENANCE' });
		const res = await api(fx.sandbox, 'GET', '/assistants');
		expectError(res, 503, 'MAINTENANCE');
		expect(res.headers['retry-after']).toBeUndefined();
		fx.sandbox.clearFaults();
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 500 });
		expectError(await api(fx.sandbox, 'GET', '/assistants'), 500, 'INTERNAL_ERROR');
	});

	it('times: applies that many times, then the request is served normally', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 502, times: 2 });
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(502);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(502);
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
		expect(fx.sandbox.journal.map((e) => [e.status, e.fault ?? null])).toEqual([
			[502, 'status'],
			[502, 'status'],
			[200, null],
		]);
	});

	it('method filter and prefix paths', async () => {
		fx.sandbox.injectFault({ method: 'post', path: '/api/v1/rag/*', kind: 'status', status: 500 });
		expect((await api(fx.sandbox, 'GET', '/rag/collections')).status).toBe(200);
		expect((await api(fx.sandbox, 'POST', '/rag/collections', { body: { name: 'x' } })).status).toBe(500);
		expect((await api(fx.sandbox, 'POST', '/rag/documents/estimate', { body: {} })).status).toBe(500);
		expect((await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'x' } })).status).toBe(201);
		expect(fx.sandbox.state.collections.size).toBe(2);
	});

	it('applies before auth and on the outbound surface', async () => {
		fx.sandbox.injectFault({ path: '/getDialstatus/*', kind: 'status', status: 503 });
		const res = await call(fx.sandbox, 'GET', '/getDialstatus/abc', { auth: 'none' });
		expectError(res, 503, 'SERVICE_UNAVAILABLE');
		expect(fx.sandbox.journal[0]).toMatchObject({ auth: 'missing', fault: 'status', status: 503 });
	});

	it('clearFaults removes every fault', async () => {
		fx.sandbox.injectFault({ path: '/*', kind: 'status', status: 500 });
		fx.sandbox.clearFaults();
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
	});

	it.each([
		[{ path: 'api', kind: 'status', status: 500 }, /path/],
		[{ path: '/x', kind: 'explode' }, /kind/],
		[{ path: '/x', kind: 'status' }, /status/],
		[{ path: '/x', kind: 'status', status: 200 }, /status/],
		[{ path: '/x', kind: 'latency', delayMs: -1 }, /delayMs/],
		[{ path: '/x', kind: 'reset', times: 0 }, /times/],
	])('rejects the fault %j', (spec, message) => {
		expect(() => fx.sandbox.injectFault(spec as never)).toThrow(message);
	});
});

describe('connection faults', () => {
	it('reset: the socket is destroyed without a response', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'reset', times: 1 });
		await expect(request(`${fx.sandbox.url}/api/v1/assistants`, { headers: auth() })).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
		expect(fx.sandbox.journal[0]).toMatchObject({ path: '/api/v1/assistants', status: null, fault: 'reset' });
		expect((await api(fx.sandbox, 'GET', '/assistants')).status).toBe(200);
	});

	it('malformed: 200, application/json, a body that is not JSON', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'malformed' });
		const res = await request(`${fx.sandbox.url}/api/v1/assistants?limit=5`, { headers: auth() });
		expect(res.statusCode).toBe(200);
		expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
		const text = await res.body.text();
		expect(() => JSON.parse(text)).toThrow(SyntaxError);
		expect(fx.sandbox.journal[0]).toMatchObject({ status: 200, fault: 'malformed' });
	});

	it('slow: nothing is sent before delayMs, so a client timeout fires; the request is still processed later', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/assistants', kind: 'slow', delayMs: 400, times: 1 });
		await expect(
			request(`${fx.sandbox.url}/api/v1/assistants`, {
				method: 'POST',
				headers: { ...auth(), 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'Slow One' }),
				signal: AbortSignal.timeout(100),
			}),
		).rejects.toMatchObject({ name: 'TimeoutError' });
		expect(fx.sandbox.journal[0]).toMatchObject({ method: 'POST', fault: 'slow', status: null });
		await waitFor(() => fx.sandbox.journal[0].status !== null);
		expect(fx.sandbox.journal[0].status).toBe(201);
		expect([...fx.sandbox.state.assistants].map((a) => a.name)).toContain('Slow One');
	});

	it('slow with the default delay exceeds a 30 s client timeout (stop() does not wait for it)', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/knowledge', kind: 'slow' });
		await expect(request(`${fx.sandbox.url}/api/v1/knowledge`, { headers: auth(), headersTimeout: 50 })).rejects.toMatchObject({
			code: 'UND_ERR_HEADERS_TIMEOUT',
		});
	});

	it('latency: adds delayMs, then answers normally', async () => {
		fx.sandbox.injectFault({ path: '/api/v1/catalog/tools', kind: 'latency', delayMs: 150 });
		const start = Date.now();
		const res = await api(fx.sandbox, 'GET', '/catalog/tools');
		expect(Date.now() - start).toBeGreaterThanOrEqual(140);
		expect(res.status).toBe(200);
		expect(res.body.length).toBe(7);
		expect(fx.sandbox.journal[0]).toMatchObject({ status: 200, fault: 'latency' });
	});

});
