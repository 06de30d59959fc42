import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { CallingHours, WithoutTimeZone } from '../../../shared/guards/callingHours';
import { readCallingHours, readHoursField } from '../../../shared/guards/callingHours';
import { callingHoursProperty } from '../../../shared/guards/fields';
import type { TextColumn } from '../../../shared/campaign/campaignTables';
import { retryPolicyProperty } from '../../../shared/campaign/retryPolicy';
import { readAllowedDestinations } from '../../../shared/calls/allowedDestinations';
import { assertNotFromModel } from '../../../shared/n8n/agentTool';
import { assertIntegerInRange, invalid, numberField, textField } from '../../../shared/core/validation';

/** The fields the Campaign operations share, and their readers. */

export const CONTACTS_TABLE_FIELD = 'Contacts Table';

export function contactsTableProperty(operations: string[]): INodeProperties {
	return {
		displayName: 'Contacts Table',
		name: 'contactsTable',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Spring campaign contacts',
		description:
			"The data table that holds the campaign: one row per contact (import a CSV in n8n's Data tables), with the campaign's state columns beside yours (Prepare Contacts Table adds them). Its name or ID.",
		displayOptions: { show: { resource: ['campaign'], operation: operations } },
	};
}

export const DEFAULT_MAX_IN_FLIGHT = 5;
export const DEFAULT_MAX_PER_RUN = 20;
export const DEFAULT_CLAIM_MINUTES = 2;
export const DEFAULT_MAX_CALL_MINUTES = 30;
export const DEFAULT_STATUS_READS = 20;

const showDial = { resource: ['campaign'], operation: ['dial'] };

/** Dial Due Contacts: what to dial and how many at once; the placement fields come from placementProperties. */
export const dialProperties: INodeProperties[] = [
	{
		displayName:
			'Each run places the calls that are due, as many as lines are free, and ends: run it every minute (Schedule Trigger). Every contact\'s state is kept in the contacts table, written before each call is placed.',
		name: 'campaignDialNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showDial },
	},
	{
		displayName: 'Phone Column',
		name: 'phoneColumn',
		type: 'string',
		default: 'phone',
		description: "The contacts table's column with each contact's number, in international form (+…)",
		displayOptions: { show: showDial },
	},
	{
		displayName: 'Max Calls in Flight',
		name: 'maxCallsInFlight',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1000 },
		default: DEFAULT_MAX_IN_FLIGHT,
		description:
			"At most this many of the campaign's calls ring or talk at once, counted from the contacts table (so across executions and workers): your account's limit of simultaneous calls, less what other workflows use",
		displayOptions: { show: showDial },
	},
	{
		displayName: 'Max Calls per Run',
		name: 'maxCallsPerRun',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1000 },
		default: DEFAULT_MAX_PER_RUN,
		description: 'At most this many calls placed by one run, which keeps each execution short',
		displayOptions: { show: showDial },
	},
	callingHoursProperty('campaign', { displayOptions: { show: showDial } }),
	retryPolicyProperty(
		"The campaign's policy: which outcomes are called again, after how long, and how many attempts in all. Each contact a dial run claims keeps the policy it was claimed under (its retryPolicy column), so every result of that call is applied under it, by Record Call Result or a later dial run. The attempt is the one the contacts table holds, never one carried in a URL. ANSWER and unknown outcomes are never called again.",
		{ displayOptions: { show: showDial } },
	),
	{
		displayName: 'Campaign Options',
		name: 'campaignOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: showDial },
		options: [
			{
				displayName: 'Check Interval (Seconds)',
				name: 'checkIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, maxValue: 60, numberPrecision: 1 },
				default: 5,
				description: 'While a run keeps dialling: how often it reads the calls in flight to see whether a line is free',
			},
			{
				displayName: 'Keep Dialling For (Seconds)',
				name: 'keepDiallingSeconds',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 300 },
				default: 0,
				description:
					'How long one run goes on placing calls as lines free up (reading the status of calls in flight every Check Interval). 0: one pass. With a run every minute, 60: a run that starts while the one before still dials waits for it and takes over.',
			},
			{
				displayName: 'Max Call Length (Minutes)',
				name: 'maxCallMinutes',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 1440 },
				default: DEFAULT_MAX_CALL_MINUTES,
				description: 'A placed call with no result and no status record after this long is marked unknown and frees its line',
			},
			{
				displayName: 'Status Reads per Run',
				name: 'statusReads',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1000 },
				default: DEFAULT_STATUS_READS,
				description:
					'How many placed calls one run reads the status of (those waiting longest first), to record results that did not arrive at a trigger',
			},
			{
				displayName: 'Unconfirmed Claim After (Minutes)',
				name: 'claimMinutes',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 1440 },
				default: DEFAULT_CLAIM_MINUTES,
				description:
					'A contact claimed for a call whose answer was never written (n8n stopped between claiming and recording) is marked unknown after this long: the call may have been placed, so it is never dialled again automatically',
			},
		],
	},
];

export interface DialSettings {
	table: string;
	phoneColumn: string;
	maxInFlight: number;
	maxPerRun: number;
	/** Calling Hours: its windows, the column of each contact's time zone, and what a contact without one gets. */
	hours?: { windows: unknown[]; timeZoneColumn: string; withoutTimeZone: WithoutTimeZone };
	claimMs: number;
	maxCallMs: number;
	statusReads: number;
	keepMs: number;
	checkMs: number;
}

