import type { IDataObject } from 'n8n-workflow';
import { getGlobalState, setGlobalState } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { readDateTime } from '../../nodes/shared/campaign/callingHours';
import { registerNodeType, runNode } from '../harness/engine';
import { runUntilWait, startResumeServer } from '../harness/resume';
import type { ResumeServer } from '../harness/resume';
import { callerAssistant, useSandbox } from '../harness/sandbox';

/*
 * Campaign > Earliest Call Time is read in the workflow's time zone when it has no offset (as n8n's Wait node
 * reads its date and time): "2031-03-03T09:30" is 09:30 on the clocks of the workflow's zone, not of the
 * machine n8n runs on. A value with Z or an offset, a JS Date and a luxon DateTime are the instants they
 * name. A wall-clock time the zone skips (clocks go forward) is the instant the clocks jump; one it shows
 * twice (clocks go back) is the first: the same rule as Calling Hours.
 *
 * The engine's workflows carry no settings.timezone, so their zone is n8n's default time zone
 * (GENERIC_TIMEZONE), which n8n-workflow keeps in its global state: the tests set that, the node reads it
 * with getTimezone() as it reads a workflow's own setting.
 */

const CALLER = '+390212345678';
const WAIT_TYPE = 'test.assistantPlatformCallAndWait';
registerNodeType(WAIT_TYPE, new AssistantPlatformCallAndWait());

const defaultState = getGlobalState();
function inWorkflowZone(timeZone: string): void {
	setGlobalState({ ...defaultState, defaultTimezone: timeZone });
}
afterEach(() => setGlobalState(defaultState));

// Dates to come: an Earliest Call Time that has not come defers the item and outputs it as nextCall.at.
const CASES: Array<[string, string, Record<string, string>]> = [
	['ISO without an offset', '2031-03-03T09:30', { 'America/New_York': '2031-03-03T14:30:00.000Z', 'Asia/Tokyo': '2031-03-03T00:30:00.000Z' }],
	['ISO with seconds and a fraction', '2031-03-03T09:30:15.250', { 'America/New_York': '2031-03-03T14:30:15.250Z', 'Asia/Tokyo': '2031-03-03T00:30:15.250Z' }],
	['a space instead of T (SQL)', '2031-03-03 09:30:00', { 'America/New_York': '2031-03-03T14:30:00.000Z', 'Asia/Tokyo': '2031-03-03T00:30:00.000Z' }],
	['a date alone: its midnight', '2031-03-03', { 'America/New_York': '2031-03-03T05:00:00.000Z', 'Asia/Tokyo': '2031-03-02T15:00:00.000Z' }],
	['Z', '2031-03-03T09:30:00Z', { 'America/New_York': '2031-03-03T09:30:00.000Z', 'Asia/Tokyo': '2031-03-03T09:30:00.000Z' }],
	['an offset', '2031-03-03T09:30:00+01:00', { 'America/New_York': '2031-03-03T08:30:00.000Z', 'Asia/Tokyo': '2031-03-03T08:30:00.000Z' }],
	['an offset without a colon, after a space', '2031-03-03 09:30 -0330', { 'America/New_York': '2031-03-03T13:00:00.000Z', 'Asia/Tokyo': '2031-03-03T13:00:00.000Z' }],
	['a JS Date', '={{ new Date(Date.UTC(2031, 2, 3, 9, 30)) }}', { 'America/New_York': '2031-03-03T09:30:00.000Z', 'Asia/Tokyo': '2031-03-03T09:30:00.000Z' }],
	[
		'a luxon DateTime in its own zone',
		"={{ DateTime.fromISO('2031-03-03T09:30', { zone: 'Europe/Rome' }) }}",
		{ 'America/New_York': '2031-03-03T08:30:00.000Z', 'Asia/Tokyo': '2031-03-03T08:30:00.000Z' },
	],
	// America/New_York: clocks go forward at 02:00 on 9 March 2031 and back at 02:00 on 2 November 2031.
	['a time the clocks skip: when they jump', '2031-03-09T02:30', { 'America/New_York': '2031-03-09T07:00:00.000Z', 'Asia/Tokyo': '2031-03-08T17:30:00.000Z' }],
	['a time the clocks show twice: the first', '2031-11-02T01:30', { 'America/New_York': '2031-11-02T05:30:00.000Z', 'Asia/Tokyo': '2031-11-01T16:30:00.000Z' }],
	['the second one, by its offset', '2031-11-02T01:30:00-05:00', { 'America/New_York': '2031-11-02T06:30:00.000Z', 'Asia/Tokyo': '2031-11-02T06:30:00.000Z' }],
];

