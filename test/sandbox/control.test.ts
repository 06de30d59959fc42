import { CONTROL_ENDPOINTS } from '../../sandbox';
import { api, call, expectError, expectRichError, useSandboxAndReceiver } from './helpers';

/*
 * The sandbox's HTTP control surface: what a user of `npm start` (the demo) has to inject faults, set dial
 * outcomes, advance the clock and read the journal with curl (sandbox/README.md). Kept tested because it is the
 * demo's only way in from outside the process. It is not the platform: its errors always carry status and details,
 * whatever the platform's answers are (expectRichError); the platform's own answers here are spec-mode ones.
 */
const fx = useSandboxAndReceiver();

const ctl = (method: string, path: string, body?: unknown) => call(fx.sandbox, method, `/__sandbox${path}`, { body, auth: 'none' });

describe('control surface /__sandbox (no auth)', () => {
	it('GET /__sandbox lists the endpoints', async () => {
		const res = await ctl('GET', '');
		expect(res.body).toEqual({ controlPrefix: '/__sandbox', endpoints: CONTROL_ENDPOINTS });
	});

	it('POST /__sandbox/assistants creates an assistant and returns its key', async () => {
		const res = await ctl('POST', '/assistants', { name: 'Demo Bot', number: '+390200001099' });
		expect(res.status).toBe(201);
		expect(res.body).toMatchObject({ name: 'Demo Bot', assistantId: expect.stringMatching(/^asst_/), assistantApiKey: expect.stringMatching(/^ak_/), numbers: ['+390200001099'], mode: 'text' });
		expect(fx.sandbox.state.numbers.get('+390200001099')?.assistantId).toBe(res.body.assistantId);
		expectRichError(await ctl('POST', '/assistants', { name: '' }), 400, 'VALIDATION_ERROR', 'name');
		expectRichError(await ctl('POST', '/assistants', { number: '12' }), 400, 'VALIDATION_ERROR', 'number');
		const count = fx.sandbox.state.assistants.size;
		expect(count).toBe(6);
	});

	it('GET /__sandbox/state: whole state, and ?summary=true counts', async () => {
		const full = await ctl('GET', '/state');
		expect(full.body.assistants.length).toBe(5);
		expect(full.body.assistants[0].assistantApiKey).toMatch(/^ak_/);
		expect(full.body.authorizedPbx).toEqual(['10.0.0.5', 'pbx.example.com']);
		expect(full.body.savedAuthentications.map((a: { name: string; header: string }) => [a.name, a.header])).toEqual([['n8n-header-auth', 'X-Webhook-Auth']]);
		expect(Object.keys(full.body.ragAttachments).length).toBe(1);
		expect(full.body.collections[0].documentIds.length).toBe(2);
		const summary = await ctl('GET', '/state?summary=true');
		expect(summary.body).toMatchObject({ assistants: 5, numbers: 9, collections: 2, documents: 3, calls: 0, usedStorageBytes: 71_765, clock: { mode: 'manual' } });
	});

	it('POST /__sandbox/seed adds bulk data; POST /__sandbox/reset restores the seeded state', async () => {
		const ids = [...fx.sandbox.state.assistants].map((a) => a.assistantId);
		const seeded = await ctl('POST', '/seed', { assistants: 25, collections: 2, listItems: 3 });
		expect(seeded.body.summary).toMatchObject({ assistants: 30, collections: 4 });
		expect((await api(fx.sandbox, 'GET', '/knowledge?limit=1')).body.meta.totalCount).toBe(15);
		expectRichError(await ctl('POST', '/seed', { assistants: -1 }), 400, 'VALIDATION_ERROR');
		await api(fx.sandbox, 'GET', '/assistants');
		const reset = await ctl('POST', '/reset');
		expect(reset.body.summary).toMatchObject({ assistants: 5, collections: 2, journal: 0 });
		expect([...fx.sandbox.state.assistants].map((a) => a.assistantId)).toEqual(ids);
	});

	it('journal: GET and DELETE', async () => {
		await api(fx.sandbox, 'GET', '/assistants?limit=1');
		const j = await ctl('GET', '/journal');
		expect(j.body.map((e: { path: string; status: number }) => [e.path, e.status])).toEqual([['/api/v1/assistants', 200]]);
		expect((await ctl('DELETE', '/journal')).body).toEqual({ ok: true });
		expect((await ctl('GET', '/journal')).body).toEqual([]);
	});

	it('faults: POST (one or many), GET, DELETE', async () => {
		const added = await ctl('POST', '/faults', { path: '/api/v1/assistants', kind: 'status', status: 429, retryAfter: 3, times: 1 });
		expect(added.status).toBe(201);
		expect(added.body.faults[0]).toMatchObject({ id: expect.any(Number), path: '/api/v1/assistants', kind: 'status', status: 429, times: 1, applied: 0 });
		const limited = await api(fx.sandbox, 'GET', '/assistants');
		expectError(limited, 429, 'RATE_LIMITED');
		expect(limited.headers['retry-after']).toBe('3');
		expect((await ctl('GET', '/faults')).body).toEqual([]);
		await ctl('POST', '/faults', [
			{ path: '/api/v1/knowledge', kind: 'malformed' },
			{ path: '/getDialstatus/*', kind: 'status', status: 500 },
		]);
		expect((await ctl('GET', '/faults')).body.length).toBe(2);
		expectRichError(await ctl('POST', '/faults', { path: '/x', kind: 'nope' }), 400, 'VALIDATION_ERROR', 'kind');
		expect((await ctl('DELETE', '/faults')).body).toEqual({ ok: true });
		expect((await ctl('GET', '/faults')).body).toEqual([]);
	});

	it('latency: POST and GET', async () => {
		expect((await ctl('POST', '/latency', { ms: 25 })).body).toEqual({ ok: true, ms: 25 });
		expect((await ctl('GET', '/latency')).body).toEqual({ ms: 25 });
		expect(fx.sandbox.latencyMs).toBe(25);
		expectRichError(await ctl('POST', '/latency', { ms: 'x' }), 400, 'VALIDATION_ERROR', 'ms');
	});

	it('clock: GET and POST /clock/advance run due events', async () => {
		const before = (await ctl('GET', '/clock')).body;
		expect(before).toMatchObject({ mode: 'manual', pendingEvents: 0 });
		const a = [...fx.sandbox.state.assistants][0];
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey, callResultUrl: `${fx.rx.url}/r` } });
		expect((await ctl('GET', '/clock')).body.pendingEvents).toBe(1);
		const adv = await ctl('POST', '/clock/advance', { ms: 5000 });
		expect(adv.body).toEqual({ ok: true, mode: 'manual', now: before.now + 5000, speed: 1, pendingEvents: 0 });
		expect(fx.rx.at('/r').length).toBe(1);
		expectRichError(await ctl('POST', '/clock/advance', { ms: -1 }), 400, 'VALIDATION_ERROR', 'ms');
	});

	it('dial outcomes: POST, GET, DELETE', async () => {
		const rule = await ctl('POST', '/dial-outcomes', { dst: '+14155550199', dialstatus: 'NOANSWER', ringMs: 50 });
		expect(rule.body).toEqual({ ok: true, rule: { dst: '+14155550199', dialstatus: 'NOANSWER', ringMs: 50 } });
		expect((await ctl('GET', '/dial-outcomes')).body).toEqual([{ dst: '+14155550199', dialstatus: 'NOANSWER', ringMs: 50 }]);
		const a = [...fx.sandbox.state.assistants][0];
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey, callResultUrl: `${fx.rx.url}/r` } });
		await fx.sandbox.clock.advance(50);
		expect(fx.rx.at('/r')[0].body.dialstatus).toBe('NOANSWER');
		expectRichError(await ctl('POST', '/dial-outcomes', { dialstatus: 'LOST' }), 400, 'VALIDATION_ERROR', 'dialstatus');
		expect((await ctl('DELETE', '/dial-outcomes')).body).toEqual({ ok: true });
		expect((await ctl('GET', '/dial-outcomes')).body).toEqual([]);
	});

	it('numbers/assign: assign, move and release', async () => {
		const [a, b] = [...fx.sandbox.state.assistants];
		const res = await ctl('POST', '/numbers/assign', { number: '+390200001099', assistantId: a.assistantId, kind: 'demo' });
		expect(res.body).toEqual({ ok: true, number: { number: '+390200001099', kind: 'demo', assistantId: a.assistantId } });
		await ctl('POST', '/numbers/assign', { number: '+390200001099', assistantId: b.assistantId });
		expect(fx.sandbox.state.assistants.get(a.assistantId)?.numbers).not.toContain('+390200001099');
		expect((await ctl('POST', '/numbers/assign', { number: '+390200001099', assistantId: null })).body.number.assistantId).toBeNull();
		const created = await ctl('POST', '/numbers/assign', { number: '+15551234567', assistantId: a.assistantId });
		expect(created.body.number).toEqual({ number: '+15551234567', kind: 'purchased', assistantId: a.assistantId });
		expectRichError(await ctl('POST', '/numbers/assign', { number: '+15551234567', assistantId: 'asst_nope' }), 404, 'NOT_FOUND');
		expectRichError(await ctl('POST', '/numbers/assign', { number: 'abc', assistantId: null }), 400, 'VALIDATION_ERROR', 'number');
	});

	it('pbx/authorize: the address is then accepted on the PBX route', async () => {
		const a = [...fx.sandbox.state.assistants][0];
		const body = { dst: '+14155550199', callerId: '+3902', assistantApiKey: a.assistantApiKey, ipPbx: 'Voip.Customer.example' };
		expectError(await call(fx.sandbox, 'POST', '/webhook/outbound_call_pbx', { body }), 403, 'PBX_NOT_AUTHORIZED');
		expect((await ctl('POST', '/pbx/authorize', { address: 'voip.customer.example' })).body).toEqual({ ok: true, address: 'voip.customer.example' });
		expect((await call(fx.sandbox, 'POST', '/webhook/outbound_call_pbx', { body })).status).toBe(200);
		expectRichError(await ctl('POST', '/pbx/authorize', { address: 'bad host!' }), 400, 'VALIDATION_ERROR', 'address');
	});

	it('authentications: a new saved authentication can be used by authName', async () => {
		const res = await ctl('POST', '/authentications', { name: 'crm', header: 'X-Crm-Token', value: 'crm-token-value' });
		expect(res.status).toBe(201);
		expect(res.body).toEqual({ ok: true, name: 'crm', header: 'X-Crm-Token' });
		const a = [...fx.sandbox.state.assistants][0];
		const hook = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, { body: { enabled: true, url: `${fx.rx.url}/end`, authName: 'crm' } });
		expect(hook.status).toBe(200);
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey } });
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/end')[0].headers['x-crm-token']).toBe('crm-token-value');
		expectRichError(await ctl('POST', '/authentications', { name: 'x', header: 'bad header', value: 'v' }), 400, 'VALIDATION_ERROR', 'header');
	});

	it('callbacks: GET and DELETE', async () => {
		const a = [...fx.sandbox.state.assistants][0];
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey, callResultUrl: `${fx.rx.url}/cb` } });
		await fx.sandbox.clock.advance(2300);
		const list = await ctl('GET', '/callbacks');
		expect(list.body.map((c: { kind: string; url: string; status: number }) => [c.kind, c.url, c.status])).toEqual([['callResult', `${fx.rx.url}/cb`, 200]]);
		expect((await ctl('DELETE', '/callbacks')).body).toEqual({ ok: true });
		expect(fx.sandbox.callbacks).toEqual([]);
	});

	it('unknown control path 404, wrong method 405, bad JSON 400', async () => {
		expectRichError(await ctl('GET', '/nope'), 404, 'NOT_FOUND');
		expectRichError(await ctl('GET', '/reset'), 405, 'METHOD_NOT_ALLOWED');
		expectRichError(await call(fx.sandbox, 'POST', '/__sandbox/latency', { rawBody: '{', auth: 'none' }), 400, 'VALIDATION_ERROR', 'body');
	});
});
