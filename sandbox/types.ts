import type { OrderedStore } from './store';

export type ProviderKind = 'tts' | 'asr' | 'llm' | 'audio-to-audio';
export const PROVIDER_KINDS: readonly ProviderKind[] = ['tts', 'asr', 'llm', 'audio-to-audio'];

export type ToolKind = 'custom_tool' | 'plugin_tool' | 'custom_mcp_tool';

/** Asterisk's DIALSTATUS values (the platform reports them; only ANSWER is shown in the spec). */
export type DialStatus =
	| 'ANSWER'
	| 'NOANSWER'
	| 'BUSY'
	| 'FAILED'
	| 'CANCEL'
	| 'CONGESTION'
	| 'CHANUNAVAIL'
	| 'DONTCALL'
	| 'TORTURE'
	| 'INVALIDARGS';
export const DIAL_STATUSES: readonly DialStatus[] = [
	'ANSWER',
	'NOANSWER',
	'BUSY',
	'FAILED',
	'CANCEL',
	'CONGESTION',
	'CHANUNAVAIL',
	'DONTCALL',
	'TORTURE',
	'INVALIDARGS',
];

export type ClockMode = 'manual' | 'real';

export interface SeedOptions {
	/** Seeded ids and keys derived from a fixed secret (same on every start). Only read by `start`. */
	deterministic?: boolean;
	/** Include the demo data set (assistants, numbers, PBX, catalogs, collections, lists). Default true. Only read by `start`. */
	demo?: boolean;
	/** Extra assistants to create (bulk, fast). */
	assistants?: number;
	/** Name prefix of the bulk assistants: `${prefix} ${n}` with n zero-padded. Default 'Load Test Assistant'. */
	assistantNamePrefix?: string;
	/** Extra RAG collections to create. */
	collections?: number;
	/** Extra items for each of the sandbox-only lists (knowledge, provider-wallet keys, plugin instances, filler lists, analytics). */
	listItems?: number;
}

export interface SandboxOptions {
	/** 0 (default) = a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** Default: random. */
	portalKey?: string;
	/** Default: random. */
	outboundKey?: string;
	/** Default 500. */
	maxPageSize?: number;
	/** Default 'real'. */
	clock?: ClockMode;
	/** Real clock only: how many times faster than wall time it runs (default 1; a 60 s call lasts 0.1 s at 600). */
	clockSpeed?: number;
	/** The account's limit of calls in flight (placed, not yet hung up); over it a placement is refused with 429. Default: none. */
	maxConcurrentCalls?: number | null;
	/** Applied on start and again on every reset. Default `{ demo: true }`. */
	seed?: SeedOptions;
	/** Per-account document storage allowance. Default 209715200 (200 MB). */
	storageAllowanceBytes?: number;
	/** Time an upload stays `queued`. Default 200. */
	uploadQueueMs?: number;
	/** Base processing time of an upload (plus 1 ms per KB). Default 1000. */
	uploadProcessingMs?: number;
	/** Default ring time of a call. Default 300. */
	ringMs?: number;
	/** Default talk time of an answered call, in seconds. Default 2. */
	durationSec?: number;
	/** Default delay between the terminal outcome and the persisted call record. Default 500. */
	persistDelayMs?: number;
	/** Value of the seeded saved authentication `n8n-header-auth`. Default: random (exposed as `savedAuthValue`). */
	savedAuthValue?: string;
	/** Timeout of every callback POST. Default 5000. */
	callbackTimeoutMs?: number;
	/** Oldest journal entries are dropped beyond this. Default 50000. */
	journalLimit?: number;
	/**
	 * What the platform's answers carry. `'spec'` (default): exactly the fields the interface document shows, and
	 * where it says "not shown" the least a platform could send (sandbox/README.md, "Answers"). `'rich'`: what a
	 * richer platform might add (an `internal_id` in the status record, `status: "queued"` in an acceptance, the
	 * created assistant's other fields, `status` and `details` in an error body). `reset()` restores it.
	 */
	answers?: SandboxAnswers;
}

