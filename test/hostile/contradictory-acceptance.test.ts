/**
 * A 2xx answer to a call placement that names a call (internal_id) and also says it was not placed
 * (placed false, a failed or rejected status or outcome, an error object, success false) is never a
 * placed call: it is a failed placement with outcome unknown (the id says a call may exist; "rejected"
 * would invite a second call to the same person), in the documented failed-placement shape; Continue
 * On Fail gives an error item; Call and Wait does not wait. An acceptance that does not contradict
 * itself is still a placed call.
 */
import type { IDataObject } from 'n8n-workflow';

import { WAIT_TYPE } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import { FREE_DEMO_NUMBER as CALLER } from '../../sandbox';

import { prepare } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const placeCall = { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '+14155550123', callerId: CALLER };
const posts = () => fx.hostile.requests.filter((r) => r.method === 'POST');

const CONTRADICTIONS: Array<[string, Record<string, unknown>]> = [
	['placed false, outcome rejected', { internal_id: '{id}', placed: false, outcome: 'rejected' }],
	['placed "false"', { internal_id: '{id}', placed: 'false' }],
	['status failed', { internal_id: '{id}', status: 'failed' }],
	['status rejected', { internal_id: '{id}', status: 'REJECTED' }],
	['outcome not_placed', { internal_id: '{id}', status: 'queued', outcome: 'not_placed' }],
	['an error object', { internal_id: '{id}', status: 'queued', error: { code: 'CALLER_ID_NOT_ASSIGNED', message: 'refused' } }],
	['an error text', { internal_id: '{id}', error: 'no trunk available' }],
	['success false', { internal_id: '{id}', success: false }],
	['accepted false', { internal_id: '{id}', accepted: false }],
];

describe.each(CONTRADICTIONS)('an acceptance with %s', (_what, body) => {
	test('Place Call fails with outcome unknown, naming the contradiction, and sends one POST', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'contradictory', body } });
		const { error, items } = await runNode({ parameters: placeCall, credentials: fx.credentials });
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(/^Outcome unknown: The platform's answer names call "contra-\d+" but says it was not placed \(/);
		// The id it named is the one to look up.
		expect(error?.message).toMatch(/Check Call Status with internal_id "contra-\d+"/);
		expect(error?.description).toContain('Call Status');
		expect(posts()).toHaveLength(1);
	});

	test('with Continue On Fail: the failed-placement item, no placedAt', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'contradictory', body } });
		const { error, items } = await runNode({ parameters: placeCall, credentials: fx.credentials, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const json = items[0].json;
		expect(json).toMatchObject({ outcome: 'unknown', placed: 'unknown', route: 'trunk', dst: '+14155550123', callerId: CALLER });
		expect(String(json.error)).toMatch(/^Outcome unknown: /);
		expect(json.placedAt).toBeUndefined();
		expect(json.pending).toBeUndefined();
		expect(posts()).toHaveLength(1);
	});

	test('Call and Wait does not wait', async () => {
		fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'contradictory', body } });
		const result = await runNode({
			nodeType: WAIT_TYPE,
			parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER },
			credentials: fx.credentials,
			webhookBaseUrl: 'http://127.0.0.1:1',
		});
		expect(result.waitTill).toBeUndefined();
		expect(result.error?.message).toMatch(/^Outcome unknown: The platform's answer names call/);
		expect(posts()).toHaveLength(1);
	});
});

test.each<[string, IDataObject]>([
	['placed true', { internal_id: '{id}', placed: true, status: 'queued' }],
	['an empty error and success true', { internal_id: '{id}', status: 'queued', error: null, success: true }],
	['outcome accepted', { internal_id: '{id}', outcome: 'accepted' }],
])('an acceptance with %s is a placed call', async (_what, body) => {
	fx.hostile.rule({ method: 'POST', path: '/webhook/outbound_call', behave: { kind: 'contradictory', body } });
	const { error, items } = await runNode({ parameters: placeCall, credentials: fx.credentials });
	expect(error).toBeUndefined();
	expect(items[0].json).toMatchObject({ internal_id: expect.stringMatching(/^contra-/), pending: true });
	expect(items[0].json.placedAt).toEqual(expect.any(String));
});
