import type { IDataObject, INode } from 'n8n-workflow';

import { describeUnknownOutcome } from '../../nodes/shared/calls/messages';
import type { Hint } from '../../nodes/shared/transport/errors';
import { OR_TRY_AGAIN_LATER, transportError, TRY_AGAIN_LATER } from '../../nodes/shared/transport/errors';
import type { FaultSpec } from '../../sandbox';
import { runAgent } from '../harness/agent';
import type { ToolCall } from '../harness/agent';
import { runNode } from '../harness/engine';
import { callAsMcpClient } from '../harness/mcp';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * What an AI agent reads back when Place Call fails. n8n hands the agent only `error.message` of a failed tool
 * (never its description), so the message itself must say what the agent needs to act safely, in one voice:
 * "no call was placed" when nothing was dialled (refused before sending, or rejected by the platform with a 4xx),
 * and "the call may have been placed: do not place it again" when the outcome is unknown (timeout, reset, 5xx,
 * an answer without internal_id). A model told only "timeout" dials again: the same person gets two calls.
 */

const CALLER = '+390212345678';
const PLACE_CALL = 'Place Call';
const fx = useSandbox();

useCallerAssistant(fx, CALLER);

const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');
const call = (dst: string): ToolCall => ({ tool: PLACE_CALL, input: { Destination_Number: dst } });

/** Place Call as a tool (Caller ID fixed, the destination from the model), one turn of the given calls. */
async function agentCalls(calls: ToolCall[], extra: IDataObject = {}, settings = {}) {
	const run = await runAgent({
		credentials: fx.credentials,
		tools: [{ name: PLACE_CALL, parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...extra }, settings }],
		turns: [calls],
	});
	expect(run.error).toBeUndefined();
	return run.results;
}

/** Waits until the sandbox has received `count` POSTs (a slow answer arrives after the client gave up). */
async function untilPosts(count: number): Promise<void> {
	for (let i = 0; i < 100 && posts().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('what the agent reads when no call was placed', () => {
	test('a number that is not E.164: nothing is sent, and the message says no call was placed', async () => {
		const [result] = await agentCalls([call('12345')]);
		expect(result.error).toMatch(/^Invalid "Destination Number": must be in international \(E\.164\) form/);
		expect(result.error).toMatch(/No call was placed\.$/);
		expect(posts()).toHaveLength(0);
	});

	test('a caller ID the platform refuses (403): one POST, and the message says no call was placed', async () => {
		const [result] = await agentCalls([call('+14155550123')], { callerId: '+390211111111' });
		expect(result.error).toContain('CALLER_ID_NOT_ASSIGNED');
		expect(result.error).toMatch(/No call was placed\./);
		expect(result.error).not.toMatch(/may have been placed/);
		expect(posts()).toHaveLength(1);
	});

	test('Retry On Fail on the tool: refused before sending, never retried into a second call', async () => {
		const [result] = await agentCalls([call('+14155550123')], {}, { retryOnFail: true, maxTries: 3, waitBetweenTries: 1 });
		expect(result.error).toMatch(/Retry On Fail/);
		expect(result.error).toMatch(/No call was placed\./);
		expect(posts()).toHaveLength(0);
	});

	test('what an MCP client reads (the message, then the description): no advice only the author can follow', async () => {
		const [result] = await callAsMcpClient({
			tool: { name: PLACE_CALL, parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER }, settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } },
			calls: [{ Destination_Number: '+14155550123' }],
			credentials: fx.credentials,
		});
		expect(result.text).toMatch(/^NodeOperationError: Invalid "Retry On Fail": must be off when placing calls\. No call was placed\.\n\nDetails: .*turn Retry On Fail off\.$/s);
		expect(result.text).not.toMatch(/On Error|Continue On Fail/);
		expect(posts()).toHaveLength(0);
	});

	test('outside a tool the description still tells the author how to get one result per call', async () => {
		const { error } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550123' },
			credentials: fx.credentials,
			nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 1 },
		});
		expect(error?.description).toMatch(/turn Retry On Fail off\. Set Settings > On Error to "Continue" \(Continue On Fail\) to get one result item per call instead\.$/);
	});
});

describe('what the agent reads when the outcome is unknown', () => {
	const unknown: Array<[string, () => void, RegExp]> = [
		[
			'a timeout after the POST',
			() => fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 600, times: 1 }),
			/^Outcome unknown: The platform did not answer within 200 ms \(timeout\)\. /,
		],
		[
			'a connection reset after the POST',
			() => fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'reset', times: 1 }),
			/^Outcome unknown: The connection to the platform was reset before it answered\. /,
		],
		[
			'a 500',
			() => fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 }),
			/^Outcome unknown: INTERNAL_ERROR: The platform failed to answer \(500\)/,
		],
		[
			'a malformed answer',
			() => fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'malformed', times: 1 }),
			/^Outcome unknown: The platform answered with malformed JSON\. /,
		],
	];

	test.each(unknown)('%s: one POST, and the message says the call may have been placed and not to place it again', async (_title, inject, reason) => {
		inject();
		const [result] = await agentCalls([call('+14155550123')], { requestOptions: { timeout: 200 } });
		expect(result.error).toMatch(reason);
		expect(result.error).toContain('The call to +14155550123 may have been placed: do not place it again.');
		expect(result.error).toMatch(/no internal_id came back/i);
		// One voice: nothing the agent reads tells it to try again.
		expect(result.error).not.toMatch(/try again|retry/i);
		await untilPosts(1);
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(posts()).toHaveLength(1);
	});
});

