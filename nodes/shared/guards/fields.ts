import type { INodeProperties, NodeParameterValue } from 'n8n-workflow';

import { DEFAULT_LIMIT_MAX, DEFAULT_LIMIT_WINDOW_MINUTES, MAX_LIMIT, MAX_WINDOW_MINUTES } from '../calls/callLimit';

import { CALLING_WINDOW_FIELDS } from './callingHours';
import { MAX_PERIOD_HOURS } from './callsPerNumber';
import { DEFAULT_DO_NOT_CALL_TABLE } from './doNotCall';

/*
 * The guards every route to a call shows (Place Call, Call and Wait, Dial Due Contacts): Calling Hours, and the
 * Guardrails collection of the guards kept in this n8n's data tables, each off until added. A campaign's calling hours
 * are its own Calling Hours field (it defers a contact outside them).
 */

/** Where the fields are shown: Place Call, Call and Wait, or Campaign → Dial Due Contacts (numbers from its table). */
export type PlacementMode = 'placeCall' | 'placeCallAndWait' | 'campaignDial';

/**
 * The display condition "Guardrails has nothing added": the Data Tables API credential is hidden then (the guards
 * need it only once one is added). n8n compares a collection's value with lodash's isEqual, and a collection with
 * nothing added is `{}`; the type of a credential's display condition names only scalar values, hence the cast.
 */
export const NO_GUARDRAIL_ADDED = { _cnd: { eq: {} } } as unknown as NodeParameterValue;

/** What a call without a known time zone gets: the options of Calling Hours > Without a Time Zone. */
export const WITHOUT_TIME_ZONE_FIELD: INodeProperties = {
	displayName: 'Without a Time Zone',
	name: 'withoutTimeZone',
	type: 'options',
	default: 'refuse',
	options: [
		{ name: 'Refuse the Call', value: 'refuse', description: 'Whether it is inside the hours cannot be judged: not dialled' },
		{ name: "Use the Workflow's Time Zone", value: 'workflow', description: "Judge the hours in the workflow's time zone (workflow settings)" },
	],
	description:
		"What a call to a person whose time zone is not known (empty, or Time Zone not added) gets: refused (the safe choice: a number's prefix does not tell where its owner is), or judged in the workflow's time zone",
};

/** Guardrails > Limit Calls Across Executions: a cap on the calls in a rolling window, across executions. */
function callLimitOption(): INodeProperties {
	return {
		displayName: 'Limit Calls Across Executions',
		name: 'callLimit',
		type: 'fixedCollection',
		default: {},
		placeholder: 'Add Limit',
		description:
			"A cap on the calls this node places in a rolling window, counted in a data table of this n8n so that it holds across executions: an MCP client's tool calls, a sub-workflow an agent runs as a tool, parallel executions and queue-mode workers",
		options: [
			{
				displayName: 'Limit',
				name: 'limit',
				values: [
					{
						displayName: 'Max Calls',
						name: 'max',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: MAX_LIMIT },
						default: DEFAULT_LIMIT_MAX,
						description: 'The most calls placed in any window of Per (Minutes). Further calls are refused before anything is sent. Calls the platform refused do not count; calls whose outcome is unknown do.',
					},
					{
						displayName: 'Per (Minutes)',
						name: 'minutes',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: MAX_WINDOW_MINUTES },
						default: DEFAULT_LIMIT_WINDOW_MINUTES,
						description: 'The rolling window the calls are counted in, in minutes (a call counts for this long after it was placed)',
					},
					{
						displayName: 'Count Per',
						name: 'countPer',
						type: 'options',
						default: 'workflow',
						options: [
							{ name: 'Workflow', value: 'workflow', description: 'Every execution of this workflow counts together (every MCP client of an MCP Server Trigger, for instance)' },
							{ name: 'Outbound Credential', value: 'credential', description: 'Every workflow using the same Outbound API credential counts together' },
							{
								name: 'Calling Execution',
								value: 'callingExecution',
								description:
									'Each execution of the workflow that called this one counts on its own: an AI agent run that uses this workflow as a tool (Call n8n Workflow Tool). Refused when this workflow was not called by another.',
							},
						],
						description: 'Which calls share one count',
					},
				],
			},
		],
	};
}

/**
 * The Guardrails collection: the guards kept in this n8n's data tables (the Assistant Platform Data Tables API
 * credential is shown, and needed, once one is added). Dial Due Contacts has its own (`campaignGuardrails`): its
 * lines are its cap, and its spend may count per campaign.
 */
