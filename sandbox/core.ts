import { Agent, request } from 'undici';

import { SandboxClock } from './clock';
import { COST_PER_SECOND, DEFAULT_STORAGE_ALLOWANCE } from './constants';
import { ApiError, invalid, notFound } from './errors';
import { FaultRegistry } from './faults';
import { IdSource, randomKey, randomSecret } from './ids';
import { maskJournal } from './journal';
import { TelephoneNetwork } from './network';
import { CursorCodec } from './pagination';
import { applySeed } from './seed';
import { OrderedStore } from './store';
import type {
	AssistantRecord,
	CallRecord,
	CallRoute,
	CallbackKind,
	ClockMode,
	CreateAssistantInput,
	DeliveredCallback,
	DialOutcomeRule,
	CallJournalEntry,
	JournalEntry,
	NumberKind,
	NumberRecord,
	RagCollectionRecord,
	RagDocumentRecord,
	SandboxAnswers,
	SandboxOptions,
	SandboxState,
	SavedAuthentication,
	SchemaProperty,
	SeedOptions,
	UploadRecord,
} from './types';
import { E164, isIpOrHostname, normalizePbx } from './validate';


export interface ResolvedOptions {
	port: number;
	host: string;
	maxPageSize: number;
	clock: ClockMode;
	clockSpeed: number;
	maxConcurrentCalls: number | null;
	seed: SeedOptions;
	storageAllowanceBytes: number;
	uploadQueueMs: number;
	uploadProcessingMs: number;
	ringMs: number;
	durationSec: number;
	persistDelayMs: number;
	callbackTimeoutMs: number;
	journalLimit: number;
	answers: SandboxAnswers;
}

export interface UploadFile {
	fileName: string;
	contentType: string;
	sizeBytes: number;
}

export interface PlaceCallInput {
	route: CallRoute;
	assistantId: string;
	dst: string;
	callerId: string;
	ipPbx: string | null;
	sipPort: number | null;
	addPrompt: string | null;
	callResultUrl: string | null;
}

