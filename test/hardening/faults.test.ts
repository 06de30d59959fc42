/**
 * Faults: every read operation of the Assistant Platform node, and its list-search and
 * load-options methods, while the sandbox answers 429 with Retry-After, 500, 503, resets the
 * connection, answers after the request timeout, or answers malformed JSON.
 *
 * - A fault that happens once: the read succeeds after one retry (two attempts).
 * - A fault that persists: the read fails with a clear error after exactly 1 + READ_RETRIES attempts.
 *
 * Placing a call under the same faults (both routes, both nodes): exactly one POST per item, never
 * two, and with Continue On Fail each item reports what happened.
 *
 * All reads of one fault kind run at once (they wait in parallel), each on its own path or with its
 * own page size, so that the journal tells the attempts of each apart. No wall-time assertions.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodePropertyOptions } from 'n8n-workflow';

import { READ_RETRIES } from '../../nodes/shared/core/constants';
import type { FaultSpec, JournalEntry } from '../../sandbox';
import type { RunResult } from '../harness/engine';
import { startSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import { loadOptionsContext, recorded } from '../node/runtime-helpers';

import { apNode, byId, expectNoSecretsIn, run } from './helpers';

/** Request Options > Timeout while a fault makes the platform slow; SLOW_MS is how late it answers. */
const TIMEOUT_MS = 800;
const SLOW_MS = 2_500;
/** The timeout of every other run: generous, so that a loaded test machine never times out by itself. */
const RELAXED_TIMEOUT_MS = 20_000;
const ATTEMPTS_BOUND = 1 + READ_RETRIES;
const CALLER = '+390200001099';
const PBX = 'pbx.example.com';

let fx: SandboxFixture;
let supportId: string;
let ragId: string;
let uploadId: string;
let internalId: string;
let assistantKey: string;

type FaultKind = 'rate-limit' | '500' | '503' | 'reset' | 'timeout' | 'malformed';

const FAULTS: Record<FaultKind, Omit<FaultSpec, 'path' | 'method' | 'times'>> = {
	'rate-limit': { kind: 'status', status: 429, retryAfter: 1 },
	'500': { kind: 'status', status: 500 },
	'503': { kind: 'status', status: 503 },
	reset: { kind: 'reset' },
	timeout: { kind: 'slow', delayMs: SLOW_MS },
	malformed: { kind: 'malformed' },
};

/** What the error of a read that kept failing says. */
const PERSISTENT_MESSAGE: Record<FaultKind, string> = {
	'rate-limit': 'RATE_LIMITED: The platform is rate limiting requests (429 Too Many Requests)',
	'500': 'INTERNAL_ERROR: The platform failed to answer (500)',
	'503': 'SERVICE_UNAVAILABLE: The platform failed to answer (503)',
	reset: 'The connection to the platform was reset before it answered',
	timeout: `The platform did not answer within ${TIMEOUT_MS} ms (timeout)`,
	malformed: 'The platform answered with malformed JSON',
};

const KINDS = Object.keys(FAULTS) as FaultKind[];

beforeAll(async () => {
	fx = await startSandbox();
	const { sandbox } = fx;
	supportId = sandbox.state.assistants.list.find((a) => a.name === 'Support Triage')!.assistantId;
	ragId = sandbox.state.collections.list.find((c) => c.name === 'Product FAQ')!.ragId;

	// An upload to read the progress of.
	const form = new FormData();
	form.append('chunkSize', '1000');
	form.append('files', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
	const upload = await fetch(`${sandbox.url}/api/v1/rag/collections/${ragId}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sandbox.portalKey}` },
		body: form,
	});
	expect(upload.status).toBe(202);
	uploadId = String(((await upload.json()) as { uploadId: string }).uploadId);

	// A call whose record is persisted, to read the status of.
	const caller = sandbox.createAssistant({ name: 'Caller', number: CALLER });
	assistantKey = caller.assistantApiKey;
	registerSecret(assistantKey);
	fx.outbound.assistantApiKey = assistantKey;
	sandbox.authorizePbx(PBX);
	const placed = await fetch(`${sandbox.url}/webhook/outbound_call`, {
		method: 'POST',
		headers: { 'X-APIKEY-SECRET-SERVICE': sandbox.outboundKey, 'Content-Type': 'application/json' },
		body: JSON.stringify({ dst: '+14155550100', callerId: CALLER, assistantApiKey: assistantKey }),
	});
	expect(placed.status).toBe(200);
	internalId = String(((await placed.json()) as { internal_id: string }).internal_id);
	await sandbox.clock.advance(10_000);
});