export function guardrailsProperty(mode: PlacementMode, display: Partial<INodeProperties>): INodeProperties {
	const options: INodeProperties[] = [
		{
			displayName: 'Do-Not-Call List',
			name: 'doNotCallList',
			type: 'string',
			default: DEFAULT_DO_NOT_CALL_TABLE,
			description:
				'A data table of this n8n (its name or ID) whose phone column lists the numbers never called, in international form (+390212345678), or prefixes ending in * (+1900*). Looked up right before every call, so a number added while calls go on is never called from then on; Do-Not-Call List → Add Number adds one. A listed number is refused (No call was placed); a campaign contact ends as doNotCall.',
		},
		{
			displayName: 'Max Calls per Number',
			name: 'callsPerNumber',
			type: 'fixedCollection',
			default: {},
			placeholder: 'Add Limit',
			description: `At most this many calls to one number in a rolling period, counted across every campaign, workflow and agent that has it set, in the data table "Assistant Platform Calls per Number" of this n8n (periods up to ${MAX_PERIOD_HOURS} hours)`,
			options: [
				{
					displayName: 'Limit',
					name: 'limit',
					values: [
						{ displayName: 'Max Calls', name: 'max', type: 'number', typeOptions: { minValue: 1 }, default: 3, description: 'The most calls to one number in the period' },
						{ displayName: 'Per (Hours)', name: 'hours', type: 'number', typeOptions: { minValue: 1, maxValue: MAX_PERIOD_HOURS }, default: 24, description: 'The rolling period, in hours (168 for a week)' },
					],
				},
			],
		},
		spendingLimitOption(mode),
	];
	if (mode !== 'campaignDial') options.push(callLimitOption());
	return {
		displayName: 'Guardrails',
		name: mode === 'campaignDial' ? 'campaignGuardrails' : 'guardrails',
		type: 'collection',
		placeholder: 'Add Guardrail',
		default: {},
		description:
			"Checks every call passes right before it is placed, kept in this n8n's data tables (they need the Assistant Platform Data Tables API credential): a do-not-call list, a limit of calls per number across every campaign and workflow, a spending limit" +
			(mode === 'campaignDial' ? '' : ', and a cap on calls across executions'),
		options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
		...display,
	};
}

function spendingLimitOption(mode: PlacementMode): INodeProperties {
	const countPer: INodeProperties = {
		displayName: 'Count Per',
		name: 'countPer',
		type: 'options',
		default: 'workflow',
		options: [
			{ name: 'Workflow', value: 'workflow', description: 'Every call this workflow places' },
			{ name: 'Outbound Credential', value: 'credential', description: 'Every call placed with the same Outbound API credential' },
		],
		description: 'Which calls share one spending limit',
	};
	if (mode === 'campaignDial') {
		countPer.options = [{ name: 'Campaign', value: 'campaign', description: "This campaign's calls (its contacts table)" }, ...(countPer.options ?? [])];
		countPer.default = 'campaign';
	}
	return {
		displayName: 'Spending Limit',
		name: 'spendingLimit',
		type: 'fixedCollection',
		default: {},
		placeholder: 'Add Limit',
		description:
			"Calls stop once what they cost (the platform's trafficCost, as each call's record gives it) plus what the calls in flight may still cost reaches this amount, counted in the data table \"Assistant Platform Spend\" of this n8n",
		options: [
			{
				displayName: 'Limit',
				name: 'limit',
				values: [
					{ displayName: 'Amount', name: 'amount', type: 'number', typeOptions: { minValue: 0, numberPrecision: 6 }, default: 0, description: "The most all calls may cost, in the currency of the platform's trafficCost" },
					{
						displayName: 'Estimated Cost per Call',
						name: 'perCall',
						type: 'number',
						typeOptions: { minValue: 0, numberPrecision: 6 },
						default: 0,
						description: 'What one call may cost at most: reserved before each call until its record gives what it cost',
					},
					countPer,
				],
			},
		],
	};
}

/**
 * Calling Hours, on every route to a call: windows of days and hours (one per rule: Monday to Friday 08:00-21:00 and
 * Saturday 10:00-14:00 are two), and the called person's time zone (Place Call and Call and Wait: an expression of
 * the item; Dial Due Contacts: a column of the contacts table), with what a call gets without one. A call outside
 * every window is refused; a campaign defers its contact until a window opens.
 */
export function callingHoursProperty(route: 'call' | 'campaign', display: Partial<INodeProperties>): INodeProperties {
	const zone: INodeProperties =
		route === 'call'
			? {
					displayName: 'Time Zone',
					name: 'timeZone',
					type: 'string',
					default: '',
					placeholder: 'e.g. {{ $json.timezone }}',
					description: "The called person's time zone (an IANA name such as Europe/Rome), usually an expression reading it from the item",
				}
			: {
					displayName: 'Time Zone Column',
					name: 'timeZoneColumn',
					type: 'string',
					default: 'timezone',
					description: "The contacts table's column with each contact's time zone (an IANA name such as Europe/Rome)",
				};
	return {
		displayName: 'Calling Hours',
		name: 'callingHours',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: 'Add Calling Hours',
		description:
			route === 'call'
				? "When a person may be called, in their time zone: add a Window per rule (days and hours) and the Time Zone once. A call outside every window is refused (No call was placed), saying when the hours open."
				: "When a contact may be called, in the contact's time zone: add a Window per rule (days and hours) and the Time Zone once. A contact due outside every window is deferred until one opens.",
		options: [
			{ displayName: 'Window', name: 'window', values: CALLING_WINDOW_FIELDS },
			{ displayName: 'Time Zone', name: 'timeZone', values: [zone, WITHOUT_TIME_ZONE_FIELD] },
		],
		...display,
	};
}
