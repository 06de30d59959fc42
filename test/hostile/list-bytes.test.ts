/**
 * A list walk (Return All of every list operation, Custom API Request with Paginate, the lists read by
 * code) is bounded by the bytes it has read (Options > Max List Size) and by the items a page may hold,
 * not only by pages: an endless list stops with an error that says what to do long before n8n's memory
 * is at risk (test/hostile/memory.test.ts: the same with a 512 MB heap).
 */
import type { IDataObject } from 'n8n-workflow';

import { AP_TYPE, byId } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import type { Behaviour } from '../harness/hostile';
import { useHostile } from '../harness/hostile';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

async function run(parameters: IDataObject, options: Partial<RunOptions> = {}) {
	return await runNode({ nodeType: AP_TYPE, parameters, credentials: fx.credentials, ...options });
}

const requestsTo = (method: string) => fx.hostile.requests.filter((r) => r.method === method);

describe('a list walk is bounded by the bytes it has read', () => {
	const endless: Behaviour = { kind: 'endlessList', itemBytes: 1000, totalCount: 1e12 };
	const gets = () => requestsTo('GET').length;

	test.each([
		['Assistant → Get Many', { resource: 'assistant', operation: 'getAll', returnAll: true }],
		['Custom API Request with Paginate', { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/filler-lists', paginate: true, returnAll: true }],
	])('%s: Return All over an endless list of 1 KB items stops at Options > Max List Size, with what to do', async (_name, parameters) => {
		fx.hostile.rule({ method: 'GET', behave: endless });
		const { error, items } = await run({ ...parameters, options: { pageSize: 100, maxListSize: 1 } });
		expect(items).toHaveLength(0);
		expect(error?.message).toBe('Pagination stopped: the list is larger than 1 MB (Options > Max List Size)');
		expect(error?.description).toMatch(/Use Limit or a filter to read less, or raise Options > Max List Size \(MB\)/);
		// About 10 pages of 100 KB, far from the 1,000 pages of Max Pages.
		expect(gets()).toBeGreaterThan(5);
		expect(gets()).toBeLessThan(20);
	});

	test('the default bound stops a walk long before memory is at risk (Get Many, pages of 500)', async () => {
		fx.hostile.rule({ method: 'GET', behave: endless });
		const { error } = await run({ resource: 'assistant', operation: 'getAll', returnAll: true });
		expect(error?.message).toBe('Pagination stopped: the list is larger than 64 MB (Options > Max List Size)');
		expect(gets()).toBeLessThan(200);
	});

	test('the lists read by code (the tool catalog of Runtime → Update Tools) have the same bound', async () => {
		const assistantId = fx.sandbox.createAssistant({ name: 'Tools' }).assistantId;
		fx.hostile.rule({ method: 'GET', path: '/api/v1/catalog/tools', behave: endless });
		const { error } = await run({
			resource: 'runtime',
			operation: 'updateTools',
			assistantId: byId(assistantId),
			toolsToAdd: { tools: [{ toolName: 'crm_search', toolKind: 'fromCatalog', subscriptionName: 'crm-mcp' }] },
		});
		// Update Tools has no list options: the error says how else to get on.
		expect(error?.message).toBe('Pagination stopped: the list is larger than 64 MB');
		expect(error?.description).toContain('Custom API Request');
		expect(requestsTo('PATCH')).toHaveLength(0);
	});

	test('a page with more items than the page size asked for stops the walk (a flood of tiny items)', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 600, totalCount: 1e12 } });
		const { error } = await run({ resource: 'assistant', operation: 'getAll', returnAll: true, options: { pageSize: 500 } });
		expect(error?.message).toBe('Pagination stopped: the platform returned more items than the page size asked for');
		expect(error?.description).toContain('600 items');
	});
});
