import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { runAgent } from '../harness/agent';
import type { ToolCall } from '../harness/agent';
import { registerNodeType, runNode } from '../harness/engine';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * Guardrails of Place Call (and Call and Wait), for AI agents above all. Toll fraud through premium-rate numbers is
 * the classic telephony attack, and an agent fed a hostile prompt or document is a new way in: Allowed
 * Destinations refuses every other destination before anything is sent. A model can also loop or call again: as a
 * tool, Place Call places at most Max Calls per Agent Run calls in one run of the agent, counted across turns and
 * across tool calls made at once. Call Status as a tool says what happened to a call in words a model can act on.
 */

const CALL_AND_WAIT_TYPE = 'test.assistantPlatformCallAndWait';
registerNodeType(CALL_AND_WAIT_TYPE, new AssistantPlatformCallAndWait());

const CALLER = '+390212345678';
const PLACE_CALL = 'Place Call';
const CALL_STATUS = 'Call Status';
const fx = useSandbox();

useCallerAssistant(fx, CALLER);

const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');
const dialled = () => posts().map((e) => (e.body as IDataObject).dst);
const call = (dst: string): ToolCall => ({ tool: PLACE_CALL, input: { Destination_Number: dst } });
const placeCallTool = (extra: IDataObject = {}) => ({
	name: PLACE_CALL,
	parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...extra },
});

async function place(parameters: IDataObject, options: { items?: number; continueOnFail?: boolean } = {}) {
	return await runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...parameters },
		credentials: fx.credentials,
		items: Array.from({ length: options.items ?? 1 }, () => ({ json: {} })),
		continueOnFail: options.continueOnFail,
	});
}

describe('Allowed Destinations: any other destination is refused before anything is sent', () => {
	test('a number outside the list: refused, naming the field and the list; no POST', async () => {
		const { error } = await place({ dst: '+14155550123', allowedDestinations: '+39, +4420' });
		expect(error?.message).toBe(
			'Invalid "Destination Number": +14155550123 is not in Allowed Destinations (+39, +4420). No call was placed.',
		);
		expect(error?.description).toMatch(/Allowed Destinations/);
		expect(posts()).toHaveLength(0);
	});

	test('a number in the list (country code or longer prefix) is placed', async () => {
		const { error } = await place({ dst: '+442079460000', allowedDestinations: '+39\n+4420' });
		expect(error).toBeUndefined();
		expect(dialled()).toEqual(['+442079460000']);
	});

	test('empty: every destination, as before', async () => {
		const { error } = await place({ dst: '+14155550123', allowedDestinations: '  ' });
		expect(error).toBeUndefined();
		expect(dialled()).toEqual(['+14155550123']);
	});

	test('premium-rate ranges stay out with a narrower prefix: +393 (Italian mobiles) refuses +39 899', async () => {
		const { error } = await place({ dst: '+39899123456', allowedDestinations: '+393' });
		expect(error?.message).toMatch(/is not in Allowed Destinations \(\+393\)/);
		expect(posts()).toHaveLength(0);
	});

	test.each([
		['letters', 'italy', /"italy" is not a number prefix/],
		['a prefix without +', '39', /"39" is not a number prefix/],
		['a prefix starting with 0', '+0039', /"\+0039" is not a number prefix/],
	])('a list entry that is not a prefix (%s): refused before anything is sent', async (_title, list, rule) => {
		const { error } = await place({ dst: '+390612345678', allowedDestinations: list });
		expect(error?.message).toMatch(/^Invalid "Allowed Destinations": /);
		expect(error?.message).toMatch(rule);
		expect(error?.message).toMatch(/No call was placed\.$/);
		expect(posts()).toHaveLength(0);
	});

	test('a campaign with Continue On Fail: the destinations outside the list are error items, the others are placed', async () => {
		const { items } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '={{ $json.dst }}', allowedDestinations: '+39' },
			credentials: fx.credentials,
			items: [{ json: { dst: '+390612345678' } }, { json: { dst: '+449091234567' } }, { json: { dst: '+390698765432' } }],
			continueOnFail: true,
		});
		expect(items.map((item) => item.json.outcome ?? 'placed')).toEqual(['placed', 'invalid', 'placed']);
		expect(items[1].json).toMatchObject({ placed: false });
		expect(dialled()).toEqual(['+390612345678', '+390698765432']);
	});

	test('as a tool: the model is told the destination is not allowed and no call was placed', async () => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [placeCallTool({ allowedDestinations: '+39' })],
			turns: [[call('+449091234567')]],
		});
		expect(results[0].error).toBe('Invalid "Destination Number": +449091234567 is not in Allowed Destinations (+39). No call was placed.');
		expect(posts()).toHaveLength(0);
	});

	test('left to the model ($fromAI) it limits nothing: refused before anything is sent', async () => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [placeCallTool({ allowedDestinations: "={{ $fromAI('Allowed_Destinations', 'prefixes', 'string') }}" })],
			turns: [[{ tool: PLACE_CALL, input: { Destination_Number: '+449091234567', Allowed_Destinations: '+44' } }]],
		});
		expect(results[0].error).toMatch(/^Invalid "Allowed Destinations": must be set in the node, not by the AI model/);
		expect(results[0].error).toMatch(/No call was placed\.$/);
		expect(posts()).toHaveLength(0);
	});

	test('Call and Wait: refused before anything is sent', async () => {
		const { error } = await runNode({
			nodeType: CALL_AND_WAIT_TYPE,
			parameters: { dst: '+14155550123', callerId: CALLER, allowedDestinations: '+39' },
			credentials: fx.credentials,
		});
		expect(error?.message).toMatch(/^Invalid "Destination Number": \+14155550123 is not in Allowed Destinations \(\+39\)/);
		expect(posts()).toHaveLength(0);
	});
});

