/**
 * A hostile platform for tests: a front server in front of the real sandbox that proxies
 * every request unless a rule tells it to misbehave, plus a second, "foreign" origin that records
 * everything it receives and answers like a friendly platform would. Credentials point at the front;
 * a redirect sends the client to the foreign origin, so any key that arrives there has left its host.
 *
 * Ready to use (tested in test/hostile/hostile-platform.test.ts): `const fx = useHostile()` gives
 * fx.hostile (url, rule, requests, foreign), fx.sandbox and fx.credentials pointing at the front.
 * Beside them, fx.n8n is an in-memory n8n data-table API (test/harness/n8nDataTables.ts, another
 * host, never misbehaving) for the Campaign operations; fx.credentials holds its credential too.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import type { Transform } from 'node:stream';
import {
	brotliCompressSync,
	constants as zlibConstants,
	createBrotliCompress,
	createDeflate,
	createGzip,
	deflateSync,
	gzipSync,
} from 'node:zlib';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { SandboxOptions } from '../../sandbox';
import type { PlatformSandbox } from '../../sandbox';

import type { N8nDataTables } from './n8nDataTables';
import { startN8nDataTables } from './n8nDataTables';
import type { SandboxFixture } from './sandbox';
import { startSandbox } from './sandbox';
import { registerSecret } from './secretsGuard';

export interface RecordedRequest {
	method: string;
	/** Path with query, as received. */
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

export type Behaviour =
	/** Location: the same path and query on the foreign origin (default) or on the front itself. */
	| { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; to?: 'foreign' | 'front' }
	/**
	 * A JSON body that echoes every request header value and the request body, nested `depth` levels
	 * deep (default 3) and in error.message / error.details. A 2xx status makes it an acceptance that
	 * echoes: it has internal_id, id, dialStatus and a one-item list page, so every operation takes it.
	 */
	| { kind: 'echo'; status: number; depth?: number }
	/** A 2xx that is not an acceptance (the *Id variants carry an internal_id no call can be named by). */
	| {
			kind: 'nonAccept';
			variant: 'emptyObject' | 'emptyBody' | 'noContent' | 'html' | 'error200' | 'roundedId' | 'fractionalId' | 'longId';
	  }
	/**
	 * Status and headers at once, then the real (proxied) body one byte every `intervalMs`; with
	 * `totalMs`, in as many equal slices as fit (never more than `intervalMs` apart) so that the body
	 * ends after about `totalMs`: an idle timeout never fires, a deadline shorter than `totalMs` does.
	 */
	| { kind: 'trickle'; intervalMs: number; status?: number; totalMs?: number }
	/**
	 * Every GET answers a list page with hasMore true, a fresh cursor and fresh ids: `emptyPagesFirst`
	 * empty pages, then pages of `perPage` items (default: the limit asked for), each preceded by
	 * `emptyBetween` empty pages (default 0); meta.totalCount is `totalCount` (default: one page).
	 * `itemBytes` pads every item's name so that its JSON is about that long; `hasMore` replaces the
	 * boolean of meta.hasMore (e.g. "true" or 1, which the contract does not allow).
	 */
	| {
			kind: 'endlessList';
			perPage?: number;
			emptyPagesFirst?: number;
			emptyBetween?: number;
			totalCount?: number;
			itemBytes?: number;
			hasMore?: unknown;
	  }
	/**
	 * A JSON answer `bytes` long once decoded: an acceptance that is also an empty last list page
	 * (internal_id, status fields, `data: []`, meta with hasMore false), padded with one long string, so
	 * that every operation would take it if it read it to the end. Produced as the client reads it and
	 * sent compressed with `encoding` (default identity). Framing: `chunked` (default, no
	 * Content-Length), `length` (the true length of what is sent; the body is prepared in memory
	 * first, so keep `bytes` moderate), `lying` (Content-Length says 64 while the whole body follows).
	 */
	| {
			kind: 'oversize';
			bytes: number;
			encoding?: Encoding;
			framing?: 'chunked' | 'length' | 'lying';
			status?: number;
	  }
	/**
	 * A 2xx JSON answer (default 200) that names a call and says it was not placed: `body` (default
	 * `{"internal_id": "contra-<n>", "placed": false, "outcome": "rejected"}`); `{id}` in a string value
	 * becomes a fresh id.
	 */
	| { kind: 'contradictory'; body?: Record<string, unknown>; status?: number }
	/** An error whose message is `bytes` long. */
	| { kind: 'hugeError'; bytes: number; status?: number }
	| { kind: 'pass' };

