import type { IDataObject } from 'n8n-workflow';

import { PROVIDER_CATALOG, SAVED_AUTH_NAME } from '../../sandbox';
import { runNode } from '../harness/engine';
import { useSandbox } from '../harness/sandbox';

import { byId, expectNoSecrets, fromList } from './runtime-helpers';

const fx = useSandbox();

function newAssistant(name = 'Runtime Test'): string {
	return fx.sandbox.createAssistant({ name }).assistantId;
}

async function run(parameters: Record<string, unknown>, extra: Partial<Parameters<typeof runNode>[0]> = {}) {
	return await runNode({ parameters: { resource: 'runtime', ...parameters }, credentials: fx.credentials, ...extra });
}

/** Runs a bad input and asserts the error names the field and the rule and nothing was sent. */
async function expectRejected(parameters: Record<string, unknown>, message: string) {
	fx.sandbox.clearJournal();
	const { error, items } = await run(parameters);
	expect(items).toHaveLength(0);
	expect(error?.message).toContain(message);
	expect(error?.description).toContain('rejected before anything was sent');
	expect(fx.sandbox.journal).toHaveLength(0);
	expectNoSecrets(fx, { m: error?.message, d: error?.description });
}

/** One runtime setting: the operation's parameters and what it must send, output and store. */
interface Setting {
	/** The node's parameters, without the resource and the assistant. */
	parameters: Record<string, unknown>;
	/** Prepares the sandbox before the run (after the assistant is created). */
	before?: (assistantId: string) => void;
	/** The path under /api/v1/assistants/{id}/runtime/. */
	path: string;
	/** The body sent, exactly. */
	body: unknown;
	/** The one output item's json, whole (`output`) or in part (`outputLike`). */
	output?: (assistantId: string) => IDataObject;
	outputLike?: IDataObject;
	/** What the sandbox stored for the assistant, whole (`equals`) or in part (`like`). */
	stored?: { read: (assistantId: string) => unknown; equals?: unknown; like?: unknown };
}

/**
 * Runs a setting on a new assistant and asserts that exactly one PATCH went to its runtime path with the
 * portal key and the given body, the output and the sandbox state are what was set, and no secret is shown.
 */
async function expectSetting(given: Setting | (() => Setting)): Promise<void> {
	const setting = typeof given === 'function' ? given() : given;
	const assistantId = newAssistant();
	setting.before?.(assistantId);
	fx.sandbox.clearJournal();
	const { items, error } = await run({ ...setting.parameters, assistantId: byId(assistantId) });
	expect(error).toBeUndefined();
	expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.auth])).toEqual([
		['PATCH', `/api/v1/assistants/${assistantId}/runtime/${setting.path}`, 'ok'],
	]);
	expect(fx.sandbox.journal[0].body).toEqual(setting.body);
	if (setting.output) expect(items.map((i) => i.json)).toEqual([setting.output(assistantId)]);
	if (setting.outputLike) {
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject(setting.outputLike);
	}
	if (setting.stored) {
		const stored = setting.stored.read(assistantId);
		if ('equals' in setting.stored) expect(stored).toEqual(setting.stored.equals);
		if ('like' in setting.stored) expect(stored).toMatchObject(setting.stored.like as object);
	}
	expectNoSecrets(fx, items);
}

const runtimeOf = (assistantId: string) => fx.sandbox.state.runtimeConfigs.get(assistantId);

