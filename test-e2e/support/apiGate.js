// A pass-through proxy between the nodes' Assistant Platform Data Tables API credential and n8n's public API. Every
// request goes to n8n unchanged and n8n's answer comes back unchanged, except for one the test chose: that answer is
// held (n8n has already applied the request) until the test lets it go. A crash suite kills n8n while the node waits
// for it, at a moment it picks exactly: a contact's claim written in the table and its POST not yet sent. It counts the
// requests it passes (`counts`, by method), which the benchmark reports per call.
'use strict';
const http = require('node:http');

/**
 * Starts the gate on a free port of 127.0.0.1. `target()` gives n8n's base URL (e.g. http://127.0.0.1:5678) at the
 * moment of each request, so the gate follows an n8n started again on another port. Returns `url` (the gate's base
 * URL: the credential's baseUrl is `${url}/api/v1`), `hold(match)`, `release()` and `close()`.
 */
async function startApiGate(target) {
	/** The pending hold: { match, resolve } until a request matches. */
	let pending;
	/** Answers held: the client's response, to be finished or dropped. */
	const held = [];
	const sockets = new Set();

	/** Requests passed through, by method (a benchmark's count of what the nodes asked of n8n's API). */
	const counts = {};
	/** Every request passed through: its method, path and time (a benchmark tells which table each one read). */
	const log = [];
	const server = http.createServer((req, res) => {
		counts[req.method] = (counts[req.method] ?? 0) + 1;
		log.push({ method: req.method, path: (req.url ?? '').split('?')[0], at: Date.now() });
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const raw = Buffer.concat(chunks);
			const url = new URL(req.url, target());
			const upstream = http.request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
				const body = [];
				answer.on('data', (chunk) => body.push(chunk));
				answer.on('end', () => {
					const reply = () => {
						if (res.destroyed) return;
						res.writeHead(answer.statusCode ?? 502, answer.headers);
						res.end(Buffer.concat(body));
					};
					const request = { method: req.method, path: url.pathname, query: url.search, body: parse(raw), status: answer.statusCode, answer: parse(Buffer.concat(body)) };
					if (pending && pending.match(request)) {
						const { resolve } = pending;
						pending = undefined;
						held.push({ reply, res });
						resolve(request);
						return;
					}
					reply();
				});
				answer.on('error', () => res.destroy());
			});
			upstream.on('error', () => res.destroy());
			upstream.end(raw);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const url = `http://127.0.0.1:${server.address().port}`;

	return {
		url,
		counts,
		log,
		/**
		 * Holds n8n's answer to the next request for which `match({method, path, query, body, status, answer})` is true.
		 * Resolves with that request once n8n has answered it (and applied it); the node is left waiting.
		 */
		hold(match) {
			if (pending) throw new Error('the gate already waits for a request to hold');
			return new Promise((resolve) => {
				pending = { match, resolve };
			});
		},
		/** Stops waiting for a request to hold (nothing matched), without holding anything. */
		cancel() {
			pending = undefined;
		},
		/** Sends the held answers on (to a node still waiting) or drops them (its process is gone). */
		release() {
			for (const { reply } of held.splice(0)) reply();
		},
		async close() {
			pending = undefined;
			for (const { res } of held.splice(0)) res.destroy();
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

/** A request's JSON body, or its text when it is not JSON. */
function parse(raw) {
	const text = raw.toString('utf8');
	if (text === '') return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/**
 * A Dial Due Contacts claim that won: the conditional update that sets a contact's campaignState to 'claimed', answered
 * with the row carrying the claim's own token (on SQLite n8n also returns rows another writer's update changed).
 */
function isClaim(request) {
	if (request.method !== 'PATCH' || !/\/data-tables\/[^/]+\/rows\/update$/.test(request.path) || request.status !== 200) return false;
	const data = request.body?.data;
	if (data?.campaignState !== 'claimed') return false;
	const rows = Array.isArray(request.answer) ? request.answer : (request.answer?.data ?? []);
	return Array.isArray(rows) && rows.some((row) => row.claimToken === data.claimToken);
}

module.exports = { isClaim, startApiGate };
