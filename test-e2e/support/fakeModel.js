// A scripted OpenAI-compatible chat model for the AI Agent suite: n8n's OpenAI Chat Model sub-node (Base URL in
// its credential, Responses API off) talks to it on 127.0.0.1, so no model and no network are needed.
//
//   const model = await startFakeModel();
//   model.script([{ toolCalls: [{ name: 'Place_Call', arguments: { Destination_Number: '+14155550123' } }] },
//                 { content: 'The call is placed.' }]);
//   ... run the workflow ...
//   model.requests        // every request received since the last script(): { method, path, headers, body }
//   model.allRequests     // every request received since the start
//   model.chatRequests()  // the POST /v1/chat/completions bodies, in order
//   await model.stop();
//
// Each chat request takes the next scripted turn; once the script is used up it answers a final "Done." (an agent
// loop always ends). A turn is { content } (a final answer) or { toolCalls: [{ name, arguments, id? }] } (one or
// more tool calls in one assistant message); `name` may be a function of the request's tool names, `arguments` a
// function of the request body (e.g. to pass on an id a tool returned); `delayMs` delays the answer. Requests with
// `stream: true` are answered as server-sent events, the others as one JSON body. GET /v1/models lists one model.
'use strict';
const http = require('node:http');

const MODEL_ID = 'fake-model';

function readJson(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('error', reject);
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			if (text === '') return resolve(undefined);
			try {
				resolve(JSON.parse(text));
			} catch {
				resolve(text);
			}
		});
	});
}

function send(res, status, body) {
	const text = JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
	res.end(text);
}

/** The assistant message of a turn, with tool calls named for this request's tools. */
function messageOf(turn, body, callCounter) {
	if (turn.toolCalls) {
		const names = (body?.tools ?? []).map((tool) => tool?.function?.name);
		return {
			role: 'assistant',
			content: null,
			tool_calls: turn.toolCalls.map((call) => {
				const name = typeof call.name === 'function' ? call.name(names) : call.name;
				const args = typeof call.arguments === 'function' ? call.arguments(body) : call.arguments;
				return {
					id: call.id ?? `call_${++callCounter.value}`,
					type: 'function',
					function: { name, arguments: JSON.stringify(args ?? {}) },
				};
			}),
		};
	}
	return { role: 'assistant', content: String(turn.content ?? 'Done.') };
}

function completion(message) {
	return {
		id: `chatcmpl-fake-${Date.now()}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: MODEL_ID,
		choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null }],
		usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
	};
}

/** The same message as server-sent events: one delta with everything, then the finish reason, then [DONE]. */
function streamCompletion(res, message) {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
	const base = { id: `chatcmpl-fake-${Date.now()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: MODEL_ID };
	const delta = message.tool_calls
		? { role: 'assistant', content: null, tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) }
		: { role: 'assistant', content: message.content };
	const chunks = [
		{ ...base, choices: [{ index: 0, delta, finish_reason: null }] },
		{ ...base, choices: [{ index: 0, delta: {}, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }] },
		{ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
	];
	for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
	res.end('data: [DONE]\n\n');
}

async function startFakeModel() {
	const requests = [];
	const allRequests = [];
	let turns = [];
	const callCounter = { value: 0 };
	const server = http.createServer(async (req, res) => {
		try {
			const body = await readJson(req);
			const path = req.url.split('?')[0];
			const entry = { method: req.method, path, headers: req.headers, body };
			requests.push(entry);
			allRequests.push(entry);
			if (req.method === 'GET' && /\/models$/.test(path)) {
				return send(res, 200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'e2e' }] });
			}
			if (req.method === 'POST' && /\/chat\/completions$/.test(path)) {
				const turn = turns.shift() ?? { content: 'Done.' };
				if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
				const message = messageOf(turn, body, callCounter);
				if (body?.stream === true) return streamCompletion(res, message);
				return send(res, 200, completion(message));
			}
			return send(res, 404, { error: { message: `The fake model serves no ${req.method} ${path}`, type: 'invalid_request_error' } });
		} catch (error) {
			send(res, 500, { error: { message: String(error?.message ?? error), type: 'server_error' } });
		}
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const { port } = server.address();
	return {
		modelId: MODEL_ID,
		/** The Base URL for the OpenAI credential. */
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		allRequests,
		/** Replaces the script and forgets the requests received so far. */
		script(nextTurns) {
			turns = [...nextTurns];
			requests.length = 0;
		},
		/** The bodies of the chat completion requests, in order. */
		chatRequests() {
			return requests.filter((r) => r.method === 'POST' && /\/chat\/completions$/.test(r.path)).map((r) => r.body);
		},
		stop() {
			return new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			});
		},
	};
}

module.exports = { startFakeModel, MODEL_ID };
