/**
 * Pagination metadata of the wrong type is an error that names it, never a silent end of the list:
 * meta.hasMore must be the contract's boolean. "true" or 1 (which a walk read as "no more pages",
 * returning 2 of 6 items without a word), "false", null, a missing hasMore: every list walk (list
 * operations, Custom API Request with Paginate, the lists read by code) and the editor's list search.
 */
import type { IDataObject } from 'n8n-workflow';

import { AP_TYPE, apNode, byId } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import { loadOptionsContext } from '../node/runtime-helpers';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const WRONG: Array<[string, unknown]> = [
	['the text "true"', 'true'],
	['the text "false"', 'false'],
	['the number 1', 1],
	['the number 0', 0],
	['null', null],
	['an object', { more: true }],
	['missing', undefined],
];

const describeKind = /meta\.hasMore (is missing|(is|was) .+, not true or false)/;

describe.each(WRONG)('meta.hasMore %s', (_what, hasMore) => {
	const rule = () => {
		const behave = hasMore === undefined ? { kind: 'endlessList' as const, perPage: 2, hasMore: undefined } : { kind: 'endlessList' as const, perPage: 2, hasMore };
		fx.hostile.rule({ method: 'GET', behave });
	};

	test.each<[string, IDataObject]>([
		['Assistant → Get Many (Return All)', { resource: 'assistant', operation: 'getAll', returnAll: true }],
		['Assistant → Get Many (Limit 5, more than a page of 2)', { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 5, options: { pageSize: 2 } }],
		['Custom API Request with Paginate', { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge', paginate: true, returnAll: true }],
		[
			'Runtime → Update Tools (reads the tool catalog)',
			{ resource: 'runtime', operation: 'updateTools', toolsToAdd: { tools: [{ toolName: 'crm_search', toolKind: 'fromCatalog' }] } },
		],
	])('%s: an error naming meta.hasMore, no items', async (_name, parameters) => {
		const assistantId = fx.sandbox.createAssistant({ name: 'Listed' }).assistantId;
		rule();
		const { error, items } = await runNode({ nodeType: AP_TYPE, parameters: { assistantId: byId(assistantId), ...parameters }, credentials: fx.credentials });
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(/^Pagination stopped: /);
		expect(`${error?.message} ${error?.description}`).toMatch(describeKind);
		expect(fx.hostile.requests.filter((r) => r.method !== 'GET')).toEqual([]);
	});

	test.each(['searchAssistants', 'searchRagCollections'])('list search %s: an error naming meta.hasMore', async (name) => {
		rule();
		const search = (apNode.methods as unknown as { listSearch: Record<string, (this: unknown) => Promise<unknown>> }).listSearch[name];
		const context = loadOptionsContext(fx, { resource: 'assistant', operation: 'delete', authentication: 'portalApi' });
		await expect(search.call(context)).rejects.toThrow(describeKind);
	});
});

test('the contract: hasMore false ends the walk, true follows the cursor', async () => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 2, totalCount: 1e12 }, times: 2 });
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 2, hasMore: false } });
	const { error, items } = await runNode({ nodeType: AP_TYPE, parameters: { resource: 'assistant', operation: 'getAll', returnAll: true }, credentials: fx.credentials });
	expect(error).toBeUndefined();
	expect(items).toHaveLength(6);
});
