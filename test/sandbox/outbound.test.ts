import { call, expectError, expectRichError, Receiver, SAVED_AUTH_VALUE, startSandbox, useSandboxAndReceiver, waitFor } from './helpers';

const fx = useSandboxAndReceiver();

function seeded(name: string) {
	const a = [...fx.sandbox.state.assistants].find((x) => x.name === name);
	if (!a) throw new Error(name);
	return a;
}

function trunk(body: Record<string, unknown>) {
	return call(fx.sandbox, 'POST', '/webhook/outbound_call', { body });
}

function pbx(body: Record<string, unknown>) {
	return call(fx.sandbox, 'POST', '/webhook/outbound_call_pbx', { body });
}

function status(id: string) {
	return call(fx.sandbox, 'GET', `/getDialstatus/${id}`);
}

function reception() {
	const a = seeded('Reception Desk');
	return { assistantApiKey: a.assistantApiKey, callerId: '+390200001001', dst: '+14155550199' };
}

describe('trunk route POST /webhook/outbound_call', () => {
	it('accepts a call: 200 {internal_id (32 hex)}, nothing else (the spec shows internal_id)', async () => {
		const res = await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		expect(res.status).toBe(200);
		expect(res.body).toStrictEqual({ internal_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
		const rec = fx.sandbox.state.calls.get(res.body.internal_id);
		expect(rec).toMatchObject({ route: 'trunk', assistantId: seeded('Reception Desk').assistantId, dst: '+14155550199', callerId: '+390200001001', callResultUrl: `${fx.rx.url}/result`, status: 'queued', persisted: false });
	});

	it('lifecycle on the manual clock: result callback at ring + duration, record after the persist delay', async () => {
		const res = await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		const id = res.body.internal_id;
		expectError(await status(id), 404, 'CALL_RECORD_NOT_FOUND');
		await fx.sandbox.clock.advance(2299); // ring 300 ms + 2 s talk
		expect(fx.rx.received.length).toBe(0);
		await fx.sandbox.clock.advance(1);
		expect(fx.rx.received).toEqual([
			{ method: 'POST', path: '/result', headers: expect.objectContaining({ 'content-type': 'application/json' }), body: { internal_id: id, dialstatus: 'ANSWER', duration: 2 } },
		]);
		expectError(await status(id), 404, 'CALL_RECORD_NOT_FOUND');
		await fx.sandbox.clock.advance(499);
		expectError(await status(id), 404, 'CALL_RECORD_NOT_FOUND');
		await fx.sandbox.clock.advance(1);
		const rec = await status(id);
		expect(rec.status).toBe(200);
		expect(rec.body).toStrictEqual({ dialStatus: 'ANSWER', billSec: 2, trafficCost: '0.025000' });
		expect(fx.sandbox.callbacks).toEqual([
			expect.objectContaining({ kind: 'callResult', url: `${fx.rx.url}/result`, internal_id: id, status: 200, error: null, body: { internal_id: id, dialstatus: 'ANSWER', duration: 2 } }),
		]);
		expect(fx.sandbox.eventErrors).toEqual([]);
	});

	it('accepts the legacy names apiKey_assistente and url_esito_chiamata', async () => {
		const { assistantApiKey, ...rest } = reception();
		const res = await trunk({ ...rest, apiKey_assistente: assistantApiKey, url_esito_chiamata: `${fx.rx.url}/legacy` });
		expect(res.status).toBe(200);
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/legacy').map((r) => r.body.internal_id)).toEqual([res.body.internal_id]);
	});

	it('camelCase wins when both names are present', async () => {
		const base = reception();
		const res = await trunk({ ...base, apiKey_assistente: 'ak_wrongwrongwrongwrongwrongwrong00', callResultUrl: `${fx.rx.url}/camel`, url_esito_chiamata: `${fx.rx.url}/legacy` });
		expect(res.status).toBe(200);
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.received.map((r) => r.path)).toEqual(['/camel']);
		const other = seeded('Survey Caller');
		const refused = await trunk({ ...base, assistantApiKey: 'ak_nope', apiKey_assistente: other.assistantApiKey });
		expectError(refused, 401, 'INVALID_ASSISTANT_KEY');
	});

	it('a key that matches no assistant: 401 INVALID_ASSISTANT_KEY (also legacy)', async () => {
		expectError(await trunk({ ...reception(), assistantApiKey: 'ak_00000000000000000000000000000000' }), 401, 'INVALID_ASSISTANT_KEY');
		const rest: Record<string, unknown> = reception();
		delete rest.assistantApiKey;
		expectError(await trunk({ ...rest, apiKey_assistente: 'nope' }), 401, 'INVALID_ASSISTANT_KEY');
	});

	it('the key of a deleted assistant is rejected', async () => {
		const a = seeded('Reception Desk');
		const body = reception();
		expect((await call(fx.sandbox, 'DELETE', `/api/v1/assistants/${a.assistantId}`)).status).toBe(200);
		expectError(await trunk(body), 401, 'INVALID_ASSISTANT_KEY');
	});

	it.each([
		[{ dst: undefined }, 'dst'],
		[{ dst: '14155550199' }, 'dst'],
		[{ dst: '+0155550199' }, 'dst'],
		[{ dst: '+1' }, 'dst'],
		[{ dst: '+1234567890123456' }, 'dst'],
		[{ dst: '+1 415 555' }, 'dst'],
		[{ dst: 14155550199 }, 'dst'],
		[{ callerId: undefined }, 'callerId'],
		[{ callerId: '0200001001' }, 'callerId'],
		[{ assistantApiKey: undefined }, 'assistantApiKey'],
		[{ assistantApiKey: '' }, 'assistantApiKey'],
		[{ assistantApiKey: 12 }, 'assistantApiKey'],
		[{ callResultUrl: 'ftp://x.example/r' }, 'callResultUrl'],
		[{ callResultUrl: 'nope' }, 'callResultUrl'],
		[{ url_esito_chiamata: 'nope' }, 'url_esito_chiamata'],
		[{ addPrompt: 5 }, 'addPrompt'],
	])('rejects %j with 400 on %s', async (patch, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const res = await trunk({ ...reception(), ...patch });
		expectRichError(res, 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.calls.size).toBe(0);
	});

	it('accepts the shortest and longest E.164 forms', async () => {
		expect((await trunk({ ...reception(), dst: '+12' })).status).toBe(200);
		expect((await trunk({ ...reception(), dst: '+123456789012345' })).status).toBe(200);
	});

	it('rejects a non-object body', async () => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: [1] }), 400, 'VALIDATION_ERROR', 'body');
		expectRichError(await call(fx.sandbox, 'POST', '/webhook/outbound_call', { rawBody: 'dst=+1', headers: { 'content-type': 'text/plain' } }), 400, 'VALIDATION_ERROR', 'body');
	});

	it('callerId must be a number assigned to that assistant: 403 CALLER_ID_NOT_ASSIGNED', async () => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const sales = seeded('Sales Qualifier');
		const base = reception();
		for (const callerId of ['+390200001002', '+14155550101', '+390200001099', '+14155550102', '+15550000000']) {
			const res = await trunk({ ...base, callerId });
			expectRichError(res, 403, 'CALLER_ID_NOT_ASSIGNED', 'callerId');
		}
		expect((await trunk({ ...base, assistantApiKey: sales.assistantApiKey, callerId: '+14155550101' })).status).toBe(200);
		expect((await trunk({ ...base, assistantApiKey: sales.assistantApiKey, callerId: '+390200001002' })).status).toBe(200);
		fx.sandbox.assignNumber('+390200001099', seeded('Reception Desk').assistantId, 'demo');
		expect((await trunk({ ...base, callerId: '+390200001099' })).status).toBe(200);
		// Moving the demo number away makes it unusable for the first assistant.
		fx.sandbox.assignNumber('+390200001099', sales.assistantId);
		expectRichError(await trunk({ ...base, callerId: '+390200001099' }), 403, 'CALLER_ID_NOT_ASSIGNED');
		fx.sandbox.setAnswers('spec');
		expectError(await trunk({ ...base, callerId: '+390200001099' }), 403, 'CALLER_ID_NOT_ASSIGNED');
	});
});

