import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { CALLS_PER_NUMBER_TABLE } from '../../nodes/shared/guards/callsPerNumber';
import { DEFAULT_DO_NOT_CALL_TABLE } from '../../nodes/shared/guards/doNotCall';
import { SPEND_TABLE } from '../../nodes/shared/guards/spend';
import { runAgent } from '../harness/agent';
import { registerNodeType, runNode } from '../harness/engine';
import { callLimit, callsPerNumber, guardrails, spendingLimit } from '../harness/guardrails';
import { callAsMcpClient } from '../harness/mcp';
import { useN8nDataTables } from '../harness/n8nDataTables';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * The guards of every route to a call that is not a campaign (Place Call, as an AI agent's tool and as an MCP
 * client's, and Call and Wait): the do-not-call list, the calling hours in the called person's time zone, the calls
 * per number across everything, and the spending limit. Each refuses before anything is sent, says which guard
 * refused and that no call was placed, and gives its place back when the platform refused the call.
 */

const CALL_AND_WAIT_TYPE = 'test.guardedCallAndWait';
registerNodeType(CALL_AND_WAIT_TYPE, new AssistantPlatformCallAndWait());

const CALLER = '+390212345678';
const LISTED = '+14155550177';
const fx = useSandbox();
useCallerAssistant(fx, CALLER);
const n8nApi = useN8nDataTables();

const credentials = () => ({ ...fx.credentials, assistantPlatformN8nApi: n8nApi.store.credentials });
const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');
const dialled = () => posts().map((e) => String((e.body as IDataObject).dst));
const tableRows = (name: string) => n8nApi.store.tables.find((t) => t.name === name)?.rows ?? [];
const DO_NOT_CALL = { doNotCallList: DEFAULT_DO_NOT_CALL_TABLE };
const EVERY_DAY = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** Place Call for each `dsts` (one item each, Continue On Fail), with `parameters`. */
async function place(dsts: string[], parameters: IDataObject = {}, items?: IDataObject[]) {
	return await runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '={{ $json.dst }}', ...parameters },
		credentials: credentials(),
		items: (items ?? dsts.map((dst) => ({ dst }))).map((json) => ({ json })),
		continueOnFail: true,
	});
}

/** The do-not-call list of this n8n, holding `entries` (numbers or prefixes), as Add Number writes them. */
async function listed(...entries: string[]) {
	for (const number of entries) {
		const { error } = await runNode({ parameters: { resource: 'doNotCallList', operation: 'add', number }, credentials: { assistantPlatformN8nApi: n8nApi.store.credentials } });
		expect(error).toBeUndefined();
	}
}

/** A calling window of one minute that closed an hour ago in UTC, on every day. */
function closedWindow(): IDataObject {
	const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
	const from = Date.now() - 3_600_000;
	return { days: EVERY_DAY, from: hhmm(from), to: hhmm(from + 60_000) };
}
const OPEN_WINDOW = { days: EVERY_DAY, from: '00:00', to: '24:00' };