describe('Earliest Call Time in the workflow\'s time zone (Place Call)', () => {
	const fx = useSandbox();
	beforeEach(() => callerAssistant(fx, CALLER));

	const place = (campaign: IDataObject, items: IDataObject[] = [{}]) =>
		runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', callerId: CALLER, dst: '+14155550123', campaign },
			credentials: fx.credentials,
			items: items.map((json) => ({ json })),
		});

	describe.each(['America/New_York', 'Asia/Tokyo'])('workflow in %s', (timeZone) => {
		beforeEach(() => inWorkflowZone(timeZone));

		test.each(CASES)('%s: %s', async (_label, notBefore, expected) => {
			const { items: out, error } = await place({ notBefore, attempt: 2 });
			expect(error).toBeUndefined();
			expect(fx.sandbox.journal).toHaveLength(0);
			expect(out[0].json).toMatchObject({
				placed: false,
				outcome: 'deferred',
				reason: `Earliest Call Time not reached: not dialled before ${expected[timeZone]}`,
				nextCall: { callAgain: true, at: expected[timeZone], attempt: 2 },
			});
		});

		test('a time that has passed in the zone is dialled; the same clock time still to come there is deferred', async () => {
			// 2 hours ago and 2 hours ahead, written as the zone's clocks show them (no offset).
			const clock = (ms: number) => new Date(ms).toLocaleString('sv-SE', { timeZone }).replace(' ', 'T');
			const { items: out } = await place({ notBefore: '={{ $json.at }}', skipRepeatedNumbers: false }, [{ at: clock(Date.now() - 2 * 3600_000) }, { at: clock(Date.now() + 2 * 3600_000) }]);
			expect(out.map((item) => item.json.outcome ?? 'placed')).toEqual(['placed', 'deferred']);
			const at = Date.parse(String((out[1].json.nextCall as IDataObject).at));
			expect(Math.abs(at - (Date.now() + 2 * 3600_000))).toBeLessThan(60_000);
		});
	});

	test.each([
		['a day that does not exist', '2031-02-30T09:30', '2031-02-30T09:30'],
		['an hour past 23', '2031-03-03T24:00', '2031-03-03T24:00'],
		['text without a form', 'next tuesday', 'next tuesday'],
		['a date in another order, without a zone', '03/04/2031 09:30', '03/04/2031 09:30'],
	])('refused before anything is dialled: %s', async (_label, notBefore, shown) => {
		inWorkflowZone('Asia/Tokyo');
		const { error } = await place({ notBefore });
		expect(error?.message).toContain(`Invalid "Campaign > Earliest Call Time": must be a date and time such as 2026-03-02T09:30 (in the workflow's time zone, Asia/Tokyo) or 2026-03-02T09:30:00Z (got "${shown}")`);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a date in another form that names its zone is read as it says (RFC 2822)', async () => {
		inWorkflowZone('Asia/Tokyo');
		const { items: out } = await place({ notBefore: 'Mon, 03 Mar 2031 09:30:00 GMT' });
		expect(out[0].json).toMatchObject({ outcome: 'deferred', nextCall: { at: '2031-03-03T09:30:00.000Z' } });
	});
});