describe('PBX route POST /webhook/outbound_call_pbx', () => {
	const body = () => ({ ...reception(), callerId: '+390612345678', ipPbx: '10.0.0.5', sipPort: 5060, addPrompt: 'The customer is Ms Rossi.' });

	it('accepts a call through an authorized PBX (callerId not checked against the numbers)', async () => {
		const res = await pbx(body());
		expect(res.status).toBe(200);
		expect(res.body).toStrictEqual({ internal_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
		expect(fx.sandbox.state.calls.get(res.body.internal_id)).toMatchObject({ route: 'pbx', ipPbx: '10.0.0.5', sipPort: 5060, addPrompt: 'The customer is Ms Rossi.', callerId: '+390612345678' });
	});

	it('host names are matched case-insensitively; sipPort and addPrompt are optional', async () => {
		const rest: Record<string, unknown> = body();
		delete rest.sipPort;
		delete rest.addPrompt;
		const res = await pbx({ ...rest, ipPbx: 'PBX.Example.com' });
		expect(res.status).toBe(200);
		expect(fx.sandbox.state.calls.get(res.body.internal_id)).toMatchObject({ sipPort: null, addPrompt: null });
	});

	it('an unauthorized PBX: 403 PBX_NOT_AUTHORIZED, then 200 once authorized', async () => {
		expectError(await pbx({ ...body(), ipPbx: '10.0.0.6' }), 403, 'PBX_NOT_AUTHORIZED');
		fx.sandbox.setAnswers('rich'); // the field named in details
		const res = await pbx({ ...body(), ipPbx: '10.0.0.6' });
		expectRichError(res, 403, 'PBX_NOT_AUTHORIZED', 'ipPbx');
		fx.sandbox.authorizePbx('10.0.0.6');
		expect((await pbx({ ...body(), ipPbx: '10.0.0.6' })).status).toBe(200);
		expectRichError(await pbx({ ...body(), ipPbx: 'other.example.com' }), 403, 'PBX_NOT_AUTHORIZED', 'ipPbx');
	});

	it.each([
		[{ ipPbx: undefined }, 'ipPbx'],
		[{ ipPbx: '' }, 'ipPbx'],
		[{ ipPbx: 'not a host!' }, 'ipPbx'],
		[{ ipPbx: 10 }, 'ipPbx'],
		[{ sipPort: 0 }, 'sipPort'],
		[{ sipPort: 65536 }, 'sipPort'],
		[{ sipPort: '5060' }, 'sipPort'],
		[{ sipPort: 50.5 }, 'sipPort'],
		[{ addPrompt: ['x'] }, 'addPrompt'],
		[{ dst: '+0' }, 'dst'],
		[{ callerId: 'anonymous' }, 'callerId'],
		[{ assistantApiKey: undefined }, 'assistantApiKey'],
	])('rejects %j with 400 on %s', async (patch, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await pbx({ ...body(), ...patch }), 400, 'VALIDATION_ERROR', field);
	});

	it.each([1, 65535])('accepts sipPort %i', async (sipPort) => {
		expect((await pbx({ ...body(), sipPort })).status).toBe(200);
	});

	it('accepts the legacy names', async () => {
		const { assistantApiKey, ...rest } = body();
		const res = await pbx({ ...rest, apiKey_assistente: assistantApiKey, url_esito_chiamata: `${fx.rx.url}/pbx-legacy` });
		expect(res.status).toBe(200);
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/pbx-legacy').length).toBe(1);
	});

	it('a wrong assistant key: 401 before the PBX check', async () => {
		expectError(await pbx({ ...body(), ipPbx: '10.9.9.9', assistantApiKey: 'ak_x' }), 401, 'INVALID_ASSISTANT_KEY');
	});
});

describe('call events', () => {
	const schema = [
		{ name: 'customerName', type: 'string', description: 'Name', required: true },
		{ name: 'budget', type: 'number', description: 'Budget', required: false },
		{ name: 'interested', type: 'boolean', description: 'Interested', required: true },
		{ name: 'channel', type: 'enum', description: 'Channel', required: false, values: ['phone', 'email'] },
		{ name: 'tier', type: 'enum', description: 'Tier', required: false },
		{ name: 'address', type: 'object', description: 'Address', required: false },
	];

	async function configure(assistantId: string, authName: string | null, enabled = true) {
		const hook = await call(fx.sandbox, 'PATCH', `/api/v1/assistants/${assistantId}/runtime/hangup/conversation-webhook`, {
			body: { enabled, url: `${fx.rx.url}/conversation-end`, authName },
		});
		expect(hook.status).toBe(200);
		const ext = await call(fx.sandbox, 'PATCH', `/api/v1/assistants/${assistantId}/runtime/hangup/schema`, { body: { hangupUrl: `${fx.rx.url}/extracted`, schema } });
		expect(ext.status).toBe(200);
	}

	it('an answered call POSTs the result, the conversation end (with the saved auth header) and the extracted data', async () => {
		const a = seeded('Reception Desk');
		await configure(a.assistantId, 'n8n-header-auth');
		const res = await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		const id = res.body.internal_id;
		const placedAt = fx.sandbox.clock.now();
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.received.map((r) => r.path).sort()).toEqual(['/conversation-end', '/extracted', '/result']);
		const end = fx.rx.at('/conversation-end')[0];
		expect(end.headers['x-webhook-auth']).toBe(SAVED_AUTH_VALUE);
		expect(end.headers['content-type']).toBe('application/json');
		expect(end.body).toEqual({
			event: 'conversation_end',
			assistantId: a.assistantId,
			internal_id: id,
			callId: expect.stringMatching(/^call_[A-Za-z0-9]{16}$/),
			startedAt: new Date(placedAt + 300).toISOString(),
			endedAt: new Date(placedAt + 2300).toISOString(),
			durationSec: 2,
			direction: 'outbound',
			from: '+390200001001',
			to: '+14155550199',
		});
		const extracted = fx.rx.at('/extracted')[0];
		expect(extracted.headers['x-webhook-auth']).toBeUndefined();
		expect(extracted.body).toEqual({
			event: 'extracted_data',
			assistantId: a.assistantId,
			internal_id: id,
			callId: end.body.callId,
			data: { customerName: 'sample customerName', budget: 42, interested: true, channel: 'phone', tier: 'option_1', address: { value: 'sample address' } },
		});
		expect(fx.rx.at('/result')[0].headers['x-webhook-auth']).toBeUndefined();
		const kinds = fx.sandbox.callbacks.map((c) => c.kind).sort();
		expect(kinds).toEqual(['callResult', 'conversationEnd', 'extractedData']);
		const endRecord = fx.sandbox.callbacks.find((c) => c.kind === 'conversationEnd');
		expect(endRecord?.headers['x-webhook-auth']).toBe('[masked]');
		expect(endRecord?.status).toBe(200);
		expect(JSON.stringify(fx.sandbox.callbacks)).not.toContain(SAVED_AUTH_VALUE);
	});

	it('authName null sends the conversation end without auth; enabled false sends nothing', async () => {
		const a = seeded('Reception Desk');
		await configure(a.assistantId, null);
		await trunk(reception());
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/conversation-end').length).toBe(1);
		expect(fx.rx.at('/conversation-end')[0].headers['x-webhook-auth']).toBeUndefined();
		fx.rx.clear();
		await configure(a.assistantId, null, false);
		await trunk(reception());
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.received.map((r) => r.path)).toEqual(['/extracted']);
	});

	it('a custom saved authentication sends its own header', async () => {
		const a = seeded('Reception Desk');
		fx.sandbox.addSavedAuthentication('bearer-auth', { header: 'Authorization', value: 'Bearer receiver-token-123' });
		await configure(a.assistantId, 'bearer-auth');
		await trunk(reception());
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/conversation-end')[0].headers.authorization).toBe('Bearer receiver-token-123');
	});

	it('a call that is not answered: dialstatus from the rule, duration 0, no conversation events', async () => {
		const a = seeded('Reception Desk');
		await configure(a.assistantId, 'n8n-header-auth');
		fx.sandbox.setDialOutcome({ dst: '+14155550199', dialstatus: 'BUSY', ringMs: 1000 });
		const res = await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		await fx.sandbox.clock.advance(999);
		expect(fx.rx.received.length).toBe(0);
		await fx.sandbox.clock.advance(1);
		expect(fx.rx.received.map((r) => [r.path, r.body])).toEqual([['/result', { internal_id: res.body.internal_id, dialstatus: 'BUSY', duration: 0 }]]);
		await fx.sandbox.clock.advance(500);
		expect((await status(res.body.internal_id)).body).toStrictEqual({ dialStatus: 'BUSY', billSec: 0, trafficCost: '0.000000' });
		// Other destinations keep the default outcome.
		const other = await trunk({ ...reception(), dst: '+14155550100', callResultUrl: `${fx.rx.url}/result` });
		await fx.sandbox.clock.advance(2300);
		expect(fx.rx.at('/result').map((r) => r.body.dialstatus)).toEqual(['BUSY', 'ANSWER']);
		expect(fx.rx.at('/result')[1].body.internal_id).toBe(other.body.internal_id);
	});

	it.each(['NOANSWER', 'FAILED', 'CANCEL', 'CONGESTION'] as const)('dial outcome %s', async (dialstatus) => {
		fx.sandbox.setDialOutcome({ dialstatus, ringMs: 10, persistDelayMs: 0 });
		const res = await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		await fx.sandbox.clock.advance(10);
		expect(fx.rx.received[0].body).toEqual({ internal_id: res.body.internal_id, dialstatus, duration: 0 });
		expect((await status(res.body.internal_id)).body.dialStatus).toBe(dialstatus);
	});

	it('the default rule sets ring, talk time and persist delay; trafficCost has six decimals', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 1000, durationSec: 61, persistDelayMs: 0 });
		const res = await trunk(reception());
		await fx.sandbox.clock.advance(61_999);
		expectError(await status(res.body.internal_id), 404, 'CALL_RECORD_NOT_FOUND');
		await fx.sandbox.clock.advance(1);
		expect((await status(res.body.internal_id)).body).toStrictEqual({ dialStatus: 'ANSWER', billSec: 61, trafficCost: '0.762500' });
	});

	it('rejects an invalid dial outcome rule', () => {
		expect(() => fx.sandbox.setDialOutcome({ dialstatus: 'MAYBE' as never })).toThrow(/dialstatus/);
		expect(() => fx.sandbox.setDialOutcome({ dialstatus: 'BUSY', dst: '123' })).toThrow(/dst/);
		expect(() => fx.sandbox.setDialOutcome({ dialstatus: 'BUSY', ringMs: -1 })).toThrow(/ringMs/);
	});

	it('a failed delivery is recorded with its error and never breaks the call', async () => {
		const dead = await Receiver.start();
		const deadUrl = dead.url;
		await dead.stop();
		const res = await trunk({ ...reception(), callResultUrl: `${deadUrl}/gone` });
		await fx.sandbox.clock.advance(2800);
		expect(fx.sandbox.callbacks.length).toBe(1);
		expect(fx.sandbox.callbacks[0]).toMatchObject({ kind: 'callResult', url: `${deadUrl}/gone`, status: null });
		expect(fx.sandbox.callbacks[0].error).toMatch(/ECONNREFUSED|connect/i);
		expect((await status(res.body.internal_id)).status).toBe(200);
		expect(fx.sandbox.eventErrors).toEqual([]);
	});

	it('a receiver error status is recorded', async () => {
		fx.rx.status = 500;
		await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		await fx.sandbox.clock.advance(2300);
		expect(fx.sandbox.callbacks.map((c) => [c.kind, c.status, c.error])).toEqual([['callResult', 500, null]]);
	});

	it('persisted calls appear in /analytics/calls', async () => {
		const res = await trunk(reception());
		await fx.sandbox.clock.advance(2800);
		const list = await call(fx.sandbox, 'GET', '/api/v1/analytics/calls');
		expect(list.body[list.body.length - 1]).toMatchObject({ internal_id: res.body.internal_id, direction: 'outbound', dialStatus: 'ANSWER', billSec: 2 });
	});

	it('GET /getDialstatus of an unknown id: 404 CALL_RECORD_NOT_FOUND', async () => {
		expectError(await status('0123456789abcdef0123456789abcdef'), 404, 'CALL_RECORD_NOT_FOUND');
	});

	it('reset drops pending calls: nothing fires afterwards', async () => {
		await trunk({ ...reception(), callResultUrl: `${fx.rx.url}/result` });
		fx.sandbox.reset();
		await fx.sandbox.clock.advance(10_000);
		expect(fx.rx.received.length).toBe(0);
		expect(fx.sandbox.state.calls.size).toBe(0);
	});
});