export interface HostileRule {
	/** Default: any method. */
	method?: string;
	/** A string matches the path without query exactly; a RegExp is tested on the path with query. Default: any. */
	path?: string | RegExp;
	behave: Behaviour;
	/** How many requests the rule answers before it is dropped. Default: all of them. */
	times?: number;
}

export interface HostilePlatform {
	/** The origin credentials point at (management at url + '/api/v1', outbound at url). */
	url: string;
	/** The real sandbox everything not ruled is proxied to. */
	sandbox: PlatformSandbox;
	/** Everything the front received. */
	requests: RecordedRequest[];
	/** A second origin that records everything and answers like a friendly platform. */
	foreign: { url: string; requests: RecordedRequest[] };
	/** Adds rules; the first matching rule (in the order added) answers a request. */
	rule(rules: HostileRule | HostileRule[]): void;
	/** Drops every rule and forgets recorded requests (front and foreign); resets the sandbox and n8n's data tables. */
	clear(): void;
	stop(): Promise<void>;
}

export interface HostileFixture extends SandboxFixture {
	hostile: HostilePlatform;
	/** n8n's data-table API (Campaign state), on a host of its own that never misbehaves; reset by hostile.clear(). */
	n8n: N8nDataTables;
}

export interface HostileOptions {
	sandbox?: SandboxOptions;
	/** Assistant key put into the outbound credential. */
	assistantApiKey?: string;
}

/** Starts the sandbox, the front and the foreign origin; credentials point at the front. */
export async function startHostile(options: HostileOptions = {}): Promise<HostileFixture> {
	const base = await startSandbox(options.sandbox, options.assistantApiKey);
	registerSecret(options.assistantApiKey);
	const n8n = await startN8nDataTables();
	const hostile = await HostileServer.start(base.sandbox, n8n);
	const portal: ICredentialDataDecryptedObject = { ...base.portal, baseUrl: hostile.url };
	const outbound: ICredentialDataDecryptedObject = { ...base.outbound, outboundUrl: hostile.url };
	return {
		sandbox: base.sandbox,
		hostile,
		n8n,
		portal,
		outbound,
		credentials: { assistantPlatformPortalApi: portal, assistantPlatformOutboundApi: outbound, assistantPlatformN8nApi: n8n.credentials },
	};
}

/** The fixture of a test file: started before its tests, cleared before each, stopped after them. */
export function useHostile(options: HostileOptions = {}): HostileFixture {
	const fx = {} as HostileFixture;
	beforeAll(async () => {
		Object.assign(fx, await startHostile(options));
	});
	afterAll(async () => {
		await fx.hostile?.stop();
	});
	beforeEach(() => {
		fx.hostile.clear();
	});
	return fx;
}

// ------------------------------------------------------------------------------------------------

interface LiveRule extends HostileRule {
	/** Requests answered so far (endlessList counts pages with it). */
	served: number;
}

interface Proxied {
	status: number;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

async function listen(server: Server): Promise<string> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
	const closed = new Promise<void>((resolve) => server.close(() => resolve()));
	server.closeAllConnections();
	await closed;
}

async function readRequest(req: IncomingMessage): Promise<RecordedRequest> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return {
		method: req.method ?? 'GET',
		path: req.url ?? '/',
		headers: { ...req.headers },
		body: Buffer.concat(chunks).toString('utf8'),
	};
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
	const body = JSON.stringify(value);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
	res.end(body);
}

function nest(depth: number, value: unknown): unknown {
	return depth <= 0 ? value : { nested: nest(depth - 1, value) };
}

function emptyPage(limit: number): object {
	return { data: [], meta: { count: 0, totalCount: 0, limit, nextCursor: null, hasMore: false } };
}

