import { api, call, expectError, OUTBOUND_KEY, PORTAL_KEY, useSandboxAndReceiver } from './helpers';

const fx = useSandboxAndReceiver();

describe('management surface: Authorization: Bearer <portal key>', () => {
	it('accepts the right key', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=1');
		expect(res.status).toBe(200);
		expect(res.body.meta.count).toBe(1);
		expect(fx.sandbox.journal[0].auth).toBe('ok');
	});

	it('accepts the scheme in any case', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants?limit=1', { auth: 'none', headers: { authorization: `bearer ${PORTAL_KEY}` } });
		expect(res.status).toBe(200);
	});

	it('rejects a missing header with 401 UNAUTHORIZED', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants', { auth: 'none' });
		expectError(res, 401, 'UNAUTHORIZED');
		expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
		expect(fx.sandbox.journal[0].auth).toBe('missing');
	});

	it.each([
		['a wrong key of the same length', `Bearer ${PORTAL_KEY.slice(0, -1)}X`],
		['a shorter key (prefix)', `Bearer ${PORTAL_KEY.slice(0, -1)}`],
		['a longer key', `Bearer ${PORTAL_KEY}0`],
		['another scheme', `Basic ${PORTAL_KEY}`],
		['the key without a scheme', PORTAL_KEY],
		['the outbound key', `Bearer ${OUTBOUND_KEY}`],
	])('rejects %s with 401 and journals auth "invalid"', async (_label, header) => {
		const res = await api(fx.sandbox, 'GET', '/assistants', { auth: 'none', headers: { authorization: header } });
		expectError(res, 401, 'UNAUTHORIZED');
		expect(fx.sandbox.journal[0].auth).toBe('invalid');
	});

	it('rejects the outbound header on the management surface', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants', { auth: 'outbound' });
		expectError(res, 401, 'UNAUTHORIZED');
	});

	it('checks auth before routing: unknown path without a key is 401, with a key 404', async () => {
		expectError(await api(fx.sandbox, 'GET', '/nope', { auth: 'none' }), 401, 'UNAUTHORIZED');
		expectError(await api(fx.sandbox, 'GET', '/nope'), 404, 'NOT_FOUND');
	});

	it('answers a wrong method on a known path with 405 and Allow', async () => {
		const res = await api(fx.sandbox, 'PUT', '/assistants');
		expectError(res, 405, 'METHOD_NOT_ALLOWED');
		expect(res.headers.allow).toBe('POST, GET');
		const del = await api(fx.sandbox, 'DELETE', '/catalog/tools');
		expectError(del, 405, 'METHOD_NOT_ALLOWED');
		expect(del.headers.allow).toBe('GET');
	});

	it('does not change state on a rejected request', async () => {
		const before = fx.sandbox.state.assistants.size;
		await api(fx.sandbox, 'POST', '/assistants', { auth: 'none', body: { name: 'X' } });
		expect(fx.sandbox.state.assistants.size).toBe(before);
	});
});

describe('outbound surface: X-APIKEY-SECRET-SERVICE', () => {
	it('accepts the right key (404 for an unknown call proves it)', async () => {
		const res = await call(fx.sandbox, 'GET', '/getDialstatus/n8n-credential-test');
		expectError(res, 404, 'CALL_RECORD_NOT_FOUND');
		expect(fx.sandbox.journal[0].auth).toBe('ok');
	});

	it('rejects a missing key with 401 on all three operations', async () => {
		expectError(await call(fx.sandbox, 'GET', '/getDialstatus/abc', { auth: 'none' }), 401, 'UNAUTHORIZED');
		expectError(await call(fx.sandbox, 'POST', '/webhook/outbound_call', { auth: 'none', body: {} }), 401, 'UNAUTHORIZED');
		expectError(await call(fx.sandbox, 'POST', '/webhook/outbound_call_pbx', { auth: 'none', body: {} }), 401, 'UNAUTHORIZED');
		expect(fx.sandbox.journal.map((e) => e.auth)).toEqual(['missing', 'missing', 'missing']);
	});

	it.each([
		['same length', `${OUTBOUND_KEY.slice(0, -1)}X`],
		['prefix', OUTBOUND_KEY.slice(0, 5)],
		['portal key', PORTAL_KEY],
		['unrelated', 'definitely-not-the-key'],
	])('rejects a wrong key (%s)', async (_label, key) => {
		const res = await call(fx.sandbox, 'GET', '/getDialstatus/abc', { auth: 'none', headers: { 'x-apikey-secret-service': key } });
		expectError(res, 401, 'UNAUTHORIZED');
		expect(fx.sandbox.journal[0].auth).toBe('invalid');
	});

	it('does not accept the portal Bearer header', async () => {
		expectError(await call(fx.sandbox, 'GET', '/getDialstatus/abc', { auth: 'portal' }), 401, 'UNAUTHORIZED');
	});

	it('answers a wrong method with 405 (after auth)', async () => {
		const res = await call(fx.sandbox, 'GET', '/webhook/outbound_call');
		expectError(res, 405, 'METHOD_NOT_ALLOWED');
		expect(res.headers.allow).toBe('POST');
		expectError(await call(fx.sandbox, 'GET', '/webhook/outbound_call', { auth: 'none' }), 401, 'UNAUTHORIZED');
	});
});

describe('other paths', () => {
	it('answers an unknown path with 404 NOT_FOUND', async () => {
		expectError(await call(fx.sandbox, 'GET', '/nothing/here'), 404, 'NOT_FOUND');
		expectError(await call(fx.sandbox, 'POST', '/webhook/other', { body: {} }), 404, 'NOT_FOUND');
	});

	it('treats a trailing slash like the path without it', async () => {
		expect((await api(fx.sandbox, 'GET', '/assistants/?limit=1')).status).toBe(200);
	});

});

