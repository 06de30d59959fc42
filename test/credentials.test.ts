import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IExecuteFunctions, IHttpRequestOptions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { AssistantPlatformN8nApi } from '../credentials/AssistantPlatformN8nApi.credentials';
import { AssistantPlatformOutboundApi } from '../credentials/AssistantPlatformOutboundApi.credentials';
import { AssistantPlatformPortalApi } from '../credentials/AssistantPlatformPortalApi.credentials';
import { authenticateN8nApiRequest } from '../credentials/authentication';
import { AssistantPlatformCallAndWait } from '../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { TOOL_TYPE } from './harness/agent';
import { testCredential } from './harness/credentialTest';
import { credentialTypes, makeAdditionalData, NODE_TYPE, registerNodeType, runNode } from './harness/engine';
import { useN8nDataTables } from './harness/n8nDataTables';
import type { SandboxFixture } from './harness/sandbox';
import { startSandbox } from './harness/sandbox';

let fx: SandboxFixture;

const N8N_API = 'assistantPlatformN8nApi';
const PORTAL = 'assistantPlatformPortalApi';
const OUTBOUND = 'assistantPlatformOutboundApi';

/**
 * n8n's HTTP Request node as far as credentials go (version 3, Authentication "Predefined Credential Type"): its
 * type name, one of those n8n-core lets use any credential type that n8n lets it have, no credential named in its
 * description, and its request sent by requestWithAuthentication in n8n's older request form (`uri`), as it sends it.
 */
const HTTP_REQUEST = 'n8n-nodes-base.httpRequest';
class HttpRequestStandIn implements INodeType {
	description = {
		displayName: 'HTTP Request',
		name: HTTP_REQUEST,
		group: ['output'],
		version: 1,
		description: 'Sends a request with a predefined credential type',
		defaults: { name: 'HTTP Request' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Credential Type', name: 'nodeCredentialType', type: 'string', default: '' },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const type = this.getNodeParameter('nodeCredentialType', 0) as string;
		const uri = this.getNodeParameter('url', 0) as string;
		const body = (await this.helpers.requestWithAuthentication.call(this, type, { method: 'GET', uri, json: true })) as unknown;
		return [[{ json: { body } as INodeExecutionData['json'] }]];
	}
}
registerNodeType(HTTP_REQUEST, new HttpRequestStandIn());
const CALL_AND_WAIT_TYPE = 'test.credentials.assistantPlatformCallAndWait';
registerNodeType(CALL_AND_WAIT_TYPE, new AssistantPlatformCallAndWait());

/** Runs the HTTP Request stand-in: GET `url` with the credential `type` (its data from `credentials`). */
const httpRequest = (type: string, url: string, credentials: Record<string, Record<string, unknown>>) =>
	runNode({ nodeType: HTTP_REQUEST, parameters: { url, nodeCredentialType: type }, credentials: { [type]: credentials[type] as never } });

/** Runs `body` as an n8n that does not know `restrictToSupportedNodes` (n8n 1.x) would: the flag taken off meanwhile. */
async function withoutTheFlag<T>(body: () => Promise<T>): Promise<T> {
	const type = credentialTypes[N8N_API] as { restrictToSupportedNodes?: true };
	delete type.restrictToSupportedNodes;
	try {
		return await body();
	} finally {
		type.restrictToSupportedNodes = true;
	}
}

/** A server on 127.0.0.1 that records what reaches it (another host than the credentials'). */
async function recordingServer(): Promise<{ url: string; received: string[]; close: () => Promise<void> }> {
	const received: string[] = [];
	const server = createServer((req, res) => {
		received.push(`${req.method} ${req.url}`);
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end('{}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

beforeAll(async () => {
	fx = await startSandbox();
});

afterAll(async () => {
	await fx.sandbox.stop();
});

describe('Portal API credential', () => {
	test('its test request passes with the right key and hits a cheap endpoint', async () => {
		fx.sandbox.clearJournal();
		const result = await testCredential('assistantPlatformPortalApi', fx.portal);
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(fx.sandbox.journal).toHaveLength(1);
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'GET',
			path: '/api/v1/assistants',
			query: { limit: '1' },
			auth: 'ok',
		});
	});

	test('its test request fails with a wrong key, and a trailing slash in the URL is fine', async () => {
		const result = await testCredential('assistantPlatformPortalApi', {
			baseUrl: `${fx.sandbox.url}/`,
			portalApiKey: 'wrong',
		});
		expect(result.status).toBe('Error');
	});

	test('authenticates a workflow run with Authorization: Bearer', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 1 },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].auth).toBe('ok');
		expect(fx.sandbox.journal[0].headers.authorization).toBe('[masked]');
	});
});

