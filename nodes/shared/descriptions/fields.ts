import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_MAX_LIST_MB, DEFAULT_MAX_PAGES, DEFAULT_MAX_RESPONSE_MB, MAX_PAGE_SIZE } from '../core/constants';

type Show = { resource: string[]; operation: string[] };

export function assistantLocator(show: Show, overrides: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Assistant',
		name: 'assistantId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The assistant to use',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select an assistant...',
				typeOptions: {
					searchListMethod: 'searchAssistants',
					searchable: true,
				},
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. asst_8dKq2mX0pLr4Tz1a',
			},
		],
		displayOptions: { show },
		...overrides,
	};
}

export function ragCollectionLocator(
	show: Show,
	overrides: Partial<INodeProperties> = {},
): INodeProperties {
	return {
		displayName: 'RAG Collection',
		name: 'ragId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The retrieval collection to use',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a collection...',
				typeOptions: {
					searchListMethod: 'searchRagCollections',
					searchable: true,
				},
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. rag_Q7pXk2LmZ9aB',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^rag_[A-Za-z0-9]+$',
							errorMessage: 'A collection ID is rag_ followed by letters and digits',
						},
					},
				],
			},
		],
		displayOptions: { show },
		...overrides,
	};
}

/** Return All / Limit, in n8n's standard wording. */
export function returnAllAndLimit(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
	];
}

/** Return All / Limit / Options > Page Size, in n8n's standard wording. */
export function listProperties(show: Show, itemName: string): INodeProperties[] {
	return [
		...returnAllAndLimit(show),
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Page Size',
					name: 'pageSize',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
					default: MAX_PAGE_SIZE,
					description: `How many ${itemName} to request per page (1 to ${MAX_PAGE_SIZE}). Pages are fetched until enough ${itemName} are read.`,
				},
				{
					displayName: 'Max Pages',
					name: 'maxPages',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_MAX_PAGES,
					description: `Return All stops with an error after this many pages, so that a list that never ends cannot exhaust n8n's memory. Raise it for ${itemName} lists longer than Max Pages × Page Size.`,
				},
				{
					displayName: 'Max List Size (MB)',
					name: 'maxListSize',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_MAX_LIST_MB,
					description: `Reading stops with an error once the pages read add up to more than this (counted after decompression), so that one list cannot exhaust n8n's memory. Use Limit or a filter to read less, or raise it for longer ${itemName} lists.`,
				},
			],
		},
	];
}

export function additionalFieldsJson(show: Show, what: string): INodeProperties {
	return {
		displayName: 'Additional Fields (JSON)',
		name: 'additionalFieldsJson',
		type: 'json',
		default: '{}',
		description: `Extra fields merged into the ${what} body (they override the fields above). Use it for fields this node does not know yet.`,
		displayOptions: { show },
	};
}

const TIMEOUT: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 30000,
	description:
		'Time in ms to wait for the platform to answer. When placing a call, a timeout leaves its outcome unknown: the call is not sent again.',
};

/**
 * Settings > Request Options, with the names and defaults n8n gives the declarative nodes it adds this
 * collection to (saved workflows keep their values): n8n adds it only to nodes without execute() or
 * webhook(), so the package's nodes carry it themselves. Batching only where items are sent in turn.
 */
export function requestOptionsProperty(settings: { batching: boolean; timeoutDefault: number }): INodeProperties {
	const batching: INodeProperties = {
		displayName: 'Batching',
		name: 'batching',
		placeholder: 'Add Batching',
		type: 'fixedCollection',
		typeOptions: { multipleValues: false },
		default: { batch: {} },
		options: [
			{
				displayName: 'Batching',
				name: 'batch',
				values: [
					{
						displayName: 'Items per Batch',
						name: 'batchSize',
						type: 'number',
						typeOptions: { minValue: -1 },
						default: 50,
						description: 'Input will be split in batches to throttle requests. -1 for disabled. 0 will be treated as 1.',
					},
					{
						displayName: 'Batch Interval (Milliseconds)',
						name: 'batchInterval',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 1000,
						description: 'Time (in milliseconds) between each batch of requests. 0 for disabled.',
					},
				],
			},
		],
	};
	return {
		displayName: 'Request Options',
		name: 'requestOptions',
		type: 'collection',
		isNodeSetting: true,
		placeholder: 'Add Option',
		default: {},
		options: [
			...(settings.batching ? [batching] : []),
			{
				displayName: 'Ignore SSL Issues (Insecure)',
				name: 'allowUnauthorizedCerts',
				type: 'boolean',
				noDataExpression: true,
				default: false,
				description: 'Whether to connect even if SSL certificate validation is not possible',
			},
			{
				displayName: 'Max Response Size (MB)',
				name: 'maxResponseSize',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_MAX_RESPONSE_MB,
				description:
					"Largest answer read from the platform, counted after decompression. A larger answer fails the item (when placing a call, with its outcome unknown), so that one answer cannot exhaust n8n's memory. Raise it for a Custom API Request that returns more.",
			},
			{
				displayName: 'Proxy',
				name: 'proxy',
				type: 'string',
				default: '',
				placeholder: 'e.g. http://myproxy:3128',
				description:
					'HTTP proxy to use. If authentication is required it can be defined as follow: http://username:password@myproxy:3128.',
			},
			{ ...TIMEOUT, default: settings.timeoutDefault },
		],
	};
}
