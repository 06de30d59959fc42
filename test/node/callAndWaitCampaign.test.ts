import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { registerNodeType } from '../harness/engine';
import { runUntilWait, startResumeServer } from '../harness/resume';
import type { ResumeServer, WaitingExecution } from '../harness/resume';
import { assistantKeysOf, callerAssistant, startSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

/*
 * Call and Wait with Campaign options, in-process (test/harness/resume.ts resumes the execution as n8n
 * does): the attempt and Result Context wait with the execution and come back with the result, with the
 * Retry Policy's decision; calling hours and the Earliest Call Time hold an item without placing or
 * waiting; bad input is refused before anything is dialled.
 */

const WAIT_TYPE = 'test.campaign.assistantPlatformCallAndWait';
registerNodeType(WAIT_TYPE, new AssistantPlatformCallAndWait());

const CALLER = '+390212345678';
let fx: SandboxFixture;
let server: ResumeServer;
let run = 0;

beforeAll(async () => {
	fx = await startSandbox({ clock: 'real', ringMs: 100, durationSec: 1, persistDelayMs: 100 });
	server = await startResumeServer();
});

afterAll(async () => {
	await server.stop();
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
	callerAssistant(fx, CALLER);
	run++;
});

async function placeAndWait(parameters: IDataObject, item: IDataObject = {}): Promise<WaitingExecution> {
	const execution = await runUntilWait({
		nodeType: WAIT_TYPE,
		parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER, ...parameters },
		credentials: fx.credentials,
		webhookBaseUrl: server.baseUrl,
		executionId: `campaign-${run}`,
		items: [{ json: item }],
	});
	const text = JSON.stringify([execution.nodeItems, execution.error?.message, execution.error?.description]);
	for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox)]) expect(text).not.toContain(key);
	return execution;
}

const CAMPAIGN = {
	attempt: '={{ $json.attempt }}',
	resultContext: { fields: [{ name: 'contactId', value: '={{ $json.id }}' }] },
};

test('the attempt and Result Context come back with the result, with the decision; the resume URL is left as n8n made it', async () => {
	fx.sandbox.setDialOutcome({ dialstatus: 'BUSY', ringMs: 300 });
	const execution = await placeAndWait({ campaign: CAMPAIGN, retryPolicy: { busy: 2, maxAttempts: 4 } }, { id: 'C-77', attempt: 2 });
	expect(execution.waitTill).toBeDefined();
	expect(String((fx.sandbox.journal[0].body as IDataObject).callResultUrl)).not.toContain('ctx_');
	expect(execution.nodeItems[0].json).toMatchObject({ resultSource: 'waiting', attempt: 2, context: { contactId: 'C-77' } });
	server.register(execution);
	const resumed = await server.resumed(execution.executionId);
	const result = resumed.afterItems[0].json;
	expect(result).toMatchObject({
		resultSource: 'callback',
		dialStatus: 'BUSY',
		attempt: 2,
		context: { contactId: 'C-77' },
		nextCall: { callAgain: true, attempt: 3, reason: 'BUSY: call again after 2 min (attempt 3 of 4)' },
	});
	const at = Date.parse(String((result.nextCall as IDataObject).at));
	expect(Math.abs(at - (Date.parse(String(result.resultReceivedAt)) + 120_000))).toBeLessThan(1000);
});

test('outside calling hours: nothing is placed, the execution does not wait, the item says when the window opens', async () => {
	const hour = (new Date().getUTCHours() + 3) % 24;
	const from = `${String(hour).padStart(2, '0')}:00`;
	const to = `${String((hour + 1) % 24).padStart(2, '0')}:00`;
	const execution = await placeAndWait(
		{ campaign: { ...CAMPAIGN, callingHours: { window: { days: ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'], from, to, timeZone: 'UTC' } } } },
		{ id: 'C-1', attempt: 1 },
	);
	expect(fx.sandbox.journal).toHaveLength(0);
	expect(execution.waitTill).toBeUndefined();
	const [item] = execution.nodeItems;
	expect(item.json).toMatchObject({ placed: false, outcome: 'deferred', attempt: 1, context: { contactId: 'C-1' }, nextCall: { callAgain: true, attempt: 1 } });
	expect(item.json).not.toHaveProperty('callResultUrl');
	const at = new Date(String((item.json.nextCall as IDataObject).at));
	expect(at.getUTCHours()).toBe(hour);
	expect(at.getUTCMinutes()).toBe(0);
});

test('an Earliest Call Time to come holds the item the same way', async () => {
	const later = new Date(Date.now() + 3600_000).toISOString();
	const execution = await placeAndWait({ campaign: { notBefore: later } });
	expect(fx.sandbox.journal).toHaveLength(0);
	expect(execution.nodeItems[0].json).toMatchObject({ outcome: 'deferred', nextCall: { callAgain: true, at: later, attempt: 1 } });
});

test.each([
	['an attempt that is not a number', { attempt: 'abc' }, 'Invalid "Campaign > Attempt": must be a whole number from 1 to 100 (got "abc")'],
	['context with a forbidden character', { resultContext: { fields: [{ name: 'note', value: 'a\u0007b' }] } }, 'Invalid "Campaign > Result Context": "note" contains a control character'],
	['an unknown time zone', { callingHours: { window: { days: ['monday'], from: '09:00', to: '10:00', timeZone: 'Nowhere/City' } } }, 'Invalid "Calling Hours > Time Zone": unknown time zone "Nowhere/City"'],
	['a window whose end equals its start', { callingHours: { window: { days: ['monday'], from: '09:00', to: '09:00', timeZone: 'UTC' } } }, 'Invalid "Calling Hours > To": must differ from From (09:00)'],
])('bad input is refused before anything is dialled: %s', async (_label, campaign, message) => {
	const execution = await placeAndWait({ campaign });
	expect(execution.error?.message).toContain(message);
	expect(fx.sandbox.journal).toHaveLength(0);
});

test('a Retry Policy that cannot be followed is refused before the call', async () => {
	const execution = await placeAndWait({ retryPolicy: { maxAttempts: 0 } });
	expect(execution.error?.message).toBe('Invalid "Retry Policy > Max Attempts": must be a whole number from 1 to 20 (got 0). No call was placed.');
	expect(fx.sandbox.journal).toHaveLength(0);
});
