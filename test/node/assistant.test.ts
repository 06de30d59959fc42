import { commonDeclarativeNodeOptionParameters } from 'n8n-core/dist/nodes-loader/constants';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { runNode } from '../harness/engine';
import { startRecordingProxy } from '../harness/proxy';
import { expectNoSecrets, startSandbox, useSandbox } from '../harness/sandbox';
import { allowSecretInOutput } from '../harness/secretsGuard';

const fx = useSandbox();

const byId = (value: string) => ({ __rl: true, mode: 'id', value });


describe('Assistant → Create', () => {
	test('POSTs name, description and mode and returns the id and key', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'create',
				name: 'Front desk',
				description: 'Answers the main line',
				mode: 'text',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry.method).toBe('POST');
		expect(entry.path).toBe('/api/v1/assistants');
		expect(entry.auth).toBe('ok');
		expect(entry.headers['content-type']).toContain('application/json');
		expect(entry.body).toEqual({ name: 'Front desk', description: 'Answers the main line', mode: 'text' });
		expect(entry.status).toBe(201);
		expect(items).toHaveLength(1);
		expect(items[0].json.assistantId).toMatch(/^asst_/);
		expect(items[0].json.name).toBe('Front desk');
		expect(items[0].pairedItem).toEqual({ item: 0 });
		// The confidential key stays out of the output unless asked for: only a hint of it.
		const created = fx.sandbox.state.assistants.get(String(items[0].json.assistantId))!;
		expect(items[0].json.assistantApiKey).toBeUndefined();
		expect(items[0].json.assistantApiKeyHint).toBe(`…${created.assistantApiKey.slice(-4)}`);
		expectNoSecrets(fx, items);
	});

	test('outputs the API key when Include API Key in Output is on', async () => {
		const { items, error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'create',
				name: 'Revealed',
				mode: 'text',
				options: { includeApiKey: true },
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		const created = fx.sandbox.state.assistants.get(String(items[0].json.assistantId))!;
		allowSecretInOutput(created.assistantApiKey);
		expect(items[0].json.assistantApiKey).toBe(created.assistantApiKey);
	});

	test('merges Additional Fields (JSON) into the body, its keys winning', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'create',
				name: 'Sales',
				mode: 'text',
				additionalFieldsJson: '{"mode":"voice","language":"it"}',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({ name: 'Sales', description: '', mode: 'voice', language: 'it' });
	});

	test.each([
		['empty name', { name: '   ' }, 'Invalid "Name": must not be empty'],
		['malformed extra JSON', { name: 'A', additionalFieldsJson: '{"mode":' }, 'Invalid "Additional Fields (JSON)": must be valid JSON'],
		['extra JSON not an object', { name: 'A', additionalFieldsJson: '[1,2]' }, 'Invalid "Additional Fields (JSON)": must be a JSON object'],
	])('rejects %s before sending', async (_label, fields, message) => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'create', mode: 'text', ...fields },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('Continue On Fail reports bad items per item and keeps pairing', async () => {
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'create', name: '={{ $json.name }}', mode: 'text' },
			items: [{ json: { name: 'One' } }, { json: { name: '' } }, { json: { name: 'Three' } }],
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[0].json.name).toBe('One');
		expect(String(items[1].json.error ?? '')).toContain('Name');
		expect(items[2].json.name).toBe('Three');
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(fx.sandbox.journal.map((e) => e.body)).toEqual([
			{ name: 'One', description: '', mode: 'text' },
			{ name: 'Three', description: '', mode: 'text' },
		]);
		expectNoSecrets(fx, items.map((i) => i.json.error));
	});
});