describe('Guardrails > Do-Not-Call List', () => {
	test('Place Call: a listed number (as written, or in another form of it) is refused before anything is sent; the others are placed', async () => {
		await listed('0039 02 9999 0001', LISTED);
		const { items, error } = await place(['+14155550101', LISTED, '+390299990001'], guardrails(DO_NOT_CALL));
		expect(error).toBeUndefined();
		expect(dialled()).toEqual(['+14155550101']);
		expect(items[1].json.error).toMatch(new RegExp(`^Not placed: \\${LISTED} must not be called: it is on the do-not-call list since \\S+ \\(workflow "[^"]*", node "[^"]*"\\)\\. No call was placed\\. Do not try again\\.`));
		expect(items[2].json.error).toMatch(/^Not placed: \+390299990001 must not be called/);
	});

	test('Place Call: a number under a listed prefix is refused', async () => {
		await listed('+1900*');
		const { items } = await place(['+19005550100', '+14155550101'], guardrails(DO_NOT_CALL));
		expect(dialled()).toEqual(['+14155550101']);
		expect(items[0].json.error).toMatch(/must not be called: its prefix \+1900 is on the do-not-call list/);
	});

	test('a number added while calls go on is refused from the next call on', async () => {
		await place(['+14155550101'], guardrails(DO_NOT_CALL));
		await listed('+14155550101');
		await place(['+14155550101'], guardrails(DO_NOT_CALL));
		expect(dialled()).toEqual(['+14155550101']);
	});

	test('as an AI agent\'s tool: the model asking to call a listed number reads that it is listed and that no call was placed; nothing is sent', async () => {
		await listed(LISTED);
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...guardrails(DO_NOT_CALL) } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: LISTED } }]],
		});
		expect(posts()).toHaveLength(0);
		expect(results[0].error).toMatch(/must not be called: it is on the do-not-call list.*No call was placed\. Do not try again\./);
		expect(results[0].error).not.toMatch(/Settings > On Error|Continue On Fail|(workflow|credential|execution):\S/);
	});

	test("an MCP client's tool call to a listed number: refused, nothing sent", async () => {
		await listed(LISTED);
		const [result] = await callAsMcpClient({
			tool: { name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...guardrails({ ...DO_NOT_CALL, ...callLimit(5).guardrails as IDataObject }) } },
			calls: [{ Destination_Number: LISTED }],
			credentials: credentials(),
		});
		expect(result.isError).toBe(true);
		expect(result.text).toMatch(/must not be called: it is on the do-not-call list.*No call was placed\./);
		expect(posts()).toHaveLength(0);
	});

	test('Call and Wait: a listed number is refused before anything is sent', async () => {
		await listed(LISTED);
		const { error } = await runNode({ nodeType: CALL_AND_WAIT_TYPE, parameters: { callerId: CALLER, dst: LISTED, ...guardrails(DO_NOT_CALL) }, credentials: credentials() });
		expect(error?.message).toMatch(/must not be called: it is on the do-not-call list.*No call was placed/);
		expect(posts()).toHaveLength(0);
	});

	test('a list that is not there (a name other than the default): every call is refused, since it would let every number through', async () => {
		const { items } = await place(['+14155550101'], guardrails({ doNotCallList: 'Our opt-outs' }));
		expect(items[0].json.error).toMatch(/^Invalid "Guardrails > Do-Not-Call List": names no data table of this n8n \("Our opt-outs"\)/);
		expect(items[0].json.error).toMatch(/No call was placed/);
		expect(posts()).toHaveLength(0);
	});

	test('the list of the default name is created empty the first time, and calls go on', async () => {
		const { items } = await place(['+14155550101'], guardrails(DO_NOT_CALL));
		expect(items[0].json.internal_id).toBeDefined();
		expect(n8nApi.store.tables.find((t) => t.name === DEFAULT_DO_NOT_CALL_TABLE)?.columns.map((c) => c.name)).toEqual(expect.arrayContaining(['phone', 'source', 'addedAt', 'note']));
	});

	test('set by the AI model ($fromAI): refused before anything is sent', async () => {
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, guardrails: { doNotCallList: "={{ $fromAI('List', '', 'string') }}" } } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: '+14155550101', List: 'nothing' } }]],
		});
		expect(results[0].error).toMatch(/^Invalid "Guardrails": must be set in the node, not by the AI model/);
		expect(posts()).toHaveLength(0);
	});
});