describe('the same voice outside agents (message and description agree)', () => {
	test('a timeout: the description explains how to find out, and never says to try again', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 600, times: 1 });
		const { error } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', callerId: CALLER, requestOptions: { timeout: 200 } },
			credentials: fx.credentials,
		});
		expect(error?.message).toMatch(/may have been placed: do not place it again/);
		expect(error?.description).toMatch(/Call Status/);
		expect(error?.description).not.toMatch(/try again/i);
		await untilPosts(1);
	});

	test('a 503 with Continue On Fail: the item says outcome unknown in its error and description, never to try again', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 503, times: 1 });
		const { items } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', callerId: CALLER },
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(items[0].json).toMatchObject({ outcome: 'unknown', placed: 'unknown', httpCode: '503' });
		expect(String(items[0].json.error)).toMatch(/may have been placed: do not place it again/);
		expect(`${String(items[0].json.error)} ${String(items[0].json.description)}`).not.toMatch(/try again/i);
	});
});

describe('the description of an unknown outcome, word for word', () => {
	const advice =
		'Placing a call is never retried automatically. Before this call is placed again, find out whether it was: Assistant Platform → Call Status → Get with its internal_id when one came back, else the call log on the platform.';
	// The transport's hint for a read says to try again; after a call whose outcome is unknown only the rest of it stays.
	const cases: Array<[string, FaultSpec, string]> = [
		[
			'a timeout after the POST',
			{ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 600, times: 1 },
			`${advice} The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option.`,
		],
		[
			'a connection reset',
			{ method: 'POST', path: '/webhook/outbound_call', kind: 'reset', times: 1 },
			`${advice} Network error ECONNRESET: a network problem or a platform restart.`,
		],
		['a 500', { method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 }, `${advice} This is a problem on the side of the platform.`],
		['a 503', { method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 503, times: 1 }, `${advice} This is a problem on the side of the platform.`],
		['a malformed answer', { method: 'POST', path: '/webhook/outbound_call', kind: 'malformed', times: 1 }, `${advice} Status 200; the answer was not used.`],
	];

	test.each(cases)('%s', async (_title, fault, description) => {
		fx.sandbox.injectFault(fault);
		const { items } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', callerId: CALLER, requestOptions: { timeout: 200 } },
			credentials: fx.credentials,
			continueOnFail: true,
		});
		expect(items[0].json.description).toBe(description);
		await untilPosts(1);
	});
});

describe('the wording, in one place', () => {
	const node = { id: 'place-call', name: 'Place Call', type: 'assistantPlatform', typeVersion: 1, position: [0, 0], parameters: {} } as INode;
	const advice =
		'Placing a call is never retried automatically. Before this call is placed again, find out whether it was: Assistant Platform → Call Status → Get with its internal_id when one came back, else the call log on the platform.';

	test('with an internal_id the message says to check Call Status with it', () => {
		const error: Error & { description?: string } = new Error('The platform answered 200 with a failed status');
		describeUnknownOutcome(error, { dst: '+14155550123', internalId: 'abc123' });
		expect(error.message).toBe(
			'Outcome unknown: The platform answered 200 with a failed status. The call to +14155550123 may have been placed: do not place it again. Check Call Status with internal_id "abc123" to learn what happened.',
		);
		expect(error.description).toBe(advice);
	});

	// The transport keeps its advice to try again apart from the rest of its hint: the description is composed without it.
	const hints: Array<[string, Hint, string, string]> = [
		[
			'", or try again later." closing the last sentence',
			['The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option', OR_TRY_AGAIN_LATER],
			'The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option, or try again later.',
			'The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option.',
		],
		['"Try again later." after the hint', ['This is a platform-side problem.', TRY_AGAIN_LATER], 'This is a platform-side problem. Try again later.', 'This is a platform-side problem.'],
		['a note after the advice', ['A network problem.', TRY_AGAIN_LATER, ' (Gave up after 3 attempts.)'], 'A network problem. Try again later. (Gave up after 3 attempts.)', 'A network problem. (Gave up after 3 attempts.)'],
		['a hint without advice', ['Status 200; the answer was not used.'], 'Status 200; the answer was not used.', 'Status 200; the answer was not used.'],
	];

	test.each(hints)("a lower layer's hint with %s: the read says it all, an unknown outcome all but the advice", (_title, hint, read, call) => {
		const error = transportError(node, 'The request failed', hint);
		expect(error.description).toBe(read);
		describeUnknownOutcome(error);
		expect(error.description).toBe(`${advice} ${call}`);
	});

	test('a description written after the hint stays as it is', () => {
		const error = transportError(node, 'The request failed', ['A problem.', TRY_AGAIN_LATER]);
		error.description = 'Another description. Try again later.';
		describeUnknownOutcome(error);
		expect(error.description).toBe(`${advice} Another description. Try again later.`);
	});
});
