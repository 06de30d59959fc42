import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from './harness/credentialTest';
import { runNode } from './harness/engine';
import type { SandboxFixture } from './harness/sandbox';
import { startSandbox } from './harness/sandbox';

let fx: SandboxFixture;

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
