import { runNode } from '../harness/engine';
import { useSandbox } from '../harness/sandbox';

import { addCatalogTools, byId, expectNoSecrets, fillerTools, portalGet } from './runtime-helpers';

const fx = useSandbox();

const CATALOG_PATH = '/api/v1/catalog/tools';

function newAssistant(): string {
	return fx.sandbox.createAssistant({ name: 'Tools Test' }).assistantId;
}

type ToolRow = { toolName: string; toolKind?: string; subscriptionName?: string };

async function updateTools(assistantId: string, add: ToolRow[], remove: ToolRow[] = [], extra: Record<string, unknown> = {}) {
	return await runNode({
		parameters: {
			resource: 'runtime',
			operation: 'updateTools',
			assistantId: byId(assistantId),
			...(add.length ? { toolsToAdd: { tools: add } } : {}),
			...(remove.length ? { toolsToRemove: { tools: remove } } : {}),
			...extra,
		},
		credentials: fx.credentials,
	});
}

const patches = () => fx.sandbox.journal.filter((e) => e.method === 'PATCH');
const catalogReads = () => fx.sandbox.journal.filter((e) => e.method === 'GET' && e.path === CATALOG_PATH);

describe('Runtime → Add or Remove Tools: subscription names from the catalog', () => {
	test('From Catalog fills in the instance name of a plugin tool (one catalog read, then the PATCH)', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { items, error } = await updateTools(assistantId, [{ toolName: 'google_calendar_create_event' }]);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => [e.method, e.path])).toEqual([
			['GET', CATALOG_PATH],
			['PATCH', `/api/v1/assistants/${assistantId}/runtime/tools`],
		]);
		const [read, patch] = fx.sandbox.journal;
		expect(read.query).toEqual({ limit: '500' });
		expect(read.auth).toBe('ok');
		expect(patch.auth).toBe('ok');
		expect(patch.headers['content-type']).toContain('application/json');
		expect(patch.body).toEqual({
			tools: [{ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main' }],
			deleteTools: [],
		});
		expect(items).toHaveLength(1);
		expect(items[0].json).toEqual({
			assistantId,
			tools: [expect.objectContaining({ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main', kind: 'plugin_tool' })],
		});
		expect(fx.sandbox.state.toolBindings.get(assistantId)).toEqual([
			expect.objectContaining({ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main', kind: 'plugin_tool' }),
		]);
		expectNoSecrets(fx, items);
	});

	test('an explicit custom_tool is sent with null and needs no catalog read', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [{ toolName: 'lookup_order', toolKind: 'custom_tool', subscriptionName: '' }]);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0].body).toEqual({ tools: [{ toolName: 'lookup_order', subscriptionName: null }], deleteTools: [] });
		expect(fx.sandbox.state.toolBindings.get(assistantId)).toEqual([
			expect.objectContaining({ toolName: 'lookup_order', subscriptionName: null }),
		]);
	});

	test('adds and removes in one request, each kind resolved, the catalog read once', async () => {
		const assistantId = newAssistant();
		fx.sandbox.state.toolBindings.set(assistantId, [
			{ seq: 1, toolName: 'create_ticket', subscriptionName: null, kind: 'custom_tool' },
			{ seq: 2, toolName: 'crm_search', subscriptionName: 'crm-mcp', kind: 'custom_mcp_tool' },
		]);
		fx.sandbox.clearJournal();
		const { items, error } = await updateTools(
			assistantId,
			[
				{ toolName: 'check_availability', toolKind: 'fromCatalog' },
				{ toolName: 'kb_search', toolKind: 'custom_mcp_tool' },
				{ toolName: 'hubspot_create_contact', toolKind: 'plugin_tool', subscriptionName: 'hubspot-crm' },
			],
			[{ toolName: 'crm_search' }, { toolName: 'create_ticket', toolKind: 'custom_tool' }],
		);
		expect(error).toBeUndefined();
		expect(catalogReads()).toHaveLength(1);
		expect(patches()).toHaveLength(1);
		expect(patches()[0].body).toEqual({
			tools: [
				{ toolName: 'check_availability', subscriptionName: null },
				{ toolName: 'kb_search', subscriptionName: 'kb-mcp' },
				{ toolName: 'hubspot_create_contact', subscriptionName: 'hubspot-crm' },
			],
			deleteTools: [
				{ toolName: 'crm_search', subscriptionName: 'crm-mcp' },
				{ toolName: 'create_ticket', subscriptionName: null },
			],
		});
		const bound = (fx.sandbox.state.toolBindings.get(assistantId) ?? []).map((b) => [b.toolName, b.subscriptionName]);
		expect(bound).toEqual([
			['check_availability', null],
			['kb_search', 'kb-mcp'],
			['hubspot_create_contact', 'hubspot-crm'],
		]);
		expect((items[0].json.tools as unknown[]).length).toBe(3);
	});

	test('only removals of custom tools: no catalog read at all', async () => {
		const assistantId = newAssistant();
		fx.sandbox.state.toolBindings.set(assistantId, [{ seq: 1, toolName: 'create_ticket', subscriptionName: null, kind: 'custom_tool' }]);
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [], [{ toolName: 'create_ticket', toolKind: 'custom_tool' }]);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => e.method)).toEqual(['PATCH']);
		expect(fx.sandbox.journal[0].body).toEqual({ tools: [], deleteTools: [{ toolName: 'create_ticket', subscriptionName: null }] });
		expect(fx.sandbox.state.toolBindings.get(assistantId)).toEqual([]);
	});

	test('reads every catalog page to find a tool on a later page, cursor as received', async () => {
		addCatalogTools(fx.sandbox, fillerTools(1_100));
		addCatalogTools(fx.sandbox, [{ toolName: 'late_plugin_tool', kind: 'plugin_tool', instanceName: 'late-instance' }]);
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [{ toolName: 'late_plugin_tool' }]);
		expect(error).toBeUndefined();
		const reads = catalogReads();
		expect(reads).toHaveLength(3);
		expect(reads.map((e) => e.query.limit)).toEqual(['500', '500', '500']);
		expect(reads[0].query.cursor).toBeUndefined();
		expect(typeof reads[1].query.cursor).toBe('string');
		expect(typeof reads[2].query.cursor).toBe('string');
		// The cursors sent are exactly the ones the platform returned.
		const page1 = await portalGet(fx, '/catalog/tools?limit=500');
		const page2 = await portalGet(fx, `/catalog/tools?limit=500&cursor=${encodeURIComponent(String(reads[1].query.cursor))}`);
		expect(reads[1].query.cursor).toBe((page1.meta as { nextCursor: string }).nextCursor);
		expect(reads[2].query.cursor).toBe((page2.meta as { nextCursor: string }).nextCursor);
		expect(patches()[0].body).toEqual({
			tools: [{ toolName: 'late_plugin_tool', subscriptionName: 'late-instance' }],
			deleteTools: [],
		});
	});

	test('the catalog read is retried on a transient 503; the PATCH is sent once', async () => {
		const assistantId = newAssistant();
		fx.sandbox.injectFault({ method: 'GET', path: CATALOG_PATH, kind: 'status', status: 503, times: 1 });
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [{ toolName: 'crm_search' }]);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => [e.method, e.status])).toEqual([
			['GET', 503],
			['GET', 200],
			['PATCH', 200],
		]);
		expect(patches()[0].body).toEqual({ tools: [{ toolName: 'crm_search', subscriptionName: 'crm-mcp' }], deleteTools: [] });
	});

	test('removing a tool that left the catalog uses the assistant binding', async () => {
		const assistantId = newAssistant();
		fx.sandbox.state.toolBindings.set(assistantId, [
			{ seq: 1, toolName: 'kb_search', subscriptionName: 'kb-mcp', kind: 'custom_mcp_tool' },
		]);
		fx.sandbox.state.toolCatalog.delete('kb_search');
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [], [{ toolName: 'kb_search' }]);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => [e.method, e.path])).toEqual([
			['GET', CATALOG_PATH],
			['GET', `/api/v1/catalog/assistants/${assistantId}/tools`],
			['PATCH', `/api/v1/assistants/${assistantId}/runtime/tools`],
		]);
		expect(patches()[0].body).toEqual({ tools: [], deleteTools: [{ toolName: 'kb_search', subscriptionName: 'kb-mcp' }] });
		expect(fx.sandbox.state.toolBindings.get(assistantId)).toEqual([]);
	});

	test('Additional Fields (JSON) are merged into the tools body', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [{ toolName: 'lookup_order', toolKind: 'custom_tool' }], [], {
			additionalFieldsJson: '{"deleteTools":[{"toolName":"create_ticket","subscriptionName":null}]}',
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({
			tools: [{ toolName: 'lookup_order', subscriptionName: null }],
			deleteTools: [{ toolName: 'create_ticket', subscriptionName: null }],
		});
	});
});

