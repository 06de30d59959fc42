// A minimal MCP client for the suite: the Streamable HTTP transport of the Model Context Protocol, spoken by hand
// (JSON-RPC 2.0 over HTTP POST, no SDK), as an external client such as Claude Desktop or an IDE speaks to n8n's MCP
// Server Trigger at its Production URL (<n8n>/mcp/<path>).
//
//   const client = await connectMcp(`${n8n.url}/mcp/${path}`);   // initialize + notifications/initialized
//   const tools = await client.listTools();                      // [{ name, description, inputSchema }]
//   const result = await client.callTool(name, { ... });         // { content: [{ type: 'text', text }], isError? }
//   textOfResult(result)                                          // the text the client reads
//   client.exchanges                                              // every request and answer, for assertions
//   await client.close();                                         // DELETE the session
//
// Each request is one POST with `Accept: application/json, text/event-stream`: the server answers either one JSON
// body or a server-sent event stream whose `data:` lines carry JSON-RPC messages (it ends the stream once the
// request is answered). The `mcp-session-id` header the server returns on `initialize` goes on every later request,
// with `mcp-protocol-version`.
'use strict';

const PROTOCOL_VERSION = '2025-03-26';

/** The JSON-RPC messages of an answer body: one JSON document, or the `data:` lines of server-sent events. */
function messagesOf(contentType, text) {
	if (/text\/event-stream/i.test(contentType ?? '')) {
		// Events are separated by a blank line; the data of an event is its `data:` lines joined by new lines.
		return text
			.split(/\r?\n\r?\n/)
			.map((event) =>
				event
					.split(/\r?\n/)
					.filter((line) => line.startsWith('data:'))
					.map((line) => line.slice(5).replace(/^ /, ''))
					.join('\n'),
			)
			.filter((data) => data !== '')
			.map((data) => JSON.parse(data));
	}
	if (text.trim() === '') return [];
	const parsed = JSON.parse(text);
	return Array.isArray(parsed) ? parsed : [parsed];
}

class McpError extends Error {
	constructor(message, details) {
		super(message);
		this.details = details;
	}
}

/** The text of a tools/call result, as a client shows it to its model: its text contents joined. */
function textOfResult(result) {
	return (result?.content ?? [])
		.filter((part) => part.type === 'text')
		.map((part) => part.text)
		.join('\n');
}

class McpClient {
	constructor(url, { timeoutMs = 60000, headers = {} } = {}) {
		this.url = url;
		this.timeoutMs = timeoutMs;
		this.headers = headers;
		this.sessionId = undefined;
		this.protocolVersion = undefined;
		this.nextId = 1;
		/** Every exchange: { request, status, headers, messages } (what the client sent and read). */
		this.exchanges = [];
	}

	/** One POST of a JSON-RPC message; resolves with the HTTP status, headers and the messages read back. */
	async post(message) {
		const headers = {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			...this.headers,
			...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
			...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
		};
		const response = await fetch(this.url, {
			method: 'POST',
			headers,
			body: JSON.stringify(message),
			signal: AbortSignal.timeout(this.timeoutMs),
		});
		const text = await response.text();
		let messages;
		try {
			messages = messagesOf(response.headers.get('content-type'), text);
		} catch {
			messages = [];
		}
		const exchange = { request: message, status: response.status, headers: Object.fromEntries(response.headers), text, messages };
		this.exchanges.push(exchange);
		return exchange;
	}

	/** A JSON-RPC request: resolves with its `result`, throws on an HTTP error or a JSON-RPC `error`. */
	async request(method, params) {
		const id = this.nextId++;
		const exchange = await this.post({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
		if (exchange.status >= 400) {
			throw new McpError(`${method}: HTTP ${exchange.status} ${exchange.text.slice(0, 300)}`, exchange);
		}
		const answer = exchange.messages.find((m) => m.id === id && ('result' in m || 'error' in m));
		if (!answer) throw new McpError(`${method}: no answer to request ${id} in ${JSON.stringify(exchange.text).slice(0, 300)}`, exchange);
		if (answer.error) throw new McpError(`${method}: JSON-RPC error ${answer.error.code} ${answer.error.message}`, exchange);
		return { result: answer.result, exchange };
	}

	/** A JSON-RPC notification (no id, no answer but the HTTP status: 202 Accepted). */
	async notify(method, params) {
		const exchange = await this.post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
		if (exchange.status >= 400) throw new McpError(`${method}: HTTP ${exchange.status} ${exchange.text.slice(0, 300)}`, exchange);
		return exchange;
	}

	/** The handshake: initialize (keeps the session id and the protocol version), then notifications/initialized. */
	async initialize() {
		const { result, exchange } = await this.request('initialize', {
			protocolVersion: PROTOCOL_VERSION,
			capabilities: {},
			clientInfo: { name: 'n8n-nodes-assistant-platform e2e', version: '1.0.0' },
		});
		this.sessionId = exchange.headers['mcp-session-id'] ?? this.sessionId;
		this.protocolVersion = result.protocolVersion;
		this.serverInfo = result.serverInfo;
		await this.notify('notifications/initialized');
		return result;
	}

	/** tools/list: the tools the server offers ({ name, description, inputSchema }). */
	async listTools() {
		return (await this.request('tools/list', {})).result.tools;
	}

	/** tools/call: the result ({ content, isError? }). */
	async callTool(name, args) {
		return (await this.request('tools/call', { name, arguments: args })).result;
	}

	/** Ends the session (DELETE with the session id); errors are ignored, the server forgets idle sessions anyway. */
	async close() {
		if (!this.sessionId) return;
		await fetch(this.url, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId }, signal: AbortSignal.timeout(10000) }).catch(() => undefined);
		this.sessionId = undefined;
	}
}

/**
 * A client with an initialized session at `url`. A just-published MCP Server Trigger answers 404 for a moment
 * (n8n registers its webhooks after the publish call returns): the handshake is retried on 404 for `retryMs`.
 */
async function connectMcp(url, { retryMs = 15000, ...options } = {}) {
	const started = Date.now();
	for (;;) {
		const client = new McpClient(url, options);
		try {
			await client.initialize();
			return client;
		} catch (error) {
			if (error.details?.status !== 404 || Date.now() - started > retryMs) throw error;
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
}

module.exports = { McpClient, McpError, connectMcp, textOfResult, messagesOf, PROTOCOL_VERSION };