describe('Runtime → Set Provider', () => {
	test('PATCHes the provider and model of the chosen kind and stores them', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { items, error } = await run({
			operation: 'setProvider',
			assistantId: byId(assistantId),
			providerKind: 'llm',
			providerId: fromList('openai'),
			model: fromList('gpt-4o'),
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry).toMatchObject({
			method: 'PATCH',
			path: `/api/v1/assistants/${assistantId}/runtime/llm`,
			query: {},
			auth: 'ok',
			status: 200,
		});
		expect(entry.headers['content-type']).toContain('application/json');
		expect(entry.body).toEqual({ providerId: 'openai', model: 'gpt-4o' });
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ assistantId, kind: 'llm', providerId: 'openai', model: 'gpt-4o' });
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(fx.sandbox.state.runtimeConfigs.get(assistantId)?.llm).toMatchObject({
			providerId: 'openai',
			model: 'gpt-4o',
			voice: null,
			language: null,
		});
		expectNoSecrets(fx, items);
	});

	test.each(['tts', 'asr', 'llm', 'audio-to-audio'] as const)('kind %s goes to its own runtime path', async (kind) => {
		const { providerId } = PROVIDER_CATALOG[kind][0];
		// No model chosen: none is sent (the provider's default applies).
		await expectSetting({
			parameters: { operation: 'setProvider', providerKind: kind, providerId: fromList(providerId) },
			path: kind,
			body: { providerId },
			outputLike: { kind, providerId, model: null },
			stored: { read: (id) => runtimeOf(id)?.[kind]?.providerId, equals: providerId },
		});
	});

	test.each<[string, Setting]>([
		[
			'sends voice, language and settings when given, with the model typed by name',
			{
				parameters: {
					operation: 'setProvider',
					providerKind: 'tts',
					providerId: byId('elevenlabs'),
					model: byId('eleven_turbo_v2_5'),
					providerOptions: { voice: 'Bella', language: 'it', settings: '{"stability":0.4,"style":{"warm":true}}' },
				},
				path: 'tts',
				body: { providerId: 'elevenlabs', model: 'eleven_turbo_v2_5', voice: 'Bella', language: 'it', settings: { stability: 0.4, style: { warm: true } } },
				outputLike: { kind: 'tts', voice: 'Bella', language: 'it' },
				stored: { read: (id) => runtimeOf(id)?.tts?.settings, equals: { stability: 0.4, style: { warm: true } } },
			},
		],
		[
			'Additional Fields (JSON) are merged last and win',
			{
				parameters: {
					operation: 'setProvider',
					providerKind: 'llm',
					providerId: fromList('openai'),
					model: fromList('gpt-4o'),
					additionalFieldsJson: '{"model":"gpt-4.1","settings":{"temperature":0}}',
				},
				path: 'llm',
				body: { providerId: 'openai', model: 'gpt-4.1', settings: { temperature: 0 } },
				stored: { read: (id) => runtimeOf(id)?.llm?.model, equals: 'gpt-4.1' },
			},
		],
	])('%s', async (_title, setting) => {
		await expectSetting(setting);
	});

	test.each([
		['an empty provider', { providerId: byId('={{ "" }}') }, 'Invalid "Provider": must not be empty'],
		['a blank provider', { providerId: fromList('   ') }, 'Invalid "Provider": must not be empty'],
		['an unknown kind from an expression', { providerKind: '={{ "video" }}' }, 'Invalid "Kind": must be one of tts, asr, llm, audio-to-audio'],
		['settings that are not JSON', { providerOptions: { settings: '{temperature:' } }, 'Invalid "Settings": must be valid JSON'],
		['settings that are an array', { providerOptions: { settings: '[1]' } }, 'Invalid "Settings": must be a JSON object'],
		['an empty assistant', { assistantId: byId('={{ "" }}') }, 'Invalid "Assistant": must not be empty'],
		['malformed extra JSON', { additionalFieldsJson: '{"a":' }, 'Invalid "Additional Fields (JSON)": must be valid JSON'],
	])('rejects %s before sending', async (_label, fields, message) => {
		await expectRejected(
			{
				operation: 'setProvider',
				assistantId: byId('asst_AAAAAAAAAAAAAAAA'),
				providerKind: 'llm',
				providerId: fromList('openai'),
				...fields,
			},
			message,
		);
	});

	test('a provider the platform does not know gives its VALIDATION_ERROR, sent once', async () => {
		// The field the platform names (details.field) comes only from a platform that sends more than the spec shows.
		fx.sandbox.setAnswers('rich');
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await run({
			operation: 'setProvider',
			assistantId: byId(assistantId),
			providerKind: 'llm',
			providerId: byId('no-such-llm'),
		});
		expect(error?.message).toContain('VALIDATION_ERROR');
		expect(error?.description).toContain('Field: providerId');
		expect(fx.sandbox.journal).toHaveLength(1);
	});

	test('Continue On Fail reports the bad item and keeps pairing', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { items, error } = await run(
			{
				operation: 'setProvider',
				assistantId: byId(assistantId),
				providerKind: '={{ $json.kind }}',
				providerId: byId('={{ $json.provider }}'),
			},
			{
				items: [{ json: { kind: 'asr', provider: '' } }, { json: { kind: 'asr', provider: 'deepgram' } }],
				continueOnFail: true,
			},
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(String(items[0].json.error)).toContain('Invalid "Provider": must not be empty');
		expect(items[1].json).toMatchObject({ kind: 'asr', providerId: 'deepgram' });
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(fx.sandbox.journal.map((e) => e.body)).toEqual([{ providerId: 'deepgram' }]);
	});
});

