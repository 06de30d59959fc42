import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { AssistantPlatformN8nApi } from '../../credentials/AssistantPlatformN8nApi.credentials';
import { AssistantPlatformOutboundApi } from '../../credentials/AssistantPlatformOutboundApi.credentials';
import { AssistantPlatformPortalApi } from '../../credentials/AssistantPlatformPortalApi.credentials';
import { authenticateN8nApi, authenticateOutboundApi, authenticatePortalApi } from '../../credentials/authentication';
import { testCredential } from '../harness/credentialTest';
import { credentialTypes, NODE_TYPE, nodeTypes, runNode } from '../harness/engine';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

import { byId, fromList } from './runtime-helpers';

/*
 * How both credentials authenticate (docs/performance.md): an `authenticate` function that n8n's
 * CredentialsHelper.authenticate calls with the decrypted credential and the request options, setting
 * exactly the header n8n's declarative generic block would set (`Authorization: Bearer <portalApiKey>`,
 * `X-APIKEY-SECRET-SERVICE: <outboundApiKey>`), on workflow requests and on the credential test request:
 * the same header value for every key, whichever form sends it.
 */

const PORTAL = 'assistantPlatformPortalApi';
const OUTBOUND = 'assistantPlatformOutboundApi';
const CALLER = '+390212345678';

