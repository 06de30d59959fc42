/**
 * Custom API Request sends the query parameters it is given: a name such as "__proto__",
 * "constructor" or "prototype" (special to JavaScript objects) is sent as given, with its value,
 * never dropped without a word, and a duplicate is still refused.
 */
import { runNode } from '../harness/engine';
import { useHostile } from '../harness/hostile';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const request = (parameters: Array<{ name: string; value: string }>) => ({
	resource: 'customApiRequest',
	operation: 'request',
	method: 'GET',
	path: '/knowledge',
	queryParameters: { parameters },
});

test.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'])('a query parameter named "%s" is sent as given', async (name) => {
	const { error } = await runNode({ parameters: request([{ name, value: 'x1' }, { name: 'other', value: 'y2' }]), credentials: fx.credentials });
	expect(error).toBeUndefined();
	const sent = new URL(fx.hostile.requests[0].path, 'http://x').searchParams;
	expect([...sent.entries()]).toEqual([
		[name, 'x1'],
		['other', 'y2'],
	]);
});

test('with Paginate too, on every page', async () => {
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 1, totalCount: 1e12 }, times: 2 });
	fx.hostile.rule({ method: 'GET', behave: { kind: 'endlessList', perPage: 1, hasMore: false } });
	const { error } = await runNode({
		parameters: { ...request([{ name: '__proto__', value: 'x1' }]), paginate: true, returnAll: true },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	expect(fx.hostile.requests).toHaveLength(3);
	for (const recorded of fx.hostile.requests) expect(new URL(recorded.path, 'http://x').searchParams.get('__proto__')).toBe('x1');
});

test('"__proto__" given twice is refused like any duplicate', async () => {
	const { error } = await runNode({
		parameters: request([
			{ name: '__proto__', value: 'a' },
			{ name: '__proto__', value: 'b' },
		]),
		credentials: fx.credentials,
	});
	expect(error?.message).toBe('Invalid "Query Parameters": the parameter "__proto__" is set twice');
	expect(fx.hostile.requests).toEqual([]);
});