/** `url` with `query` appended to its query string (before any fragment); `url` itself when there is none. */
function withQuery(url: string, query: string | null): string {
	if (!query) return url;
	const hash = url.indexOf('#');
	const [base, fragment] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
	const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
	return `${base}${separator}${query}${fragment}`;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
	if (value === undefined) return fallback;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number >= 0`);
	return value;
}

export function emptyState(): SandboxState {
	return {
		assistants: new OrderedStore<AssistantRecord>((a) => a.assistantId),
		assistantKeys: new Map(),
		numbers: new OrderedStore<NumberRecord>((n) => n.number),
		authorizedPbx: new Set(),
		providerCatalog: { tts: [], asr: [], llm: [], 'audio-to-audio': [] },
		toolCatalog: new OrderedStore((t) => t.toolName),
		collections: new OrderedStore<RagCollectionRecord>((c) => c.ragId),
		documents: new Map(),
		uploads: new Map(),
		usedStorageBytes: 0,
		calls: new Map(),
		runtimeConfigs: new Map(),
		toolBindings: new Map(),
		ragAttachments: new Map(),
		conversationWebhooks: new Map(),
		extractionConfigs: new Map(),
		postcallMcpConfigs: new Map(),
		savedAuthentications: new Map(),
		knowledge: new OrderedStore((k) => k.knowledgeId),
		providerWalletKeys: new OrderedStore((k) => k.keyId),
		pluginInstances: new OrderedStore((p) => p.instanceName),
		fillerLists: new OrderedStore((f) => f.fillerListId),
		analyticsCalls: new OrderedStore((c) => c.callId),
	};
}

/** A plausible value for one extraction-schema property. */
export function sampleValue(prop: SchemaProperty): unknown {
	switch (prop.type) {
		case 'string':
			return `sample ${prop.name}`;
		case 'number':
			return 42;
		case 'boolean':
			return true;
		case 'enum':
			return prop.values && prop.values.length > 0 ? prop.values[0] : 'option_1';
		case 'object':
			return { value: `sample ${prop.name}` };
	}
}

/**
 * Everything except HTTP: state, seeding, domain operations, the call lifecycle and callback
 * delivery, journal, faults. `PlatformSandbox` (sandbox.ts) wraps it in a node:http server.
 */
export class SandboxCore {
	readonly options: ResolvedOptions;
	readonly portalKey: string;
	readonly outboundKey: string;
	readonly savedAuthValue: string;
	readonly clock: SandboxClock;
	readonly cursors: CursorCodec;
	readonly faults = new FaultRegistry();
	readonly journal: JournalEntry[] = [];
	readonly callbacks: DeliveredCallback[] = [];
	latencyMs = 0;
	/** What the platform's answers carry now (SandboxOptions.answers); reset() restores the start option. */
	answers: SandboxAnswers = 'spec';
	/** The ids of runtime-created things (assistants, uploads, calls): always random. */
	readonly ids = IdSource.random();
	/** Seeded ids: the keystream of `seedSecret`, restarted on every reset. */
	seedIds: IdSource;
	bulkCounter = 0;
	private stateValue: SandboxState = emptyState();
	private readonly seedSecret: Buffer;
	/** Outcomes per number, the account's call limit and the call journal. */
	readonly network: TelephoneNetwork;
	private journalSeq = 0;
	private callbackSeq = 0;
	private readonly agent: Agent;
	readonly errors: unknown[] = [];

	constructor(opts: SandboxOptions = {}) {
		const seed = opts.seed ?? {};
		this.options = {
			port: opts.port ?? 0,
			host: opts.host ?? '127.0.0.1',
			maxPageSize: opts.maxPageSize ?? 500,
			clock: opts.clock ?? 'real',
			clockSpeed: opts.clockSpeed ?? 1,
			maxConcurrentCalls: opts.maxConcurrentCalls ?? null,
			seed,
			storageAllowanceBytes: nonNegative(opts.storageAllowanceBytes, DEFAULT_STORAGE_ALLOWANCE, 'storageAllowanceBytes'),
			uploadQueueMs: nonNegative(opts.uploadQueueMs, 200, 'uploadQueueMs'),
			uploadProcessingMs: nonNegative(opts.uploadProcessingMs, 1000, 'uploadProcessingMs'),
			ringMs: nonNegative(opts.ringMs, 300, 'ringMs'),
			durationSec: Math.round(nonNegative(opts.durationSec, 2, 'durationSec')),
			persistDelayMs: nonNegative(opts.persistDelayMs, 500, 'persistDelayMs'),
			callbackTimeoutMs: nonNegative(opts.callbackTimeoutMs, 5000, 'callbackTimeoutMs'),
			journalLimit: Math.max(1, opts.journalLimit ?? 50_000),
			answers: opts.answers ?? 'spec',
		};
		if (this.options.answers !== 'spec' && this.options.answers !== 'rich') throw new RangeError("answers must be 'spec' or 'rich'");

		if (!Number.isInteger(this.options.maxPageSize) || this.options.maxPageSize < 1) {
			throw new RangeError('maxPageSize must be an integer >= 1');
		}
		if (opts.clock !== undefined && opts.clock !== 'manual' && opts.clock !== 'real') {
			throw new RangeError("clock must be 'manual' or 'real'");
		}
		this.portalKey = opts.portalKey ?? randomKey('pk_');
		this.outboundKey = opts.outboundKey ?? randomKey('ok_');
		if (this.portalKey === '' || this.outboundKey === '') throw new RangeError('keys must not be empty');
		this.savedAuthValue = opts.savedAuthValue ?? randomKey('wh_', 24);
		this.seedSecret = seed.deterministic ? Buffer.from('assistant-platform-sandbox/deterministic-seed/v1') : randomSecret();
		this.seedIds = IdSource.fromSecret(this.seedSecret);
		this.cursors = new CursorCodec(randomSecret());
		if (opts.clockSpeed !== undefined && this.options.clock === 'manual') throw new RangeError('clockSpeed needs the real clock');
		this.clock = new SandboxClock(this.options.clock, (error) => this.errors.push(error), Date.now(), this.options.clockSpeed);
		this.network = new TelephoneNetwork(this.options.journalLimit);
		const t = this.options.callbackTimeoutMs;
		this.agent = new Agent({ connect: { timeout: t }, headersTimeout: t, bodyTimeout: t, keepAliveTimeout: 1000 });
		this.resetState();
	}

	get state(): SandboxState {
		return this.stateValue;
	}

	nowIso(): string {
		return new Date(this.clock.now()).toISOString();
	}

	// ---------------------------------------------------------------- reset and seed

	/** Back to the seeded state (same seeded ids and keys); journal, callbacks, faults, latency, dial rules and pending events cleared. */
	resetState(): void {
		this.clock.cancelAll();
		this.stateValue = emptyState();
		this.seedIds = IdSource.fromSecret(this.seedSecret);
		this.bulkCounter = 0;
		this.journal.length = 0;
		this.callbacks.length = 0;
		this.faults.clear();
		this.latencyMs = 0;
		this.answers = this.options.answers;
		this.network.reset();
		if (this.clock.mode === 'real' && this.clock.speed !== this.options.clockSpeed) this.clock.setSpeed(this.options.clockSpeed);
		if (this.options.maxConcurrentCalls !== null) this.network.setLimit(this.options.maxConcurrentCalls);
		applySeed(this, { ...this.options.seed, demo: this.options.seed.demo ?? true }, true);
	}

	seed(opts: SeedOptions): void {
		applySeed(this, opts, false);
	}

	// ---------------------------------------------------------------- assistants and numbers

	createAssistant(input: CreateAssistantInput = {}, source: IdSource = this.ids, createdAt = this.nowIso()): AssistantRecord {
		const s = this.state;
		if (input.number !== undefined && (typeof input.number !== 'string' || !E164.test(input.number))) {
			throw invalid('number', 'must be + then 2..15 digits, the first not 0');
		}
		let assistantId: string;
		do assistantId = 'asst_' + source.alphanumeric(16);
		while (s.assistants.has(assistantId));
		let assistantApiKey: string;
		do assistantApiKey = 'ak_' + source.alphanumeric(32);
		while (s.assistantKeys.has(assistantApiKey));
		const record: AssistantRecord = {
			seq: s.assistants.takeSeq(),
			assistantId,
			assistantApiKey,
			name: input.name ?? `Assistant ${s.assistants.size + 1}`,
			description: input.description ?? '',
			mode: input.mode ?? 'text',
			createdAt,
			updatedAt: createdAt,
			prompt: input.prompt ?? null,
			numbers: [],
		};
		s.assistants.add(record);
		s.assistantKeys.set(assistantApiKey, assistantId);
		if (input.number !== undefined) this.assignNumber(input.number, assistantId);
		return record;
	}

	requireAssistant(assistantId: string): AssistantRecord {
		const a = this.state.assistants.get(assistantId);
		if (!a) throw notFound('assistant', assistantId);
		return a;
	}

	/** Deletes an assistant: its configuration goes, its numbers are released and its collection detached. */
	deleteAssistant(assistantId: string): { assistantId: string; deleted: true; releasedNumbers: string[] } {
		const s = this.state;
		const a = this.requireAssistant(assistantId);
		const releasedNumbers = a.numbers.slice();
		for (const n of releasedNumbers) {
			const rec = s.numbers.get(n);
			if (rec) rec.assistantId = null;
		}
		a.numbers = [];
		s.assistants.delete(assistantId);
		s.assistantKeys.delete(a.assistantApiKey);
		s.runtimeConfigs.delete(assistantId);
		s.toolBindings.delete(assistantId);
		s.ragAttachments.delete(assistantId);
		s.conversationWebhooks.delete(assistantId);
		s.extractionConfigs.delete(assistantId);
		s.postcallMcpConfigs.delete(assistantId);
		return { assistantId, deleted: true, releasedNumbers };
	}

	/**
	 * Assigns a number to an assistant (null = unassign). A number is assigned to one assistant at
	 * a time: assigning it elsewhere moves it. An unknown number is created with `kind`.
	 */
	assignNumber(number: string, assistantId: string | null, kind: NumberKind = 'purchased'): NumberRecord {
		const s = this.state;
		if (typeof number !== 'string' || !E164.test(number)) throw invalid('number', 'must be + then 2..15 digits, the first not 0');
		if (kind !== 'demo' && kind !== 'purchased') throw invalid('kind', "must be 'demo' or 'purchased'");
		if (assistantId !== null) this.requireAssistant(assistantId);
		let rec = s.numbers.get(number);
		if (!rec) rec = s.numbers.add({ seq: s.numbers.takeSeq(), number, kind, assistantId: null });
		if (rec.assistantId !== null) {
			const previous = s.assistants.get(rec.assistantId);
			if (previous) previous.numbers = previous.numbers.filter((n) => n !== number);
		}
		rec.assistantId = assistantId;
		if (assistantId !== null) {
			const a = this.requireAssistant(assistantId);
			if (!a.numbers.includes(number)) a.numbers.push(number);
		}
		return rec;
	}

	authorizePbx(address: string): string {
		if (typeof address !== 'string' || !isIpOrHostname(normalizePbx(address))) {
			throw invalid('address', 'must be an IPv4/IPv6 address or a host name');
		}
		const normalized = normalizePbx(address);
		this.state.authorizedPbx.add(normalized);
		return normalized;
	}

	addSavedAuthentication(name: string, auth: { header: string; value: string }): SavedAuthentication {
		if (typeof name !== 'string' || name.trim() === '') throw invalid('name', 'must be a non-empty string');
		if (!auth || typeof auth.header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(auth.header)) {
			throw invalid('header', 'must be a valid HTTP header name');
		}
		if (typeof auth.value !== 'string') throw invalid('value', 'must be a string');
		const saved: SavedAuthentication = { name, header: auth.header, value: auth.value };
		this.state.savedAuthentications.set(name, saved);
		return saved;
	}

	// ---------------------------------------------------------------- RAG

	createCollection(name: string, description: string, source: IdSource = this.ids, createdAt = this.nowIso()): RagCollectionRecord {
		const s = this.state;
		let ragId: string;
		do ragId = 'rag_' + source.alphanumeric(12);
		while (s.collections.has(ragId));
		return s.collections.add({ seq: s.collections.takeSeq(), ragId, name, description, createdAt, documents: [], sizeBytes: 0 });
	}

	requireCollection(ragId: string): RagCollectionRecord {
		const c = this.state.collections.get(ragId);
		if (!c) throw notFound('RAG collection', ragId);
		return c;
	}

	assistantsUsing(ragId: string): string[] {
		const ids: string[] = [];
		for (const [assistantId, attached] of this.state.ragAttachments) if (attached === ragId) ids.push(assistantId);
		return ids;
	}

	deleteCollection(ragId: string): { ragId: string; deleted: true } {
		const s = this.state;
		const c = this.requireCollection(ragId);
		const users = this.assistantsUsing(ragId);
		if (users.length > 0) {
			throw new ApiError(409, 'RAG_COLLECTION_IN_USE', `RAG collection ${ragId} is attached to ${users.length} assistant(s); detach it first.`, {
				ragId,
				assistantIds: users,
			});
		}
		for (const d of c.documents) s.documents.delete(d.documentId);
		for (const [uploadId, u] of s.uploads) if (u.ragId === ragId) s.uploads.delete(uploadId);
		s.usedStorageBytes -= c.sizeBytes;
		s.collections.delete(ragId);
		return { ragId, deleted: true };
	}

	/** Adds documents with a given final status right away (seeding). */
	addCompletedDocument(c: RagCollectionRecord, fileName: string, sizeBytes: number, chunkSize: number, source: IdSource): RagDocumentRecord {
		const upload = this.createUploadRecord(c, chunkSize, [{ fileName, contentType: 'application/octet-stream', sizeBytes }], source, true);
		return this.state.documents.get(upload.documentIds[0]) as RagDocumentRecord;
	}

	/**
	 * Registers an upload. Storage is counted at once; processing moves on the clock:
	 * queued → processing after uploadQueueMs → completed (or failed for a file whose name contains
	 * "corrupt") after uploadProcessingMs + 1 ms per KB.
	 */
	startUpload(ragId: string, chunkSize: number, files: UploadFile[]): UploadRecord {
		const c = this.requireCollection(ragId);
		const total = files.reduce((sum, f) => sum + f.sizeBytes, 0);
		const allowance = this.options.storageAllowanceBytes;
		if (this.state.usedStorageBytes + total > allowance) {
			throw new ApiError(413, 'STORAGE_ALLOWANCE_EXCEEDED', 'The upload would exceed the account document storage allowance.', {
				usedBytes: this.state.usedStorageBytes,
				requestedBytes: total,
				allowanceBytes: allowance,
			});
		}
		const upload = this.createUploadRecord(c, chunkSize, files, this.ids, false);
		this.clock.schedule(upload.processingAt, () => {
			const u = this.state.uploads.get(upload.uploadId);
			if (!u || u.status !== 'queued') return;
			u.status = 'processing';
			for (const id of u.documentIds) {
				const d = this.state.documents.get(id);
				if (d) d.status = 'processing';
			}
		});
		this.clock.schedule(upload.completesAt, () => this.finishUpload(upload.uploadId));
		return upload;
	}

	private createUploadRecord(c: RagCollectionRecord, chunkSize: number, files: UploadFile[], source: IdSource, done: boolean): UploadRecord {
		const s = this.state;
		const now = this.clock.now();
		const createdAt = new Date(now).toISOString();
		const total = files.reduce((sum, f) => sum + f.sizeBytes, 0);
		let uploadId: string;
		do uploadId = 'upl_' + source.alphanumeric(16);
		while (s.uploads.has(uploadId));
		const processingAt = now + this.options.uploadQueueMs;
		const upload: UploadRecord = {
			uploadId,
			ragId: c.ragId,
			chunkSize,
			status: done ? 'completed' : 'queued',
			uploadedAt: now,
			processingAt: done ? now : processingAt,
			completesAt: done ? now : processingAt + this.options.uploadProcessingMs + Math.ceil(total / 1024),
			documentIds: [],
			totalBytes: total,
			error: null,
		};
		for (const f of files) {
			let documentId: string;
			do documentId = 'doc_' + source.alphanumeric(16);
			while (s.documents.has(documentId));
			const lastSeq = c.documents.length > 0 ? c.documents[c.documents.length - 1].seq : 0;
			const doc: RagDocumentRecord = {
				seq: lastSeq + 1,
				documentId,
				ragId: c.ragId,
				uploadId,
				fileName: f.fileName,
				contentType: f.contentType,
				sizeBytes: f.sizeBytes,
				chunkSize,
				status: done ? 'completed' : 'queued',
				createdAt,
			};
			c.documents.push(doc);
			s.documents.set(documentId, doc);
			upload.documentIds.push(documentId);
		}
		c.sizeBytes += total;
		s.usedStorageBytes += total;
		s.uploads.set(uploadId, upload);
		return upload;
	}

	private finishUpload(uploadId: string): void {
		const s = this.state;
		const u = s.uploads.get(uploadId);
		if (!u || u.status === 'completed' || u.status === 'failed') return;
		const c = s.collections.get(u.ragId);
		const failed: string[] = [];
		for (const id of u.documentIds) {
			const d = s.documents.get(id);
			if (!d) continue;
			if (d.fileName.toLowerCase().includes('corrupt')) {
				d.status = 'failed';
				failed.push(d.fileName);
				s.usedStorageBytes -= d.sizeBytes;
				if (c) c.sizeBytes -= d.sizeBytes;
			} else {
				d.status = 'completed';
			}
		}
		u.status = failed.length > 0 ? 'failed' : 'completed';
		u.error = failed.length > 0 ? `Could not extract text from: ${failed.join(', ')}` : null;
	}

	/** Progress 0..100 of an upload at the current clock time. */
	uploadProgress(u: UploadRecord): number {
		if (u.status === 'queued') return 0;
		if (u.status === 'completed' || u.status === 'failed') return 100;
		const span = u.completesAt - u.processingAt;
		if (span <= 0) return 99;
		const p = Math.floor(((this.clock.now() - u.processingAt) / span) * 100);
		return Math.min(99, Math.max(1, p));
	}

	// ---------------------------------------------------------------- calls

	setDialOutcome(rule: DialOutcomeRule): DialOutcomeRule {
		return this.network.setRule(rule);
	}

	/** Forgets every dial-outcome rule and the attempt count of every number. */
	clearDialOutcomes(): void {
		this.network.clearRules();
	}

	dialOutcomes(): DialOutcomeRule[] {
		return this.network.rules();
	}

	/**
	 * Refuses a placement over the account's call limit: 429 CALL_LIMIT_REACHED, with Retry-After (wall
	 * seconds until the first call in flight ends, at least 1). Nothing is placed.
	 */
	checkCallLimit(dst: string): void {
		const network = this.network;
		if (!network.full()) return;
		const limit = network.maxConcurrentCalls!;
		const firstEnd = network.firstEnd();
		const retryAfter = Math.max(1, Math.ceil(this.clock.wallDelay(firstEnd ?? this.clock.now()) / 1000));
		network.refuse({ dst, code: 'CALL_LIMIT_REACHED', limit, inFlight: network.callsInFlight, at: this.clock.now(), wallAt: Date.now(), retryAfter });
		throw new ApiError(
			429,
			'CALL_LIMIT_REACHED',
			`The account allows ${limit} calls at once and ${network.callsInFlight} are in progress: the call was not placed. Retry after a call ends.`,
			{ limit, inFlight: network.callsInFlight },
			{ 'retry-after': String(retryAfter) },
		);
	}

	placeCall(input: PlaceCallInput): CallRecord {
		const s = this.state;
		const plan = this.network.plan(input.dst, this.options);
		const placedAt = this.clock.now();
		let internalId: string;
		do internalId = this.ids.hex(16);
		while (s.calls.has(internalId));
		const terminalAt = placedAt + plan.ringMs + plan.durationSec * 1000;
		const call: CallRecord = {
			internalId,
			callId: 'call_' + this.ids.alphanumeric(16),
			route: input.route,
			assistantId: input.assistantId,
			dst: input.dst,
			callerId: input.callerId,
			ipPbx: input.ipPbx,
			sipPort: input.sipPort,
			addPrompt: input.addPrompt,
			callResultUrl: input.callResultUrl,
			resultQuery: plan.resultQuery,
			placedAt,
			terminalAt,
			persistAt: terminalAt + plan.persistDelayMs,
			status: 'queued',
			plannedDialstatus: plan.dialstatus,
			dialstatus: null,
			durationSec: plan.durationSec,
			persisted: false,
			billSec: 0,
			trafficCost: '0.000000',
		};
		s.calls.set(internalId, call);
		const journal = this.network.accept({
			internal_id: internalId,
			dst: input.dst,
			callerId: input.callerId,
			assistantId: input.assistantId,
			route: input.route,
			attempt: plan.attempt,
			dialstatus: plan.dialstatus,
			durationSec: plan.durationSec,
			callResultUrl: input.callResultUrl,
			startedAt: placedAt,
			startedWallAt: Date.now(),
			endedAt: terminalAt,
		});
		this.clock.schedule(terminalAt, () => this.endCall(call, journal));
		return call;
	}

	private async endCall(call: CallRecord, journal: CallJournalEntry): Promise<void> {
		const s = this.state;
		if (s.calls.get(call.internalId) !== call) return;
		this.network.hangUp(journal);
		call.status = 'ended';
		call.dialstatus = call.plannedDialstatus;
		this.clock.schedule(call.persistAt, () => this.persistCall(call));
		const deliveries: Promise<void>[] = [];
		if (call.callResultUrl) {
			deliveries.push(
				this.deliver('callResult', call, withQuery(call.callResultUrl, call.resultQuery), {
					internal_id: call.internalId,
					dialstatus: call.dialstatus,
					duration: call.durationSec,
				}),
			);
		}
		if (call.dialstatus === 'ANSWER') {
			const hook = s.conversationWebhooks.get(call.assistantId);
			if (hook && hook.enabled && hook.url) {
				const auth = hook.authName ? s.savedAuthentications.get(hook.authName) : undefined;
				const answeredAt = call.terminalAt - call.durationSec * 1000;
				deliveries.push(
					this.deliver(
						'conversationEnd',
						call,
						hook.url,
						{
							event: 'conversation_end',
							assistantId: call.assistantId,
							internal_id: call.internalId,
							callId: call.callId,
							startedAt: new Date(answeredAt).toISOString(),
							endedAt: new Date(call.terminalAt).toISOString(),
							durationSec: call.durationSec,
							direction: 'outbound',
							from: call.callerId,
							to: call.dst,
						},
						auth,
					),
				);
			}
			const extraction = s.extractionConfigs.get(call.assistantId);
			if (extraction && extraction.hangupUrl) {
				const data: Record<string, unknown> = {};
				for (const prop of extraction.schema) data[prop.name] = sampleValue(prop);
				deliveries.push(
					this.deliver('extractedData', call, extraction.hangupUrl, {
						event: 'extracted_data',
						assistantId: call.assistantId,
						internal_id: call.internalId,
						callId: call.callId,
						data,
					}),
				);
			}
		}
		await Promise.allSettled(deliveries);
	}

	private persistCall(call: CallRecord): void {
		const s = this.state;
		if (s.calls.get(call.internalId) !== call) return;
		call.persisted = true;
		call.billSec = call.durationSec;
		call.trafficCost = (call.billSec * COST_PER_SECOND).toFixed(6);
		s.analyticsCalls.add({
			seq: s.analyticsCalls.takeSeq(),
			callId: call.callId,
			internal_id: call.internalId,
			assistantId: call.assistantId,
			direction: 'outbound',
			dialStatus: call.dialstatus ?? call.plannedDialstatus,
			billSec: call.billSec,
			startedAt: new Date(call.placedAt).toISOString(),
		});
	}

	/** POSTs one callback (JSON, timeout, never throws) and records it in `callbacks`. */
	private async deliver(
		kind: CallbackKind,
		call: CallRecord,
		url: string,
		body: Record<string, unknown>,
		auth?: SavedAuthentication,
	): Promise<void> {
		const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'assistant-platform-sandbox' };
		const shown: Record<string, string> = { ...headers };
		if (auth) {
			headers[auth.header.toLowerCase()] = auth.value;
			shown[auth.header.toLowerCase()] = '[masked]';
		}
		const entry: DeliveredCallback = {
			seq: ++this.callbackSeq,
			at: this.nowIso(),
			kind,
			url,
			internal_id: call.internalId,
			assistantId: call.assistantId,
			headers: shown,
			body,
			status: null,
			error: null,
		};
		const t = this.options.callbackTimeoutMs;
		try {
			const res = await request(url, {
				method: 'POST',
				headers,
				body: JSON.stringify(body),
				dispatcher: this.agent,
				headersTimeout: t,
				bodyTimeout: t,
				signal: AbortSignal.timeout(t),
			});
			entry.status = res.statusCode;
			await res.body.text().catch(() => undefined);
		} catch (error) {
			entry.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
		}
		this.callbacks.push(entry);
	}

	// ---------------------------------------------------------------- journal

	record(entry: Omit<JournalEntry, 'seq' | 'at'>): JournalEntry {
		const full = maskJournal(this, { seq: ++this.journalSeq, at: this.nowIso(), ...entry });
		this.journal.push(full);
		if (this.journal.length > this.options.journalLimit) {
			this.journal.splice(0, Math.max(1, Math.floor(this.options.journalLimit / 10)));
		}
		return full;
	}

	clearJournal(): void {
		this.journal.length = 0;
	}

	async close(): Promise<void> {
		await this.clock.stop();
		await this.agent.close().catch(() => undefined);
	}
}
