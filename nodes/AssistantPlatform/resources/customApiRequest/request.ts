import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INode,
	INodeProperties,
	NodeOutput,
} from 'n8n-workflow';

import { protectAssistantKeys } from '../../helpers/assistantKey';
import { listProperties } from '../../../shared/descriptions/fields';
import type { ItemScope } from '../../helpers/items';
import { forEachItem, itemScope } from '../../helpers/items';
import { readListItems, readPageWalkOptions } from '../../helpers/lists';
import { toItems } from '../../helpers/request';
import { portalBaseUrl } from '../../../shared/transport/endpoint';
import { portalRequest } from '../../../shared/transport/request';
import { assertNonEmpty, invalid } from '../../../shared/core/validation';

export const RESOURCE = 'customApiRequest';
const show = { resource: [RESOURCE], operation: ['request'] };

const METHODS: IHttpRequestMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const METHODS_WITH_BODY = ['POST', 'PUT', 'PATCH'];
/** Query parameters the cursor walk sets itself. */
const PAGINATION_QUERY = ['limit', 'cursor'];

/**
 * The path is relative to {baseUrl}/api/v1 and must stay there: the portal key is attached to the
 * request, so nothing that could point the request at another host or outside the API is accepted.
 */
export function assertRelativePath(node: INode, value: unknown, itemIndex: number): string {
	const path = assertNonEmpty(node, 'Path', value, itemIndex);
	const reject = (rule: string) => invalid(node, 'Path', `${rule} (got "${path}")`, itemIndex);
	let decoded: string;
	try {
		decoded = decodeURIComponent(path);
	} catch {
		throw reject('contains a malformed %-escape');
	}
	if (path.includes('://') || decoded.includes('://')) {
		throw reject('must be a path relative to /api/v1, not a URL: it must not contain "://"');
	}
	if (!path.startsWith('/')) {
		throw reject('must start with "/", e.g. /knowledge');
	}
	if (path.startsWith('//') || decoded.startsWith('//')) {
		throw reject('must not start with "//" (that would address another host)');
	}
	if (path.includes('\\') || decoded.includes('\\')) {
		throw reject('must not contain a backslash');
	}
	if (decoded.includes('..')) {
		throw reject('must not contain ".."');
	}
	if ([...decoded].some((char) => char.trim() === '' || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) {
		throw reject('must not contain spaces or control characters');
	}
	if (path.includes('?') || path.includes('#')) {
		throw reject('must not contain "?" or "#": put query parameters in Query Parameters');
	}
	if (/^\/api\/v1(\/|$)/i.test(path)) {
		throw reject(`is already relative to /api/v1: write "${path.replace(/^\/api\/v1/i, '') || '/'}"`);
	}
	// The transport's endpoint check refuses any URL off the credential's origin before sending.
	return path;
}

function readQuery(scope: ItemScope, paginate: boolean): IDataObject {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const rows = (scope.getNodeParameter('queryParameters.parameters', []) as IDataObject[]) ?? [];
	const qs: IDataObject = {};
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		if (name === '') {
			throw invalid(node, 'Query Parameters', 'every parameter needs a name', itemIndex);
		}
		if (Object.hasOwn(qs, name)) {
			throw invalid(node, 'Query Parameters', `the parameter "${name}" is set twice`, itemIndex);
		}
		if (paginate && PAGINATION_QUERY.includes(name)) {
			throw invalid(
				node,
				'Query Parameters',
				`"${name}" is set by Paginate; remove it (use Options → Page Size and Limit instead) or turn Paginate off`,
				itemIndex,
			);
		}
		const value = row.value;
		// Defined, not assigned: "__proto__" is a parameter name like any other here.
		Object.defineProperty(qs, name, {
			value: value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return qs;
}

function readBody(scope: ItemScope): IDataObject | IDataObject[] | undefined {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const raw = scope.getNodeParameter('body', '');
	let parsed: unknown = raw;
	if (raw === undefined || raw === null) return undefined;
	if (typeof raw === 'string') {
		if (raw.trim() === '') return undefined;
		try {
			parsed = JSON.parse(raw);
		} catch (error) {
			throw invalid(node, 'Body', `must be valid JSON (${(error as Error).message})`, itemIndex);
		}
	}
	if (typeof parsed !== 'object' || parsed === null) {
		throw invalid(node, 'Body', 'must be a JSON object or array, e.g. {"name": "value"}', itemIndex);
	}
	return parsed as IDataObject | IDataObject[];
}

interface CustomRequest {
	method: IHttpRequestMethods;
	path: string;
	qs: IDataObject;
	body?: IDataObject | IDataObject[];
	paginate: boolean;
}

/** Method, path, query and body of one item from the parameters, all checked before anything is sent. */
export function buildRequest(scope: ItemScope): CustomRequest {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const method = String(scope.getNodeParameter('method', 'GET')).toUpperCase() as IHttpRequestMethods;
	if (!METHODS.includes(method)) {
		throw invalid(node, 'Method', `must be one of ${METHODS.join(', ')} (got "${method}")`, itemIndex);
	}
	const path = assertRelativePath(node, scope.getNodeParameter('path', ''), itemIndex);
	const paginate = method === 'GET' && scope.getNodeParameter('paginate', false) === true;
	const qs = readQuery(scope, paginate);
	const body = METHODS_WITH_BODY.includes(method) ? readBody(scope) : undefined;
	return { method, path, qs, body, paginate };
}

/**
 * Custom API Request, per input item. GET with Paginate: the shared cursor walk (limit and every
 * query parameter on every page). Other GETs are reads (bounded retries); POST, PUT, PATCH and
 * DELETE are writes, sent once.
 */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	let baseURL: string | undefined;
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		baseURL ??= await portalBaseUrl(this);
		const request = buildRequest(scope);
		// A fresh assistant key (e.g. the answer of POST /assistants) is output only when asked for.
		const reveal = scope.getNodeParameter('includeApiKey', false) === true;
		if (request.paginate) {
			const items = await readListItems(this, baseURL, request.path, request.qs, readPageWalkOptions(scope), itemIndex);
			return protectAssistantKeys(items, reveal);
		}
		const response = await portalRequest(this, request.method, request.path, {
			qs: Object.keys(request.qs).length > 0 ? request.qs : undefined,
			...(request.body !== undefined ? { body: request.body } : {}),
			headers: { Accept: 'application/json' },
			baseURL,
			retry: request.method === 'GET',
			itemIndex,
		});
		return protectAssistantKeys(toItems(response.body), reveal);
	});
}