describe('Max Calls per Agent Run: as a tool, at most that many calls in one run of the agent', () => {
	test('the default, 1: two calls at once place one; the other is told the cap is reached and no call was placed', async () => {
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('+14155550101'), call('+14155550102')]] });
		expect(posts()).toHaveLength(1);
		expect(results.map((r) => Boolean(r.items))).toEqual([true, false]);
		expect(results[1].error).toBe(
			'Not placed: this agent run already placed 1 call, the most Max Calls per Agent Run allows (1). No call was placed. Do not try again in this run: tell the user the limit is reached.',
		);
	});

	test('the cap counts across turns: a call in the next turn is refused too', async () => {
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('+14155550101')], [call('+14155550102')]] });
		expect(dialled()).toEqual(['+14155550101']);
		expect(results[1].error).toMatch(/Max Calls per Agent Run/);
	});

	test('raised to 2: two calls at once are placed, a third in the next turn is refused', async () => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [placeCallTool({ maxCallsPerRun: 2 })],
			turns: [[call('+14155550101'), call('+14155550102')], [call('+14155550103')]],
		});
		expect(dialled()).toEqual(['+14155550101', '+14155550102']);
		expect(results[2].error).toMatch(/already placed 2 calls, the most Max Calls per Agent Run allows \(2\)/);
	});

	test('a call the platform rejected (4xx) placed nothing and does not count', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 400, times: 1 });
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('+14155550101')], [call('+14155550102')]] });
		expect(results[0].error).toMatch(/No call was placed/);
		expect(results[1].items?.[0].internal_id).toBeDefined();
		expect(posts()).toHaveLength(2);
	});

	test('a call whose outcome is unknown may have been placed and counts', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('+14155550101')], [call('+14155550102')]] });
		expect(results[0].error).toMatch(/may have been placed/);
		expect(results[1].error).toMatch(/Max Calls per Agent Run/);
		expect(posts()).toHaveLength(1);
	});

	test('a refusal before sending (a bad number) does not count', async () => {
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('12345')], [call('+14155550102')]] });
		expect(results[0].error).toMatch(/Destination Number/);
		expect(dialled()).toEqual(['+14155550102']);
	});

	test('each run of the agent has its own count', async () => {
		for (const dst of ['+14155550101', '+14155550102']) {
			const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call(dst)]] });
			expect(results[0].items?.[0].internal_id).toBeDefined();
		}
		expect(posts()).toHaveLength(2);
	});

	test('a value that is not a whole number of at least 1 is refused before anything is sent', async () => {
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool({ maxCallsPerRun: 0 })], turns: [[call('+14155550101')]] });
		expect(results[0].error).toMatch(/^Invalid "Max Calls per Agent Run": must be a whole number from 1 to /);
		expect(posts()).toHaveLength(0);
	});

	test('left to the model ($fromAI) it is refused before anything is sent', async () => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [placeCallTool({ maxCallsPerRun: "={{ $fromAI('Max_Calls', 'how many', 'number') }}" })],
			turns: [[{ tool: PLACE_CALL, input: { Destination_Number: '+14155550101', Max_Calls: 100 } }]],
		});
		expect(results[0].error).toMatch(/^Invalid "Max Calls per Agent Run": must be set in the node, not by the AI model/);
		expect(posts()).toHaveLength(0);
	});

	test('outside agents there is no such cap: a campaign of 3 items places 3 calls', async () => {
		const { items, error } = await place({ dst: '={{ "+1415555010" + $itemIndex }}' }, { items: 3 });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(posts()).toHaveLength(3);
	});
});