describe('Runtime → Attach / Detach RAG Collection', () => {
	test('attaches a collection, replacing the one attached before', async () => {
		const [faq, prices] = fx.sandbox.state.collections.list;
		await expectSetting({
			parameters: { operation: 'attachRag', ragId: fromList(prices.ragId) },
			before: (id) => fx.sandbox.state.ragAttachments.set(id, faq.ragId),
			path: 'rag',
			body: { ragId: prices.ragId },
			output: (assistantId) => ({ assistantId, ragId: prices.ragId }),
			stored: { read: (id) => fx.sandbox.state.ragAttachments.get(id), equals: prices.ragId },
		});
	});

	test('detaches with ragId null, after which the collection can be deleted', async () => {
		const assistantId = newAssistant();
		const [faq] = fx.sandbox.state.collections.list;
		fx.sandbox.state.ragAttachments.clear();
		fx.sandbox.state.ragAttachments.set(assistantId, faq.ragId);
		fx.sandbox.clearJournal();
		const { items, error } = await run({ operation: 'detachRag', assistantId: byId(assistantId) });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'PATCH',
			path: `/api/v1/assistants/${assistantId}/runtime/rag`,
			body: { ragId: null },
		});
		expect(items[0].json).toEqual({ assistantId, ragId: null });
		expect(fx.sandbox.state.ragAttachments.has(assistantId)).toBe(false);
		const deleted = await fetch(`${fx.sandbox.url}/api/v1/rag/collections/${faq.ragId}`, {
			method: 'DELETE',
			headers: { Authorization: `Bearer ${fx.sandbox.portalKey}` },
		});
		expect(deleted.status).toBe(200);
	});

	test.each([
		['a collection ID of the wrong form', byId('={{ "collection-1" }}'), 'Invalid "RAG Collection": must be a collection ID of the form rag_ followed by letters and digits (got "collection-1")'],
		['an empty collection', byId('={{ "" }}'), 'Invalid "RAG Collection": must not be empty'],
	])('rejects %s before sending', async (_label, ragId, message) => {
		await expectRejected({ operation: 'attachRag', assistantId: byId('asst_AAAAAAAAAAAAAAAA'), ragId }, message);
	});
});

test('Attach RAG Collection: a typed ID of the wrong form is already refused by n8n, nothing sent', async () => {
	fx.sandbox.clearJournal();
	// The harness either throws n8n's WorkflowHasIssuesError or returns it as the run's error.
	const outcome = await run({ operation: 'attachRag', assistantId: byId('asst_AAAAAAAAAAAAAAAA'), ragId: byId('collection-1') }).then(
		(result) => result.error,
		(error: Error) => error,
	);
	expect(String(outcome?.message)).toContain('A collection ID is rag_ followed by letters and digits');
	expect(fx.sandbox.journal).toHaveLength(0);
});

