import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { API_PREFIX, BODY_OVERHEAD_BYTES, CONTROL_PREFIX } from './constants';
import { controlRoutes } from './control';
import { SandboxCore } from './core';
import { ApiError, defaultCodeFor, errorBody } from './errors';
import type { ActiveFault } from './faults';
import { DEFAULT_LATENCY_MS, DEFAULT_SLOW_MS } from './faults';
import type { Reply, RequestContext } from './http';
import { buildContext, dispatch, normalizePath, queryRecord, readBody, sendJson, sendRaw } from './http';
import { safeEqual } from './ids';
import { managementRoutes } from './management';
import { rewritePage } from './pagination';
import { isOutboundPath, outboundRoutes } from './outbound';
import type {
	AssistantRecord,
	AuthOutcome,
	ClockMode,
	CallJournalEntry,
	CallRefusal,
	CreateAssistantInput,
	DeliveredCallback,
	DialOutcomeRule,
	FaultSpec,
	JournalEntry,
	NumberKind,
	NumberRecord,
	SandboxAnswers,
	SandboxOptions,
	SandboxState,
	SavedAuthentication,
	SeedOptions,
} from './types';

/** The clock as the module API shows it. */
export interface SandboxClockApi {
	readonly mode: ClockMode;
	/** Real clock: how many times faster than wall time it runs. */
	readonly speed: number;
	now(): number;
	/** Real clock: run `speed` times faster than wall time from now on (time passed so far is kept). */
	setSpeed(speed: number): void;
	/** Moves time forward, runs every due event in order and awaits it (including its outbound HTTP). */
	advance(ms: number): Promise<void>;
}

const MALFORMED_BODY = '{"data": [{"assistantId": "asst_broken", "name": "unterminated';

/**
 * An in-memory implementation of the whole platform contract (management API under /api/v1,
 * outbound API at the root) on 127.0.0.1, plus the unauthenticated control surface /__sandbox/.
 */
export class PlatformSandbox {
	readonly url: string;
	private readonly core: SandboxCore;
	private readonly server: Server;
	private readonly timers = new Set<NodeJS.Timeout>();
	private stopped = false;

	private constructor(core: SandboxCore, server: Server, url: string) {
		this.core = core;
		this.server = server;
		this.url = url;
	}

