import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { additionalFieldsJson } from './fields';
import { CONTEXT_RULES } from '../campaign/resultContext';
import { allowedDestinationsProperty } from '../calls/allowedDestinations';
import type { PlacementMode } from '../guards/fields';
import { callingHoursProperty, guardrailsProperty } from '../guards/fields';

type Show = NonNullable<IDisplayOptions['show']>;

export type { PlacementMode };

export const DEFAULT_MAX_WAIT_MINUTES = 15;
export const MAX_WAIT_MINUTES_LIMIT = 10_080;
export const DEFAULT_RESULT_RECORD_WAIT_SECONDS = 3;

/**
 * The fields of a call placement, shared by Outbound Call → Place Call (Assistant Platform node) and
 * the Assistant Platform Call and Wait node. `show` is the display condition of the operation
 * (empty on a node with one operation).
 */
export function placementProperties(show: Show, mode: PlacementMode): INodeProperties[] {
	const when = displayWhen(show);
	const properties: INodeProperties[] = [];
	if (mode !== 'campaignDial') properties.push(noticeProperty(mode, when()));
	properties.push(routeProperty(when()));
	if (mode !== 'campaignDial') properties.push(destinationProperty(when()));
	properties.push(allowedDestinationsProperty(when()));
	// A campaign has its own Calling Hours (a contact outside them is deferred, not refused).
	if (mode !== 'campaignDial') properties.push(callingHoursProperty('call', when()));
	properties.push(guardrailsProperty(mode, when()), callerIdProperty(when()), pbxAddressProperty(when({ route: ['pbx'] })));
	if (mode === 'placeCallAndWait') properties.push(maxWaitProperty(when()));
	properties.push(
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: placementOptions(mode),
			...when(),
		},
		jsonEscapeHatch(when()),
	);
	return properties;
}

/** The display condition of a field: the operation's `show` and `extra`, none when both are empty. */
function displayWhen(show: Show): (extra?: Show) => Partial<INodeProperties> {
	return (extra: Show = {}) => {
		const merged = { ...show, ...extra };
		return Object.keys(merged).length > 0 ? { displayOptions: { show: merged } } : {};
	};
}

/** What the node does with each item: one real call, never retried (Place Call), or one call and a wait (Call and Wait). */
function noticeProperty(mode: PlacementMode, display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName:
			mode === 'placeCall'
				? 'Each input item places one real phone call, exactly once: never retried. To pace the calls, use Settings > Request Options > Batching; to call a list until each contact is reached, use Campaign → Dial Due Contacts.'
				: 'Places one real phone call, then pauses the execution (no worker held) until its result arrives or Max Wait ends. One input item per execution.',
		name: mode === 'placeCall' ? 'placeCallNotice' : 'placeCallAndWaitNotice',
		type: 'notice',
		default: '',
		...display,
	};
}

/** Route: the platform's trunk or the user's PBX. */
function routeProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Route',
		name: 'route',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Platform Trunk',
				value: 'trunk',
				description:
					"Through the platform's VoIP trunks (POST /webhook/outbound_call). Caller ID must be a demo or purchased number assigned to the assistant.",
			},
			{
				name: 'Your PBX',
				value: 'pbx',
				description:
					'Through your own PBX (POST /webhook/outbound_call_pbx). The PBX address must be authorized for your account.',
			},
		],
		default: 'trunk',
		description: 'Which route the call takes',
		...display,
	};
}

/** Destination Number: the number to call (E.164). */
function destinationProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Destination Number',
		name: 'dst',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +14155550123',
		description:
			'The number to call, in international (E.164) form: a leading + and the country code. Short national numbering plans are accepted.',
		...display,
	};
}

/** Caller ID: the number shown to the person called (E.164). */
function callerIdProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Caller ID',
		name: 'callerId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +390212345678',
		description:
			'The number shown to the person called, in international (E.164) form. On the platform trunk it must be a demo or purchased number assigned to the assistant.',
		...display,
	};
}

/** PBX Address: the PBX the PBX route goes through. */
function pbxAddressProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'PBX Address',
		name: 'ipPbx',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. pbx.example.com or 203.0.113.10',
		description:
			'IP address (v4 or v6) or hostname of your PBX. It must be authorized for your account on the platform.',
		...display,
	};
}

