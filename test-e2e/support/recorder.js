// A pass-through proxy on 127.0.0.1 that records every request it forwards: put between a credential and n8n's
// public API (the credential's n8n API URL is `${url}/api/v1`), it shows which paths a key was sent to, and that
// nothing was sent at all when n8n or the credential refused a request.
'use strict';
const http = require('node:http');

/**
 * Starts the recorder in front of `target` (n8n's base URL, e.g. http://127.0.0.1:5678). Returns `url`, `requests`
 * (in order: { method, path, query, apiKey (whether an X-N8N-API-KEY header came), status }), `clear()` and `close()`.
 */
async function startRecorder(target) {
	const requests = [];
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const url = new URL(req.url, target);
			const entry = { method: req.method, path: url.pathname, query: url.search, apiKey: typeof req.headers['x-n8n-api-key'] === 'string', status: undefined };
			requests.push(entry);
			const upstream = http.request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
				entry.status = answer.statusCode;
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			upstream.on('error', () => res.destroy());
			upstream.end(Buffer.concat(chunks));
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	return {
		url: `http://127.0.0.1:${server.address().port}`,
		requests,
		clear: () => requests.splice(0),
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}

module.exports = { startRecorder };