export function readDialSettings(ctx: IExecuteFunctions): DialSettings {
	const node = ctx.getNode();
	const options = (ctx.getNodeParameter('campaignOptions', 0, {}) ?? {}) as IDataObject;
	const hours = readHoursField(node, ctx.getNodeParameter('callingHours', 0, {}), 0);
	const phoneColumn = textField(node, 'Phone Column', ctx.getNodeParameter('phoneColumn', 0, 'phone'), 0, { numbers: false }).trim() || 'phone';
	// Read once before anything is claimed: a wrong list stops the run, naming the field, instead of failing every
	// contact; a contact's own number outside the list is that contact's refusal.
	assertNotFromModel(node, 'allowedDestinations', 'Allowed Destinations', 0);
	readAllowedDestinations(node, ctx.getNodeParameter('allowedDestinations', 0, ''), 0);
	const settings: DialSettings = {
		table: String(ctx.getNodeParameter('contactsTable', 0, '') ?? ''),
		phoneColumn,
		maxInFlight: assertIntegerInRange(node, 'Max Calls in Flight', ctx.getNodeParameter('maxCallsInFlight', 0, DEFAULT_MAX_IN_FLIGHT), 1, 1000, 0),
		maxPerRun: assertIntegerInRange(node, 'Max Calls per Run', ctx.getNodeParameter('maxCallsPerRun', 0, DEFAULT_MAX_PER_RUN), 1, 1000, 0),
		claimMs: assertIntegerInRange(node, 'Unconfirmed Claim After (Minutes)', options.claimMinutes ?? DEFAULT_CLAIM_MINUTES, 1, 1440, 0) * 60_000,
		maxCallMs: assertIntegerInRange(node, 'Max Call Length (Minutes)', options.maxCallMinutes ?? DEFAULT_MAX_CALL_MINUTES, 1, 1440, 0) * 60_000,
		statusReads: assertIntegerInRange(node, 'Status Reads per Run', options.statusReads ?? DEFAULT_STATUS_READS, 0, 1000, 0),
		keepMs: assertIntegerInRange(node, 'Keep Dialling For (Seconds)', options.keepDiallingSeconds ?? 0, 0, 300, 0) * 1000,
		checkMs: Math.round(numberField(node, 'Check Interval (Seconds)', options.checkIntervalSeconds ?? 5, 5, 0) * 1000),
	};
	if (settings.checkMs < 100 || settings.checkMs > 60_000) throw invalid(node, 'Check Interval (Seconds)', 'must be a number from 0.1 to 60', 0);
	if (hours) {
		settings.hours = {
			windows: hours.windows,
			timeZoneColumn: String(hours.zone.timeZoneColumn ?? 'timezone').trim(),
			withoutTimeZone: hours.withoutTimeZone,
		};
		// Checked once before anything is claimed: a wrong time or day stops the run, naming the field.
		readCallingHours(node, hours.windows, undefined, ctx.getTimezone(), 0);
		if (settings.hours.timeZoneColumn === '' && settings.hours.withoutTimeZone === 'refuse') {
			throw invalid(node, 'Calling Hours > Time Zone > Time Zone Column', "must name the contacts table's time zone column, or Without a Time Zone must be Use the Workflow's Time Zone: no contact could be judged", 0);
		}
	}
	return settings;
}

/**
 * The user's columns a dial run reads as text, checked before anything is claimed: the phone column (a Number column
 * has lost each number's leading +), and with Calling Hours the Time Zone Column when one is named (a missing,
 * renamed or non-text column would call every contact in the workflow's time zone, at night for some).
 */
export function dialTextColumns(settings: DialSettings): TextColumn[] {
	const columns: TextColumn[] = [
		{
			column: settings.phoneColumn,
			field: 'Phone Column',
			why: "Name the column that holds each contact's number in international form (+…). A Number column keeps no leading + (n8n proposes Number for a column of digits when a CSV is imported: choose String there).",
		},
	];
	const zone = settings.hours?.timeZoneColumn;
	if (zone) {
		columns.push({
			column: zone,
			field: 'Calling Hours > Time Zone > Time Zone Column',
			alternative: ", or be left empty with Without a Time Zone set to Use the Workflow's Time Zone",
			why: "Each contact's calling hours are in the time zone its cell names (e.g. Europe/Rome; an empty cell: not dialled, unless Without a Time Zone allows the workflow's). Without the column every contact would be judged in the workflow's time zone, at night for some.",
		});
	}
	return columns;
}

/**
 * The calling hours of one contact, in the time zone its row names: undefined without Calling Hours; `noTimeZone`
 * when its cell is empty and Without a Time Zone refuses; `invalid` when its cell is not a time zone.
 */
export function contactHours(
	ctx: IExecuteFunctions,
	settings: DialSettings,
	row: IDataObject,
): CallingHours | { invalid: string } | { noTimeZone: string } | undefined {
	const hours = settings.hours;
	if (!hours) return undefined;
	const cell = hours.timeZoneColumn ? row[hours.timeZoneColumn] : undefined;
	const zone = typeof cell === 'string' ? cell.trim() : '';
	if (zone === '' && hours.withoutTimeZone === 'refuse') {
		return { noTimeZone: `its time zone (column ${hours.timeZoneColumn || '(none)'}) is empty, so its calling hours cannot be judged: fill it, then set the contact pending` };
	}
	try {
		return readCallingHours(ctx.getNode(), hours.windows, zone === '' ? undefined : zone, ctx.getTimezone(), 0);
	} catch (error) {
		return { invalid: (error as Error).message };
	}
}
