/**
 * No answer of the platform can exhaust n8n's memory: every answer is read as it arrives and counted
 * after decompression (gzip, brotli, deflate), with or without a Content-Length, and the exchange is
 * aborted past Settings > Request Options > Max Response Size. The answers here are 40 to 64 MB once
 * decoded (a few KB on the wire when compressed); test/hostile/memory.test.ts runs gigabyte answers in
 * a process of its own with a 512 MB heap.
 */
import type { IDataObject } from 'n8n-workflow';

import { AP_TYPE, WAIT_TYPE } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import { FREE_DEMO_NUMBER as CALLER } from '../../sandbox';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const MB = 1024 * 1024;

async function run(parameters: IDataObject, options: Partial<RunOptions> = {}, nodeType = AP_TYPE) {
	return await runNode({ nodeType, parameters, credentials: fx.credentials, ...options });
}

const getMany = (extra: IDataObject = {}) => ({ resource: 'assistant', operation: 'getAll', returnAll: false, limit: 5, ...extra });
const placeCall = (extra: IDataObject = {}) => ({ resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '+14155550123', callerId: CALLER, ...extra });
const requestsTo = (method: string) => fx.hostile.requests.filter((r) => r.method === method);

describe('every answer is bounded by its decoded size', () => {
	test.each([
		['gzip', 'chunked'],
		['br', 'chunked'],
		['deflate', 'chunked'],
		['identity', 'chunked'],
		['gzip', 'length'],
		['identity', 'length'],
	] as const)('a 64 MB answer (%s, %s) fails the read with an error naming the limit, read once', async (encoding, framing) => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'oversize', bytes: 64 * MB, encoding, framing } });
		const { error, items } = await run(getMany());
		expect(items).toHaveLength(0);
		expect(error?.message).toBe('The platform answered more than 16 MB (Settings > Request Options > Max Response Size)');
		expect(error?.description).toContain('after decompression');
		// Reading it again would read the same: a size overflow is not retried.
		expect(requestsTo('GET')).toHaveLength(1);
	});

	test('Max Response Size can be raised (a Custom API Request that needs more) and lowered', async () => {
		const request = { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge' };
		fx.hostile.rule({ method: 'GET', behave: { kind: 'oversize', bytes: 40 * MB, encoding: 'gzip' } });
		const refused = await run(request);
		expect(refused.error?.message).toContain('more than 16 MB');
		const raised = await run({ ...request, requestOptions: { maxResponseSize: 48 } });
		expect(raised.error).toBeUndefined();
		expect(String(raised.items[0].json.padding).length).toBeGreaterThan(39 * MB);
		fx.hostile.clear();
		await prepare(fx);
		fx.hostile.rule({ method: 'GET', behave: { kind: 'oversize', bytes: 2 * MB } });
		const lowered = await run({ ...getMany(), requestOptions: { maxResponseSize: 1 } });
		expect(lowered.error?.message).toBe('The platform answered more than 1 MB (Settings > Request Options > Max Response Size)');
	});

	test('Place Call whose acceptance is a gzip bomb: outcome unknown (the call may be placed), never re-dialled', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'oversize', bytes: 64 * MB, encoding: 'gzip' } });
		const { error } = await run(placeCall());
		expect(error?.message).toMatch(/^Outcome unknown: The platform answered more than 16 MB \(Settings > Request Options > Max Response Size\)\. The call to \+14155550123 may have been placed: do not place it again\./);
		expect(requestsTo('POST')).toHaveLength(1);
		fx.hostile.requests.length = 0;
		const { items } = await run(placeCall(), { continueOnFail: true });
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ outcome: 'unknown', placed: 'unknown', dst: '+14155550123' });
		expect(requestsTo('POST')).toHaveLength(1);
	});

	test('Call and Wait whose acceptance is oversize does not wait', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'oversize', bytes: 64 * MB, encoding: 'br' } });
		const result = await run({ route: 'trunk', dst: '+14155550123', callerId: CALLER }, { webhookBaseUrl: 'http://127.0.0.1:1' }, WAIT_TYPE);
		expect(result.waitTill).toBeUndefined();
		expect(result.error?.message).toMatch(/^Outcome unknown: The platform answered more than 16 MB/);
		expect(requestsTo('POST')).toHaveLength(1);
	});

	test('Call Status → Get against a 64 MB chunked answer without Content-Length', async () => {
		fx.hostile.rule({ method: 'GET', behave: { kind: 'oversize', bytes: 64 * MB } });
		const { error } = await run({ resource: 'callStatus', operation: 'get', internalId: 'abc' });
		expect(error?.message).toContain('more than 16 MB');
	});
});