describe('Runtime → Configure Conversation Webhook', () => {
	const webhook = (fields: Record<string, unknown>) => ({ operation: 'configureConversationWebhook', ...fields });
	const hooks = (id: string) => fx.sandbox.state.conversationWebhooks.get(id);

	test.each<[string, Setting]>([
		[
			'sends enabled, url and the saved authentication name',
			{
				parameters: webhook({ webhookEnabled: true, webhookUrl: ' https://hooks.example.com/conversation-end ', webhookAuthName: SAVED_AUTH_NAME }),
				path: 'hangup/conversation-webhook',
				body: { enabled: true, url: 'https://hooks.example.com/conversation-end', authName: SAVED_AUTH_NAME },
				output: (assistantId) => ({ assistantId, enabled: true, url: 'https://hooks.example.com/conversation-end', authName: SAVED_AUTH_NAME }),
				stored: { read: hooks, equals: { enabled: true, url: 'https://hooks.example.com/conversation-end', authName: SAVED_AUTH_NAME } },
			},
		],
		[
			'an empty Authentication Name is sent as null (no authentication)',
			{
				parameters: webhook({ webhookUrl: 'http://n8n.local:5678/webhook/end' }),
				path: 'hangup/conversation-webhook',
				body: { enabled: true, url: 'http://n8n.local:5678/webhook/end', authName: null },
				stored: { read: (id) => hooks(id)?.authName, equals: null },
			},
		],
		[
			'disabled with no URL sends url null',
			{
				parameters: webhook({ webhookEnabled: false }),
				path: 'hangup/conversation-webhook',
				body: { enabled: false, url: null, authName: null },
				outputLike: { enabled: false, url: null },
			},
		],
		[
			'disabled with a URL keeps the URL',
			{
				parameters: webhook({ webhookEnabled: false, webhookUrl: 'https://hooks.example.com/end' }),
				path: 'hangup/conversation-webhook',
				body: { enabled: false, url: 'https://hooks.example.com/end', authName: null },
			},
		],
	])('%s', async (_title, setting) => {
		await expectSetting(setting);
	});

	test.each([
		['enabled without a URL', {}, 'Invalid "Webhook URL": must be an http:// or https:// URL (got "")'],
		['an ftp URL', { webhookUrl: 'ftp://files.example.com/x' }, 'Invalid "Webhook URL": must be an http:// or https:// URL'],
		['a URL without scheme', { webhookUrl: 'hooks.example.com/end' }, 'Invalid "Webhook URL": must be an http:// or https:// URL'],
		['a bad URL while disabled', { webhookEnabled: false, webhookUrl: 'not a url' }, 'Invalid "Webhook URL"'],
		['Enabled from an expression that is not a boolean', { webhookEnabled: '={{ "yes" }}', webhookUrl: 'https://a.example' }, 'Invalid "Enabled": must be true or false'],
	])('rejects %s before sending', async (_label, fields, message) => {
		await expectRejected(
			{ operation: 'configureConversationWebhook', assistantId: byId('asst_AAAAAAAAAAAAAAAA'), ...fields },
			message,
		);
	});
});

describe('Runtime → Configure / Clear Data Extraction', () => {
	const schema = [
		{ name: 'customerName', type: 'string', description: 'Full name of the caller', required: true },
		{ name: 'department', type: 'enum', description: 'Where to route', required: false, values: ['sales', 'support', 'billing'] },
		{ name: 'callbackRequested', type: 'boolean', description: '', required: false },
		{ name: 'priority', type: 'enum', description: 'low/medium/high', required: false },
		{ name: 'orderTotal', type: 'number', description: '', required: false },
		{ name: 'address', type: 'object', description: 'Street, city', required: false },
	];
	const extraction = (id: string) => fx.sandbox.state.extractionConfigs.get(id);

	test.each<[string, Setting]>([
		[
			'sends the hangup URL and the schema, with enum values when given',
			{
				parameters: {
					operation: 'configureDataExtraction',
					hangupUrl: 'https://hooks.example.com/extracted',
					schemaProperties: {
						property: [
							{ name: 'customerName', type: 'string', description: 'Full name of the caller', required: true },
							{ name: 'department', type: 'enum', description: 'Where to route', required: false, enumValues: 'sales, support ,billing,' },
							{ name: 'callbackRequested', type: 'boolean', description: '', required: false },
							{ name: 'priority', type: 'enum', description: 'low/medium/high', required: false, enumValues: '' },
							{ name: 'orderTotal', type: 'number' },
							{ name: 'address', type: 'object', description: 'Street, city', required: false },
						],
					},
				},
				path: 'hangup/schema',
				body: { hangupUrl: 'https://hooks.example.com/extracted', schema },
				output: (assistantId) => ({ assistantId, hangupUrl: 'https://hooks.example.com/extracted', schema }),
				stored: { read: extraction, equals: { hangupUrl: 'https://hooks.example.com/extracted', schema } },
			},
		],
		[
			'Clear Data Extraction sends hangupUrl null and an empty schema',
			{
				parameters: { operation: 'clearDataExtraction' },
				before: (id) =>
					fx.sandbox.state.extractionConfigs.set(id, {
						hangupUrl: 'https://hooks.example.com/old',
						schema: [{ name: 'x', type: 'string', description: '', required: false }],
					}),
				path: 'hangup/schema',
				body: { hangupUrl: null, schema: [] },
				output: (assistantId) => ({ assistantId, hangupUrl: null, schema: [] }),
				stored: { read: extraction, equals: { hangupUrl: null, schema: [] } },
			},
		],
	])('%s', async (_title, setting) => {
		await expectSetting(setting);
	});

	const base = {
		operation: 'configureDataExtraction',
		assistantId: byId('asst_AAAAAAAAAAAAAAAA'),
		hangupUrl: 'https://hooks.example.com/extracted',
	};
	const prop = (fields: Record<string, unknown>) => ({ name: 'a', type: 'string', description: '', required: false, ...fields });

	test.each([
		['an empty schema', {}, 'Invalid "Schema": add at least one property'],
		['an empty property name', { schemaProperties: { property: [prop({ name: '  ' })] } }, 'Invalid "Schema › Property 1 › Name": must not be empty'],
		[
			'a duplicate property name',
			{ schemaProperties: { property: [prop({ name: 'city' }), prop({ name: 'zip' }), prop({ name: 'city' })] } },
			'Invalid "Schema › Property 3 › Name": must be unique: "city" is used by an earlier property',
		],
		[
			'an unknown type from an expression',
			{ schemaProperties: { property: [prop({ type: '={{ "date" }}' })] } },
			'Invalid "Schema › Property 1 › Type": must be one of string, number, boolean, enum, object (got "date")',
		],
		[
			'duplicate enum values',
			{ schemaProperties: { property: [prop({ type: 'enum', enumValues: 'a, b, a' })] } },
			'Invalid "Schema › Property 1 › Enum Values": must be unique: "a" appears twice',
		],
		[
			'a hangup URL that is not http(s)',
			{ hangupUrl: 'mailto:ops@example.com', schemaProperties: { property: [prop({})] } },
			'Invalid "Hangup URL": must be an http:// or https:// URL',
		],
		[
			'an empty hangup URL from an expression',
			{ hangupUrl: '={{ "" }}', schemaProperties: { property: [prop({})] } },
			'Invalid "Hangup URL": must be an http:// or https:// URL (got "")',
		],
	])('rejects %s before sending', async (_label, fields, message) => {
		await expectRejected({ ...base, ...fields }, message);
	});
});