function limitOf(path: string, fallback: number): number {
	const value = Number(new URL(path, 'http://x').searchParams.get('limit'));
	return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The fields that make an answer an acceptance every operation takes: a call's id and status, an assistant's id. */
function acceptance(id: string): Record<string, unknown> {
	return { internal_id: id, status: 'queued', id, assistantId: id, dialStatus: 'ANSWER', billSec: 1, trafficCost: '0.000000' };
}

const PAD = Buffer.alloc(64 * 1024, 'x');

/**
 * JSON that is an acceptance (internal_id) and an empty last page at once, `bytes` long: its fields,
 * then a string of "x" up to the length, then the closing quote and brace.
 */
function oversizeParts(bytes: number, id: string, limit: number): { head: Buffer; padding: number; tail: Buffer } {
	const head = Buffer.from(
		JSON.stringify({
			...acceptance(id),
			data: [],
			meta: { count: 0, totalCount: 0, limit, nextCursor: null, hasMore: false },
			padding: '',
		}).slice(0, -2),
	);
	const tail = Buffer.from('"}');
	return { head, padding: Math.max(0, bytes - head.length - tail.length), tail };
}

function oversizeBodyLength(bytes: number, id: string, limit: number): number {
	const { head, padding, tail } = oversizeParts(bytes, id, limit);
	return head.length + padding + tail.length;
}

/** The oversize JSON, produced as it is read. */
function oversizeBody(bytes: number, id: string, limit: number): Readable {
	const { head, padding, tail } = oversizeParts(bytes, id, limit);
	return Readable.from(padded(head, padding, tail), { objectMode: false });
}

/** `head`, `padding` bytes of PAD, `tail`: one chunk at a time, as the reader asks for them. */
function* padded(head: Buffer, padding: number, tail: Buffer): Generator<Buffer> {
	yield head;
	for (let left = padding; left > 0; left -= PAD.length) yield left >= PAD.length ? PAD : PAD.subarray(0, left);
	yield tail;
}

type Encoding = 'identity' | 'gzip' | 'br' | 'deflate';

const BROTLI_FAST = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } };

function compressor(encoding: Encoding): Transform | undefined {
	if (encoding === 'gzip') return createGzip({ level: 1 });
	if (encoding === 'deflate') return createDeflate({ level: 1 });
	if (encoding === 'br') return createBrotliCompress(BROTLI_FAST);
	return undefined;
}

/** The whole oversize body, compressed, at once (for an answer sent with its true Content-Length). */
function compressedOversize(encoding: Exclude<Encoding, 'identity'>, bytes: number, id: string, limit: number): Buffer {
	const { head, padding, tail } = oversizeParts(bytes, id, limit);
	const whole = Buffer.concat([head, Buffer.alloc(padding, 'x'), tail]);
	if (encoding === 'gzip') return gzipSync(whole, { level: 1 });
	if (encoding === 'deflate') return deflateSync(whole, { level: 1 });
	return brotliCompressSync(whole, BROTLI_FAST);
}

class HostileServer implements HostilePlatform {
	readonly requests: RecordedRequest[] = [];
	readonly foreign: { url: string; requests: RecordedRequest[] };
	private rules: LiveRule[] = [];
	private readonly timers = new Set<NodeJS.Timeout>();
	/** Bodies being streamed (oversize): destroyed by clear() and stop(). */
	private readonly streams = new Set<Readable>();
	/** Compressed oversize bodies sent with their true length, by encoding and size. */
	private readonly prepared = new Map<string, Buffer>();
	private sequence = 0;

	private constructor(
		readonly url: string,
		readonly sandbox: PlatformSandbox,
		private readonly n8n: N8nDataTables,
		private readonly front: Server,
		private readonly foreignServer: Server,
		foreignUrl: string,
	) {
		this.foreign = { url: foreignUrl, requests: [] };
	}

	static async start(sandbox: PlatformSandbox, n8n: N8nDataTables): Promise<HostileServer> {
		const holder: { server?: HostileServer } = {};
		const front = createServer((req, res) => void holder.server?.handleFront(req, res));
		const foreign = createServer((req, res) => void holder.server?.handleForeign(req, res));
		const [frontUrl, foreignUrl] = [await listen(front), await listen(foreign)];
		holder.server = new HostileServer(frontUrl, sandbox, n8n, front, foreign, foreignUrl);
		return holder.server;
	}

	rule(rules: HostileRule | HostileRule[]): void {
		for (const r of Array.isArray(rules) ? rules : [rules]) this.rules.push({ ...r, served: 0 });
	}

	clear(): void {
		this.rules = [];
		this.requests.length = 0;
		this.foreign.requests.length = 0;
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		for (const stream of this.streams) stream.destroy();
		this.streams.clear();
		this.sandbox.reset();
		this.n8n.reset();
	}

	async stop(): Promise<void> {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		for (const stream of this.streams) stream.destroy();
		this.streams.clear();
		await Promise.all([close(this.front), close(this.foreignServer), this.n8n.stop()]);
		await this.sandbox.stop();
	}

	private match(request: RecordedRequest): LiveRule | undefined {
		const pathname = request.path.split('?')[0];
		const found = this.rules.find(
			(r) =>
				(!r.method || r.method.toUpperCase() === request.method) &&
				(r.path === undefined ||
					(typeof r.path === 'string' ? r.path === pathname : r.path.test(request.path))),
		);
		if (!found) return undefined;
		found.served++;
		if (found.times !== undefined && found.served >= found.times) this.rules = this.rules.filter((r) => r !== found);
		return found;
	}

