import { PROVIDER_CATALOG, TOOL_CATALOG } from '../../sandbox';
import { api, expectError, expectRichError, useSandboxAndReceiver } from './helpers';

const fx = useSandboxAndReceiver();

function seeded(name: string) {
	const a = [...fx.sandbox.state.assistants].find((x) => x.name === name);
	if (!a) throw new Error(`no seeded assistant ${name}`);
	return a;
}

describe('POST /assistants', () => {
	it('creates an assistant: 201 with exactly its id and key (what the spec shows)', async () => {
		const res = await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Night Line', description: 'After hours', mode: 'voice' } });
		expect(res.status).toBe(201);
		expect(Object.keys(res.body).sort()).toEqual(['assistantApiKey', 'assistantId']);
		expect(res.body.assistantId).toMatch(/^asst_[A-Za-z0-9]{16}$/);
		expect(res.body.assistantApiKey).toMatch(/^ak_[A-Za-z0-9]{32}$/);
		expect(fx.sandbox.state.assistants.get(res.body.assistantId)).toMatchObject({ name: 'Night Line', description: 'After hours', mode: 'voice', assistantApiKey: res.body.assistantApiKey });
		expect(fx.sandbox.state.assistantKeys.get(res.body.assistantApiKey)).toBe(res.body.assistantId);
	});

	it('rich answers: 201 with id, key, fields and createdAt', async () => {
		fx.sandbox.setAnswers('rich');
		const res = await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Night Line', description: 'After hours', mode: 'voice' } });
		expect(res.status).toBe(201);
		expect(Object.keys(res.body).sort()).toEqual(['assistantApiKey', 'assistantId', 'createdAt', 'description', 'mode', 'name']);
		expect(res.body.assistantId).toMatch(/^asst_[A-Za-z0-9]{16}$/);
		expect(res.body.assistantApiKey).toMatch(/^ak_[A-Za-z0-9]{32}$/);
		expect(res.body).toMatchObject({ name: 'Night Line', description: 'After hours', mode: 'voice' });
		expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
		expect(fx.sandbox.state.assistants.get(res.body.assistantId)?.assistantApiKey).toBe(res.body.assistantApiKey);
		expect(fx.sandbox.state.assistantKeys.get(res.body.assistantApiKey)).toBe(res.body.assistantId);
	});

	it('defaults mode to "text" and description to ""', async () => {
		const res = await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Minimal' } });
		expect(res.status).toBe(201);
		const detail = await api(fx.sandbox, 'GET', `/assistants/${res.body.assistantId}`);
		expect(detail.body).toMatchObject({ name: 'Minimal', mode: 'text', description: '' });
		fx.sandbox.setAnswers('rich');
		const rich = await api(fx.sandbox, 'POST', '/assistants', { body: { name: 'Minimal' } });
		expect(rich.status).toBe(201);
		expect(rich.body.mode).toBe('text');
		expect(rich.body.description).toBe('');
	});

	it.each([
		[{}, 'name'],
		[{ name: '' }, 'name'],
		[{ name: '   ' }, 'name'],
		[{ name: 42 }, 'name'],
		[{ name: 'A', description: 5 }, 'description'],
		[{ name: 'A', mode: '' }, 'mode'],
		[{ name: 'A', mode: 3 }, 'mode'],
	])('rejects %j with 400 VALIDATION_ERROR on %s', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const before = fx.sandbox.state.assistants.size;
		expectRichError(await api(fx.sandbox, 'POST', '/assistants', { body }), 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.assistants.size).toBe(before);
	});

	it('rejects a body that is not a JSON object, and invalid JSON', async () => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		expectRichError(await api(fx.sandbox, 'POST', '/assistants', { body: ['x'] }), 400, 'VALIDATION_ERROR', 'body');
		expectRichError(await api(fx.sandbox, 'POST', '/assistants', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR', 'body');
		expectRichError(await api(fx.sandbox, 'POST', '/assistants'), 400, 'VALIDATION_ERROR', 'body');
	});
});

