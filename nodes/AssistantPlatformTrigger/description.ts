import type { INodeProperties } from 'n8n-workflow';

import { assistantLocator } from '../shared/descriptions/fields';
import { schemaPropertyFields } from '../shared/descriptions/extractionSchema';

import { REGISTRABLE_EVENTS } from './events';
import { DEFAULT_REPEAT_WINDOW_MINUTES } from './repeats';
import { DIAL_STATUSES, DIAL_STATUS_MEANING } from '../shared/calls/dialStatuses';

const REGISTRABLE = { events: REGISTRABLE_EVENTS };
const REGISTERING = { ...REGISTRABLE, registerOnPublish: [true] };

/** The secret of a new (version 2) trigger: its webhook ID (see the property below). */
export const WEBHOOK_SECRET_DEFAULT = '={{$webhookId}}';

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Each event has its own URL above, with the Webhook Secret in it: keep the URLs private. The Test URL works while you listen for a test event; the platform calls the Production URL once the workflow is published.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['callResult'],
		description: 'The platform events that start the workflow. Each event has its own URL.',
		options: [
			{
				name: 'Call Result',
				value: 'callResult',
				description:
					'The platform POSTs {internal_id, dialstatus, duration} to the Call Result URL of an outbound call when the call ends',
			},
			{
				name: 'Conversation End',
				value: 'conversationEnd',
				description: "The assistant's conversation-end webhook, when a conversation ends",
			},
			{
				name: 'Extracted Data',
				value: 'extractedData',
				description: 'The data extracted after the conversation, shaped by the extraction schema',
			},
		],
	},
	// Version 1: the secret starts empty and must be typed in before the trigger can listen or publish.
	{
		displayName: 'Webhook Secret',
		name: 'webhookSecret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		description:
			'Random secret that becomes part of every URL of this trigger: at least 32 characters from A-Z, a-z, 0-9, "-" and "_" (at least 128 bits). Generate one with "openssl rand -hex 32". Posts without it, or with another value, are refused with 401. Changing it changes the URLs.',
		displayOptions: { show: { '@version': [1] } },
	},
	// Version 2: a new trigger works at once. The secret defaults to the node's webhook ID, the random
	// UUID n8n's editor draws for every new trigger node (docs/assumptions.md, "Trigger").
	{
		displayName: 'Webhook Secret',
		name: 'webhookSecret',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: WEBHOOK_SECRET_DEFAULT,
		description:
			"Part of every URL of this trigger; posts without it, or with another value, are refused with 401. Set for you to this node's random webhook ID, drawn by n8n when the node was added. To use your own (e.g. to change the URLs), enter at least 32 characters from A-Z, a-z, 0-9, \"-\" and \"_\", e.g. from \"openssl rand -hex 32\".",
		displayOptions: { show: { '@version': [2] } },
	},
	{
		displayName: 'Configure Platform on Publish',
		name: 'registerOnPublish',
		type: 'boolean',
		default: true,
		description:
			"Whether publishing the workflow sets this trigger's Production URLs on the assistant (conversation-end webhook and/or data extraction), and unpublishing turns them off. Off: set the URLs in the portal yourself.",
		displayOptions: { show: REGISTRABLE },
	},
	assistantLocator(
		{ resource: [], operation: [] },
		{
			description: 'The assistant whose conversation-end webhook and data extraction this trigger configures',
			displayOptions: { show: REGISTERING },
		},
	),
	{
		displayName: 'Authentication Name',
		name: 'authName',
		type: 'string',
		default: '',
		placeholder: 'e.g. n8n-webhook-header',
		description:
			'Name of an authentication saved for your account in the portal; the platform adds it to conversation-end posts. Leave empty to send them without authentication.',
		displayOptions: { show: { events: ['conversationEnd'], registerOnPublish: [true] } },
	},
	{
		displayName: 'Extraction Schema',
		name: 'extractionSchema',
		type: 'fixedCollection',
		placeholder: 'Add Property',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		description: 'The data the platform extracts after each conversation and posts to the Extracted Data URL',
		displayOptions: { show: { events: ['extractedData'], registerOnPublish: [true] } },
		options: [
			{
				displayName: 'Property',
				name: 'properties',
				values: schemaPropertyFields,
			},
		],
	},
	{
		displayName: 'Call Result Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description:
			'Call results that do not match are answered 200 and start nothing. Other events are not filtered.',
		displayOptions: { show: { events: ['callResult'] } },
		options: [
			{
				displayName: 'Dial Statuses',
				name: 'dialStatuses',
				type: 'multiOptions',
				default: [],
				description: 'Start the workflow only for these outcomes (compared without regard to case)',
				options: DIAL_STATUSES.map((status) => ({ name: status, value: status, description: DIAL_STATUS_MEANING[status] })),
			},
			{
				displayName: 'Other Dial Statuses',
				name: 'otherDialStatuses',
				type: 'string',
				default: '',
				placeholder: 'e.g. MYSTATUS, OTHER',
				description:
					'Statuses the list above does not name, separated by commas (compared without regard to case); together with Dial Statuses',
			},
			{
				displayName: 'Minimum Duration (Seconds)',
				name: 'minDuration',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description: 'Start the workflow only for calls that lasted at least this long',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Auth Header Name',
				name: 'authHeaderName',
				type: 'string',
				default: '',
				placeholder: 'e.g. X-Webhook-Token',
				description:
					'Header the platform adds to conversation-end posts for your Authentication Name. When set with Auth Header Value, conversation ends without that exact header are refused with 401.',
			},
			{
				displayName: 'Auth Header Value',
				name: 'authHeaderValue',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description: 'Expected value of the Auth Header Name header (the value saved in the portal)',
			},
			{
				displayName: 'Ignore Repeated Deliveries',
				name: 'ignoreRepeats',
				type: 'boolean',
				default: false,
				description:
					'Whether to answer a delivery already received (same event and internal_id, or the same body) with 200 without starting the workflow again. Platforms may retry callbacks. Remembered by the n8n process that received it and in the workflow\'s static data, production URL only; with several webhook processes (queue mode), copies arriving at the same moment can both start. For results that must count once, use the campaign\'s Record Call Result.',
			},
			{
				displayName: 'IP Allowlist',
				name: 'ipAllowlist',
				type: 'string',
				default: '',
				placeholder: 'e.g. 203.0.113.0/24, 2001:db8::/32',
				description:
					'Addresses or CIDR ranges (IPv4 and IPv6), separated by commas. Posts from other addresses are refused with 403. Empty: any address.',
			},
			{
				displayName: 'Remember Deliveries For (Minutes)',
				name: 'repeatWindowMinutes',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_REPEAT_WINDOW_MINUTES,
				description: 'How long a delivery is remembered by Ignore Repeated Deliveries',
			},
			{
				displayName: 'Use X-Forwarded-For',
				name: 'useForwardedFor',
				type: 'boolean',
				default: false,
				description:
					"Whether to check the last address in X-Forwarded-For (the one your reverse proxy added) instead of n8n's view of the client. Turn on only behind a proxy that sets it; n8n's N8N_PROXY_HOPS setting is the alternative.",
			},
		],
	},
];