	private async handleForeign(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const request = await readRequest(req);
		this.foreign.requests.push(request);
		if (request.method === 'POST') sendJson(res, 200, { internal_id: 'foreign-1', status: 'queued' });
		else if (request.method === 'GET') sendJson(res, 200, emptyPage(limitOf(request.path, 100)));
		else sendJson(res, 200, {});
	}

	private async handleFront(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const request = await readRequest(req);
		this.requests.push(request);
		const rule = this.match(request);
		const behave: Behaviour = rule?.behave ?? { kind: 'pass' };
		try {
			await this.answer(behave, rule?.served ?? 1, request, res);
		} catch (error) {
			if (!res.headersSent) sendJson(res, 502, { error: { code: 'HOSTILE_HARNESS', message: String(error) } });
			else res.destroy();
		}
	}

	private async answer(behave: Behaviour, served: number, request: RecordedRequest, res: ServerResponse): Promise<void> {
		switch (behave.kind) {
			case 'pass': {
				const proxied = await this.proxy(request);
				const headers = { ...proxied.headers };
				for (const name of HOP_HEADERS) delete headers[name];
				res.writeHead(proxied.status, { ...headers, 'content-length': proxied.body.length });
				res.end(proxied.body);
				return;
			}
			case 'redirect': {
				const origin = behave.to === 'front' ? this.url : this.foreign.url;
				res.writeHead(behave.status, { location: origin + request.path, 'content-length': 0 });
				res.end();
				return;
			}
			case 'echo':
				return this.echo(behave.status, behave.depth ?? 3, request, res);
			case 'nonAccept':
				return this.nonAccept(behave.variant, res);
			case 'trickle':
				return this.trickle(behave, request, res);
			case 'endlessList':
				return this.endlessList(behave, served, request, res);
			case 'oversize':
				return this.oversize(behave, request, res);
			case 'contradictory': {
				const body = behave.body ?? { internal_id: '{id}', placed: false, outcome: 'rejected' };
				const id = `contra-${++this.sequence}`;
				const filled = Object.fromEntries(
					Object.entries(body).map(([key, value]) => [key, typeof value === 'string' ? value.replace('{id}', id) : value]),
				);
				sendJson(res, behave.status ?? 200, filled);
				return;
			}
			case 'hugeError': {
				const message = 'The upstream failed: ' + 'x'.repeat(Math.max(0, behave.bytes));
				sendJson(res, behave.status ?? 500, { error: { code: 'INTERNAL', message } });
				return;
			}
		}
	}