describe('Assistant → Get Many', () => {
	test('Return All walks every page with the same limit and the cursor as received', async () => {
		fx.sandbox.seed({ assistants: 10_000 });
		const total = fx.sandbox.state.assistants.size;
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(total);
		const journal = fx.sandbox.journal;
		expect(journal).toHaveLength(Math.ceil(total / 500));
		for (const entry of journal) {
			expect(entry.method).toBe('GET');
			expect(entry.path).toBe('/api/v1/assistants');
			expect(entry.query.limit).toBe('500');
		}
		expect(journal[0].query.cursor).toBeUndefined();
		for (let i = 1; i < journal.length; i++) expect(typeof journal[i].query.cursor).toBe('string');
		const ids = new Set(items.map((i) => i.json.assistantId));
		expect(ids.size).toBe(total);
		expectNoSecrets(fx, items);
	});

	test('Limit stops requesting pages once it has enough, with limit on every page', async () => {
		fx.sandbox.seed({ assistants: 1_000 });
		fx.sandbox.clearJournal();
		const { items } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 120, options: { pageSize: 50 } },
			credentials: fx.credentials,
		});
		expect(items).toHaveLength(120);
		expect(fx.sandbox.journal).toHaveLength(3);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['50', '50', '50']);
	});

	// 500 items fill the first page exactly; whether a second request is needed depends on meta.hasMore,
	// which the platform sets false on the last page.
	test.each([
		['exactly one full page: one request, hasMore false ends the walk', 500],
		['no assistants at all: one request, no items', 0],
	])('Return All over %s', async (_title, count) => {
		const empty = await startSandbox({ seed: { demo: false } });
		try {
			if (count > 0) empty.sandbox.seed({ assistants: count });
			empty.sandbox.clearJournal();
			const { items, error } = await runNode({
				parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
				credentials: empty.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(count);
			expect(empty.sandbox.journal).toHaveLength(1);
			expect(empty.sandbox.journal[0].query).toEqual({ limit: '500' });
		} finally {
			await empty.sandbox.stop();
		}
	});

	test('Limit over 10,000 assistants: only the pages needed, limit on every one', async () => {
		fx.sandbox.seed({ assistants: 10_000 });
		fx.sandbox.clearJournal();
		const { items } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 1_234 },
			credentials: fx.credentials,
		});
		expect(items).toHaveLength(1_234);
		expect(fx.sandbox.journal).toHaveLength(3);
		expect(fx.sandbox.journal.map((e) => e.query.limit)).toEqual(['500', '500', '500']);
		expect(new Set(items.map((i) => i.json.assistantId)).size).toBe(1_234);
	});

	test('a small Limit asks for just that many in one request', async () => {
		fx.sandbox.clearJournal();
		const { items } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 2 },
			credentials: fx.credentials,
		});
		expect(items).toHaveLength(2);
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].query.limit).toBe('2');
	});

	test('the name filter rides on every page', async () => {
		fx.sandbox.seed({ assistants: 1_000 });
		fx.sandbox.clearJournal();
		const { items } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'getAll',
				returnAll: true,
				filters: { name: 'LOAD test' },
				options: { pageSize: 100 },
			},
			credentials: fx.credentials,
		});
		expect(items.length).toBeGreaterThan(100);
		for (const item of items) expect(String(item.json.name).toLowerCase()).toContain('load test');
		expect(fx.sandbox.journal.length).toBe(Math.ceil(items.length / 100));
		for (const entry of fx.sandbox.journal) {
			expect(entry.query).toMatchObject({ limit: '100', name: 'LOAD test' });
		}
	});

	test('Page Size outside 1..500 is rejected before sending', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: true, options: { pageSize: 501 } },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain('Invalid "Page Size": must be a whole number from 1 to 500');
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

describe('Assistant → Update Prompt and Delete', () => {
	test('PATCHes the prompt of the chosen assistant', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Prompted' });
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'updatePrompt',
				assistantId: byId(assistant.assistantId),
				prompt: 'You are a helpful receptionist.',
			},
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'PATCH',
			path: `/api/v1/assistants/${assistant.assistantId}/prompt`,
			body: { prompt: 'You are a helpful receptionist.' },
			auth: 'ok',
		});
		expect(items[0].json.prompt).toBe('You are a helpful receptionist.');
	});

	test.each([
		['an empty prompt', { assistantId: byId('asst_x'), prompt: '' }, 'Parameter "Prompt" is required'],
		['a prompt expression resolving to blanks', { assistantId: byId('asst_x'), prompt: '={{ "  " }}' }, 'Invalid "Prompt": must not be empty'],
		['an empty assistant', { assistantId: byId(''), prompt: 'Hi' }, 'Parameter "Assistant" is required'],
		['an assistant expression resolving to empty', { assistantId: byId('={{ "" }}'), prompt: 'Hi' }, 'Invalid "Assistant": must not be empty'],
	])('rejects %s before sending', async (_label, fields, message) => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'updatePrompt', ...fields },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('deletes an assistant, releasing its numbers', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Doomed' });
		fx.sandbox.assignNumber('+390200000999', assistant.assistantId);
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'delete', assistantId: byId(assistant.assistantId) },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'DELETE',
			path: `/api/v1/assistants/${assistant.assistantId}`,
		});
		expect(items[0].json).toMatchObject({ assistantId: assistant.assistantId, deleted: true });
		expect(items[0].json.releasedNumbers).toContain('+390200000999');
	});

	test('an unknown assistant gives a clear 404 error', async () => {
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'delete', assistantId: byId('asst_doesNotExist00') },
			credentials: fx.credentials,
		});
		expect(error?.message).toContain('404');
		expect(error?.message).toContain('NOT_FOUND');
	});
});