afterAll(async () => {
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.clearFaults();
	fx.sandbox.clearJournal();
	timeout = RELAXED_TIMEOUT_MS;
});

/** The short Request Options > Timeout for the slow-answer fault, the relaxed one otherwise. */
function timeoutFor(kind: FaultKind): void {
	timeout = kind === 'timeout' ? TIMEOUT_MS : RELAXED_TIMEOUT_MS;
}

// ------------------------------------------------------------------------------------------------
// The reads

interface Read {
	name: string;
	/** The faulted path (also the journal path of its attempts). */
	path: () => string;
	method?: string;
	/** Tells this read's attempts apart when another read shares the path. */
	limit?: string;
	/** Runs the read; resolves with its outcome (never throws). */
	run: () => Promise<{ ok: boolean; message?: string; description?: string; count?: number }>;
}

let timeout = RELAXED_TIMEOUT_MS;
/** Settings > Request Options of every run (Timeout short only in the tests of slow answers). */
const requestOptions = () => ({ timeout });

function fromRun(result: RunResult) {
	return {
		ok: result.error === undefined,
		message: result.error?.message,
		description: result.error?.description,
		count: result.items.length,
	};
}

async function fromMethod<T>(call: () => Promise<T>, count: (value: T) => number) {
	try {
		const value = await recorded(call);
		return { ok: true, count: count(value) };
	} catch (error) {
		const e = error as { message?: string; description?: string };
		expectNoSecretsIn(fx, { message: e.message, description: e.description });
		return { ok: false, message: e.message, description: e.description };
	}
}