describe('Outbound API credential', () => {
	test('its test request passes with the right key (404 for the probe id means the key was accepted)', async () => {
		fx.sandbox.clearJournal();
		const result = await testCredential('assistantPlatformOutboundApi', fx.outbound);
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(fx.sandbox.journal[0]).toMatchObject({
			method: 'GET',
			path: '/getDialstatus/n8n-credential-test',
			auth: 'ok',
			status: 404,
		});
	});

	test('its test request fails with a wrong key, naming the header field to fix', async () => {
		const result = await testCredential('assistantPlatformOutboundApi', {
			...fx.outbound,
			outboundApiKey: 'wrong',
		});
		expect(result.status).toBe('Error');
		expect(result.message).toContain('Outbound API Key');
	});

	test('its test request fails for a host that answers 404 but is not the outbound API (an HTML page)', async () => {
		const server = createServer((_req, res) => {
			res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
			res.end('<!doctype html><html><body><h1>404 Not Found</h1></body></html>');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as AddressInfo;
			const result = await testCredential('assistantPlatformOutboundApi', {
				...fx.outbound,
				outboundUrl: `http://127.0.0.1:${port}`,
			});
			expect(result.status).toBe('Error');
			expect(result.message).toContain('Outbound Base URL');
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});
});

describe("the Test button refuses a credential that would send its key where nobody meant, before anything is sent", () => {
	const withUserInfo = (url: string) => url.replace('http://', 'http://user:pw@');
	const cases: Array<[string, string, (url: string) => Record<string, string>, RegExp]> = [
		['Portal: a base URL with a query', 'assistantPlatformPortalApi', (url) => ({ baseUrl: `${url}?x=1` }), /"Management Base URL".*query/],
		['Portal: a base URL with a fragment', 'assistantPlatformPortalApi', (url) => ({ baseUrl: `${url}#frag` }), /"Management Base URL".*fragment/],
		['Portal: a base URL with user info', 'assistantPlatformPortalApi', (url) => ({ baseUrl: withUserInfo(url) }), /"Management Base URL".*user name or password/],
		['Portal: an empty key', 'assistantPlatformPortalApi', () => ({ portalApiKey: '' }), /"Portal API Key".*empty/],
		['Portal: a blank key', 'assistantPlatformPortalApi', () => ({ portalApiKey: '   ' }), /"Portal API Key".*empty/],
		['Outbound: a base URL with a query', 'assistantPlatformOutboundApi', (url) => ({ outboundUrl: `${url}?x=1` }), /"Outbound Base URL".*query/],
		['Outbound: a base URL with a fragment', 'assistantPlatformOutboundApi', (url) => ({ outboundUrl: `${url}#frag` }), /"Outbound Base URL".*fragment/],
		['Outbound: a base URL with user info', 'assistantPlatformOutboundApi', (url) => ({ outboundUrl: withUserInfo(url) }), /"Outbound Base URL".*user name or password/],
		['Outbound: an empty key', 'assistantPlatformOutboundApi', () => ({ outboundApiKey: '' }), /"Outbound API Key".*empty/],
		['Outbound: a blank key', 'assistantPlatformOutboundApi', () => ({ outboundApiKey: ' \t' }), /"Outbound API Key".*empty/],
	];

	test.each(cases)('%s', async (_what, type, change, says) => {
		fx.sandbox.clearJournal();
		const base = type === 'assistantPlatformPortalApi' ? fx.portal : fx.outbound;
		const result = await testCredential(type, { ...base, ...change(fx.sandbox.url) });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(says);
		expect(fx.sandbox.journal).toEqual([]);
	});
});

const n8nApi = useN8nDataTables();
const n8nCredentials = () => ({ [N8N_API]: n8nApi.store.credentials });

// An n8n API key opens, on most plans, all of n8n's public API (workflows, credentials, users, executions) with its
// owner's rights. The Data Tables API credential holds one, for the package's data tables only: n8n lets only the
// nodes that name it use it, and its own authenticate sends the key only to {n8n API URL}/data-tables.
describe("Data Tables API credential: only this package's nodes may use it (restrictToSupportedNodes, as n8n-core asks n8n)", () => {
	test('the type is restricted to the nodes that name it; the Portal and Outbound types are not', () => {
		expect(new AssistantPlatformN8nApi().restrictToSupportedNodes).toBe(true);
		expect(new AssistantPlatformPortalApi()).not.toHaveProperty('restrictToSupportedNodes');
		expect(new AssistantPlatformOutboundApi()).not.toHaveProperty('restrictToSupportedNodes');
		const { credentialsHelper } = makeAdditionalData({});
		// The node, its tool variant (an AI Agent's or an MCP Server Trigger's tool) and Call and Wait name it.
		for (const nodeType of [NODE_TYPE, TOOL_TYPE, CALL_AND_WAIT_TYPE]) {
			expect(credentialsHelper.isCredentialUsableByNode(N8N_API, nodeType)).toBe(true);
		}
		for (const nodeType of [HTTP_REQUEST, 'n8n-nodes-base.httpRequestTool', '@n8n/n8n-nodes-langchain.toolHttpRequest']) {
			expect(credentialsHelper.isCredentialUsableByNode(N8N_API, nodeType)).toBe(false);
		}
		expect(credentialsHelper.isCredentialUsableByNode(PORTAL, HTTP_REQUEST)).toBe(true);
		expect(credentialsHelper.isCredentialUsableByNode(OUTBOUND, HTTP_REQUEST)).toBe(true);
	});

	test("an HTTP Request node with it is refused before the credential is read: nothing reaches n8n's API", async () => {
		const { error, credentialReads } = await httpRequest(N8N_API, `${n8nApi.store.url}/data-tables`, n8nCredentials());
		expect(error?.message).toBe(`Credential type "${N8N_API}" is restricted to specific nodes`);
		expect(credentialReads[N8N_API] ?? 0).toBe(0);
		expect(n8nApi.store.requests).toEqual([]);
	});

	test('without the flag the same node would send the key (what the flag stops)', async () => {
		const { error } = await withoutTheFlag(() => httpRequest(N8N_API, `${n8nApi.store.url}/data-tables`, n8nCredentials()));
		expect(error).toBeUndefined();
		expect(n8nApi.store.requests.map((r) => [r.method, r.pathname, r.headers?.['x-n8n-api-key']])).toEqual([
			['GET', '/api/v1/data-tables', n8nApi.store.credentials.apiKey],
		]);
	});

	test("this package's node uses it: Campaign → Prepare Contacts Table reads and writes the table", async () => {
		n8nApi.store.seed('Contacts', [{ phone: '+14155550100' }]);
		const { error } = await runNode({
			parameters: { resource: 'campaign', operation: 'prepare', contactsTable: 'Contacts' },
			credentials: { ...fx.credentials, ...n8nCredentials() },
		});
		expect(error).toBeUndefined();
		expect(n8nApi.store.requests.some((r) => r.method === 'POST' && /\/columns$/.test(r.path))).toBe(true);
	});
});

describe("where n8n ignores the flag (n8n 1.x), the credential's authenticate sends the key only to {n8n API URL}/data-tables", () => {
	test("an HTTP Request node asking for /workflows is refused, naming where the key goes; nothing reaches n8n's API", async () => {
		const { error } = await withoutTheFlag(() => httpRequest(N8N_API, `${n8nApi.store.url}/workflows`, n8nCredentials()));
		expect(error?.message).toContain(
			`The Assistant Platform Data Tables API credential sends its key only to ${n8nApi.store.url}/data-tables and below, not to ${n8nApi.store.url}/workflows. Nothing was sent.`,
		);
		expect(n8nApi.store.requests).toEqual([]);
	});

	const credentials = { baseUrl: 'https://n8n.example.com/api/v1/', apiKey: 'n8n-key' };
	const refused: Array<[string, IHttpRequestOptions]> = [
		['another path of the API', { url: 'https://n8n.example.com/api/v1/workflows' }],
		['the older request form (uri), another path', { uri: 'https://n8n.example.com/api/v1/credentials' } as unknown as IHttpRequestOptions],
		['a base URL and another path', { baseURL: 'https://n8n.example.com/api/v1', url: '/users' }],
		['out of /data-tables by ".."', { url: 'https://n8n.example.com/api/v1/data-tables/../executions' }],
		['out of /data-tables by "%2e%2e"', { url: 'https://n8n.example.com/api/v1/data-tables/%2e%2e/executions' }],
		['out of /data-tables by a backslash', { url: 'https://n8n.example.com/api/v1/data-tables\\..\\workflows' }],
		['a path that only starts like it', { url: 'https://n8n.example.com/api/v1/data-tables-archive' }],
		['/data-tables outside the API URL', { url: 'https://n8n.example.com/data-tables' }],
		['/data-tables only in the query', { url: 'https://n8n.example.com/api/v1/workflows?next=/api/v1/data-tables' }],
		['another host', { url: 'https://elsewhere.example.com/api/v1/data-tables' }],
		['another port', { url: 'https://n8n.example.com:8443/api/v1/data-tables' }],
		['plain http to an https API', { url: 'http://n8n.example.com/api/v1/data-tables' }],
		['a URL starting with //', { url: '//n8n.example.com/api/v1/data-tables' }],
		['no URL at all', { url: '' }],
		['a path without a base URL', { url: '/data-tables' }],
	];
	test.each(refused)('refused: %s', (_what, request) => {
		expect(() => authenticateN8nApiRequest(credentials, request)).toThrow(/credential sends its key only .*\. Nothing was sent\.$/);
	});

	const allowed: Array<[string, IHttpRequestOptions]> = [
		['the list of data tables', { url: 'https://n8n.example.com/api/v1/data-tables', qs: { limit: 1 } }],
		['a table\'s rows, with a query', { url: 'https://n8n.example.com/api/v1/data-tables/t1/rows?filter=%7B%7D' }],
		['a base URL and a relative path (the Test button)', { baseURL: 'https://n8n.example.com/api/v1', url: '/data-tables' }],
		['the older request form (uri)', { uri: 'https://n8n.example.com/api/v1/data-tables/t1/rows/update' } as unknown as IHttpRequestOptions],
		['the host written in capitals', { url: 'https://N8N.example.com/api/v1/data-tables' }],
	];
	test.each(allowed)('allowed: %s', (_what, request) => {
		expect(authenticateN8nApiRequest(credentials, request).headers).toEqual({ 'X-N8N-API-KEY': 'n8n-key' });
	});
});

// HTTP Request may use the Portal and Outbound credentials: they hold keys of the platform's own API, which grant
// nothing in n8n, and reach its endpoints the nodes lack. Their key still goes only to the credential's host.
describe("HTTP Request may use the Portal and Outbound credentials, on the credential's own host only", () => {
	test('Portal API: a request to the management API is sent with the key', async () => {
		fx.sandbox.clearJournal();
		const { error } = await httpRequest(PORTAL, `${fx.sandbox.url}/api/v1/assistants?limit=1`, fx.credentials);
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.auth])).toEqual([['GET', '/api/v1/assistants', 'ok']]);
	});

	test('Outbound API: a request to the outbound API is sent with the key', async () => {
		fx.sandbox.clearJournal();
		// The probe id answers 404 once the key is accepted (the request fails, the key was sent).
		await httpRequest(OUTBOUND, `${fx.sandbox.url}/getDialstatus/n8n-credential-test`, fx.credentials);
		expect(fx.sandbox.journal.map((e) => [e.method, e.path, e.auth])).toEqual([['GET', '/getDialstatus/n8n-credential-test', 'ok']]);
	});

	test.each([PORTAL, OUTBOUND])('%s: a request to another host is refused, and nothing reaches it', async (type) => {
		const other = await recordingServer();
		try {
			fx.sandbox.clearJournal();
			const { error } = await httpRequest(type, `${other.url}/api/v1/assistants`, fx.credentials);
			expect(error?.message).toContain(`credential sends its key only to ${fx.sandbox.url}, not to ${other.url}. Nothing was sent.`);
			expect(other.received).toEqual([]);
			expect(fx.sandbox.journal).toEqual([]);
		} finally {
			await other.close();
		}
	});
});