describe("Earliest Call Time in the workflow's time zone (Call and Wait)", () => {
	const fx = useSandbox();
	let server: ResumeServer;
	beforeAll(async () => {
		server = await startResumeServer();
	});
	afterAll(async () => {
		await server.stop();
	});
	beforeEach(() => callerAssistant(fx, CALLER));

	test('without an offset: the workflow\'s zone; nothing is placed, the execution does not wait', async () => {
		inWorkflowZone('Asia/Tokyo');
		const execution = await runUntilWait({
			nodeType: WAIT_TYPE,
			parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER, campaign: { notBefore: '2031-03-03 09:30' } },
			credentials: fx.credentials,
			webhookBaseUrl: server.baseUrl,
			executionId: 'exec-times',
		});
		expect(fx.sandbox.journal).toHaveLength(0);
		expect(execution.waitTill).toBeUndefined();
		expect(execution.nodeItems[0].json).toMatchObject({ outcome: 'deferred', nextCall: { callAgain: true, at: '2031-03-03T00:30:00.000Z' } });
	});
});

describe('readDateTime: a wall-clock date and time in a zone, to the instant', () => {
	const read = (text: string, zone: string) => {
		const ms = readDateTime(text, zone);
		return ms === undefined ? undefined : new Date(ms).toISOString();
	};

	test.each([
		// Europe/London: 01:00 -> 02:00 on 30 March 2031, 02:00 -> 01:00 on 26 October 2031.
		['2031-03-30T01:30', 'Europe/London', '2031-03-30T01:00:00.000Z'],
		['2031-03-30T02:00', 'Europe/London', '2031-03-30T01:00:00.000Z'],
		['2031-03-30T00:59:59.999', 'Europe/London', '2031-03-30T00:59:59.999Z'],
		['2031-10-26T01:30', 'Europe/London', '2031-10-26T00:30:00.000Z'],
		['2031-10-26T02:00', 'Europe/London', '2031-10-26T02:00:00.000Z'],
		// Southern hemisphere, Australia/Sydney: 03:00 -> 02:00 on 6 April 2031, 02:00 -> 03:00 on 5 October 2031.
		['2031-04-06T02:30', 'Australia/Sydney', '2031-04-05T15:30:00.000Z'],
		['2031-10-05T02:30', 'Australia/Sydney', '2031-10-04T16:00:00.000Z'],
		// Half-hour changes (Australia/Lord_Howe: 02:00 -> 02:30 on 5 October 2031) and a 45-minute offset.
		['2031-10-05T02:15', 'Australia/Lord_Howe', '2031-10-04T15:30:00.000Z'],
		['2031-03-03T09:30', 'Asia/Kathmandu', '2031-03-03T03:45:00.000Z'],
		// Across the date line, and a year's last second.
		['2031-01-01T00:00', 'Pacific/Kiritimati', '2030-12-31T10:00:00.000Z'],
		['2031-12-31T23:59:59', 'Pacific/Pago_Pago', '2032-01-01T10:59:59.000Z'],
		['2032-02-29T12:00', 'UTC', '2032-02-29T12:00:00.000Z'],
		// With Z or an offset the zone is not used.
		['2031-03-30T01:30Z', 'Europe/London', '2031-03-30T01:30:00.000Z'],
		['2031-03-30T01:30:00+14:00', 'Europe/London', '2031-03-29T11:30:00.000Z'],
		['2031-03-30t01:30:00,5z', 'Europe/London', '2031-03-30T01:30:00.500Z'],
	])('%s in %s is %s', (text, zone, expected) => {
		expect(read(text, zone)).toBe(expected);
	});

	test('the same text and zone give the same instant whatever the machine\'s zone (no Date.parse of local text)', () => {
		expect(read('2031-11-02T01:30', 'America/New_York')).toBe('2031-11-02T05:30:00.000Z');
		expect(read('2031-11-02T01:30', 'America/Los_Angeles')).toBe('2031-11-02T08:30:00.000Z');
	});

	test.each([['2031-02-29T09:30'], ['2031-13-01'], ['2031-03-03T09:60'], ['2031-03-03T09:30:61'], ['2031-03-03T09:30+25:00'], ['March 3'], ['']])(
		'%s is not a date and time it reads',
		(text) => {
			expect(read(text, 'Europe/London')).toBeUndefined();
		},
	);
});