const paginatedShow = { ...show, method: ['GET'], paginate: [true] };

export const description: INodeProperties[] = [
	{
		displayName:
			'Reaches any management endpoint under /api/v1 with the Portal API credential, e.g. number routing, DTMF, knowledge, provider-wallet keys, plugin instances, filler lists and analytics',
		name: 'customRequestNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Method',
		name: 'method',
		type: 'options',
		options: METHODS.map((value) => ({ name: value, value })),
		default: 'GET',
		description: 'HTTP method. GET requests are retried on temporary errors; the others are sent once.',
		displayOptions: { show },
	},
	{
		displayName: 'Path',
		name: 'path',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. /knowledge',
		description:
			'Path relative to /api/v1, starting with "/". Full URLs, "//", ".." and query strings are rejected: the request always goes to the platform of the credential.',
		displayOptions: { show },
	},
	{
		displayName: 'Query Parameters',
		name: 'queryParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Parameter',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Parameter',
				name: 'parameters',
				values: [
					{
						displayName: 'Name',
						name: 'name',
						type: 'string',
						default: '',
						description: 'Name of the query parameter',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description: 'Value of the query parameter',
					},
				],
			},
		],
	},
	{
		displayName: 'Body',
		name: 'body',
		type: 'json',
		default: '{}',
		description: 'Body to send, as JSON (an object or an array)',
		displayOptions: { show: { ...show, method: METHODS_WITH_BODY } },
	},
	{
		displayName: 'Paginate',
		name: 'paginate',
		type: 'boolean',
		default: false,
		description:
			"Whether to follow the platform's cursor pagination (meta.nextCursor) and output one item per element of each page's list (data, or the one list beside meta). The query parameters are kept on every page; limit and cursor are set by the node.",
		displayOptions: { show: { ...show, method: ['GET'] } },
	},
	{
		displayName: 'Include API Key in Output',
		name: 'includeApiKey',
		type: 'boolean',
		default: false,
		description:
			"Whether to output an assistant's confidential API key when the answer holds one (e.g. POST /assistants returns it once). When off, only its last four characters are output (assistantApiKeyHint), as Assistant → Create does; when on, it is stored in the execution data.",
		displayOptions: { show },
	},
	...listProperties(paginatedShow, 'items'),
];