describe('Do-Not-Call List → Add Number and Check Number', () => {
	const op = (operation: string, parameters: IDataObject) =>
		runNode({ parameters: { resource: 'doNotCallList', operation, ...parameters }, credentials: { assistantPlatformN8nApi: n8nApi.store.credentials }, continueOnFail: true });

	test('Add Number keeps the number in international form, with its source and time; adding it again changes nothing', async () => {
		const first = await op('add', { number: '0039 02 1234 5678', source: 'said during call 42', note: 'asked politely' });
		expect(first.items[0].json).toMatchObject({ phone: '+390212345678', listed: true, alreadyListed: false, source: 'said during call 42', note: 'asked politely', list: DEFAULT_DO_NOT_CALL_TABLE });
		expect(Date.parse(String(first.items[0].json.addedAt))).toBeGreaterThan(Date.now() - 60_000);
		const again = await op('add', { number: '+39 02 1234 5678', source: 'a second time' });
		expect(again.items[0].json).toMatchObject({ phone: '+390212345678', alreadyListed: true, source: 'said during call 42' });
		expect(tableRows(DEFAULT_DO_NOT_CALL_TABLE)).toHaveLength(1);
	});

	test('Check Number: listed itself, under a prefix, or not at all', async () => {
		await op('add', { number: '+14155550177' });
		await op('add', { number: '+1900*' });
		const check = async (number: string) => (await op('check', { number })).items[0].json;
		expect(await check('+1 415 555 0177')).toMatchObject({ phone: '+14155550177', listed: true, entry: { phone: '+14155550177' } });
		expect(await check('+19005550100')).toMatchObject({ listed: true, entry: { phone: '+1900*' } });
		expect(await check('+14155550178')).toMatchObject({ listed: false, entry: null });
	});

	test('a number that is not one, or a prefix that is not + and digits: refused naming the field, nothing written', async () => {
		expect((await op('add', { number: 'call me maybe' })).items[0].json.error).toMatch(/^Invalid "Number": must be a phone number in international form/);
		expect((await op('add', { number: '1900*' })).items[0].json.error).toMatch(/^Invalid "Number": a prefix must be \+ and its first digits, then \*/);
		expect((await op('check', { number: ' ' })).items[0].json.error).toMatch(/^Invalid "Number": must be a phone number in international form/);
		expect(tableRows(DEFAULT_DO_NOT_CALL_TABLE)).toHaveLength(0);
	});

	test('needs only the Data Tables API credential: no platform credential is asked for', async () => {
		const { items, credentialReads } = await op('add', { number: '+14155550177' });
		expect(items[0].json.listed).toBe(true);
		expect(Object.keys(credentialReads)).toEqual(['assistantPlatformN8nApi']);
	});
});

describe('Calling Hours', () => {
	test('outside every window in the called person\'s time zone: refused, saying when the hours open; nothing sent', async () => {
		const { items } = await place(['+14155550101'], { callingHours: { window: [closedWindow()], timeZone: [{ timeZone: 'UTC' }] } });
		expect(items[0].json.error).toMatch(/^Not placed: it is \d\d:\d\d on \w{3} in UTC, outside the calling hours \(.* UTC\)\. No call was placed\. The hours open at \d{4}-\d\d-\d\dT/);
		expect(posts()).toHaveLength(0);
	});

	test('a window per rule: open when any window is', async () => {
		const { items } = await place(['+14155550101'], { callingHours: { window: [closedWindow(), OPEN_WINDOW], timeZone: [{ timeZone: 'UTC' }] } });
		expect(items[0].json.internal_id).toBeDefined();
	});

	test("each item's own time zone; an item without one is refused unless the workflow's time zone is allowed", async () => {
		const hours = (withoutTimeZone?: string) => ({ callingHours: { window: [OPEN_WINDOW], timeZone: [{ timeZone: '={{ $json.tz }}', ...(withoutTimeZone ? { withoutTimeZone } : {}) }] } });
		const rows = [
			{ dst: '+14155550101', tz: 'America/Los_Angeles' },
			{ dst: '+14155550102', tz: '' },
		];
		const refused = await place([], hours(), rows);
		expect(refused.items[0].json.internal_id).toBeDefined();
		expect(refused.items[1].json.error).toMatch(/^Not placed: the called person's time zone is not known, so whether it is inside the calling hours cannot be judged\. No call was placed\./);
		expect(dialled()).toEqual(['+14155550101']);
		await place([], hours('workflow'), [rows[1]]);
		expect(dialled()).toEqual(['+14155550101', '+14155550102']);
	});

	test('Windows without the Time Zone entry: every call is refused (a number does not tell its time zone)', async () => {
		const { items } = await place(['+14155550101'], { callingHours: { window: [OPEN_WINDOW] } });
		expect(items[0].json.error).toMatch(/time zone is not known/);
		expect(posts()).toHaveLength(0);
	});

	test('as an AI agent\'s tool and on Call and Wait: refused outside the hours', async () => {
		const hours = { callingHours: { window: [closedWindow()], timeZone: [{ timeZone: 'UTC' }] } };
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...hours } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: '+14155550101' } }]],
		});
		expect(results[0].error).toMatch(/outside the calling hours.*No call was placed/);
		const { error } = await runNode({ nodeType: CALL_AND_WAIT_TYPE, parameters: { callerId: CALLER, dst: '+14155550101', ...hours }, credentials: fx.credentials });
		expect(error?.message).toMatch(/outside the calling hours.*No call was placed/);
		expect(posts()).toHaveLength(0);
	});

	test('a wrong window, or the Time Zone added twice: refused naming the field', async () => {
		const wrong = await place(['+14155550101'], { callingHours: { window: [{ ...OPEN_WINDOW, from: '9' }], timeZone: [{ timeZone: 'UTC' }] } });
		expect(wrong.error?.message ?? wrong.items[0].json.error).toMatch(/^Invalid "Calling Hours > From": must be a time of day as HH:MM/);
		const twice = await place(['+14155550101'], { callingHours: { window: [OPEN_WINDOW], timeZone: [{ timeZone: 'UTC' }, { timeZone: 'Europe/Rome' }] } });
		expect(twice.error?.message ?? twice.items[0].json.error).toMatch(/^Invalid "Calling Hours > Time Zone": must be added once/);
		expect(posts()).toHaveLength(0);
	});
});