describe('Runtime → Add or Remove Tools: rejected before the PATCH', () => {
	test.each([
		['no tools at all', [], [], 'Invalid "Tools to Add": add at least one tool to add or to remove'],
		[
			'a custom_tool given a subscription name',
			[{ toolName: 'lookup_order', toolKind: 'custom_tool', subscriptionName: 'x' }],
			[],
			'Invalid "Tools to Add › Tool 1 › Subscription Name": must be empty for a custom_tool: the platform requires null (got "x")',
		],
		[
			'an empty tool name from an expression',
			[{ toolName: 'lookup_order', toolKind: 'custom_tool' }],
			[{ toolName: '={{ "" }}' }],
			'Invalid "Tools to Remove › Tool 1 › Tool": must not be empty',
		],
		[
			'an unknown kind from an expression',
			[{ toolName: 'kb_search', toolKind: '={{ "mcp" }}' }],
			[],
			'Invalid "Tools to Add › Tool 1 › Kind": must be one of fromCatalog, custom_tool, plugin_tool, custom_mcp_tool (got "mcp")',
		],
	])('%s: nothing is sent', async (_label, add, remove, message) => {
		fx.sandbox.clearJournal();
		const { error, items } = await updateTools('asst_AAAAAAAAAAAAAAAA', add as ToolRow[], remove as ToolRow[]);
		expect(items).toHaveLength(0);
		expect(error?.message).toContain(message);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test.each([
		['a tool name not in the catalog (From Catalog)', [{ toolName: 'no_such_tool' }], 'Invalid "Tools to Add › Tool 1 › Tool": "no_such_tool" is not in the tool catalog'],
		[
			'a plugin tool with a subscription name that is not its instance name',
			[{ toolName: 'google_calendar_create_event', toolKind: 'plugin_tool', subscriptionName: 'gcal-other' }],
			'Invalid "Tools to Add › Tool 1 › Subscription Name": must be the catalog\'s instance name of "google_calendar_create_event" ("gcal-main"), got "gcal-other"',
		],
		[
			'an MCP tool (From Catalog) with a wrong subscription name',
			[{ toolName: 'crm_search', subscriptionName: 'kb-mcp' }],
			'Invalid "Tools to Add › Tool 1 › Subscription Name": must be the catalog\'s instance name of "crm_search" ("crm-mcp"), got "kb-mcp"',
		],
		[
			'a catalog custom_tool (From Catalog) given a subscription name',
			[{ toolName: 'create_ticket', subscriptionName: 'tickets' }],
			'Invalid "Tools to Add › Tool 1 › Subscription Name": must be empty: "create_ticket" is a custom_tool in the catalog',
		],
		[
			'a kind that contradicts the catalog',
			[{ toolName: 'lookup_order', toolKind: 'plugin_tool' }],
			'Invalid "Tools to Add › Tool 1 › Kind": "lookup_order" is a custom_tool in the tool catalog, not a plugin_tool',
		],
	])('%s: only the catalog is read, no PATCH', async (_label, add, message) => {
		fx.sandbox.clearJournal();
		const { error } = await updateTools('asst_AAAAAAAAAAAAAAAA', add as ToolRow[]);
		expect(error?.message).toContain(message);
		expect(error?.description).toContain('rejected before anything was sent');
		expect(fx.sandbox.journal.map((e) => [e.method, e.path])).toEqual([['GET', CATALOG_PATH]]);
	});

	test('a plugin tool without an instance name in the catalog cannot be sent', async () => {
		addCatalogTools(fx.sandbox, [{ toolName: 'orphan_plugin', kind: 'plugin_tool', instanceName: null }]);
		fx.sandbox.clearJournal();
		const { error } = await updateTools('asst_AAAAAAAAAAAAAAAA', [{ toolName: 'orphan_plugin' }]);
		expect(error?.message).toContain(
			'Invalid "Tools to Add › Tool 1 › Tool": "orphan_plugin" is a plugin_tool tool without an instanceName in the tool catalog',
		);
		expect(patches()).toHaveLength(0);
		fx.sandbox.clearJournal();
		const given = await updateTools('asst_AAAAAAAAAAAAAAAA', [{ toolName: 'orphan_plugin', toolKind: 'plugin_tool', subscriptionName: 'guess' }]);
		expect(given.error?.message).toContain('"orphan_plugin" has no instanceName in the tool catalog');
		expect(patches()).toHaveLength(0);
	});

	test('removing a tool neither in the catalog nor bound is rejected after both reads', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { error } = await updateTools(assistantId, [], [{ toolName: 'ghost_tool' }]);
		expect(error?.message).toContain('Invalid "Tools to Remove › Tool 1 › Tool": "ghost_tool" is neither in the tool catalog nor bound to the assistant');
		expect(fx.sandbox.journal.map((e) => e.method)).toEqual(['GET', 'GET']);
	});

	test('Continue On Fail: the bad item is reported, the good one is sent, pairing kept', async () => {
		const assistantId = newAssistant();
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			parameters: {
				resource: 'runtime',
				operation: 'updateTools',
				assistantId: byId(assistantId),
				toolsToAdd: { tools: [{ toolName: '={{ $json.tool }}', subscriptionName: '={{ $json.sub }}' }] },
			},
			items: [{ json: { tool: 'kb_search', sub: 'wrong' } }, { json: { tool: 'kb_search', sub: '' } }],
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(String(items[0].json.error)).toContain('Invalid "Tools to Add › Tool 1 › Subscription Name"');
		expect(items[1].json).toMatchObject({ assistantId });
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(patches().map((e) => e.body)).toEqual([
			{ tools: [{ toolName: 'kb_search', subscriptionName: 'kb-mcp' }], deleteTools: [] },
		]);
	});

});