describe('Settings > Request Options (the node carries the collection n8n gives declarative nodes)', () => {
	/** Names, types and defaults at every depth: what a saved workflow's requestOptions depend on. */
	const shape = (property: unknown): unknown => {
		const { name, type, default: value, options, values } = property as Record<string, unknown>;
		const children = (options ?? values) as unknown[] | undefined;
		return { name, type, default: value, children: Array.isArray(children) ? children.map(shape) : undefined };
	};

	test("the same names, types and defaults as n8n's own collection, plus Max Response Size", () => {
		const ours = new AssistantPlatform().description.properties.filter((p) => p.name === 'requestOptions');
		expect(ours).toHaveLength(1);
		const options = ours[0].options as Array<{ name: string }>;
		const added = options.filter((option) => option.name === 'maxResponseSize');
		expect(added).toHaveLength(1);
		const common = { ...ours[0], options: options.filter((option) => option.name !== 'maxResponseSize') };
		expect(shape(common as typeof ours[0])).toEqual(shape(commonDeclarativeNodeOptionParameters));
	});

	test('Batching paces the items: Batch Interval before every Items per Batch-th item', async () => {
		const started = Date.now();
		const { error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'create',
				name: '={{ $json.name }}',
				requestOptions: { batching: { batch: { batchSize: 2, batchInterval: 300 } } },
			},
			items: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ json: { name } })),
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((entry) => (entry.body as { name: string }).name)).toEqual(['a', 'b', 'c', 'd', 'e']);
		// Two Batch Intervals were waited, before items 2 and 4 (a lower bound: a sleep never returns early).
		expect(Date.now() - started).toBeGreaterThanOrEqual(600);
	});

	/** Assistant → Create for six items through a proxy that records overlapping requests. */
	async function createSixThroughProxy(requestOptions: object) {
		const proxy = await startRecordingProxy(fx.sandbox.url);
		// Long enough that a loaded machine still sends a whole batch before the first answer.
		fx.sandbox.injectFault({ method: 'POST', path: '/api/v1/assistants', kind: 'latency', delayMs: 300 });
		try {
			const { items, error } = await runNode({
				parameters: { resource: 'assistant', operation: 'create', name: '={{ $json.name }}', requestOptions },
				items: ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ json: { name } })),
				credentials: { ...fx.credentials, assistantPlatformPortalApi: { ...fx.credentials.assistantPlatformPortalApi, baseUrl: proxy.url } },
			});
			expect(error).toBeUndefined();
			// Every output item is its own input's, in input order, whatever order the answers came in.
			expect(items.map((item) => [item.json.name, item.pairedItem])).toEqual(
				['a', 'b', 'c', 'd', 'e', 'f'].map((name, item) => [name, { item }]),
			);
			return proxy;
		} finally {
			fx.sandbox.clearFaults();
			await proxy.close();
		}
	}

	test('Batching sends Items per Batch items at once, as it does for Place Call, and waits for them before the next batch', async () => {
		const proxy = await createSixThroughProxy({ batching: { batch: { batchSize: 3, batchInterval: 0 } } });
		expect(proxy.maxInFlight()).toBe(3);
		const batch = ['start', 'start', 'start', 'end', 'end', 'end'];
		expect(proxy.events).toEqual([...batch, ...batch]);
	});

	test('without Batching the items go one at a time', async () => {
		const proxy = await createSixThroughProxy({});
		expect(proxy.maxInFlight()).toBe(1);
	});

	test('a failing item in a batch: without Continue On Fail the node stops after that batch, naming the first failing item', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: {
				resource: 'assistant',
				operation: 'create',
				name: '={{ $json.name }}',
				requestOptions: { batching: { batch: { batchSize: 3, batchInterval: 0 } } },
			},
			items: ['a', ' ', 'c', 'd', 'e', 'f'].map((name) => ({ json: { name } })),
			credentials: fx.credentials,
		});
		expect(error?.message).toContain('Name');
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		// The first batch went out (its other items were sent at once); the second never started.
		expect(fx.sandbox.journal.map((entry) => (entry.body as { name: string }).name).sort()).toEqual(['a', 'c']);
	});
});
