import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import type { CallingWindow } from './callingHours';
import { isIsoDateText, isOpen, nextOpening, readCallingWindow, readDateTime, WEEKDAYS } from './callingHours';
import { isObject } from '../core/object';
import { readNumber } from '../core/numbers';
import type { Placement } from '../calls/placement';
import type { NextCall } from './retryPolicy';
import { deferredNextCall, noCall, retryPolicyProperty } from './retryPolicy';
import type { ResultContext } from './resultContext';
import { CONTEXT_RULES, MAX_ATTEMPT_NUMBER, readAttempt, readResultContext, urlWithContext } from './resultContext';
import { REDACTED } from '../core/redact';
import { assertIntegerInRange, invalid, kindOf } from '../core/validation';

/*
 * The Campaign options of a placement (Place Call, Call and Wait): the attempt and the Result Context
 * carried to the result, calling hours and an earliest call time (an item whose time has not come is
 * deferred: not dialled, it comes out with the time it may be), and, for Place Call, Max Calls in Flight
 * and Skip Numbers Already Called.
 */

export type CampaignMode = 'placeCall' | 'placeCallAndWait';

export const MAX_CALLS_IN_FLIGHT_LIMIT = 1000;
export const DEFAULT_STATUS_CHECK_SECONDS = 5;
export const DEFAULT_MAX_CALL_MINUTES = 30;

/** The days and hours of a calling window, as Place Call's Campaign options and a campaign's Dial Due Contacts ask them. */
export const CALLING_WINDOW_FIELDS: INodeProperties[] = [
	{
		displayName: 'Days',
		name: 'days',
		type: 'multiOptions',
		default: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
		description: 'Days a window starts on',
		options: WEEKDAYS.map((day) => ({ name: day[0].toUpperCase() + day.slice(1), value: day })),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '09:00',
		placeholder: 'e.g. 09:00',
		description: 'Local time the window opens (HH:MM)',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '20:00',
		placeholder: 'e.g. 20:00',
		description:
			'Local time the window closes (HH:MM, 24:00 for midnight). Earlier than From: the window ends the next day (22:00 to 02:00).',
	},
];

/** The Campaign collection (`campaign`) of a placement. */
export function campaignProperty(mode: CampaignMode, display: Partial<INodeProperties> = {}): INodeProperties {
	const options: INodeProperties[] = [
		{
			displayName: 'Attempt',
			name: 'attempt',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_ATTEMPT_NUMBER },
			default: 1,
			description:
				"Which call to this contact this is: 1 for the first. Comes back with the result (attempt) and the Retry Policy counts it; in a retry loop use the item's nextCall.attempt.",
		},
		callingHoursOption(),
		{
			displayName: 'Earliest Call Time',
			name: 'notBefore',
			type: 'dateTime',
			default: '',
			description:
				"Do not dial before this time (in a retry loop, the item's nextCall.at). An item whose time has not come comes out with nextCall.at, like one outside its Calling Hours. A date and time without an offset (2026-03-02T09:30) is in the workflow's time zone (workflow settings); one with Z or an offset is as written.",
		},
		resultContextOption(),
	];
	if (mode === 'placeCall') options.push(...placeCallOptions());
	return {
		displayName: 'Campaign',
		name: 'campaign',
		type: 'collection',
		placeholder: 'Add Campaign Option',
		default: {},
		description: 'Options for calling lists of contacts: attempt and context carried to the result, calling hours, calls at once',
		options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		...display,
	};
}

/** Campaign > Calling Hours: the window a contact may be called in, in the contact's time zone. */
function callingHoursOption(): INodeProperties {
	return {
		displayName: 'Calling Hours',
		name: 'callingHours',
		type: 'fixedCollection',
		placeholder: 'Add Calling Hours',
		default: {},
		description:
			"When a contact may be called. An item outside its window is not dialled: it comes out with nextCall.at, the time the window opens next (not an error), so the workflow can hold it (Wait node) and send it here again.",
		options: [
			{
				displayName: 'Window',
				name: 'window',
				values: [
					...CALLING_WINDOW_FIELDS,
					{
						displayName: 'Time Zone',
						name: 'timeZone',
						type: 'string',
						default: '',
						placeholder: 'e.g. Europe/Rome',
						description:
							"The contact's time zone (an IANA name), usually an expression per item. Empty: the workflow's time zone (workflow settings).",
					},
				],
			},
		],
	};
}

