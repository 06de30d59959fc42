// The transport reads every answer as a stream from n8n's own request helper (`encoding: 'stream'`) and
// counts it as it arrives. Here, in the real n8n under test (2.x with `npm run test:e2e`, 1.x with
// `npm run test:e2e:1x`): that stream is decoded (gzip, brotli, deflate), a 3 GB bomb ends at Max
// Response Size with n8n alive, and the guarantees the transport gave before still hold with a stream:
// status errors are read (ignoreHttpStatusErrors), a redirect is not followed (disableFollowRedirect),
// the Timeout deadline aborts a body that trickles (the abort signal).
'use strict';
const assert = require('node:assert/strict');
const http = require('node:http');
const { Readable, pipeline } = require('node:stream');
const { after, before, describe, test } = require('node:test');
const zlib = require('node:zlib');

const { PORTAL_CREDENTIAL_TYPE } = require('../../scripts/n8n-examples');
const { assistantPlatformNode, chain, errorOf, manualTrigger, outputOf } = require('../support/workflows');

const GB = 1024 ** 3;
const KEY = 'e2e-untrusted-answers-key-5d1c';

/** `{"padding":"xxx…"}` of `bytes` bytes, produced as it is read. */
function paddedJson(bytes) {
	const pad = Buffer.alloc(64 * 1024, 'x');
	function* chunks() {
		yield '{"padding":"';
		for (let left = bytes - '{"padding":""}'.length; left > 0; left -= pad.length) yield left >= pad.length ? pad : pad.subarray(0, left);
		yield '"}';
	}
	return Readable.from(chunks(), { objectMode: false });
}

const COMPRESSORS = {
	gzip: () => zlib.createGzip({ level: 1 }),
	br: () => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
	deflate: () => zlib.createDeflate({ level: 1 }),
};

const COMPRESSED = { gzip: zlib.gzipSync, br: zlib.brotliCompressSync, deflate: zlib.deflateSync };

/** The first path segment of a request chooses how the server answers (it is the credential's base URL path). */
function answer(req, res, foreignUrl, streams) {
	const [, behaviour, encoding] = req.url.split('/');
	const json = (status, value) => {
		const body = JSON.stringify(value);
		res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
		res.end(body);
	};
	if (behaviour === 'small') {
		const body = COMPRESSED[encoding](Buffer.from('{"data":[{"name":"decoded"}]}'));
		res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': body.length });
		res.end(body);
	} else if (behaviour === 'bomb') {
		res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
		const source = paddedJson(3 * GB);
		streams.add(source);
		pipeline(source, COMPRESSORS[encoding](), res, () => streams.delete(source));
	} else if (behaviour === 'status') {
		json(409, { error: { code: 'E2E_CONFLICT', message: 'refused by the test server', status: 409 } });
	} else if (behaviour === 'redirect') {
		res.writeHead(302, { location: `${foreignUrl}${req.url}`, 'content-length': 0 });
		res.end();
	} else if (behaviour === 'trickle') {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.write('{"padding":"');
		const timer = setInterval(() => res.write('x'), 200);
		res.on('close', () => clearInterval(timer));
	} else {
		json(404, { error: { code: 'NOT_FOUND', message: 'no such behaviour' } });
	}
}

async function listen(handler) {
	const server = http.createServer(handler);
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { server, url: `http://127.0.0.1:${server.address().port}` };
}

function register(env) {
	describe('answers read as a stream in the real n8n', () => {
		const foreignRequests = [];
		const streams = new Set();
		let front;
		let foreign;

		before(async () => {
			foreign = await listen((req, res) => {
				foreignRequests.push(`${req.method} ${req.url}`);
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end('{"data":[]}');
			});
			front = await listen((req, res) => answer(req, res, foreign.url, streams));
		});

		after(async () => {
			for (const stream of streams) stream.destroy();
			for (const { server } of [front, foreign]) {
				server.closeAllConnections();
				await new Promise((resolve) => server.close(resolve));
			}
		});

		/** Runs Custom API Request GET /knowledge with a portal credential whose base URL is `<front>/<path>`. */
		async function run(path, requestOptions = {}) {
			const credential = await env.n8n.api('POST', '/credentials', {
				name: `e2e untrusted ${path}`,
				type: PORTAL_CREDENTIAL_TYPE,
				data: { baseUrl: `${front.url}/${path}`, portalApiKey: KEY },
			});
			const workflow = await env.n8n.createWorkflow(
				chain(`e2e: answer ${path}`, [
					manualTrigger(),
					assistantPlatformNode(
						'Request',
						{ resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge', requestOptions },
						{ id: credential.id, name: credential.name, type: PORTAL_CREDENTIAL_TYPE },
					),
				]),
			);
			return await env.n8n.runWorkflow(workflow.id, { timeoutMs: 120000 });
		}

		for (const encoding of ['gzip', 'br', 'deflate']) {
			test(`a ${encoding} answer is decoded`, async () => {
				const execution = await run(`small/${encoding}`);
				assert.equal(execution.status, 'success', errorOf(execution));
				assert.deepEqual(outputOf(execution, 'Request')[0].data, [{ name: 'decoded' }]);
			});

			test(`a 3 GB ${encoding} bomb ends at Max Response Size, and n8n goes on`, async () => {
				const execution = await run(`bomb/${encoding}`);
				assert.equal(execution.status, 'error');
				assert.match(errorOf(execution), /^The platform answered more than 16 MB \(Settings > Request Options > Max Response Size\)/);
				const again = await run(`small/${encoding}`);
				assert.equal(again.status, 'success', errorOf(again));
			});
		}

		test('a status error is read, not thrown by the client (ignoreHttpStatusErrors)', async () => {
			const execution = await run('status');
			assert.equal(execution.status, 'error');
			assert.match(errorOf(execution), /^E2E_CONFLICT: The platform rejected the request \(409\) \(refused by the test server\)/);
		});

		test('a redirect is not followed (disableFollowRedirect): nothing reaches the other host', async () => {
			const execution = await run('redirect');
			assert.equal(execution.status, 'error');
			assert.match(errorOf(execution), new RegExp(`^The platform answered 302, a redirect to ${foreign.url}, which is not followed`));
			assert.deepEqual(foreignRequests, []);
		});

		test('Timeout aborts a body that trickles (the abort signal reaches the stream)', async () => {
			const execution = await run('trickle', { timeout: 1500 });
			assert.equal(execution.status, 'error');
			assert.match(errorOf(execution), /^The platform did not answer within 1500 ms \(timeout\)/);
		});
	});
}

module.exports = { register };