type AuthenticateFunction = (
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/** The credential type's authenticate, which must be the function form. */
function authenticateOf(type: ICredentialType): AuthenticateFunction {
	const auth = type.authenticate;
	if (typeof auth !== 'function') throw new Error(`${type.name}: authenticate is not a function`);
	// As n8n calls it: a method call on the credential type.
	return async (credentials, requestOptions) => await auth.call(type, credentials, requestOptions);
}

/** The declarative generic blocks that express the same headers: the function must set what n8n resolves from them. */
const GENERIC_BLOCK: Record<string, { header: string; template: string }> = {
	[PORTAL]: { header: 'Authorization', template: '=Bearer {{$credentials.portalApiKey}}' },
	[OUTBOUND]: { header: 'X-APIKEY-SECRET-SERVICE', template: '={{$credentials.outboundApiKey}}' },
};

/**
 * What n8n 2.41's CredentialsHelper.resolveValue made of a generic block's value: the workflow's
 * expression engine with `$credentials`, then '' for a falsy result and toString() otherwise.
 */
function resolveLikeN8n(template: string, credentials: ICredentialDataDecryptedObject): string {
	const node: INode = {
		id: 'n',
		name: 'Assistant Platform',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const value = workflow.expression.getSimpleParameterValue(
		node,
		template,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
	return value ? String(value) : '';
}

describe('credentials: authenticate is a function that sets exactly the header of the generic block', () => {
	// `url`: the credential's base URL field with a usable value (an unusable one is refused: test/credentials.test.ts).
	// `host`: where n8n sends the request, on the credential's host (the key goes nowhere else: test/credentials.test.ts).
	const cases: Array<{ type: ICredentialType; field: string; header: string; prefix: string; url: Record<string, string>; host: string }> = [
		{ type: new AssistantPlatformPortalApi(), field: 'portalApiKey', header: 'Authorization', prefix: 'Bearer ', url: { baseUrl: 'https://api.example.com' }, host: 'https://api.example.com' },
		{ type: new AssistantPlatformOutboundApi(), field: 'outboundApiKey', header: 'X-APIKEY-SECRET-SERVICE', prefix: '', url: { outboundUrl: 'https://out.example.com' }, host: 'https://out.example.com' },
	];

	test.each(cases)('$type.name uses the function form, not a generic block', ({ type }) => {
		expect(typeof type.authenticate).toBe('function');
		// The harness's credential types (used by every engine test) are the same classes.
		expect(typeof credentialTypes[type.name].authenticate).toBe('function');
	});

	test.each(cases)('$type.name: the header, the other headers and options kept, the input untouched', async ({ type, field, header, prefix, url, host }) => {
		const abort = new AbortController();
		const input: IHttpRequestOptions = {
			method: 'POST',
			baseURL: host,
			url: '/x',
			qs: { limit: 1 },
			body: { a: 1 },
			json: true,
			headers: { Accept: 'application/json', 'X-Other': 'kept' },
			abortSignal: abort.signal,
		};
		const snapshot = { ...input, headers: { ...input.headers } };
		const out = await authenticateOf(type)({ ...url, [field]: 'k-123', unrelated: 'x' }, input);
		expect(out).toEqual({
			...snapshot,
			headers: { Accept: 'application/json', 'X-Other': 'kept', [header]: `${prefix}k-123` },
		});
		expect(out.abortSignal).toBe(abort.signal);
		// No other credential field reaches the request.
		expect(JSON.stringify({ ...out, abortSignal: undefined })).not.toContain('unrelated');
		expect(input).toEqual(snapshot);
	});

	test.each(cases)('$type.name: works on a request without headers', async ({ type, field, header, prefix, url, host }) => {
		const out = await authenticateOf(type)({ ...url, [field]: 'k-456' }, { url: `${host}/y` });
		expect(out).toEqual({ url: `${host}/y`, headers: { [header]: `${prefix}k-456` } });
	});

	// An empty key, which a generic block would send as "Bearer " or "", is refused (test/credentials.test.ts).
	test.each(cases)('$type.name: the same value n8n resolves from the generic block', async ({ type, field, header, url, host }) => {
		const generic = GENERIC_BLOCK[type.name];
		expect(generic.header).toBe(header);
		for (const key of ['pk_live_9f8e7d6c', 'with spaces ', ' lead', 'q"u\'o`te', 'br{{ace}}s', '$credentials', 'ключ-é']) {
			const credentials = { ...url, [field]: key };
			const out = await authenticateOf(type)(credentials, { url: `${host}/z`, headers: {} });
			expect(out.headers?.[header]).toBe(resolveLikeN8n(generic.template, credentials));
		}
	});
});

// The transport calls the authentication functions (nodes/shared/transport/endpoint.ts), n8n the classes'
// `authenticate`: both must apply the same thing, headers and refusals alike. (The class also checks where each
// request goes, which the transport checks itself: test/credentials.test.ts, test/node/n8nApiPaths.test.ts.)
describe('credentials: each class authenticates with the function the transport calls', () => {
	const cases: Array<{
		type: ICredentialType;
		authenticate: (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions) => IHttpRequestOptions;
		usable: ICredentialDataDecryptedObject;
		unusable: ICredentialDataDecryptedObject[];
		/** A URL the credential's key may go to. */
		url: string;
	}> = [
		{
			type: new AssistantPlatformPortalApi(),
			authenticate: authenticatePortalApi,
			usable: { baseUrl: 'https://api.example.com', portalApiKey: 'pk-1' },
			unusable: [{ baseUrl: 'https://api.example.com?x=1', portalApiKey: 'pk-1' }, { baseUrl: 'https://api.example.com', portalApiKey: ' ' }],
			url: 'https://api.example.com/api/v1/x',
		},
		{
			type: new AssistantPlatformOutboundApi(),
			authenticate: authenticateOutboundApi,
			usable: { outboundUrl: 'https://out.example.com', outboundApiKey: 'ok-1', assistantApiKey: 'ak-1' },
			unusable: [{ outboundUrl: 'https://u:p@out.example.com', outboundApiKey: 'ok-1' }, { outboundUrl: 'https://out.example.com', outboundApiKey: '' }],
			url: 'https://out.example.com/x',
		},
		{
			type: new AssistantPlatformN8nApi(),
			authenticate: authenticateN8nApi,
			usable: { baseUrl: 'http://localhost:5678/api/v1', apiKey: 'n8n-1' },
			unusable: [{ baseUrl: 'http://localhost:5678/api/v1#x', apiKey: 'n8n-1' }, { baseUrl: 'http://localhost:5678/api/v1' }],
			url: 'http://localhost:5678/api/v1/data-tables/x',
		},
	];

	test.each(cases)('$type.name: the same headers, the other options kept', async ({ type, authenticate, usable, url }) => {
		const input: IHttpRequestOptions = { url, headers: { Accept: 'application/json' } };
		const out = await authenticateOf(type)(usable, input);
		expect(out).toEqual(authenticate(usable, input));
		expect(Object.keys(out.headers ?? {}).length).toBe(2);
	});

	test.each(cases)('$type.name: the same refusal, naming the field and the credential', async ({ type, authenticate, unusable }) => {
		for (const credentials of unusable) {
			let refusal: unknown;
			try {
				authenticate(credentials, { url: '/x' });
			} catch (error) {
				refusal = error;
			}
			expect((refusal as Error).message).toContain(`credential: `);
			expect((refusal as Error).message).toContain(type.displayName);
			await expect(authenticateOf(type)(credentials, { url: '/x' })).rejects.toThrow((refusal as Error).message);
		}
	});
});

const fx = useSandbox();

useCallerAssistant(fx, CALLER);

interface Captured {
	method: string;
	url: string;
	rawHeaders: string[];
}

/** A pass-through to the sandbox that records the exact headers each request arrived with. */
async function captureProxy(): Promise<{ url: string; captured: Captured[]; server: Server }> {
	const captured: Captured[] = [];
	const forward = (headers: IncomingHttpHeaders): Record<string, string> => {
		const out: Record<string, string> = {};
		for (const name of ['content-type', 'accept', 'authorization', 'x-apikey-secret-service']) {
			const value = headers[name];
			if (typeof value === 'string') out[name] = value;
		}
		return out;
	};
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			captured.push({ method: req.method ?? '', url: req.url ?? '', rawHeaders: [...req.rawHeaders] });
			const body = chunks.length > 0 && req.method !== 'GET' ? Buffer.concat(chunks) : undefined;
			void fetch(`${fx.sandbox.url}${req.url}`, { method: req.method, headers: forward(req.headers), body }).then(
				async (answer) => {
					const text = await answer.text();
					res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
					res.end(text);
				},
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, captured, server };
}

/** Every value of a header (case-insensitive) in a request's raw headers. */
function headerValues(rawHeaders: string[], name: string): string[] {
	const values: string[] = [];
	for (let i = 0; i < rawHeaders.length; i += 2) {
		if (rawHeaders[i].toLowerCase() === name.toLowerCase()) values.push(rawHeaders[i + 1]);
	}
	return values;
}

describe('credentials on the wire (engine + sandbox)', () => {
	test('Portal API: exactly one "Authorization: Bearer <key>" on every request, the sandbox accepts it', async () => {
		fx.sandbox.createAssistant({ name: 'Second', number: '+390200000001' });
		const proxy = await captureProxy();
		try {
			const { error, items } = await runNode({
				parameters: { resource: 'assistant', operation: 'getAll', returnAll: true, options: { pageSize: 1 } },
				credentials: { ...fx.credentials, [PORTAL]: { ...fx.portal, baseUrl: proxy.url } },
			});
			expect(error).toBeUndefined();
			expect(items.length).toBeGreaterThanOrEqual(2);
		} finally {
			proxy.server.close();
		}
		expect(proxy.captured.length).toBeGreaterThanOrEqual(2);
		for (const request of proxy.captured) {
			expect(headerValues(request.rawHeaders, 'authorization')).toEqual([`Bearer ${fx.sandbox.portalKey}`]);
			expect(headerValues(request.rawHeaders, 'x-apikey-secret-service')).toEqual([]);
		}
		expect(fx.sandbox.journal.filter((entry) => entry.auth !== 'ok').map((entry) => `${entry.path}: ${entry.auth}`)).toEqual([]);
	});

	test('Outbound API: exactly one "X-APIKEY-SECRET-SERVICE: <key>" per call, Accept kept, the sandbox accepts it', async () => {
		const proxy = await captureProxy();
		const items: INodeExecutionData[] = [{ json: { phone: '+14155550101' } }, { json: { phone: '+14155550102' } }];
		try {
			const { error } = await runNode({
				parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.phone }}', callerId: CALLER },
				items,
				credentials: { ...fx.credentials, [OUTBOUND]: { ...fx.outbound, outboundUrl: proxy.url } },
			});
			expect(error).toBeUndefined();
		} finally {
			proxy.server.close();
		}
		expect(proxy.captured).toHaveLength(2);
		for (const request of proxy.captured) {
			expect(headerValues(request.rawHeaders, 'x-apikey-secret-service')).toEqual([fx.sandbox.outboundKey]);
			expect(headerValues(request.rawHeaders, 'authorization')).toEqual([]);
			expect(headerValues(request.rawHeaders, 'accept')).toEqual(['application/json']);
		}
		expect(fx.sandbox.journal.map((entry) => [entry.auth, entry.status])).toEqual([
			['ok', 200],
			['ok', 200],
		]);
	});

	/**
	 * A wrong portal key, on reads and writes of every kind of portal request: a 401 whose description points at
	 * the credential, the key nowhere in the error, one request (a 401 is not retried) and nothing changed.
	 */
	test.each<{ operation: string; key: string; parameters: () => IDataObject; method: string; changed?: (parameters: IDataObject) => unknown }>([
		{ operation: 'Get Many Assistants', key: 'wrong-portal-key-7788', parameters: () => ({ resource: 'assistant', operation: 'getAll', returnAll: false, limit: 1 }), method: 'GET' },
		{ operation: 'Create Assistant', key: 'pk_wrong_0123456789abcdef', parameters: () => ({ resource: 'assistant', operation: 'create', name: 'A', mode: 'text' }), method: 'POST' },
		{ operation: 'Get Providers', key: 'pk_wrong_catalog_0123456789', parameters: () => ({ resource: 'catalog', operation: 'getProviders', providerKind: 'tts' }), method: 'GET' },
		{
			operation: 'Set Provider',
			key: 'pk_wrong_runtime_0123456789',
			parameters: () => ({
				resource: 'runtime',
				operation: 'setProvider',
				assistantId: byId(fx.sandbox.createAssistant({ name: 'Runtime Test' }).assistantId),
				providerKind: 'llm',
				providerId: fromList('openai'),
			}),
			method: 'PATCH',
			changed: (parameters) => fx.sandbox.state.runtimeConfigs.get((parameters.assistantId as { value: string }).value),
		},
		// Add or Remove Tools reads the catalog first: that read fails, and nothing is written.
		{
			operation: 'Add or Remove Tools',
			key: 'pk_wrong_tools_0123456789',
			parameters: () => ({ resource: 'runtime', operation: 'updateTools', assistantId: byId('asst_AAAAAAAAAAAAAAAA'), toolsToAdd: { tools: [{ toolName: 'kb_search' }] } }),
			method: 'GET',
		},
	])('Portal API with a wrong key ($operation): 401 naming the credential, never the key, one request', async ({ key, parameters, method, changed }) => {
		const params = parameters();
		fx.sandbox.clearJournal();
		const { error } = await runNode({ parameters: params, credentials: { ...fx.credentials, [PORTAL]: { ...fx.portal, portalApiKey: key } } });
		expect(error?.httpCode).toBe('401');
		expect(error?.message).toContain('401');
		expect(error?.description).toContain('Assistant Platform Portal API');
		expect(JSON.stringify({ m: error?.message, d: error?.description, c: error?.context })).not.toContain(key);
		expect(fx.sandbox.journal.map((entry) => [entry.method, entry.auth, entry.status])).toEqual([[method, 'invalid', 401]]);
		if (changed) expect(changed(params)).toBeUndefined();
	});


	test.each([
		['a wrong key', 'wrong-outbound-key-7788', 'invalid'],
	])('Outbound API with %s: the sandbox answers 401, nothing is placed', async (_label, key, auth) => {
		const { error } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '+14155550103', callerId: CALLER },
			credentials: { ...fx.credentials, [OUTBOUND]: { ...fx.outbound, outboundApiKey: key } },
		});
		expect(error?.httpCode).toBe('401');
		expect(fx.sandbox.journal.map((entry) => [entry.auth, entry.status])).toEqual([[auth, 401]]);
	});

	test.each([
		[PORTAL, 'portalApiKey', 'Portal API Key'],
		[OUTBOUND, 'outboundApiKey', 'Outbound API Key'],
	])('%s with an empty key: refused before anything is sent', async (name, field, label) => {
		const { error } = await runNode({
			parameters:
				name === PORTAL
					? { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 1 }
					: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '+14155550103', callerId: CALLER },
			credentials: { ...fx.credentials, [name]: { ...(name === PORTAL ? fx.portal : fx.outbound), [field]: '' } },
		});
		expect(error?.message).toContain(`Invalid "${label}"`);
		expect(fx.sandbox.journal).toEqual([]);
	});

	test.each([PORTAL, OUTBOUND])('%s: the credential test request goes through the authenticate function', async (name) => {
		const type = credentialTypes[name];
		const spy = jest.spyOn(type, 'authenticate' as never);
		try {
			const data = name === PORTAL ? fx.portal : fx.outbound;
			expect(await testCredential(name, data)).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(spy).toHaveBeenCalledTimes(1);
			expect((spy.mock.calls[0] as unknown[])[0]).toEqual(data);
		} finally {
			spy.mockRestore();
		}
		expect(fx.sandbox.journal.map((entry) => entry.auth)).toEqual(['ok']);
	});
});