/** Campaign > Result Context: fields carried to the call result under "context". */
function resultContextOption(): INodeProperties {
	return {
		displayName: 'Result Context',
		name: 'resultContext',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		description: `Fields that come back with the call result under "context", e.g. the contact's number in your CRM: in the Assistant Platform Trigger's Call Result (carried in the Call Result URL's query string), in Call and Wait's output and in this node's output. Limits: ${CONTEXT_RULES}.`,
		options: [
			{
				displayName: 'Field',
				name: 'fields',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						placeholder: 'e.g. customer',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						placeholder: 'e.g. C-1042',
					},
				],
			},
		],
	};
}

/** The Campaign options of Place Call only: calls at once, their length, repeated numbers and status reads. */
function placeCallOptions(): INodeProperties[] {
	return [
		{
			displayName: 'Max Calls in Flight',
			name: 'maxCallsInFlight',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_CALLS_IN_FLIGHT_LIMIT },
			default: 5,
			description:
				"At most this many of this execution's calls ring or talk at once: the next call is placed when one of them has ended (read from Call Status). The node follows every call to its end and outputs its outcome and nextCall (Retry Policy). Set it to your account's limit of simultaneous calls (less what other workflows use). A 429 refusal (nothing was placed) is waited out and the call placed then. Only a call's own status record frees its line; when status reads fail 10 times in a row, nothing more is dialled and the node stops, naming the calls still in flight. Batching is not used.",
		},
		{
			displayName: 'Max Call Length (Minutes)',
			name: 'maxCallMinutes',
			type: 'number',
			typeOptions: { minValue: 0.01, maxValue: 1440, numberPrecision: 2 },
			default: DEFAULT_MAX_CALL_MINUTES,
			description:
				'With Max Calls in Flight: a call whose record has not appeared after this long is given up on (output pending, outcome unknown) and its line counted free',
		},
		{
			displayName: 'Skip Numbers Already Called',
			name: 'skipRepeatedNumbers',
			type: 'boolean',
			default: true,
			description:
				'Whether an item whose Destination Number this node already dialled in this execution for the same Attempt is skipped (it comes out saying so): a contact listed twice is called once. A retry (the next Attempt) is dialled.',
		},
		{
			displayName: 'Status Check Interval (Seconds)',
			name: 'statusCheckInterval',
			type: 'number',
			typeOptions: { minValue: 0.01, maxValue: 600, numberPrecision: 2 },
			default: DEFAULT_STATUS_CHECK_SECONDS,
			description:
				'With Max Calls in Flight, while every line is busy: how often the status of the calls in progress is read (one read per call each time). Shorter frees lines sooner and costs more reads.',
		},
	];
}

/** The Campaign collection and the Retry Policy of a placement, with its display condition. */
export function campaignPlacementProperties(mode: CampaignMode, display: Partial<INodeProperties>): INodeProperties[] {
	return [
		campaignProperty(mode, display),
		retryPolicyProperty(
			mode === 'placeCall'
				? 'With Campaign > Max Calls in Flight, each call comes out with its outcome and nextCall: whether to call the contact again, when, with which attempt, and why. ANSWER is never called again, nor an outcome not known. Empty: no status is called again.'
				: 'The call result comes out with nextCall: whether to call the contact again, when, with which attempt, and why. ANSWER is never called again, nor an outcome not known (Max Wait passed). Empty: no status is called again.',
			display,
		),
	];
}

/** The run-wide Campaign settings (read from the first item), or undefined when no Campaign option is set. */
export interface CampaignRun {
	maxCallsInFlight?: number;
	statusCheckIntervalMs: number;
	maxCallMs: number;
	skipRepeatedNumbers: boolean;
	workflowTimeZone: string;
}