describe('GET /assistants', () => {
	it('without limit and cursor returns the bare array, never a key', async () => {
		const res = await api(fx.sandbox, 'GET', '/assistants');
		expect(res.status).toBe(200);
		expect(Array.isArray(res.body)).toBe(true);
		expect(res.body.map((a: { name: string }) => a.name)).toEqual([
			'Reception Desk',
			'Sales Qualifier',
			'Appointment Scheduler',
			'Support Triage',
			'Survey Caller',
		]);
		expect(Object.keys(res.body[1]).sort()).toEqual(['assistantId', 'createdAt', 'description', 'mode', 'name', 'numbers']);
		expect(res.body[1].numbers).toEqual(['+390200001002', '+14155550101']);
		expect(res.text).not.toContain('ak_');
	});

	it('GET /assistants/{id} returns the details (no key) and 404 for an unknown id', async () => {
		const a = seeded('Reception Desk');
		const res = await api(fx.sandbox, 'GET', `/assistants/${a.assistantId}`);
		expect(res.status).toBe(200);
		expect(res.body).toMatchObject({ assistantId: a.assistantId, name: 'Reception Desk', numbers: ['+390200001001'], ragId: null });
		expect(res.body.runtime.llm).toMatchObject({ providerId: 'openai', model: 'gpt-4o-mini' });
		expect(res.text).not.toContain(a.assistantApiKey);
		expectError(await api(fx.sandbox, 'GET', '/assistants/asst_doesNotExist00'), 404, 'NOT_FOUND');
	});
});