describe('Place Call reads the Outbound API credential once per run, not once per call', () => {
	const run = async (n: number) =>
		await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.phone }}', callerId: CALLER },
			items: Array.from({ length: n }, (_, i) => ({ json: { phone: `+1415555${String(i).padStart(4, '0')}` } })),
			credentials: fx.credentials,
		});

	test('the credential is loaded the same number of times for 1 and for 20 calls', async () => {
		const one = await run(1);
		expect(one.error).toBeUndefined();
		const twenty = await run(20);
		expect(twenty.error).toBeUndefined();
		expect(fx.sandbox.journal.filter((entry) => entry.method === 'POST')).toHaveLength(21);
		// The transport applies the credential itself, loaded once per run (not per request as n8n-core's
		// httpRequestWithAuthentication does); the node reads the assistant key once more.
		expect(twenty.credentialReads[OUTBOUND]).toBe(one.credentialReads[OUTBOUND]);
		expect(one.credentialReads[OUTBOUND]).toBeLessThanOrEqual(2);
	});
});

describe('Call Status → Get reads the Outbound API credential once per run, not once per status read', () => {
	const run = async (n: number) =>
		await runNode({
			parameters: { resource: 'callStatus', operation: 'get', internalId: '={{ $json.id }}' },
			items: Array.from({ length: n }, (_, i) => ({ json: { id: `not-persisted-${i}` } })),
			credentials: fx.credentials,
			continueOnFail: true,
		});

	test('the credential is loaded the same number of times for 1 and for 20 reads', async () => {
		const one = await run(1);
		const twenty = await run(20);
		expect(one.items).toHaveLength(1);
		expect(twenty.items).toHaveLength(20);
		// Each item is one read answered 404 (record not persisted): reported per item, nothing retried.
		expect(twenty.items.map((item) => String(item.json.error)).filter((error) => !/not persisted/i.test(error))).toEqual([]);
		expect(fx.sandbox.journal.filter((entry) => entry.path.startsWith('/getDialstatus/'))).toHaveLength(21);
		expect(twenty.credentialReads[OUTBOUND]).toBe(one.credentialReads[OUTBOUND]);
		expect(one.credentialReads[OUTBOUND]).toBe(1);
	});
});
