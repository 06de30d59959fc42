// n8n's own credential test (the editor's "Test" button, and the public API's stored-credential test) passes
// for good keys and fails for bad ones, for both credential types, over real HTTP to the sandbox.
'use strict';
const assert = require('node:assert/strict');
const { createServer } = require('node:http');
const { beforeEach, describe, test } = require('node:test');

const { assertNoSecrets } = require('../support/assertions');

function register(env) {
	const portalData = () => ({ baseUrl: env.sandbox.url, portalApiKey: env.sandbox.portalKey });
	const outboundData = () => ({
		outboundUrl: env.sandbox.url,
		outboundApiKey: env.sandbox.outboundKey,
		assistantApiKey: '',
	});

	describe('credential tests through n8n', () => {
		beforeEach(() => env.sandbox.clearJournal());

		test('Portal API: the right key passes (POST /rest/credentials/test)', async () => {
			const result = await env.n8n.testCredential({ type: 'assistantPlatformPortalApi', data: portalData() });
			assert.deepEqual(result, { status: 'OK', message: 'Connection successful!' });
			assert.equal(env.sandbox.journal.length, 1);
			const [request] = env.sandbox.journal;
			assert.equal(request.method, 'GET');
			assert.equal(request.path, '/api/v1/assistants');
			assert.deepEqual(request.query, { limit: '1' });
			assert.equal(request.auth, 'ok');
		});

		test('Portal API: a wrong key fails, and the message does not echo any key', async () => {
			const result = await env.n8n.testCredential({
				type: 'assistantPlatformPortalApi',
				data: { ...portalData(), portalApiKey: 'wrong-portal-key' },
			});
			assert.equal(result.status, 'Error');
			assert.equal(env.sandbox.journal.at(-1).auth, 'invalid');
			assert.equal(env.sandbox.journal.at(-1).status, 401);
			assertNoSecrets(env.sandbox, result, 'the test result');
			assert.ok(!JSON.stringify(result).includes('wrong-portal-key'));
		});

		test("Data Tables API: this n8n's own API URL and API key pass; a wrong key fails without echoing it", async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip('n8n 1.x has no data tables in its public API');
			const data = { baseUrl: `${env.n8n.url}/api/v1`, apiKey: env.n8n.apiKey };
			assert.deepEqual(await env.n8n.testCredential({ type: 'assistantPlatformN8nApi', data }), { status: 'OK', message: 'Connection successful!' });
			const wrong = await env.n8n.testCredential({ type: 'assistantPlatformN8nApi', data: { ...data, apiKey: 'wrong-n8n-api-key' } });
			assert.equal(wrong.status, 'Error');
			assert.ok(!JSON.stringify(wrong).includes('wrong-n8n-api-key'));
			assert.equal(env.sandbox.journal.length, 0, 'nothing went to the platform');
		});

		test('Outbound API: the right key passes (the probe id answers 404 once the key is accepted)', async () => {
			const result = await env.n8n.testCredential({ type: 'assistantPlatformOutboundApi', data: outboundData() });
			assert.deepEqual(result, { status: 'OK', message: 'Connection successful!' });
			assert.equal(env.sandbox.journal.length, 1);
			const [request] = env.sandbox.journal;
			assert.equal(request.method, 'GET');
			assert.match(request.path, /^\/getDialstatus\//);
			assert.equal(request.auth, 'ok');
			assert.equal(request.status, 404);
		});

		test('Outbound API: a wrong key fails, naming the field to fix', async () => {
			const result = await env.n8n.testCredential({
				type: 'assistantPlatformOutboundApi',
				data: { ...outboundData(), outboundApiKey: 'wrong-outbound-key' },
			});
			assert.equal(result.status, 'Error');
			assert.match(result.message, /Outbound API Key/);
			assert.equal(env.sandbox.journal.at(-1).auth, 'invalid');
			assertNoSecrets(env.sandbox, result, 'the test result');
		});

		test('Outbound API: a host that answers an HTML 404 (not the outbound API) fails, naming the URL field', async () => {
			const server = createServer((_req, res) => {
				res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
				res.end('<!doctype html><html><body><h1>404 Not Found</h1></body></html>');
			});
			await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
			try {
				const result = await env.n8n.testCredential({
					type: 'assistantPlatformOutboundApi',
					data: { ...outboundData(), outboundUrl: `http://127.0.0.1:${server.address().port}` },
				});
				assert.equal(result.status, 'Error');
				assert.match(result.message, /Outbound Base URL/);
				assertNoSecrets(env.sandbox, result, 'the test result');
			} finally {
				await new Promise((resolve) => server.close(resolve));
			}
		});

		// Refused in the credential's own authenticate, which n8n calls before it sends the test request.
		const refused = [
			['Portal API: a base URL with a query', 'assistantPlatformPortalApi', () => ({ ...portalData(), baseUrl: `${env.sandbox.url}?x=1` }), /"Management Base URL".*query/],
			['Portal API: a base URL with a fragment', 'assistantPlatformPortalApi', () => ({ ...portalData(), baseUrl: `${env.sandbox.url}#frag` }), /"Management Base URL".*fragment/],
			[
				'Portal API: a base URL with user info',
				'assistantPlatformPortalApi',
				() => ({ ...portalData(), baseUrl: env.sandbox.url.replace('http://', 'http://user:pw@') }),
				/"Management Base URL".*user name or password/,
			],
			['Portal API: a blank key', 'assistantPlatformPortalApi', () => ({ ...portalData(), portalApiKey: '   ' }), /"Portal API Key".*empty/],
			['Outbound API: a base URL with a query', 'assistantPlatformOutboundApi', () => ({ ...outboundData(), outboundUrl: `${env.sandbox.url}?x=1` }), /"Outbound Base URL".*query/],
			// Blank rather than empty: n8n 1.x refuses to store a credential whose required field is empty.
			['Outbound API: a blank key', 'assistantPlatformOutboundApi', () => ({ ...outboundData(), outboundApiKey: ' \t ' }), /"Outbound API Key".*empty/],
		];
		for (const [what, type, data, says] of refused) {
			test(`${what}: refused, naming the field, and nothing is sent`, async () => {
				const result = await env.n8n.testCredential({ type, data: data() });
				assert.equal(result.status, 'Error');
				assert.match(result.message, says);
				assert.deepEqual(env.sandbox.journal, []);
				assertNoSecrets(env.sandbox, result, 'the test result');
			});
		}

		test('the stored sandbox credentials pass the public API test (POST /api/v1/credentials/{id}/test)', async () => {
			for (const credential of [env.credentials.portal, env.credentials.outbound]) {
				const result = await env.n8n.testStoredCredential(credential.id);
				assert.deepEqual(result, { status: 'OK', message: 'Connection successful!' }, credential.name);
			}
			assert.equal(env.sandbox.journal.length, 2);
			assert.ok(env.sandbox.journal.every((entry) => entry.auth === 'ok'));
		});
	});
}

module.exports = { register };