describe('DELETE /assistants/{id}', () => {
	it('deletes, releases its numbers and detaches its collection', async () => {
		const a = seeded('Sales Qualifier');
		const res = await api(fx.sandbox, 'DELETE', `/assistants/${a.assistantId}`);
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ assistantId: a.assistantId, deleted: true, releasedNumbers: ['+390200001002', '+14155550101'] });
		expect(fx.sandbox.state.numbers.get('+390200001002')?.assistantId).toBeNull();
		expect(fx.sandbox.state.numbers.get('+14155550101')?.assistantId).toBeNull();
		expect(fx.sandbox.state.assistants.has(a.assistantId)).toBe(false);
		expect(fx.sandbox.state.assistantKeys.has(a.assistantApiKey)).toBe(false);
		expectError(await api(fx.sandbox, 'DELETE', `/assistants/${a.assistantId}`), 404, 'NOT_FOUND');
		const list = await api(fx.sandbox, 'GET', '/numbers');
		expect(list.body.filter((n: { assistantId: string | null }) => n.assistantId === null).map((n: { number: string }) => n.number)).toEqual([
			'+390200001002',
			'+390200001099',
			'+14155550101',
			'+14155550102',
			'+442079460001',
		]);
	});

	it('detaches the collection of a deleted assistant (the collection can then be deleted)', async () => {
		const a = seeded('Support Triage');
		const ragId = fx.sandbox.state.ragAttachments.get(a.assistantId) as string;
		expect(ragId).toMatch(/^rag_/);
		expectError(await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`), 409, 'RAG_COLLECTION_IN_USE');
		await api(fx.sandbox, 'DELETE', `/assistants/${a.assistantId}`);
		expect(fx.sandbox.state.ragAttachments.has(a.assistantId)).toBe(false);
		expect((await api(fx.sandbox, 'DELETE', `/rag/collections/${ragId}`)).status).toBe(200);
	});

	it('removes the configuration of the deleted assistant', async () => {
		const a = seeded('Reception Desk');
		await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, {
			body: { enabled: true, url: 'https://example.com/hook', authName: null },
		});
		await api(fx.sandbox, 'DELETE', `/assistants/${a.assistantId}`);
		expect(fx.sandbox.state.runtimeConfigs.has(a.assistantId)).toBe(false);
		expect(fx.sandbox.state.conversationWebhooks.has(a.assistantId)).toBe(false);
	});
});

describe('numbers', () => {
	it('a demo number is assigned to one assistant at a time: assigning moves it', () => {
		const [first, second] = [seeded('Reception Desk'), seeded('Survey Caller')];
		fx.sandbox.assignNumber('+390200001099', first.assistantId, 'demo');
		expect(fx.sandbox.state.assistants.get(first.assistantId)?.numbers).toEqual(['+390200001001', '+390200001099']);
		fx.sandbox.assignNumber('+390200001099', second.assistantId);
		expect(fx.sandbox.state.numbers.get('+390200001099')).toMatchObject({ assistantId: second.assistantId, kind: 'demo' });
		expect(fx.sandbox.state.assistants.get(first.assistantId)?.numbers).toEqual(['+390200001001']);
		expect(fx.sandbox.state.assistants.get(second.assistantId)?.numbers).toEqual(['+390200001005', '+390200001099']);
		const holders = [...fx.sandbox.state.assistants].filter((a) => a.numbers.includes('+390200001099'));
		expect(holders.map((a) => a.assistantId)).toEqual([second.assistantId]);
		fx.sandbox.assignNumber('+390200001099', null);
		expect(fx.sandbox.state.numbers.get('+390200001099')?.assistantId).toBeNull();
		expect(fx.sandbox.state.assistants.get(second.assistantId)?.numbers).toEqual(['+390200001005']);
	});

	it('rejects a malformed number or an unknown assistant', () => {
		expect(() => fx.sandbox.assignNumber('0039', null)).toThrow(/number/);
		expect(() => fx.sandbox.assignNumber('+390200001099', 'asst_nope')).toThrow(/not found/);
	});
});

describe('PATCH /assistants/{id}/prompt', () => {
	it('sets the prompt', async () => {
		const a = seeded('Survey Caller');
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/prompt`, { body: { prompt: 'Be brief.' } });
		expect(res.status).toBe(200);
		expect(Object.keys(res.body).sort()).toEqual(['assistantId', 'prompt', 'updatedAt']);
		expect(res.body).toMatchObject({ assistantId: a.assistantId, prompt: 'Be brief.' });
		expect(fx.sandbox.state.assistants.get(a.assistantId)?.prompt).toBe('Be brief.');
	});

	it.each([[{}], [{ prompt: '' }], [{ prompt: '  ' }], [{ prompt: 7 }], [{ prompt: null }]])('rejects %j', async (body) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/prompt`, { body }), 400, 'VALIDATION_ERROR', 'prompt');
	});

	it('404 for an unknown assistant', async () => {
		expectError(await api(fx.sandbox, 'PATCH', '/assistants/asst_unknown/prompt', { body: { prompt: 'x' } }), 404, 'NOT_FOUND');
	});
});

describe('provider catalogs and runtime', () => {
	it.each(['tts', 'asr', 'llm', 'audio-to-audio'] as const)('GET /catalog/providers/%s is a bare array of 2..4 providers', async (kind) => {
		const res = await api(fx.sandbox, 'GET', `/catalog/providers/${kind}`);
		expect(res.status).toBe(200);
		expect(res.body).toEqual(PROVIDER_CATALOG[kind].map((p) => ({ ...p, kind })));
		expect(res.body.length).toBeGreaterThanOrEqual(2);
		expect(res.body.length).toBeLessThanOrEqual(4);
		const paged = await api(fx.sandbox, 'GET', `/catalog/providers/${kind}?limit=1`);
		expect(Array.isArray(paged.body)).toBe(true);
	});

	it('404 for an unknown kind', async () => {
		expectError(await api(fx.sandbox, 'GET', '/catalog/providers/video'), 404, 'NOT_FOUND');
	});

	it('applies a provider with model, voice, language and settings', async () => {
		const a = seeded('Survey Caller');
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/tts`, {
			body: { providerId: 'elevenlabs', model: 'eleven_turbo_v2_5', voice: 'Adam', language: 'it', settings: { speed: 1.1 } },
		});
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			assistantId: a.assistantId,
			kind: 'tts',
			providerId: 'elevenlabs',
			model: 'eleven_turbo_v2_5',
			voice: 'Adam',
			language: 'it',
			settings: { speed: 1.1 },
		});
		expect(fx.sandbox.state.runtimeConfigs.get(a.assistantId)?.tts?.providerId).toBe('elevenlabs');
	});

	it('applies a provider with only providerId (others null/{})', async () => {
		const a = seeded('Survey Caller');
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/audio-to-audio`, { body: { providerId: 'gemini-live' } });
		expect(res.body).toEqual({ assistantId: a.assistantId, kind: 'audio-to-audio', providerId: 'gemini-live', model: null, voice: null, language: null, settings: {} });
	});

	it.each([
		['llm', {}, 'providerId'],
		['llm', { providerId: '' }, 'providerId'],
		['llm', { providerId: 'elevenlabs' }, 'providerId'],
		['tts', { providerId: 'openai' }, 'providerId'],
		['llm', { providerId: 'openai', model: 'gpt-2' }, 'model'],
		['llm', { providerId: 'openai', model: 5 }, 'model'],
		['asr', { providerId: 'deepgram', model: 'nova-3', language: 'xx' }, 'language'],
		['tts', { providerId: 'azure-tts', voice: 'Rachel' }, 'voice'],
		['llm', { providerId: 'openai', settings: [] }, 'settings'],
		['llm', { providerId: 'openai', settings: 'x' }, 'settings'],
	])('runtime/%s rejects %j on %s', async (kind, body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/${kind}`, { body }), 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.runtimeConfigs.get(a.assistantId)).toBeUndefined();
	});
});