/** See SandboxOptions.answers. */
export type SandboxAnswers = 'spec' | 'rich';

export interface AssistantRecord {
	seq: number;
	assistantId: string;
	assistantApiKey: string;
	name: string;
	description: string;
	mode: string;
	createdAt: string;
	updatedAt: string;
	prompt: string | null;
	/** Numbers currently assigned to this assistant (kept in sync with `numbers`). */
	numbers: string[];
}

export interface CreateAssistantInput {
	name?: string;
	description?: string;
	mode?: string;
	prompt?: string | null;
	/** A number to assign to the new assistant (created as a purchased number when unknown). */
	number?: string;
}

export type NumberKind = 'demo' | 'purchased';

export interface NumberRecord {
	seq: number;
	number: string;
	kind: NumberKind;
	assistantId: string | null;
}

export interface ProviderCatalogEntry {
	providerId: string;
	name: string;
	kind: ProviderKind;
	models: string[];
	voices?: string[];
	languages?: string[];
}

export interface ToolCatalogEntry {
	seq: number;
	toolName: string;
	kind: ToolKind;
	instanceName: string | null;
	description: string;
}

export interface ToolBinding {
	seq: number;
	toolName: string;
	subscriptionName: string | null;
	kind: ToolKind;
}

export interface RuntimeConfig {
	assistantId: string;
	kind: ProviderKind;
	providerId: string;
	model: string | null;
	voice: string | null;
	language: string | null;
	settings: Record<string, unknown>;
	updatedAt: string;
}

export interface RagCollectionRecord {
	seq: number;
	ragId: string;
	name: string;
	description: string;
	createdAt: string;
	/** Documents of the collection, in upload order. */
	documents: RagDocumentRecord[];
	sizeBytes: number;
}

export type ProcessingStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface RagDocumentRecord {
	seq: number;
	documentId: string;
	ragId: string;
	uploadId: string;
	fileName: string;
	contentType: string;
	sizeBytes: number;
	chunkSize: number;
	status: ProcessingStatus;
	createdAt: string;
}

export interface UploadRecord {
	uploadId: string;
	ragId: string;
	chunkSize: number;
	status: ProcessingStatus;
	/** Clock time (ms) of the upload, of the start of processing and of the end. */
	uploadedAt: number;
	processingAt: number;
	completesAt: number;
	documentIds: string[];
	totalBytes: number;
	error: string | null;
}

export interface ConversationWebhookConfig {
	enabled: boolean;
	url: string | null;
	authName: string | null;
}

export type SchemaPropertyType = 'string' | 'number' | 'boolean' | 'enum' | 'object';

export interface SchemaProperty {
	name: string;
	type: SchemaPropertyType;
	description: string;
	required: boolean;
	values?: string[];
}

export interface ExtractionConfig {
	hangupUrl: string | null;
	schema: SchemaProperty[];
}

export interface PostcallMcpConfig {
	enabled: boolean;
	serverUrl: string | null;
	authName: string | null;
	tools: string[];
	settings: Record<string, unknown>;
}

export interface SavedAuthentication {
	name: string;
	header: string;
	value: string;
}

export type CallRoute = 'trunk' | 'pbx';

export interface CallRecord {
	internalId: string;
	callId: string;
	route: CallRoute;
	assistantId: string;
	dst: string;
	callerId: string;
	ipPbx: string | null;
	sipPort: number | null;
	addPrompt: string | null;
	callResultUrl: string | null;
	/** Appended to callResultUrl's query when the result is posted (its number's `resultQuery` rule), or null. */
	resultQuery: string | null;
	/** Clock times in ms. */
	placedAt: number;
	terminalAt: number;
	persistAt: number;
	/** 'queued' until the terminal outcome, then 'ended'. */
	status: 'queued' | 'ended';
	/** The outcome chosen at placement; reported from the terminal time on. */
	plannedDialstatus: DialStatus;
	dialstatus: DialStatus | null;
	durationSec: number;
	persisted: boolean;
	billSec: number;
	trafficCost: string;
}