type ListSearch = (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>;
type LoadOptions = (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>;
const listSearch = apNode.methods.listSearch as Record<string, ListSearch>;
const loadOptions = apNode.methods.loadOptions as Record<string, LoadOptions>;

/** The node's parameters as the editor holds them while a method runs (Request Options included). */
const current = (parameters: Record<string, unknown>) => ({ authentication: 'portalApi', ...parameters, requestOptions: requestOptions() });

const READS: Read[] = [
	{
		name: 'Assistant → Get Many',
		path: () => '/api/v1/assistants',
		limit: '500',
		run: async () => fromRun(await run(fx, 'ap', { resource: 'assistant', operation: 'getAll', returnAll: true, requestOptions: requestOptions() })),
	},
	{
		name: 'Catalog → Get Providers',
		path: () => '/api/v1/catalog/providers/llm',
		run: async () =>
			fromRun(await run(fx, 'ap', { resource: 'catalog', operation: 'getProviders', providerKind: 'llm', requestOptions: requestOptions() })),
	},
	{
		name: 'Catalog → Get Tools',
		path: () => '/api/v1/catalog/tools',
		limit: '499',
		run: async () =>
			fromRun(
				await run(fx, 'ap', { resource: 'catalog', operation: 'getTools', returnAll: true, options: { pageSize: 499 }, requestOptions: requestOptions() }),
			),
	},
	{
		name: 'Catalog → Get Assistant Tools',
		path: () => `/api/v1/catalog/assistants/${supportId}/tools`,
		run: async () =>
			fromRun(
				await run(fx, 'ap', {
					resource: 'catalog',
					operation: 'getAssistantTools',
					assistantId: byId(supportId),
					returnAll: true,
					requestOptions: requestOptions(),
				}),
			),
	},
	{
		name: 'RAG Collection → Get Many',
		path: () => '/api/v1/rag/collections',
		limit: '500',
		run: async () => fromRun(await run(fx, 'ap', { resource: 'ragCollection', operation: 'getAll', returnAll: true, requestOptions: requestOptions() })),
	},
	{
		name: 'RAG Collection → Get Many Documents',
		path: () => `/api/v1/rag/collections/${ragId}/documents`,
		run: async () =>
			fromRun(
				await run(fx, 'ap', {
					resource: 'ragCollection',
					operation: 'getManyDocuments',
					ragId: byId(ragId),
					returnAll: true,
					requestOptions: requestOptions(),
				}),
			),
	},
	{
		name: 'RAG Collection → Get Upload Progress',
		path: () => `/api/v1/rag/uploads/${uploadId}`,
		run: async () =>
			fromRun(await run(fx, 'ap', { resource: 'ragCollection', operation: 'getUploadProgress', uploadId, requestOptions: requestOptions() })),
	},
	{
		name: 'Custom API Request → GET',
		path: () => '/api/v1/knowledge',
		run: async () =>
			fromRun(await run(fx, 'ap', { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge', requestOptions: requestOptions() })),
	},
	{
		name: 'Custom API Request → GET with Paginate',
		path: () => '/api/v1/filler-lists',
		run: async () =>
			fromRun(
				await run(fx, 'ap', {
					resource: 'customApiRequest',
					operation: 'request',
					method: 'GET',
					path: '/filler-lists',
					paginate: true,
					returnAll: true,
					requestOptions: requestOptions(),
				}),
			),
	},
	{
		name: 'Call Status → Get',
		path: () => `/getDialstatus/${internalId}`,
		run: async () => fromRun(await run(fx, 'ap', { resource: 'callStatus', operation: 'get', internalId, requestOptions: requestOptions() })),
	},
	{
		name: 'listSearch searchAssistants',
		path: () => '/api/v1/assistants',
		limit: '100',
		run: async () =>
			await fromMethod(
				async () => await listSearch.searchAssistants.call(loadOptionsContext(fx, current({ resource: 'assistant', operation: 'delete' }))),
				(r) => r.results.length,
			),
	},
	{
		name: 'listSearch searchRagCollections',
		path: () => '/api/v1/rag/collections',
		limit: '100',
		run: async () =>
			await fromMethod(
				async () =>
					await listSearch.searchRagCollections.call(loadOptionsContext(fx, current({ resource: 'ragCollection', operation: 'delete' }))),
				(r) => r.results.length,
			),
	},
	{
		name: 'listSearch searchProviders',
		path: () => '/api/v1/catalog/providers/tts',
		run: async () =>
			await fromMethod(
				async () =>
					await listSearch.searchProviders.call(
						loadOptionsContext(fx, current({ resource: 'runtime', operation: 'setProvider', authentication: 'portalApi', providerKind: 'tts' })),
					),
				(r) => r.results.length,
			),
	},
	{
		name: 'loadOptions getCatalogTools',
		path: () => '/api/v1/catalog/tools',
		limit: '500',
		run: async () =>
			await fromMethod(
				async () =>
					await loadOptions.getCatalogTools.call(
						loadOptionsContext(fx, current({ resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' })),
					),
				(r) => r.length,
			),
	},
];

function attemptsOf(read: Read, journal: JournalEntry[]): JournalEntry[] {
	return journal.filter(
		(entry) =>
			entry.method === (read.method ?? 'GET') &&
			entry.path === read.path() &&
			(read.limit === undefined || entry.query.limit === read.limit),
	);
}

/** One fault per distinct path, applied `timesPerRead` times per read that uses the path (or always). */
function inject(kind: FaultKind, timesPerRead?: number): void {
	const readsByPath = new Map<string, number>();
	for (const read of READS) readsByPath.set(read.path(), (readsByPath.get(read.path()) ?? 0) + 1);
	for (const [path, reads] of readsByPath) {
		fx.sandbox.injectFault({
			method: 'GET',
			path,
			...FAULTS[kind],
			...(timesPerRead === undefined ? {} : { times: timesPerRead * reads }),
		});
	}
}

describe.each(KINDS)('reads under a %s fault', (kind) => {
	test('a fault that happens once: every read succeeds on its second attempt', async () => {
		timeoutFor(kind);
		inject(kind, 1);
		const outcomes = await Promise.all(READS.map(async (read) => ({ read, outcome: await read.run() })));
		for (const { read, outcome } of outcomes) {
			expect({ read: read.name, ...outcome }).toMatchObject({ read: read.name, ok: true });
			expect(outcome.count).toBeGreaterThan(0);
			const attempts = attemptsOf(read, fx.sandbox.journal);
			expect({ read: read.name, attempts: attempts.length }).toEqual({ read: read.name, attempts: 2 });
			expect(attempts[0].fault).toBe(FAULTS[kind].kind);
			expect(attempts[1].fault).toBeUndefined();
			expect(attempts[1].status).toBe(200);
		}
	});

	test(`a fault that persists: every read fails with a clear error after exactly ${ATTEMPTS_BOUND} attempts`, async () => {
		timeoutFor(kind);
		inject(kind);
		const outcomes = await Promise.all(READS.map(async (read) => ({ read, outcome: await read.run() })));
		for (const { read, outcome } of outcomes) {
			expect({ read: read.name, ok: outcome.ok }).toEqual({ read: read.name, ok: false });
			expect({ read: read.name, message: outcome.message }).toEqual({
				read: read.name,
				message: expect.stringContaining(PERSISTENT_MESSAGE[kind]),
			});
			expect({ read: read.name, description: outcome.description }).toEqual({
				read: read.name,
				description: expect.stringContaining(`Gave up after ${ATTEMPTS_BOUND} attempts`),
			});
			const attempts = attemptsOf(read, fx.sandbox.journal);
			expect({ read: read.name, attempts: attempts.length }).toEqual({ read: read.name, attempts: ATTEMPTS_BOUND });
			expect(attempts.filter((entry) => entry.fault !== FAULTS[kind].kind).map((entry) => ({ read: read.name, fault: entry.fault }))).toEqual([]);
		}
	});
});

test('a Retry-After beyond the 30 s bound is not waited for: one attempt, a clear error', async () => {
	fx.sandbox.injectFault({ method: 'GET', path: '/api/v1/knowledge', kind: 'status', status: 429, retryAfter: 3600 });
	const outcome = await READS.find((read) => read.path() === '/api/v1/knowledge')!.run();
	expect(outcome.ok).toBe(false);
	expect(outcome.message).toContain('RATE_LIMITED');
	expect(fx.sandbox.journal).toHaveLength(1);
});

// ------------------------------------------------------------------------------------------------
// Placing calls

const DESTINATIONS = ['+14155550111', '+14155550112', '+14155550113'];

const OUTCOME: Record<FaultKind, { outcome: string; placed: boolean | string; httpCode?: string; code?: string; text: string }> = {
	'rate-limit': { outcome: 'rejected', placed: false, httpCode: '429', code: 'RATE_LIMITED', text: 'RATE_LIMITED' },
	'500': { outcome: 'unknown', placed: 'unknown', httpCode: '500', code: 'INTERNAL_ERROR', text: 'Outcome unknown' },
	'503': { outcome: 'unknown', placed: 'unknown', httpCode: '503', code: 'SERVICE_UNAVAILABLE', text: 'Outcome unknown' },
	reset: { outcome: 'unknown', placed: 'unknown', text: 'Outcome unknown: The connection to the platform was reset' },
	timeout: { outcome: 'unknown', placed: 'unknown', text: `Outcome unknown: The platform did not answer within ${TIMEOUT_MS} ms` },
	malformed: { outcome: 'unknown', placed: 'unknown', text: 'Outcome unknown: The platform answered with malformed JSON' },
};

const ROUTES = [
	{ route: 'trunk', path: '/webhook/outbound_call', extra: {} },
	{ route: 'pbx', path: '/webhook/outbound_call_pbx', extra: { ipPbx: PBX } },
] as const;

function postsTo(path: string): JournalEntry[] {
	return fx.sandbox.journal.filter((entry) => entry.method === 'POST' && entry.path === path);
}

describe.each(ROUTES)('Place Call on the $route route', ({ route, path, extra }) => {
	test.each(KINDS)('under a persistent %s fault: one POST per item, each item reports', async (kind) => {
		timeoutFor(kind);
		fx.sandbox.injectFault({ method: 'POST', path, ...FAULTS[kind] });
		const { items, error } = await run(
			fx,
			'ap',
			{
				resource: 'outboundCall',
				operation: 'placeCall',
				route,
				dst: '={{ $json.dst }}',
				callerId: CALLER,
				...extra,
				// The three calls at once (Batching), so that slow answers are waited for in parallel.
				requestOptions: { ...requestOptions(), batching: { batch: { batchSize: DESTINATIONS.length, batchInterval: 0 } } },
			},
			{ continueOnFail: true, items: DESTINATIONS.map((dst) => ({ json: { dst } })) },
		);
		expect(error).toBeUndefined();
		const posts = postsTo(path);
		expect(posts.map((entry) => (entry.body as { dst: string }).dst).sort()).toEqual([...DESTINATIONS].sort());
		expect(fx.sandbox.journal.filter((entry) => entry.method !== 'POST')).toEqual([]);
		const expected = OUTCOME[kind];
		expect(items).toHaveLength(DESTINATIONS.length);
		items.forEach((item, index) => {
			expect(item.pairedItem).toEqual({ item: index });
			expect(item.json).toMatchObject({
				outcome: expected.outcome,
				placed: expected.placed,
				route,
				dst: DESTINATIONS[index],
				callerId: CALLER,
				error: expect.stringContaining(expected.text),
			});
			if (expected.httpCode) expect(item.json.httpCode).toBe(expected.httpCode);
			else expect(item.json.httpCode).toBeUndefined();
			if (expected.code) expect(item.json.code).toBe(expected.code);
			if (expected.outcome === 'unknown') expect(String(item.json.description)).toContain('find out whether it was');
		});
	});

	test.each(KINDS)('Call and Wait under a %s fault: one POST, the item reports, no wait', async (kind) => {
		timeoutFor(kind);
		fx.sandbox.injectFault({ method: 'POST', path, ...FAULTS[kind] });
		const result = await run(
			fx,
			'wait',
			{ route, dst: DESTINATIONS[0], callerId: CALLER, ...extra, requestOptions: requestOptions() },
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.waitTill).toBeUndefined();
		expect(postsTo(path)).toHaveLength(1);
		const expected = OUTCOME[kind];
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			outcome: expected.outcome,
			placed: expected.placed,
			route,
			dst: DESTINATIONS[0],
			error: expect.stringContaining(expected.text),
		});
	});
});

test('without Continue On Fail a fault on the first call stops the run: one POST, nothing else sent', async () => {
	fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'reset' });
	const { error, items } = await run(
		fx,
		'ap',
		{ resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.dst }}', callerId: CALLER, requestOptions: requestOptions() },
		{ items: DESTINATIONS.map((dst) => ({ json: { dst } })) },
	);
	expect(items).toEqual([]);
	expect(error?.message).toContain('Outcome unknown');
	expect(error?.description).toContain('No call was placed before this failure');
	expect(postsTo('/webhook/outbound_call')).toHaveLength(1);
});
