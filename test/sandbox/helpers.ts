import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { request } from 'undici';

import { PlatformSandbox } from '../../sandbox';
import type { SandboxOptions } from '../../sandbox';
import { useSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

export const PORTAL_KEY = 'pk_test_portal_key_0123456789abcdef';
export const OUTBOUND_KEY = 'ok_test_outbound_key_0123456789abcdef';
export const SAVED_AUTH_VALUE = 'saved-auth-secret-value-0123456789';

/** The keys of the sandbox tests, fixed so that their tables can name them. */
const KEYS = { portalKey: PORTAL_KEY, outboundKey: OUTBOUND_KEY, savedAuthValue: SAVED_AUTH_VALUE };

/** A sandbox of a test's own (other options than its file's): manual clock unless told otherwise, the keys above. */
export function startSandbox(opts: SandboxOptions = {}): Promise<PlatformSandbox> {
	return PlatformSandbox.start({ port: 0, clock: 'manual', ...KEYS, ...opts });
}

/**
 * The fixture of a sandbox test file: the product tests' own (useSandbox of test/harness/sandbox.ts: started
 * before the file's tests, stopped after them, reset before each) with the keys above, and a receiver for the
 * sandbox's callbacks, cleared and answering 200 before each test. Read the fields inside hooks and tests only.
 */
export function useSandboxAndReceiver(opts: SandboxOptions = {}): SandboxFixture & { rx: Receiver } {
	const fx = useSandbox({ ...KEYS, ...opts }) as SandboxFixture & { rx: Receiver };
	beforeAll(async () => {
		fx.rx = await Receiver.start();
	});
	afterAll(async () => {
		await fx.rx.stop();
	});
	beforeEach(() => {
		fx.rx.clear();
		fx.rx.status = 200;
	});
	return fx;
}

export interface HttpResult {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
	body: any;
}

export interface CallOptions {
	body?: unknown;
	rawBody?: string | Buffer;
	headers?: Record<string, string>;
	/** 'portal' (default for /api/v1), 'outbound' (default otherwise), or none. */
	auth?: 'portal' | 'outbound' | 'none';
}

export async function call(sb: PlatformSandbox, method: string, path: string, opts: CallOptions = {}): Promise<HttpResult> {
	const headers: Record<string, string> = {};
	const auth = opts.auth ?? (path.startsWith('/api/v1') ? 'portal' : 'outbound');
	if (auth === 'portal') headers.authorization = `Bearer ${sb.portalKey}`;
	if (auth === 'outbound') headers['x-apikey-secret-service'] = sb.outboundKey;
	let body: string | Buffer | undefined;
	if (opts.rawBody !== undefined) body = opts.rawBody;
	else if (opts.body !== undefined) {
		body = JSON.stringify(opts.body);
		headers['content-type'] = 'application/json';
	}
	Object.assign(headers, opts.headers ?? {});
	const res = await request(sb.url + path, { method: method as 'GET', headers, body });
	const text = await res.body.text();
	let parsed: unknown = undefined;
	try {
		parsed = text === '' ? undefined : JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	return { status: res.statusCode, headers: res.headers, text, body: parsed };
}

export function api(sb: PlatformSandbox, method: string, path: string, opts: CallOptions = {}): Promise<HttpResult> {
	return call(sb, method, '/api/v1' + path, opts);
}

/**
 * Asserts an error answer of a spec-mode sandbox (the default): the HTTP status and exactly `{error: {code,
 * message}}`. The interface document shows error codes but no error body; the sandbox sends the least that
 * carries one, and nothing a node could come to rely on.
 */
export function expectError(res: HttpResult, status: number, code: string): void {
	expect({ status: res.status, body: res.body }).toStrictEqual({ status, body: { error: { code, message: expect.any(String) } } });
}

/**
 * Asserts an error answer in full, as a rich-mode sandbox sends it on the platform surfaces (and the control
 * surface always): `{error: {code, message, status, details?}}` with `status` equal to the HTTP status; with
 * `field`, `details.field` names the field the request got wrong.
 */
export function expectRichError(res: HttpResult, status: number, code: string, field?: string): void {
	expect({ status: res.status, code: res.body?.error?.code, errStatus: res.body?.error?.status }).toEqual({ status, code, errStatus: status });
	expect(typeof res.body.error.message).toBe('string');
	expect(Object.keys(res.body).filter((key) => key !== 'error')).toEqual([]);
	expect(Object.keys(res.body.error).filter((key) => !['code', 'message', 'status', 'details'].includes(key))).toEqual([]);
	if (field !== undefined) expect(res.body.error.details?.field).toBe(field);
}

export interface MultipartPart {
	name: string;
	value?: string;
	fileName?: string;
	contentType?: string;
	data?: Buffer;
}

export function multipart(parts: MultipartPart[]): { body: Buffer; contentType: string } {
	const boundary = '----sandboxtestboundary7MA4YWxkTrZu0gW';
	const chunks: Buffer[] = [];
	for (const p of parts) {
		let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
		if (p.fileName !== undefined) head += `; filename="${p.fileName}"\r\nContent-Type: ${p.contentType ?? 'application/octet-stream'}`;
		head += '\r\n\r\n';
		chunks.push(Buffer.from(head, 'utf8'), p.data ?? Buffer.from(p.value ?? '', 'utf8'), Buffer.from('\r\n'));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function upload(sb: PlatformSandbox, ragId: string, parts: MultipartPart[]): Promise<HttpResult> {
	const m = multipart(parts);
	return api(sb, 'POST', `/rag/collections/${ragId}/documents`, { rawBody: m.body, headers: { 'content-type': m.contentType } });
}

export function file(fileName: string, size: number, contentType = 'application/octet-stream'): MultipartPart {
	return { name: 'files', fileName, contentType, data: Buffer.alloc(size, 0x61) };
}

export interface Received {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: any;
}

/** A tiny local HTTP receiver for callbacks. */
export class Receiver {
	readonly received: Received[] = [];
	status = 200;
	private constructor(private readonly server: Server, readonly url: string) {}

	static async start(): Promise<Receiver> {
		const ref: { receiver?: Receiver } = {};
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let body: unknown = text;
				try {
					body = JSON.parse(text);
				} catch {
					body = text;
				}
				ref.receiver?.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
				res.writeHead(ref.receiver?.status ?? 200, { 'content-type': 'application/json' });
				res.end('{"ok":true}');
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
		const port = (server.address() as AddressInfo).port;
		ref.receiver = new Receiver(server, `http://127.0.0.1:${port}`);
		return ref.receiver;
	}

	at(path: string): Received[] {
		return this.received.filter((r) => r.path === path);
	}

	clear(): void {
		this.received.length = 0;
	}

	async stop(): Promise<void> {
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		await closed;
	}
}

export async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
	const start = Date.now();
	while (!check()) {
		if (Date.now() - start > timeoutMs) throw new Error('waitFor timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
}
