import { api, call, file, OUTBOUND_KEY, PORTAL_KEY, SAVED_AUTH_VALUE, useSandboxAndReceiver, upload } from './helpers';

const fx = useSandboxAndReceiver();

function seeded(name: string) {
	const a = [...fx.sandbox.state.assistants].find((x) => x.name === name);
	if (!a) throw new Error(name);
	return a;
}

describe('journal entries', () => {
	it('records method, path, query, lower-cased headers (auth masked), auth, parsed body and status', async () => {
		await api(fx.sandbox, 'POST', '/assistants?trace=1&tag=a&tag=b', { body: { name: 'Journaled' }, headers: { 'X-Custom-Header': 'Value' } });
		expect(fx.sandbox.journal.length).toBe(1);
		const e = fx.sandbox.journal[0];
		expect(e).toEqual({
			seq: expect.any(Number),
			at: expect.any(String),
			method: 'POST',
			path: '/api/v1/assistants',
			query: { trace: '1', tag: ['a', 'b'] },
			headers: expect.objectContaining({ authorization: '[masked]', 'x-custom-header': 'Value', 'content-type': 'application/json' }),
			auth: 'ok',
			body: { name: 'Journaled' },
			status: 201,
		});
		expect(new Date(e.at).toISOString()).toBe(e.at);
		await api(fx.sandbox, 'GET', '/assistants');
		expect(fx.sandbox.journal[1].seq).toBe(e.seq + 1);
		expect(fx.sandbox.journal[1].body).toBeNull();
	});

	it('masks the outbound header', async () => {
		await call(fx.sandbox, 'GET', '/getDialstatus/abc');
		expect(fx.sandbox.journal[0].headers['x-apikey-secret-service']).toBe('[masked]');
		expect(fx.sandbox.journal[0].status).toBe(404);
	});

	it('masks both auth headers even when their values are wrong (not a known secret)', async () => {
		await call(fx.sandbox, 'GET', '/getDialstatus/abc', { auth: 'none', headers: { 'x-apikey-secret-service': 'wrong-outbound-value' } });
		await api(fx.sandbox, 'GET', '/assistants', { auth: 'none', headers: { authorization: 'Bearer wrong-portal-value' } });
		expect(fx.sandbox.journal.map((e) => [e.auth, e.headers['x-apikey-secret-service'] ?? e.headers.authorization])).toEqual([
			['invalid', '[masked]'],
			['invalid', '[masked]'],
		]);
		expect(JSON.stringify(fx.sandbox.journal)).not.toMatch(/wrong-(outbound|portal)-value/);
	});

	it('multipart bodies are journaled as fields and file descriptions', async () => {
		const ragId = [...fx.sandbox.state.collections][1].ragId;
		await upload(fx.sandbox, ragId, [file('a.pdf', 10, 'application/pdf'), file('b.txt', 3, 'text/plain'), { name: 'chunkSize', value: '800' }]);
		expect(fx.sandbox.journal[0].body).toEqual({
			fields: { chunkSize: '800' },
			files: [
				{ fieldName: 'files', fileName: 'a.pdf', contentType: 'application/pdf', size: 10 },
				{ fieldName: 'files', fileName: 'b.txt', contentType: 'text/plain', size: 3 },
			],
		});
		expect(fx.sandbox.journal[0].status).toBe(202);
	});

	it('an unparseable body is journaled as the raw string', async () => {
		await api(fx.sandbox, 'POST', '/assistants', { rawBody: '{"name": oops', headers: { 'content-type': 'application/json' } });
		expect(fx.sandbox.journal[0]).toMatchObject({ body: '{"name": oops', status: 400 });
	});

	it('assistant keys in bodies become [masked:<assistantId>] or [masked:unknown]', async () => {
		const a = seeded('Reception Desk');
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: '+390200001001', assistantApiKey: a.assistantApiKey } });
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: '+390200001001', apiKey_assistente: a.assistantApiKey } });
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: '+390200001001', assistantApiKey: 'ak_guess' } });
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: '+390200001001', assistantApiKey: 42 } });
		expect(fx.sandbox.journal.map((e) => [(e.body as Record<string, unknown>).assistantApiKey ?? (e.body as Record<string, unknown>).apiKey_assistente, e.status])).toEqual([
			[`[masked:${a.assistantId}]`, 200],
			[`[masked:${a.assistantId}]`, 200],
			['[masked:unknown]', 401],
			['[masked:unknown]', 400],
		]);
		expect((fx.sandbox.journal[0].body as Record<string, unknown>).dst).toBe('+14155550199');
	});

	it('the journal never contains a real key, wherever the key was sent', async () => {
		const a = seeded('Reception Desk');
		const created = await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Fresh' } });
		const freshKey: string = created.body.assistantApiKey;
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { body: { dst: '+14155550199', callerId: '+390200001001', assistantApiKey: a.assistantApiKey, nested: { assistantApiKey: freshKey } } });
		await call(fx.sandbox, 'POST', '/webhook/outbound_call_pbx', { body: { dst: '+14155550199', callerId: '+3906', ipPbx: '10.0.0.5', apiKey_assistente: freshKey, addPrompt: `my key is ${a.assistantApiKey}` } });
		await call(fx.sandbox, 'POST', '/webhook/outbound_call', { rawBody: `{"assistantApiKey": "${freshKey}", broken`, headers: { 'content-type': 'application/json' } });
		await call(fx.sandbox, 'GET', `/getDialstatus/${a.assistantApiKey}`);
		await api(fx.sandbox, 'GET', `/assistants?assistantApiKey=${freshKey}&q=${a.assistantApiKey}`);
		await api(fx.sandbox, 'GET', '/assistants', { auth: 'none', headers: { authorization: `Bearer ${PORTAL_KEY}x`, 'x-echo': PORTAL_KEY } });
		await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Leaky', description: `outbound ${OUTBOUND_KEY} portal ${PORTAL_KEY} hook ${SAVED_AUTH_VALUE}` } });
		await call(fx.sandbox, 'GET', '/getDialstatus/x', { auth: 'none', headers: { 'x-apikey-secret-service': `${OUTBOUND_KEY}-wrong` } });
		expect(fx.sandbox.journal.length).toBe(9);
		const text = JSON.stringify(fx.sandbox.journal);
		const secrets = [PORTAL_KEY, OUTBOUND_KEY, SAVED_AUTH_VALUE, freshKey, ...[...fx.sandbox.state.assistants].map((x) => x.assistantApiKey)];
		for (const secret of secrets) expect(text).not.toContain(secret);
		expect(text).not.toMatch(/ak_[A-Za-z0-9]{32}/);
		const pbx = fx.sandbox.journal[2].body as Record<string, unknown>;
		expect(pbx.apiKey_assistente).toBe(`[masked:${created.body.assistantId}]`);
		expect(pbx.addPrompt).toBe(`my key is [masked:${a.assistantId}]`);
		expect(fx.sandbox.journal[4].path).toBe(`/getDialstatus/[masked:${a.assistantId}]`);
		expect(fx.sandbox.journal[5].query).toEqual({ assistantApiKey: `[masked:${created.body.assistantId}]`, q: `[masked:${a.assistantId}]` });
		expect(fx.sandbox.journal[6].headers['x-echo']).toBe('[masked]');
	});

	it('clearJournal empties the journal', async () => {
		await api(fx.sandbox, 'GET', '/assistants');
		expect(fx.sandbox.journal.length).toBe(1);
		fx.sandbox.clearJournal();
		expect(fx.sandbox.journal.length).toBe(0);
	});

	it('unknown paths are journaled with auth "missing" and 404', async () => {
		await call(fx.sandbox, 'GET', '/unknown', { auth: 'none' });
		expect(fx.sandbox.journal[0]).toMatchObject({ path: '/unknown', auth: 'missing', status: 404 });
	});
});