describe('Place Call and Call Status as tools: what the model reads, in words it can act on', () => {
	const statusOf = async (internalId: string) => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: CALL_STATUS, parameters: { resource: 'callStatus', operation: 'get' } }],
			turns: [[{ tool: CALL_STATUS, input: { Internal_ID: internalId } }]],
		});
		expect(results[0].error).toBeUndefined();
		return results[0].items![0];
	};

	test('Place Call: the answer says the call is being placed, to keep internal_id, and not to place it again', async () => {
		const { results } = await runAgent({ credentials: fx.credentials, tools: [placeCallTool()], turns: [[call('+14155550101')]] });
		const [item] = results[0].items!;
		expect(item.message).toBe(
			`Call accepted: the platform is calling +14155550101 now. Keep internal_id "${String(item.internal_id)}" to learn what happened (Call Status); do not place this call again.`,
		);
	});

	test.each([
		['ANSWER', /^Answered: the call was answered and lasted 42 s \(billed\)\.$/],
		['BUSY', /^Busy: the line was busy; nobody answered\.$/],
		['NOANSWER', /^No answer: the phone rang but nobody answered\.$/],
		['FAILED', /^Failed: the call could not be connected\.$/],
		['CANCEL', /^Cancelled: the call was cancelled before it was answered\.$/],
		['CONGESTION', /^Failed: the network was congested and the call could not be connected\.$/],
	])('Call Status after a call that ended %s', async (dialstatus, expected) => {
		fx.sandbox.setDialOutcome({ dialstatus: dialstatus as never, durationSec: dialstatus === 'ANSWER' ? 42 : 0 });
		const placed = await place({ dst: '+14155550123' });
		const id = String(placed.items[0].json.internal_id);
		await fx.sandbox.clock.advance(600_000);
		const item = await statusOf(id);
		expect(item.internal_id).toBe(id);
		expect(item.dialStatus).toBe(dialstatus);
		expect(String(item.message)).toMatch(expected);
	});

	test('Call Status while the call is still ringing: still in progress, not an error, and not to place it again', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 60_000, durationSec: 10 });
		const placed = await place({ dst: '+14155550123' });
		const id = String(placed.items[0].json.internal_id);
		const item = await statusOf(id);
		expect(item).toMatchObject({ internal_id: id, dialStatus: null, pending: true });
		expect(item.message).toBe(
			'Still in progress: the call is ringing or under way, or has just ended and its record is not written yet. Ask again in a minute; do not place the call again.',
		);
	});
});