/** Max Wait (Minutes) of Call and Wait: how long the execution waits for the call result. */
function maxWaitProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Max Wait (Minutes)',
		name: 'maxWaitMinutes',
		type: 'number',
		typeOptions: { minValue: 0.1, maxValue: MAX_WAIT_MINUTES_LIMIT },
		default: DEFAULT_MAX_WAIT_MINUTES,
		description:
			'How long the execution waits for the call result. If none arrives in time, the workflow continues with an item whose resultSource is "timeout" and which still carries internal_id: connect Assistant Platform → Call Status → Get (Wait for Call Record) to read the outcome.',
		...display,
	};
}

/** The Options of a placement (Call and Wait has no Call Result URL: its result comes to the execution's resume URL). */
function placementOptions(mode: PlacementMode): INodeProperties[] {
	const options: INodeProperties[] = [
		{
			displayName: 'Additional Prompt',
			name: 'addPrompt',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			description: 'Text added to the assistant prompt for this call only (sent as addPrompt)',
			displayOptions: { show: { '/route': ['pbx'] } },
		},
		{
			displayName: 'Assistant API Key Override',
			name: 'assistantApiKeyOverride',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Use this assistant key instead of the one in the Outbound API credential, e.g. to call from another assistant. A value typed here is stored in the workflow: prefer the credential, or an expression that reads the key from a secure source.',
		},
	];
	if (mode !== 'placeCallAndWait') {
		options.push({
			displayName: 'Call Result URL',
			name: 'callResultUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://n8n.example.com/webhook/…/call-result',
			description:
				'Where the platform POSTs the call result ({internal_id, dialstatus, duration}) when the call ends, e.g. the URL of an Assistant Platform Trigger. Must be an http:// or https:// URL.',
		});
	}
	if (mode === 'placeCall') options.push(resultContextOption());
	options.push(
		{
			displayName: 'Send Legacy Field Names',
			name: 'legacyFieldNames',
			type: 'boolean',
			default: false,
			description:
				'Whether to send the legacy names apiKey_assistente and url_esito_chiamata instead of assistantApiKey and callResultUrl. Only for old accounts that need them; new integrations use the current names.',
		},
		{
			displayName: 'SIP Port',
			name: 'sipPort',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 65535 },
			default: 5060,
			description: 'SIP port of your PBX (1 to 65535). Not sent unless added here.',
			displayOptions: { show: { '/route': ['pbx'] } },
		},
	);
	if (mode === 'placeCallAndWait') {
		options.push({
			displayName: 'Status Read Wait After Result (Seconds)',
			name: 'resultRecordWait',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 60, numberPrecision: 1 },
			default: DEFAULT_RESULT_RECORD_WAIT_SECONDS,
			description:
				'When the call result arrives, the node also reads the call status (billed seconds, traffic cost). The record may take a moment to be written: keep reading for up to this long (0 to 60) before continuing without it (statusRecord "pending"). The platform waits for the answer to its result request meanwhile, so keep it short.',
		});
	}
	return options;
}

/** Place Call's Options > Result Context: fields carried to the call result under "context". */
function resultContextOption(): INodeProperties {
	return {
		displayName: 'Result Context',
		name: 'resultContext',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		description: `Fields that come back with the call result under "context", e.g. the contact's ID in your CRM: in the Assistant Platform Trigger's Call Result (carried in the Call Result URL's query string: use identifiers, never personal data) and in this node's output. Limits: ${CONTEXT_RULES}.`,
		options: [
			{
				displayName: 'Field',
				name: 'fields',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'e.g. contactId' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '', placeholder: 'e.g. C-1042' },
				],
			},
		],
	};
}

/** "Additional Fields (JSON)" (shared wording), with this operation's display condition. */
function jsonEscapeHatch(display: Partial<INodeProperties>): INodeProperties {
	const field: INodeProperties = {
		...additionalFieldsJson({ resource: [], operation: [] }, 'call request'),
	};
	delete field.displayOptions;
	return { ...field, ...display };
}