/** What the Campaign options say about one item. */
export interface CampaignItem {
	attempt: number;
	context: ResultContext;
	window?: CallingWindow;
	notBefore?: number;
}

function options(ctx: IExecuteFunctions, i: number): IDataObject {
	const raw = ctx.getNodeParameter('campaign', i, {}) as unknown;
	return isObject(raw) ? raw : {};
}

function secondsToMs(node: INode, field: string, value: unknown, min: number, max: number): number {
	const n = readNumber(value);
	if (n === undefined || n < min || n > max) {
		throw invalid(node, field, `must be a number from ${min} to ${max} (got ${typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value) : kindOf(value)})`, 0);
	}
	return Math.round(n * 1000);
}

export function readCampaignRun(ctx: IExecuteFunctions, node: INode, mode: CampaignMode): CampaignRun | undefined {
	const raw = options(ctx, 0);
	if (Object.keys(raw).length === 0) return undefined;
	const run: CampaignRun = {
		statusCheckIntervalMs: DEFAULT_STATUS_CHECK_SECONDS * 1000,
		maxCallMs: DEFAULT_MAX_CALL_MINUTES * 60_000,
		skipRepeatedNumbers: mode === 'placeCall' && raw.skipRepeatedNumbers !== false,
		workflowTimeZone: ctx.getTimezone(),
	};
	if (mode !== 'placeCall') return run;
	if (raw.maxCallsInFlight !== undefined) {
		run.maxCallsInFlight = assertIntegerInRange(node, 'Campaign > Max Calls in Flight', raw.maxCallsInFlight, 1, MAX_CALLS_IN_FLIGHT_LIMIT, 0);
	}
	if (raw.statusCheckInterval !== undefined) {
		run.statusCheckIntervalMs = secondsToMs(node, 'Campaign > Status Check Interval (Seconds)', raw.statusCheckInterval, 0.01, 600);
	}
	if (raw.maxCallMinutes !== undefined) {
		run.maxCallMs = secondsToMs(node, 'Campaign > Max Call Length (Minutes)', raw.maxCallMinutes, 0.01, 1440) * 60;
	}
	return run;
}

/**
 * A zone named in text that is not ISO 8601 (RFC 2822 and HTTP dates, a JS Date's text): GMT, UTC, UT, Z,
 * a US zone of RFC 2822, or an offset after the time.
 */
const NAMED_ZONE = /\b(?:GMT|UTC|UT|Z|[ECMP][SD]T)\b|\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*[+-]\d{2}:?\d{2}\b/;

/**
 * The instant a date and time in text names. ISO 8601 without an offset (`2026-03-02T09:30`,
 * `2026-03-02 09:30:00`) is read on the clocks of the workflow's time zone, as n8n's Wait node reads its
 * date and time, never in the zone of the machine n8n runs on; with `Z` or an offset as written. Text in
 * another form is read only when it names its zone (Date.parse would read it in the machine's zone).
 */
function readInstantText(text: string, timeZone: string): number {
	if (!isIsoDateText(text)) return NAMED_ZONE.test(text) ? Date.parse(text) : Number.NaN;
	try {
		return readDateTime(text, timeZone) ?? Number.NaN;
	} catch {
		// A workflow time zone this runtime's Intl does not know: only text with an offset can be read.
		return Number.NaN;
	}
}

function readInstant(node: INode, value: unknown, itemIndex: number, timeZone: string): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	let ms: number = Number.NaN;
	if (typeof value === 'string') ms = readInstantText(value.trim(), timeZone);
	else if (typeof value === 'number') ms = value;
	else if (value instanceof Date) ms = value.getTime();
	else if (isObject(value) && typeof (value as { toMillis?: unknown }).toMillis === 'function') {
		ms = (value as unknown as { toMillis(): number }).toMillis();
	}
	if (!Number.isFinite(ms)) {
		throw invalid(
			node,
			'Campaign > Earliest Call Time',
			`must be a date and time such as 2026-03-02T09:30 (in the workflow's time zone, ${timeZone}) or 2026-03-02T09:30:00Z (got ${typeof value === 'string' ? `"${value}"` : kindOf(value)})`,
			itemIndex,
		);
	}
	return ms;
}