/** A fixed value, or [min, max]: each call draws a value from the range, the same one for the same number and attempt. */
export type Span = number | [number, number];

/** What one attempt at a number does. */
export interface DialStep {
	dialstatus: DialStatus;
	/** Ring time before the outcome (ms). */
	ringMs?: Span;
	/** Talk time of an answered call (s); other outcomes last 0 s. */
	durationSec?: Span;
}

/**
 * The outcome of calls to a number (`dst`), to every number starting with `prefix`, or (neither) to
 * every number without a rule of its own. Either one outcome for every call (`dialstatus`, `ringMs`,
 * `durationSec`), or one per attempt (`attempts`: the first call to the number gets the first step,
 * the second call the second, and the last step repeats).
 */
export interface DialOutcomeRule {
	/** Destination number the rule applies to; absent (with no prefix) = the default rule. */
	dst?: string;
	/** Numbers starting with this ("+1415"); the longest matching prefix wins, an exact `dst` rule first. */
	prefix?: string;
	dialstatus?: DialStatus;
	ringMs?: Span;
	durationSec?: Span;
	persistDelayMs?: number;
	attempts?: DialStep[];
	/**
	 * A platform that mangles the Call Result URL: this text is appended to the URL's query when the call's result
	 * is posted (e.g. `ctx_attempt=x`). The call journal keeps the URL as it was received.
	 */
	resultQuery?: string;
}

/** One accepted call in the call journal: when it started and ended, in sandbox time and wall time. */
export interface CallJournalEntry {
	seq: number;
	internal_id: string;
	dst: string;
	callerId: string;
	assistantId: string;
	route: CallRoute;
	/** 1 for the first call to `dst` since the last reset (or clearDialOutcomes), 2 for the second, ... */
	attempt: number;
	/** The outcome the call has (known at placement, reported at its end). */
	dialstatus: DialStatus;
	durationSec: number;
	/** The callResultUrl exactly as received (query string included), or null. */
	callResultUrl: string | null;
	/** Sandbox clock (ms) and wall clock (ms since epoch) when the call was accepted. */
	startedAt: number;
	startedWallAt: number;
	/** When the call hung up (its outcome): the planned sandbox time, and the wall time it happened (null before). */
	endedAt: number;
	endedWallAt: number | null;
}

/** A placement the account's call limit refused (429), in the call journal's refusals. */
export interface CallRefusal {
	seq: number;
	dst: string;
	code: string;
	limit: number;
	inFlight: number;
	at: number;
	wallAt: number;
	/** Retry-After sent, in (wall) seconds. */
	retryAfter: number;
}

export type FaultKind = 'latency' | 'status' | 'reset' | 'malformed' | 'slow' | 'page' | 'answer';

/**
 * Fault kind `page`: the request is served normally, then the page of a paginated answer
 * (`{data, meta}`) is rewritten, to play a platform whose pagination misbehaves.
 */
export interface PageOverride {
	/** Replaces the page's `data` (e.g. items of an earlier page: items already seen). `meta.count` follows. */
	data?: unknown[];
	/** Keeps only the first `keep` items of the page (a page that shrinks). `meta.count` follows. */
	keep?: number;
	/** `meta.nextCursor` becomes the cursor this request carried (a repeated cursor); `hasMore` stays true. */
	repeatCursor?: boolean;
	/** Merged into `meta` last, e.g. `{hasMore: true, nextCursor: null}` or a forged `nextCursor`. */
	meta?: Record<string, unknown>;
}

