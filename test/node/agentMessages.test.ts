import type { IDataObject } from 'n8n-workflow';

import { unknownOutcomeMessage, withoutRetryAdvice } from '../../nodes/shared/calls/messages';
import { runAgent } from '../harness/agent';
import type { ToolCall } from '../harness/agent';
import { runNode } from '../harness/engine';
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

describe('the wording, in one place', () => {
	test('with an internal_id the message says to check Call Status with it', () => {
		expect(unknownOutcomeMessage('The platform answered 200 with a failed status', { dst: '+14155550123', internalId: 'abc123' })).toBe(
			'Outcome unknown: The platform answered 200 with a failed status. The call to +14155550123 may have been placed: do not place it again. Check Call Status with internal_id "abc123" to learn what happened.',
		);
	});

	test("a lower layer's advice to try again leaves the description, the rest of it stays", () => {
		expect(withoutRetryAdvice('The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option, or try again later.')).toBe(
			'The request did not complete in time (Timeout covers the whole answer). Raise the Timeout request option.',
		);
		expect(withoutRetryAdvice('This is a platform-side problem. Try again later.')).toBe('This is a platform-side problem.');
		expect(withoutRetryAdvice(undefined)).toBe('');
	});
});