/** Reads and checks item `i`'s Campaign options. */
export function readCampaignItem(ctx: IExecuteFunctions, node: INode, i: number, run: CampaignRun): CampaignItem {
	const raw = options(ctx, i);
	const attempt = raw.attempt === undefined ? 1 : readAttempt(node, raw.attempt, i);
	const context = readResultContext(node, raw.resultContext, attempt, i);
	const item: CampaignItem = { attempt, context };
	const window = isObject(raw.callingHours) ? raw.callingHours.window : undefined;
	if (isObject(window)) item.window = readCallingWindow(node, window, run.workflowTimeZone, i);
	item.notBefore = readInstant(node, raw.notBefore, i, run.workflowTimeZone);
	return item;
}

/**
 * Adds item `i`'s attempt and Result Context to the call's Call Result URL, when it has one: the body sent
 * carries them to the result, the summary shown says the URL's query is redacted.
 */
export function carryInCallResultUrl(node: INode, i: number, placement: Placement, item: CampaignItem): void {
	for (const field of ['callResultUrl', 'url_esito_chiamata']) {
		const url = placement.body[field];
		if (typeof url !== 'string') continue;
		placement.body[field] = urlWithContext(node, url, item.context, item.attempt, i);
		if (typeof placement.summary.callResultUrl === 'string' && !placement.summary.callResultUrl.endsWith(`?${REDACTED}`)) {
			placement.summary.callResultUrl = `${placement.summary.callResultUrl}?${REDACTED}`;
		}
	}
}

/** Why an item is deferred (its time has not come), and the time it may be dialled. */
interface Deferral {
	at: number;
	reason: string;
}

/**
 * Whether the item is deferred at `now`: undefined when it may be dialled, else the time it may be and why
 * (its Earliest Call Time has not come, or it is outside its Calling Hours).
 */
export function deferralAt(item: CampaignItem, now: number): Deferral | undefined {
	const earliest = item.notBefore !== undefined && item.notBefore > now ? item.notBefore : now;
	const at = item.window ? nextOpening(item.window, earliest) : earliest;
	if (at <= now) return undefined;
	const when = new Date(at).toISOString();
	if (item.window && !isOpen(item.window, now) && (item.notBefore === undefined || item.notBefore <= now)) {
		return { at, reason: `outside calling hours (${item.window.label}): not dialled; the window opens at ${when}` };
	}
	return { at, reason: `Earliest Call Time not reached: not dialled before ${when}` };
}

/** The fields a Campaign adds to an item about a call: attempt, context and the decision. */
export function campaignFields(item: CampaignItem, nextCall: NextCall): IDataObject {
	return { attempt: item.attempt, context: { ...item.context }, nextCall };
}

/** The output of a deferred item: not dialled because its time has not come. */
export function deferredItem(item: CampaignItem, placement: Placement, deferral: Deferral): IDataObject {
	return {
		placed: false,
		outcome: 'deferred',
		reason: deferral.reason,
		...placement.summary,
		...campaignFields(item, deferredNextCall(deferral.at, item.attempt, deferral.reason)),
	};
}

/** The output of an item skipped because its number was dialled already for this attempt. */
export function skippedItem(item: CampaignItem, placement: Placement, reason: string): IDataObject {
	return {
		placed: false,
		outcome: 'skipped',
		reason,
		...placement.summary,
		...campaignFields(item, noCall(reason)),
	};
}

/**
 * The numbers this node dialled in this execution, per attempt, kept in the node's execution context
 * (n8n saves it with the execution, across runs of the node and waits): "+14155550123#1" -> the item.
 */
export function dialledNumbers(ctx: IExecuteFunctions): Record<string, string> {
	const nodeContext = ctx.getContext('node') as IDataObject;
	if (!isObject(nodeContext.dialled)) nodeContext.dialled = {};
	return nodeContext.dialled as Record<string, string>;
}

export function dialKey(dst: string, attempt: number): string {
	return `${dst}#${attempt}`;
}