describe('real clock', () => {
	it('events fire by themselves', async () => {
		const real = await startSandbox({ clock: 'real', ringMs: 20, durationSec: 0, persistDelayMs: 30 });
		try {
			expect(real.clock.mode).toBe('real');
			const a = [...real.state.assistants][0];
			const res = await call(real, 'POST', '/webhook/outbound_call', {
				body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey, callResultUrl: `${fx.rx.url}/real` },
			});
			expect(res.status).toBe(200);
			await waitFor(() => fx.rx.at('/real').length === 1);
			expect(fx.rx.at('/real')[0].body).toEqual({ internal_id: res.body.internal_id, dialstatus: 'ANSWER', duration: 0 });
			await waitFor(() => real.state.calls.get(res.body.internal_id)?.persisted === true);
			const rec = await call(real, 'GET', `/getDialstatus/${res.body.internal_id}`);
			expect(rec.body).toStrictEqual({ dialStatus: 'ANSWER', billSec: 0, trafficCost: '0.000000' });
		} finally {
			await real.stop();
		}
	});

	it('advance() also works in real mode', async () => {
		const real = await startSandbox({ clock: 'real', ringMs: 60_000 });
		try {
			const a = [...real.state.assistants][0];
			const res = await call(real, 'POST', '/webhook/outbound_call', {
				body: { dst: '+14155550199', callerId: a.numbers[0], assistantApiKey: a.assistantApiKey, callResultUrl: `${fx.rx.url}/adv` },
			});
			const before = real.clock.now();
			await real.clock.advance(63_000);
			expect(real.clock.now()).toBeGreaterThanOrEqual(before + 63_000);
			expect(fx.rx.at('/adv').map((r) => r.body.internal_id)).toEqual([res.body.internal_id]);
			expect(real.state.calls.get(res.body.internal_id)?.persisted).toBe(true);
		} finally {
			await real.stop();
		}
	});
});