	static async start(opts: SandboxOptions = {}): Promise<PlatformSandbox> {
		const core = new SandboxCore(opts);
		// Requests are refused until the instance exists (the server starts listening first).
		const ready: { sandbox?: PlatformSandbox } = {};
		const server = createServer((req, res) => {
			if (!ready.sandbox) {
				res.destroy();
				return;
			}
			void ready.sandbox.handle(req, res);
		});
		server.keepAliveTimeout = 5000;
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(core.options.port, core.options.host, () => {
				server.off('error', reject);
				resolve();
			});
		});
		const address = server.address() as AddressInfo;
		const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
		ready.sandbox = new PlatformSandbox(core, server, `http://${host}:${address.port}`);
		return ready.sandbox;
	}

	// ---------------------------------------------------------------- module API

	/** Base of the management API (`url + '/api/v1'`). */
	get managementUrl(): string {
		return this.url + API_PREFIX;
	}

	/** Base of the outbound API (same host). */
	get outboundUrl(): string {
		return this.url;
	}

	get port(): number {
		return Number(new URL(this.url).port);
	}

	get portalKey(): string {
		return this.core.portalKey;
	}

	get outboundKey(): string {
		return this.core.outboundKey;
	}

	/** Value of the seeded saved authentication `n8n-header-auth` (header `X-Webhook-Auth`). */
	get savedAuthValue(): string {
		return this.core.savedAuthValue;
	}

	/** The live state. `reset()` replaces it: read `sandbox.state` again afterwards. */
	get state(): SandboxState {
		return this.core.state;
	}

	/** Every request on the platform surfaces, masked (never a key). Cleared in place. */
	get journal(): JournalEntry[] {
		return this.core.journal;
	}

	/** Every outbound POST the sandbox made (call results, conversation ends, extracted data). */
	get callbacks(): DeliveredCallback[] {
		return this.core.callbacks;
	}

	get clock(): SandboxClockApi {
		return this.core.clock;
	}

	get latencyMs(): number {
		return this.core.latencyMs;
	}

	/** Errors thrown by scheduled events (should stay empty). */
	get eventErrors(): unknown[] {
		return this.core.errors;
	}

	clearJournal(): void {
		this.core.clearJournal();
	}

	clearCallbacks(): void {
		this.core.callbacks.length = 0;
	}

	/** Back to the seeded state (same seeded ids and keys); journal, callbacks, faults, latency, dial outcomes and pending events cleared. */
	reset(): void {
		this.core.resetState();
	}

	/** Adds bulk data: `{ assistants, assistantNamePrefix, collections, listItems }`. */
	seed(opts: SeedOptions): void {
		this.core.seed(opts);
	}

	/** Creates an assistant without HTTP; the returned record includes its `assistantApiKey`. */
	createAssistant(input: CreateAssistantInput = {}): AssistantRecord {
		const a = this.core.createAssistant(input);
		return { ...a, numbers: a.numbers.slice() };
	}

	/** Assigns a number (null = unassign); an unknown number is created with `kind` (default 'purchased'). */
	assignNumber(number: string, assistantId: string | null, kind: NumberKind = 'purchased'): NumberRecord {
		return { ...this.core.assignNumber(number, assistantId, kind) };
	}

	authorizePbx(ipOrHost: string): void {
		this.core.authorizePbx(ipOrHost);
	}

	addSavedAuthentication(name: string, auth: { header: string; value: string }): SavedAuthentication {
		return { ...this.core.addSavedAuthentication(name, auth) };
	}

	/** Outcome of calls to `dst` (or of every call without a rule, when `dst` is absent). */
	setDialOutcome(rule: DialOutcomeRule): void {
		this.core.setDialOutcome(rule);
	}

	/** Forgets every dial-outcome rule and every number's attempt count. */
	clearDialOutcomes(): void {
		this.core.clearDialOutcomes();
	}

	/**
	 * The account's limit of calls in flight (accepted and not yet hung up); a placement over it is refused
	 * with 429 CALL_LIMIT_REACHED and Retry-After. null = no limit.
	 */
	setAccountLimit(maxConcurrentCalls: number | null): void {
		this.core.network.setLimit(maxConcurrentCalls);
	}

	/** The account's limit of calls in flight (null: none). */
	get accountLimit(): number | null {
		return this.core.network.maxConcurrentCalls;
	}

	/** Calls accepted and not yet hung up. */
	get callsInFlight(): number {
		return this.core.network.callsInFlight;
	}

	/**
	 * The call journal: every accepted call (dst, internal_id, attempt, outcome, start and end in sandbox
	 * and wall time) and every placement the account's limit refused. Cleared in place.
	 */
	get callJournal(): { calls: CallJournalEntry[]; refusals: CallRefusal[] } {
		return { calls: this.core.network.calls, refusals: this.core.network.refusals };
	}

	clearCallJournal(): void {
		this.core.network.clearJournal();
	}

	injectFault(fault: FaultSpec): void {
		this.core.faults.add(fault);
	}

	clearFaults(): void {
		this.core.faults.clear();
	}

	/** Added to every platform request (not /__sandbox), for benchmarks. 0 = off. */
	setLatency(ms: number): void {
		if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new RangeError('setLatency(ms) needs a number >= 0');
		this.core.latencyMs = ms;
	}

	/** What the platform's answers carry (SandboxOptions.answers) until the next reset(). */
	get answers(): SandboxAnswers {
		return this.core.answers;
	}

	setAnswers(answers: SandboxAnswers): void {
		if (answers !== 'spec' && answers !== 'rich') throw new RangeError("setAnswers needs 'spec' or 'rich'");
		this.core.answers = answers;
	}

	async stop(): Promise<void> {
		if (this.stopped) return;
		this.stopped = true;
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.server.closeAllConnections();
		await closed;
		await this.core.close();
	}

	// ---------------------------------------------------------------- HTTP

	private sleep(ms: number): Promise<void> {
		if (ms <= 0) return Promise.resolve();
		return new Promise((resolve) => {
			const t = setTimeout(() => {
				this.timers.delete(t);
				resolve();
			}, ms);
			t.unref();
			this.timers.add(t);
		});
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		try {
			await this.handleInner(req, res);
		} catch (error) {
			const body = errorBody(500, 'INTERNAL_ERROR', error instanceof Error ? error.message : String(error), undefined, this.core.answers);
			sendJson(res, 500, body);
		}
	}

	private async handleInner(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const core = this.core;
		const method = (req.method ?? 'GET').toUpperCase();
		let url: URL;
		try {
			url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		} catch {
			sendJson(res, 400, errorBody(400, 'VALIDATION_ERROR', 'Malformed request target', { field: 'path' }, core.answers));
			return;
		}
		const path = normalizePath(url.pathname);
		const query = queryRecord(url.searchParams);
		const limit = core.options.storageAllowanceBytes + BODY_OVERHEAD_BYTES;
		const raw = await readBody(req, limit, limit * 4 + 16 * 1024 * 1024).catch(() => undefined);
		if (raw === undefined) return; // aborted by the client

		if (path === CONTROL_PREFIX || path.startsWith(CONTROL_PREFIX + '/')) {
			await this.handleControl(req, res, method, path, query, raw);
			return;
		}

		const isManagement = path === API_PREFIX || path.startsWith(API_PREFIX + '/');
		const isOutbound = !isManagement && isOutboundPath(path);
		const auth: AuthOutcome = isManagement ? this.checkPortal(req) : isOutbound ? this.checkOutbound(req) : 'missing';

		if (raw === null) {
			const entry = core.record({ method, path, query, headers: req.headers as Record<string, string | string[]>, auth, body: '[body too large]', status: null });
			this.reply(res, entry, new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limitBytes: limit }).toBody(core.answers), 413, {
				connection: 'close',
			});
			return;
		}

		const ctx = await buildContext(method, path, query, req.headers, raw);
		const entry = core.record({ method, path, query, headers: req.headers as Record<string, string | string[]>, auth, body: ctx.journalBody, status: null });

		if (core.latencyMs > 0) await this.sleep(core.latencyMs);

		const fault = core.faults.take(method, path);
		if (fault) {
			entry.fault = fault.kind;
			if (await this.applyFault(fault, req, res, entry)) return;
		}

		let reply: Reply;
		try {
			if (isManagement) {
				if (auth !== 'ok') throw this.unauthorized(auth, 'Authorization: Bearer <portal API key>');
				reply = await dispatch(managementRoutes, core, ctx, path.slice(API_PREFIX.length) || '/');
			} else if (isOutbound) {
				if (auth !== 'ok') throw this.unauthorized(auth, 'X-APIKEY-SECRET-SERVICE: <outbound API key>');
				reply = await dispatch(outboundRoutes, core, ctx, path);
			} else {
				throw new ApiError(404, 'NOT_FOUND', `No resource at ${path}`);
			}
		} catch (error) {
			reply = this.errorReply(error, core.answers);
		}
		if (fault?.kind === 'page' && fault.page && reply.status >= 200 && reply.status < 300) {
			const cursor = typeof query.cursor === 'string' ? query.cursor : undefined;
			reply = { ...reply, body: rewritePage(reply.body, fault.page, cursor) };
		}
		this.reply(res, entry, reply.body, reply.status, reply.headers);
	}

	private reply(res: ServerResponse, entry: JournalEntry, body: unknown, status: number, headers?: Record<string, string>): void {
		entry.status = status;
		sendJson(res, status, body, headers);
	}

	/** `answers`: the platform's current answers for a platform request; the control surface always answers in full. */
	private errorReply(error: unknown, answers: SandboxAnswers = 'rich'): Reply {
		if (error instanceof ApiError) return { status: error.status, body: error.toBody(answers), headers: error.headers };
		if (error instanceof RangeError) return { status: 400, body: errorBody(400, 'VALIDATION_ERROR', error.message, { field: 'body' }, answers) };
		this.core.errors.push(error);
		return { status: 500, body: errorBody(500, 'INTERNAL_ERROR', error instanceof Error ? error.message : String(error), undefined, answers) };
	}

	/** Returns true when the fault answered (or dropped) the request. */
	private async applyFault(fault: ActiveFault, req: IncomingMessage, res: ServerResponse, entry: JournalEntry): Promise<boolean> {
		switch (fault.kind) {
			case 'latency':
				await this.sleep(fault.delayMs ?? DEFAULT_LATENCY_MS);
				return false;
			case 'slow':
				await this.sleep(fault.delayMs ?? DEFAULT_SLOW_MS);
				return false;
			case 'page':
				// Served normally; the page is rewritten before the reply (handleInner).
				return false;
			case 'reset':
				entry.status = null;
				req.socket.destroy();
				return true;
			case 'malformed':
				entry.status = 200;
				sendRaw(res, 200, MALFORMED_BODY, { 'content-type': 'application/json; charset=utf-8' });
				return true;
			case 'status': {
				const status = fault.status ?? 500;
				const headers: Record<string, string> = {};
				const retryAfter = fault.retryAfter ?? (status === 429 ? 1 : undefined);
				if (retryAfter !== undefined) headers['retry-after'] = String(Math.ceil(retryAfter));
				const body = errorBody(status, fault.code ?? defaultCodeFor(status), `Injected fault: HTTP ${status}`, undefined, this.core.answers);
				this.reply(res, entry, body, status, headers);
				return true;
			}
			case 'answer': {
				let body = fault.body;
				if (fault.pathIdField !== undefined) {
					const last = entry.path.slice(entry.path.lastIndexOf('/') + 1);
					let id = last;
					try {
						id = decodeURIComponent(last);
					} catch {
						// A malformed escape: the segment as sent.
					}
					body = { ...(fault.body as Record<string, unknown>), [fault.pathIdField]: id };
				}
				this.reply(res, entry, body, fault.status ?? 200);
				return true;
			}
		}
	}

	private unauthorized(auth: AuthOutcome, expected: string): ApiError {
		return new ApiError(
			401,
			'UNAUTHORIZED',
			auth === 'missing' ? `Missing credentials: send ${expected}.` : 'The API key was rejected.',
		);
	}

	private checkPortal(req: IncomingMessage): AuthOutcome {
		const header = req.headers.authorization;
		if (header === undefined || header.trim() === '') return 'missing';
		const match = /^Bearer[ \t]+(\S.*)$/i.exec(header.trim());
		if (!match) return 'invalid';
		return safeEqual(match[1].trim(), this.core.portalKey) ? 'ok' : 'invalid';
	}

	private checkOutbound(req: IncomingMessage): AuthOutcome {
		const header = req.headers['x-apikey-secret-service'];
		if (header === undefined || header === '') return 'missing';
		if (Array.isArray(header)) return 'invalid';
		return safeEqual(header.trim(), this.core.outboundKey) ? 'ok' : 'invalid';
	}

	private async handleControl(
		req: IncomingMessage,
		res: ServerResponse,
		method: string,
		path: string,
		query: Record<string, string | string[]>,
		raw: Buffer | null,
	): Promise<void> {
		if (raw === null) {
			sendJson(res, 413, errorBody(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.'), { connection: 'close' });
			return;
		}
		const ctx: RequestContext = await buildContext(method, path, query, req.headers, raw);
		let reply: Reply;
		try {
			reply = await dispatch(controlRoutes, this.core, ctx, path);
		} catch (error) {
			reply = this.errorReply(error);
		}
		sendJson(res, reply.status, reply.body, reply.headers);
	}
}