export interface FaultSpec {
	method?: string;
	/** Exact path (no query) or a prefix ending in '*'. */
	path: string;
	kind: FaultKind;
	status?: number;
	retryAfter?: number;
	delayMs?: number;
	/** Applications left; absent = unlimited. */
	times?: number;
	/** Matching requests let through untouched before the fault applies (default 0), e.g. 1 = from the 2nd page on. */
	skip?: number;
	/** Only every `every`-th matching request (after `skip`) gets the fault; the others pass through untouched. */
	every?: number;
	code?: string;
	/** Kind `page` only: how the page is rewritten. */
	page?: PageOverride;
	/** Kind `answer` only: the JSON body answered (with `status`, default 200) instead of serving the request. */
	body?: unknown;
	/** Kind `answer` only: this field of an object `body` is set to the request path's last segment (e.g. `internal_id`). */
	pathIdField?: string;
}

export type AuthOutcome = 'ok' | 'missing' | 'invalid';

export interface JournalEntry {
	seq: number;
	at: string;
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string | string[]>;
	auth: AuthOutcome;
	body: unknown;
	/** null when no response was sent (fault `reset`). */
	status: number | null;
	fault?: FaultKind;
}

export type CallbackKind = 'callResult' | 'conversationEnd' | 'extractedData';

export interface DeliveredCallback {
	seq: number;
	at: string;
	kind: CallbackKind;
	url: string;
	internal_id: string;
	assistantId: string;
	/** Headers sent; a saved-authentication value is shown as '[masked]'. */
	headers: Record<string, string>;
	body: Record<string, unknown>;
	/** HTTP status of the receiver's answer, null when delivery failed. */
	status: number | null;
	error: string | null;
}

export interface KnowledgeItem {
	seq: number;
	knowledgeId: string;
	name: string;
	type: string;
	createdAt: string;
}

export interface ProviderWalletKey {
	seq: number;
	keyId: string;
	provider: string;
	label: string;
	last4: string;
	createdAt: string;
}

export interface PluginInstance {
	seq: number;
	instanceName: string;
	plugin: string;
	toolNames: string[];
	createdAt: string;
}

export interface FillerList {
	seq: number;
	fillerListId: string;
	name: string;
	language: string;
	phrases: string[];
}

export interface AnalyticsCall {
	seq: number;
	callId: string;
	internal_id: string | null;
	assistantId: string;
	direction: 'inbound' | 'outbound';
	dialStatus: DialStatus;
	billSec: number;
	startedAt: string;
}

export interface SandboxState {
	assistants: OrderedStore<AssistantRecord>;
	/** Assistant key → assistantId. */
	assistantKeys: Map<string, string>;
	numbers: OrderedStore<NumberRecord>;
	/** Lower-cased addresses or host names. */
	authorizedPbx: Set<string>;
	providerCatalog: Record<ProviderKind, ProviderCatalogEntry[]>;
	toolCatalog: OrderedStore<ToolCatalogEntry>;
	collections: OrderedStore<RagCollectionRecord>;
	documents: Map<string, RagDocumentRecord>;
	uploads: Map<string, UploadRecord>;
	/** Bytes of all non-failed documents of all collections (the allowance is per account). */
	usedStorageBytes: number;
	calls: Map<string, CallRecord>;
	runtimeConfigs: Map<string, Partial<Record<ProviderKind, RuntimeConfig>>>;
	toolBindings: Map<string, ToolBinding[]>;
	/** assistantId → attached ragId. */
	ragAttachments: Map<string, string>;
	conversationWebhooks: Map<string, ConversationWebhookConfig>;
	extractionConfigs: Map<string, ExtractionConfig>;
	postcallMcpConfigs: Map<string, PostcallMcpConfig>;
	savedAuthentications: Map<string, SavedAuthentication>;
	knowledge: OrderedStore<KnowledgeItem>;
	providerWalletKeys: OrderedStore<ProviderWalletKey>;
	pluginInstances: OrderedStore<PluginInstance>;
	fillerLists: OrderedStore<FillerList>;
	analyticsCalls: OrderedStore<AnalyticsCall>;
}