describe('Guardrails > Max Calls per Number', () => {
	test('a number called its most times in the period is refused, saying when it may be called again; other numbers are not', async () => {
		const { items } = await place(['+14155550101', '+14155550101', '+14155550102'], guardrails(callsPerNumber(1, 24)));
		expect(dialled()).toEqual(['+14155550101', '+14155550102']);
		expect(items[1].json.error).toMatch(/^Not placed: \+14155550101 was called 1 time in the last 24 hours, the most Max Calls per Number allows \(1\)\. No call was placed\. It may be called again after \d{4}-/);
	});

	test('counted across routes and workflows: an agent\'s call counts against Place Call in another workflow', async () => {
		await runAgent({
			credentials: credentials(),
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...guardrails(callsPerNumber(1)) } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: '+14155550101' } }]],
			workflowId: 'agent',
		});
		const { items } = await place(['+14155550101'], guardrails(callsPerNumber(1)));
		expect(items[0].json.error).toMatch(/the most Max Calls per Number allows \(1\)/);
		expect(dialled()).toEqual(['+14155550101']);
	});

	test('a call the platform refused (4xx) gives its count back; one whose outcome is unknown (5xx) keeps it', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 400, times: 1 });
		await place(['+14155550101'], guardrails(callsPerNumber(1)));
		expect(JSON.parse(String(tableRows(CALLS_PER_NUMBER_TABLE)[0].value))).toEqual([]);
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
		const unknown = await place(['+14155550101'], guardrails(callsPerNumber(1)));
		expect(unknown.items[0].json.error).toMatch(/may have been placed/);
		const third = await place(['+14155550101'], guardrails(callsPerNumber(1)));
		expect(third.items[0].json.error).toMatch(/Max Calls per Number/);
		expect(posts()).toHaveLength(2);
	});
});