describe('tools', () => {
	it('GET /catalog/tools (bare) lists every tool with kind and instanceName', async () => {
		const res = await api(fx.sandbox, 'GET', '/catalog/tools');
		expect(res.body).toEqual(TOOL_CATALOG);
		const kinds = res.body.map((t: { kind: string }) => t.kind);
		for (const kind of ['custom_tool', 'plugin_tool', 'custom_mcp_tool']) expect(kinds.filter((k: string) => k === kind).length).toBeGreaterThanOrEqual(2);
		for (const t of res.body) expect(t.instanceName === null).toBe(t.kind === 'custom_tool');
	});

	it('binds custom, plugin and MCP tools, removes with deleteTools, ignores unknown removals', async () => {
		const a = seeded('Survey Caller');
		const path = `/assistants/${a.assistantId}/runtime/tools`;
		const res = await api(fx.sandbox, 'PATCH', path, {
			body: {
				tools: [
					{ toolName: 'lookup_order', subscriptionName: null },
					{ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main' },
					{ toolName: 'kb_search', subscriptionName: 'kb-mcp' },
				],
				deleteTools: [],
			},
		});
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			assistantId: a.assistantId,
			tools: [
				{ toolName: 'lookup_order', subscriptionName: null, kind: 'custom_tool' },
				{ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main', kind: 'plugin_tool' },
				{ toolName: 'kb_search', subscriptionName: 'kb-mcp', kind: 'custom_mcp_tool' },
			],
		});
		const again = await api(fx.sandbox, 'PATCH', path, {
			body: { tools: [{ toolName: 'lookup_order', subscriptionName: null }], deleteTools: [{ toolName: 'kb_search', subscriptionName: 'kb-mcp' }, { toolName: 'crm_search', subscriptionName: 'crm-mcp' }] },
		});
		expect(again.body.tools.map((t: { toolName: string }) => t.toolName)).toEqual(['lookup_order', 'google_calendar_create_event']);
		const listed = await api(fx.sandbox, 'GET', `/catalog/assistants/${a.assistantId}/tools`);
		expect(listed.body).toEqual(again.body.tools);
	});

	it.each([
		[{ tools: [{ toolName: 'nope', subscriptionName: null }] }, 'tools[0].toolName'],
		[{ tools: [{ toolName: 'lookup_order', subscriptionName: 'gcal-main' }] }, 'tools[0].subscriptionName'],
		[{ tools: [{ toolName: 'google_calendar_create_event', subscriptionName: null }] }, 'tools[0].subscriptionName'],
		[{ tools: [{ toolName: 'google_calendar_create_event', subscriptionName: 'hubspot-crm' }] }, 'tools[0].subscriptionName'],
		[{ tools: [{ toolName: 'crm_search' }] }, 'tools[0].subscriptionName'],
		[{ tools: [{ toolName: 'kb_search', subscriptionName: 'kb-mcp' }, { toolName: 'crm_search', subscriptionName: 'kb-mcp' }] }, 'tools[1].subscriptionName'],
		[{ tools: [{ toolName: '' }] }, 'tools[0].toolName'],
		[{ tools: ['lookup_order'] }, 'tools[0]'],
		[{ tools: {} }, 'tools'],
		[{ deleteTools: [{ subscriptionName: null }] }, 'deleteTools[0].toolName'],
		[{ tools: [{ toolName: 'lookup_order', subscriptionName: 5 }] }, 'tools[0].subscriptionName'],
		[{}, 'tools'],
	])('rejects %j on %s and changes nothing', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/tools`, { body }), 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.toolBindings.get(a.assistantId)).toBeUndefined();
	});

	it('GET /catalog/assistants/{id}/tools: seeded bindings, 404 for unknown assistant', async () => {
		const a = seeded('Support Triage');
		const res = await api(fx.sandbox, 'GET', `/catalog/assistants/${a.assistantId}/tools?limit=1`);
		expect(res.body.data).toEqual([{ toolName: 'create_ticket', subscriptionName: null, kind: 'custom_tool' }]);
		expect(res.body.meta).toMatchObject({ count: 1, totalCount: 2, limit: 1, hasMore: true });
		expectError(await api(fx.sandbox, 'GET', '/catalog/assistants/asst_none/tools'), 404, 'NOT_FOUND');
	});
});

describe('hangup hooks and post-call configuration', () => {
	it('conversation webhook: stores and echoes', async () => {
		const a = seeded('Survey Caller');
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, {
			body: { enabled: true, url: 'http://127.0.0.1:9/hook', authName: 'n8n-header-auth' },
		});
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ assistantId: a.assistantId, enabled: true, url: 'http://127.0.0.1:9/hook', authName: 'n8n-header-auth' });
		expect(fx.sandbox.state.conversationWebhooks.get(a.assistantId)).toEqual({ enabled: true, url: 'http://127.0.0.1:9/hook', authName: 'n8n-header-auth' });
		const off = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, { body: { enabled: false, url: null, authName: null } });
		expect(off.body).toEqual({ assistantId: a.assistantId, enabled: false, url: null, authName: null });
	});

	it.each([
		[{ url: 'https://x.example/h', authName: null }, 'enabled'],
		[{ enabled: 'yes', url: 'https://x.example/h', authName: null }, 'enabled'],
		[{ enabled: true, authName: null }, 'url'],
		[{ enabled: true, url: 'ftp://x.example/h', authName: null }, 'url'],
		[{ enabled: true, url: 'not a url', authName: null }, 'url'],
		[{ enabled: true, url: 'https://x.example/h', authName: 'unknown-auth' }, 'authName'],
		[{ enabled: true, url: 'https://x.example/h', authName: 3 }, 'authName'],
	])('conversation webhook rejects %j on %s', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, { body }), 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.conversationWebhooks.has(a.assistantId)).toBe(false);
	});

	it('a saved authentication added later can be named', async () => {
		const a = seeded('Survey Caller');
		fx.sandbox.addSavedAuthentication('crm-auth', { header: 'X-Crm', value: 'crm-secret-value' });
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/conversation-webhook`, {
			body: { enabled: true, url: 'https://x.example/h', authName: 'crm-auth' },
		});
		expect(res.status).toBe(200);
		expect(res.text).not.toContain('crm-secret-value');
	});

	const schema = [
		{ name: 'customerName', type: 'string', description: 'Name', required: true },
		{ name: 'budget', type: 'number', description: 'Budget in EUR', required: false },
		{ name: 'interested', type: 'boolean', description: 'Wants an offer', required: true },
		{ name: 'channel', type: 'enum', description: 'Preferred channel', required: false, values: ['email', 'phone'] },
		{ name: 'address', type: 'object', description: 'Postal address', required: false },
	];

	it('extraction schema: stores, echoes and clears', async () => {
		const a = seeded('Survey Caller');
		const path = `/assistants/${a.assistantId}/runtime/hangup/schema`;
		const res = await api(fx.sandbox, 'PATCH', path, { body: { hangupUrl: 'https://x.example/extracted', schema } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ assistantId: a.assistantId, hangupUrl: 'https://x.example/extracted', schema });
		const cleared = await api(fx.sandbox, 'PATCH', path, { body: { hangupUrl: null, schema: [] } });
		expect(cleared.body).toEqual({ assistantId: a.assistantId, hangupUrl: null, schema: [] });
	});

	it.each([
		[{ schema: [] }, 'hangupUrl'],
		[{ hangupUrl: 'mailto:a@b.c', schema: [] }, 'hangupUrl'],
		[{ hangupUrl: null }, 'schema'],
		[{ hangupUrl: null, schema: {} }, 'schema'],
		[{ hangupUrl: null, schema: ['x'] }, 'schema[0]'],
		[{ hangupUrl: null, schema: [{ name: '', type: 'string', description: '', required: true }] }, 'schema[0].name'],
		[{ hangupUrl: null, schema: [{ type: 'string', description: '', required: true }] }, 'schema[0].name'],
		[
			{
				hangupUrl: null,
				schema: [
					{ name: 'a', type: 'string', description: '', required: true },
					{ name: 'a', type: 'number', description: '', required: true },
				],
			},
			'schema[1].name',
		],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'date', description: '', required: true }] }, 'schema[0].type'],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'string', required: true }] }, 'schema[0].description'],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'string', description: 'd', required: 'yes' }] }, 'schema[0].required'],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'string', description: 'd', required: true, values: ['x'] }] }, 'schema[0].values'],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'enum', description: 'd', required: true, values: [] }] }, 'schema[0].values'],
		[{ hangupUrl: null, schema: [{ name: 'a', type: 'enum', description: 'd', required: true, values: [1] }] }, 'schema[0].values'],
	])('extraction schema rejects %j on %s', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/hangup/schema`, { body }), 400, 'VALIDATION_ERROR', field);
		expect(fx.sandbox.state.extractionConfigs.has(a.assistantId)).toBe(false);
	});

	it('post-call MCP config: stores and echoes with defaults', async () => {
		const a = seeded('Survey Caller');
		const path = `/assistants/${a.assistantId}/runtime/postcall/mcp-config`;
		const res = await api(fx.sandbox, 'PATCH', path, { body: { enabled: true, serverUrl: 'https://mcp.example.com/sse' } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({ assistantId: a.assistantId, enabled: true, serverUrl: 'https://mcp.example.com/sse', authName: null, tools: [], settings: {} });
		const full = await api(fx.sandbox, 'PATCH', path, {
			body: { enabled: true, serverUrl: 'https://mcp.example.com/sse', authName: 'n8n-header-auth', tools: ['summarize'], settings: { lang: 'it' } },
		});
		expect(full.body).toEqual({ assistantId: a.assistantId, enabled: true, serverUrl: 'https://mcp.example.com/sse', authName: 'n8n-header-auth', tools: ['summarize'], settings: { lang: 'it' } });
		expect(fx.sandbox.state.postcallMcpConfigs.get(a.assistantId)?.tools).toEqual(['summarize']);
	});

	it.each([
		[{ serverUrl: 'https://m.example' }, 'enabled'],
		[{ enabled: true }, 'serverUrl'],
		[{ enabled: true, serverUrl: 'ws://m.example' }, 'serverUrl'],
		[{ enabled: true, serverUrl: 'https://m.example', authName: 'missing' }, 'authName'],
		[{ enabled: true, serverUrl: 'https://m.example', tools: 'x' }, 'tools'],
		[{ enabled: true, serverUrl: 'https://m.example', tools: [''] }, 'tools'],
		[{ enabled: true, serverUrl: 'https://m.example', settings: [1] }, 'settings'],
	])('post-call MCP config rejects %j on %s', async (body, field) => {
		fx.sandbox.setAnswers('rich'); // the field named in details
		const a = seeded('Survey Caller');
		expectRichError(await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/postcall/mcp-config`, { body }), 400, 'VALIDATION_ERROR', field);
	});

	it('a disabled post-call MCP config may omit serverUrl', async () => {
		const a = seeded('Survey Caller');
		const res = await api(fx.sandbox, 'PATCH', `/assistants/${a.assistantId}/runtime/postcall/mcp-config`, { body: { enabled: false } });
		expect(res.body).toEqual({ assistantId: a.assistantId, enabled: false, serverUrl: null, authName: null, tools: [], settings: {} });
	});
});