describe('Runtime → Configure Post-Call MCP', () => {
	const mcpConfig = {
		enabled: true,
		serverUrl: 'https://mcp.example.com/sse',
		authName: SAVED_AUTH_NAME,
		tools: ['summarize_call', 'create_ticket'],
		settings: { language: 'it' },
	};
	const mcp = (id: string) => fx.sandbox.state.postcallMcpConfigs.get(id);

	test.each<[string, Setting]>([
		[
			'sends enabled, server URL, authentication, tools and settings',
			{
				parameters: {
					operation: 'configurePostCallMcp',
					mcpEnabled: true,
					mcpServerUrl: 'https://mcp.example.com/sse',
					mcpAuthName: SAVED_AUTH_NAME,
					mcpOptions: { tools: 'summarize_call, create_ticket', settings: '{"language":"it"}' },
				},
				path: 'postcall/mcp-config',
				body: mcpConfig,
				output: (assistantId) => ({ assistantId, ...mcpConfig }),
				stored: { read: mcp, equals: mcpConfig },
			},
		],
		[
			'disabled with nothing else sends serverUrl and authName null and no tools or settings',
			{
				parameters: { operation: 'configurePostCallMcp', mcpEnabled: false },
				path: 'postcall/mcp-config',
				body: { enabled: false, serverUrl: null, authName: null },
				stored: { read: mcp, like: { enabled: false, serverUrl: null, tools: [] } },
			},
		],
	])('%s', async (_title, setting) => {
		await expectSetting(setting);
	});

	test.each([
		['enabled without a server URL', {}, 'Invalid "Server URL": must be an http:// or https:// URL (got "")'],
		['a ws:// server URL', { mcpServerUrl: 'ws://mcp.example.com' }, 'Invalid "Server URL": must be an http:// or https:// URL'],
		['settings that are not JSON', { mcpServerUrl: 'https://mcp.example.com', mcpOptions: { settings: 'x' } }, 'Invalid "Settings": must be valid JSON'],
	])('rejects %s before sending', async (_label, fields, message) => {
		await expectRejected({ operation: 'configurePostCallMcp', assistantId: byId('asst_AAAAAAAAAAAAAAAA'), ...fields }, message);
	});

	test('an unknown saved authentication gives the platform VALIDATION_ERROR naming authName', async () => {
		// The field the platform names (details.field) comes only from a platform that sends more than the spec shows.
		fx.sandbox.setAnswers('rich');
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await run({
			operation: 'configurePostCallMcp',
			assistantId: byId(assistantId),
			mcpServerUrl: 'https://mcp.example.com',
			mcpAuthName: 'no-such-auth',
		});
		expect(error?.message).toContain('VALIDATION_ERROR');
		expect(error?.description).toContain('Field: authName');
		expect(fx.sandbox.journal).toHaveLength(1);
	});
});