describe('Guardrails > Spending Limit', () => {
	/** The open reservations of the spend ledger made old enough to be settled from their records. */
	function ageReservations() {
		const row = tableRows(SPEND_TABLE)[0];
		const spend = JSON.parse(String(row.value)) as { spent: number; open: Array<[string, number, number, string]> };
		row.value = JSON.stringify({ ...spend, open: spend.open.map(([id, amount, , internalId]) => [id, amount, Date.now() - 60_000, internalId]) });
	}

	test('a call reserves its estimate; past the limit calls are refused; a recorded cost replaces the estimate and frees room', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 8, persistDelayMs: 0 });
		const limit = guardrails(spendingLimit(1, 0.6));
		const first = await place(['+14155550101', '+14155550102'], limit);
		expect(first.items[0].json.internal_id).toBeDefined();
		expect(first.items[1].json.error).toBe(
			'Not placed: the spending limit of this workflow is reached (0 spent and 0.6 reserved by calls in flight, of 1; a call reserves 0.6). No call was placed. Do not try again: tell the user the spending limit is reached.',
		);
		await fx.sandbox.clock.advance(3_600_000);
		ageReservations();
		// The first call's record says 0.1 (8 billed seconds): 0.1 spent, room for one more reservation of 0.6.
		const second = await place(['+14155550102', '+14155550103'], limit);
		expect(second.items[0].json.internal_id).toBeDefined();
		expect(second.items[1].json.error).toMatch(/\(0\.1 spent and 0\.6 reserved by calls in flight, of 1;/);
		expect(dialled()).toEqual(['+14155550101', '+14155550102']);
	});

	test('a refused call still keeps the costs it settled: what Get Summary and the next call read is the recorded spend', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 8, persistDelayMs: 0 });
		const limit = guardrails(spendingLimit(0.65, 0.6));
		await place(['+14155550101'], limit);
		await fx.sandbox.clock.advance(3_600_000);
		ageReservations();
		const { items } = await place(['+14155550102'], limit);
		expect(items[0].json.error).toMatch(/\(0\.1 spent and 0 reserved by calls in flight, of 0\.65;/);
		expect(JSON.parse(String(tableRows(SPEND_TABLE)[0].value))).toEqual({ spent: 0.1, open: [] });
	});

	test("one run's calls under one limit: each changes the count it wrote last without reading it again (two writes a call)", async () => {
		const numbersOf = Array.from({ length: 10 }, (_, i) => `+1415555030${i}`);
		await place(['+14155550399'], guardrails(spendingLimit(100, 0.5)));
		const before = n8nApi.store.requests.length;
		const { items } = await place(numbersOf, guardrails(spendingLimit(100, 0.5)));
		expect(items.filter((item) => item.json.internal_id)).toHaveLength(10);
		const requests = n8nApi.store.requests.slice(before);
		// The table found once, the count read once; then per call its reservation and, once placed, its call's id.
		expect(requests.filter((r) => r.method === 'GET')).toHaveLength(2);
		expect(requests.filter((r) => r.method !== 'GET')).toHaveLength(20);
	});

	test('Count Per Outbound Credential: every workflow with the same credential shares the limit', async () => {
		const limit = guardrails(spendingLimit(1, 0.6, 'credential'));
		await place(['+14155550101'], limit);
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...limit } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: '+14155550102' } }]],
			workflowId: 'another',
		});
		expect(results[0].error).toMatch(/the spending limit of the calls of this Outbound credential is reached/);
		expect(posts()).toHaveLength(1);
	});

	test('a call the platform refused gives its reservation back', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 400, times: 1 });
		await place(['+14155550101'], guardrails(spendingLimit(1, 0.6)));
		expect(JSON.parse(String(tableRows(SPEND_TABLE)[0].value))).toEqual({ spent: 0, open: [] });
	});

	test('amounts add up to the millionth, as trafficCost is written: 0.1 + 0.1 + 0.1 spent leaves room for 0.3 under 0.6', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 400, times: 1 });
		await place(['+14155550101'], guardrails(spendingLimit(0.6, 0.3)));
		tableRows(SPEND_TABLE)[0].value = JSON.stringify({ spent: 0.1 + 0.1 + 0.1, open: [] });
		const { items } = await place(['+14155550102'], guardrails(spendingLimit(0.6, 0.3)));
		expect(items[0].json.internal_id).toBeDefined();
	});

	test('an amount that is not above 0: refused naming the field', async () => {
		const { items, error } = await place(['+14155550101'], guardrails(spendingLimit(0, 0.6)));
		expect(error?.message ?? items[0].json.error).toMatch(/^Invalid "Guardrails > Spending Limit > Amount": must be an amount above 0/);
		expect(posts()).toHaveLength(0);
	});
});