	private proxy(request: RecordedRequest): Promise<Proxied> {
		const target = new URL(this.sandbox.url);
		const headers = { ...request.headers, host: target.host };
		delete headers['transfer-encoding'];
		if (request.body) headers['content-length'] = String(Buffer.byteLength(request.body));
		return new Promise((resolve, reject) => {
			const out = httpRequest(
				{ host: target.hostname, port: target.port, method: request.method, path: request.path, headers },
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
					res.on('error', reject);
				},
			);
			out.on('error', reject);
			out.end(request.body);
		});
	}

	private echo(status: number, depth: number, request: RecordedRequest, res: ServerResponse): void {
		const values = Object.values(request.headers).flatMap((v) => (Array.isArray(v) ? v : v === undefined ? [] : [v]));
		let body: unknown = request.body;
		try {
			body = JSON.parse(request.body);
		} catch {
			// not JSON: echoed as text
		}
		const echoed = { headers: request.headers, headerValues: values, body, rawBody: request.body };
		const text = `${request.method} ${request.path} rejected; headers: ${values.join(' | ')}; body: ${request.body}`;
		if (status < 200 || status >= 300) {
			sendJson(res, status, { error: { code: 'ECHO', message: text, details: nest(depth, echoed) }, message: text });
			return;
		}
		const id = `echo-${++this.sequence}`;
		const item = { id, assistantId: id, name: text, echo: nest(depth, echoed) };
		sendJson(res, status, {
			...acceptance(id),
			message: text,
			echo: nest(depth, echoed),
			data: [item],
			meta: { count: 1, totalCount: 1, limit: limitOf(request.path, 100), nextCursor: null, hasMore: false },
		});
	}

	private nonAccept(variant: Extract<Behaviour, { kind: 'nonAccept' }>['variant'], res: ServerResponse): void {
		switch (variant) {
			case 'emptyObject':
				return sendJson(res, 200, {});
			case 'error200':
				return sendJson(res, 200, { error: { code: 'INTERNAL', message: 'upstream failed' } });
			case 'roundedId': {
				// Past 2^53: JSON.parse rounds it, so the id read is not the id sent.
				const text = '{"internal_id":9007199254740993,"status":"queued"}';
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
				res.end(text);
				return;
			}
			case 'fractionalId':
				return sendJson(res, 200, { internal_id: 1.5, status: 'queued' });
			case 'longId':
				return sendJson(res, 200, { internal_id: 'i'.repeat(201), status: 'queued' });
			case 'emptyBody':
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': 0 });
				res.end();
				return;
			case 'noContent':
				res.writeHead(204);
				res.end();
				return;
			case 'html': {
				const html = '<html><body><h1>Welcome to the proxy</h1></body></html>';
				res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) });
				res.end(html);
				return;
			}
		}
	}

	private async trickle(
		behave: Extract<Behaviour, { kind: 'trickle' }>,
		request: RecordedRequest,
		res: ServerResponse,
	): Promise<void> {
		const proxied = await this.proxy(request);
		const body = proxied.body.length > 0 ? proxied.body : Buffer.from('{}');
		res.writeHead(behave.status ?? proxied.status, {
			'content-type': String(proxied.headers['content-type'] ?? 'application/json'),
			'content-length': body.length,
		});
		res.flushHeaders();
		const slices = behave.totalMs === undefined ? body.length : Math.max(1, Math.floor(behave.totalMs / behave.intervalMs));
		const step = Math.max(1, Math.ceil(body.length / slices));
		let at = 0;
		const next = () => {
			if (res.destroyed || res.writableEnded) return;
			res.write(body.subarray(at, at + step));
			at += step;
			if (at >= body.length) {
				res.end();
				return;
			}
			schedule();
		};
		const schedule = () => {
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				next();
			}, behave.intervalMs);
			this.timers.add(timer);
		};
		// With totalMs the first slice waits too, so that the body ends after totalMs.
		if (behave.totalMs === undefined) next();
		else schedule();
	}

	private oversize(behave: Extract<Behaviour, { kind: 'oversize' }>, request: RecordedRequest, res: ServerResponse): void {
		const encoding = behave.encoding ?? 'identity';
		const framing = behave.framing ?? 'chunked';
		const headers: Record<string, string | number> = { 'content-type': 'application/json' };
		if (encoding !== 'identity') headers['content-encoding'] = encoding;
		const id = `big-${++this.sequence}`;
		const limit = limitOf(request.path, 100);
		if (framing === 'length' && encoding !== 'identity') {
			const key = `${encoding}:${behave.bytes}:${limit}`;
			let prepared = this.prepared.get(key);
			if (!prepared) {
				prepared = compressedOversize(encoding, behave.bytes, 'big-prepared', limit);
				this.prepared.set(key, prepared);
			}
			res.writeHead(behave.status ?? 200, { ...headers, 'content-length': prepared.length });
			this.stream(Readable.from([prepared]), undefined, res);
			return;
		}
		if (framing === 'length') headers['content-length'] = oversizeBodyLength(behave.bytes, id, limit);
		if (framing === 'lying') headers['content-length'] = 64;
		res.writeHead(behave.status ?? 200, headers);
		this.stream(oversizeBody(behave.bytes, id, limit), compressor(encoding), res);
	}

	/** Streams `source` (through `via`) into the answer as fast as the client reads it. */
	private stream(source: Readable, via: Transform | undefined, res: ServerResponse): void {
		this.streams.add(source);
		const done = () => {
			this.streams.delete(source);
			if (!res.destroyed) res.destroy();
		};
		if (via) pipeline(source, via, res, done);
		else pipeline(source, res, done);
	}

	private endlessList(
		behave: Extract<Behaviour, { kind: 'endlessList' }>,
		served: number,
		request: RecordedRequest,
		res: ServerResponse,
	): Promise<void> | void {
		if (request.method !== 'GET') return this.answer({ kind: 'pass' }, served, request, res);
		const perPage = behave.perPage ?? limitOf(request.path, 100);
		const first = behave.emptyPagesFirst ?? 0;
		const every = (behave.emptyBetween ?? 0) + 1;
		const count = served <= first || (served - first) % every !== 0 ? 0 : perPage;
		const data = Array.from({ length: count }, () => {
			const id = `endless-${++this.sequence}`;
			const item = { id, assistantId: id, collectionId: id, name: id };
			const pad = (behave.itemBytes ?? 0) - JSON.stringify(item).length;
			if (pad > 0) item.name = id + ' '.repeat(pad);
			return item;
		});
		sendJson(res, 200, {
			data,
			meta: {
				count,
				totalCount: behave.totalCount ?? perPage,
				limit: perPage,
				nextCursor: `cursor-${++this.sequence}`,
				hasMore: 'hasMore' in behave ? behave.hasMore : true,
			},
		});
	}
}
