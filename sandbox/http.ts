import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

import { ApiError, invalid } from './errors';
import { requireObjectBody } from './validate';

export interface RequestContext {
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: IncomingHttpHeaders;
	contentType: string;
	raw: Buffer;
	/** 'json' = `body` holds the parsed value. */
	bodyKind: 'empty' | 'json' | 'invalid' | 'form' | 'form-invalid';
	body: unknown;
	form: FormData | null;
	/** What the journal shows as the body. */
	journalBody: unknown;
}

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

export type Handler<C> = (core: C, ctx: RequestContext, params: string[]) => Reply | Promise<Reply>;

export interface Route<C> {
	method: string;
	pattern: RegExp;
	handler: Handler<C>;
}

export function ok(body: unknown, status = 200): Reply {
	return { status, body };
}

export function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [key, value] of params) {
		const existing = out[key];
		if (existing === undefined) out[key] = value;
		else if (Array.isArray(existing)) existing.push(value);
		else out[key] = [existing, value];
	}
	return out;
}

/** One query value, or undefined; a repeated parameter is a validation error. */
export function queryValue(ctx: RequestContext, name: string): string | undefined {
	const value = ctx.query[name];
	if (Array.isArray(value)) throw invalid(name, 'must be given once');
	return value;
}

export function normalizePath(pathname: string): string {
	if (pathname.length > 1 && pathname.endsWith('/')) return pathname.replace(/\/+$/, '') || '/';
	return pathname;
}

/**
 * Reads the body. Beyond `limit` bytes the rest is read and discarded (so that the client
 * receives the 413 instead of a broken pipe) and `null` is returned; beyond `hardLimit` the
 * socket is destroyed.
 */
export function readBody(req: IncomingMessage, limit: number, hardLimit: number): Promise<Buffer | null> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let over = false;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > hardLimit) {
				req.socket.destroy();
				return;
			}
			if (size > limit) over = true;
			if (!over) chunks.push(chunk);
		});
		req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
		req.on('error', reject);
		req.on('aborted', () => reject(new Error('request aborted')));
	});
}

export async function buildContext(
	method: string,
	path: string,
	query: Record<string, string | string[]>,
	headers: IncomingHttpHeaders,
	raw: Buffer,
): Promise<RequestContext> {
	const contentType = String(headers['content-type'] ?? '');
	const ctx: RequestContext = { method, path, query, headers, contentType, raw, bodyKind: 'empty', body: undefined, form: null, journalBody: null };
	if (raw.length === 0) return ctx;
	if (/^multipart\/form-data/i.test(contentType)) {
		try {
			const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
			const fields: Record<string, string | string[]> = {};
			const files: { fieldName: string; fileName: string; contentType: string; size: number }[] = [];
			for (const [name, value] of form.entries()) {
				if (typeof value === 'string') {
					const existing = fields[name];
					if (existing === undefined) fields[name] = value;
					else if (Array.isArray(existing)) existing.push(value);
					else fields[name] = [existing, value];
				} else {
					files.push({ fieldName: name, fileName: value.name, contentType: value.type, size: value.size });
				}
			}
			ctx.form = form;
			ctx.bodyKind = 'form';
			ctx.journalBody = { fields, files };
		} catch {
			ctx.bodyKind = 'form-invalid';
			ctx.journalBody = raw.toString('utf8');
		}
		return ctx;
	}
	const text = raw.toString('utf8');
	try {
		ctx.body = JSON.parse(text);
		ctx.bodyKind = 'json';
		ctx.journalBody = ctx.body;
	} catch {
		ctx.bodyKind = 'invalid';
		ctx.journalBody = text;
	}
	return ctx;
}

/** The JSON object body of a request, or 400. */
export function jsonObject(ctx: RequestContext): Record<string, unknown> {
	if (ctx.bodyKind === 'invalid') throw invalid('body', 'is not valid JSON');
	if (ctx.bodyKind === 'form' || ctx.bodyKind === 'form-invalid') throw invalid('body', 'must be JSON (Content-Type: application/json)');
	return requireObjectBody(ctx.body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	if (res.headersSent || res.destroyed) return;
	const payload = body === undefined ? '' : JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': String(Buffer.byteLength(payload)),
		...headers,
	});
	res.end(payload);
}

export function sendRaw(res: ServerResponse, status: number, payload: string, headers: Record<string, string>): void {
	if (res.headersSent || res.destroyed) return;
	res.writeHead(status, { 'content-length': String(Buffer.byteLength(payload)), ...headers });
	res.end(payload);
}

function decodeParams(match: RegExpExecArray): string[] | null {
	try {
		return match.slice(1).map((p) => decodeURIComponent(p));
	} catch {
		return null;
	}
}

/** Finds the route: 404 NOT_FOUND when no pattern matches, 405 when only the method differs. */
export async function dispatch<C>(routes: Route<C>[], core: C, ctx: RequestContext, pathForMatch: string): Promise<Reply> {
	const allowed: string[] = [];
	for (const route of routes) {
		const match = route.pattern.exec(pathForMatch);
		if (!match) continue;
		if (route.method !== ctx.method) {
			allowed.push(route.method);
			continue;
		}
		const params = decodeParams(match);
		if (!params) throw new ApiError(404, 'NOT_FOUND', `No resource at ${ctx.path}`);
		return await route.handler(core, ctx, params);
	}
	if (allowed.length > 0) {
		throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allowed.join(', ')}`, { allowed }, { allow: allowed.join(', ') });
	}
	throw new ApiError(404, 'NOT_FOUND', `No resource at ${ctx.path}`);
}
