/**
 * The clients the benchmark compares. Each one does one "run" of a case against the sandbox and returns
 * what it produced; the orchestrator (run.ts) times nothing itself: the worker process times the run.
 *
 * n8n clients (our node, n8n's HTTP Request node) are loaded lazily, so a raw client's process never
 * loads n8n-core and its memory figures are those of a plain script.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import type { Dispatcher } from 'undici';

export type ClientName =
	| 'ours'
	| 'oursBatch'
	| 'http'
	| 'httpSplitOut'
	| 'helperLoop'
	| 'rawUndici'
	| 'rawUndiciGlobal'
	| 'rawUndiciConcurrent';

export interface Target {
	url: string;
	portalKey: string;
	outboundKey: string;
	assistantKey: string;
}

export interface ListRun {
	kind: 'list';
	target: Target;
	pageSize: number;
}

export interface PlaceRun {
	kind: 'place';
	target: Target;
	callerId: string;
	destinations: string[];
	batchSize: number;
}

export interface StatusRun {
	kind: 'status';
	target: Target;
	internalIds: string[];
	batchSize: number;
}

export interface CreateRun {
	kind: 'create';
	target: Target;
	/** One assistant per name, one POST /api/v1/assistants each. */
	names: string[];
	batchSize: number;
}

export interface DialRun {
	kind: 'dial';
	target: Target;
	callerId: string;
	destinations: string[];
	/** Campaign > Max Calls in Flight. */
	cap: number;
	/** Campaign > Status Check Interval (Seconds). */
	intervalSeconds: number;
}

export type RunSpec = ListRun | PlaceRun | StatusRun | CreateRun | DialRun;

export interface RunOutput {
	/** Items produced (list: assistants; place: accepted calls; status: records read). */
	items: number;
	/** Output items of the last node (HTTP Request without Split Out outputs one item per page). */
	outputItems: number;
	/** Extra facts for the report. */
	detail?: Record<string, unknown>;
}

// ------------------------------------------------------------------------------------------ raw undici

let agent: Dispatcher | undefined;
async function undiciAgent(): Promise<Dispatcher> {
	if (!agent) {
		const { Agent } = await import('undici');
		// A keep-alive pool per origin, HTTP/1.1 without pipelining (what a careful hand-written client uses).
		agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 });
	}
	return agent;
}

async function rawList(spec: ListRun, dispatcher: Dispatcher | undefined): Promise<RunOutput> {
	const { request } = await import('undici');
	const headers = { authorization: `Bearer ${spec.target.portalKey}`, accept: 'application/json' };
	const collected: unknown[] = [];
	let cursor: string | undefined;
	for (;;) {
		const qs = new URLSearchParams({ limit: String(spec.pageSize) });
		if (cursor !== undefined) qs.set('cursor', cursor);
		const res = await request(`${spec.target.url}/api/v1/assistants?${qs.toString()}`, {
			headers,
			...(dispatcher ? { dispatcher } : {}),
		});
		const body = (await res.body.json()) as { data: unknown[]; meta: { hasMore: boolean; nextCursor: string | null } };
		if (res.statusCode !== 200) throw new Error(`list page answered ${res.statusCode}`);
		for (const item of body.data) collected.push(item);
		if (!body.meta.hasMore) break;
		cursor = body.meta.nextCursor ?? undefined;
	}
	return { items: collected.length, outputItems: collected.length };
}

async function rawPlace(spec: PlaceRun, dispatcher: Dispatcher | undefined, concurrency: number): Promise<RunOutput> {
	const { request } = await import('undici');
	const headers = {
		'x-apikey-secret-service': spec.target.outboundKey,
		'content-type': 'application/json',
		accept: 'application/json',
	};
	const ids: string[] = new Array(spec.destinations.length);
	const placeOne = async (index: number): Promise<void> => {
		const res = await request(`${spec.target.url}/webhook/outbound_call`, {
			method: 'POST',
			headers,
			body: JSON.stringify({
				dst: spec.destinations[index],
				callerId: spec.callerId,
				assistantApiKey: spec.target.assistantKey,
			}),
			...(dispatcher ? { dispatcher } : {}),
		});
		const body = (await res.body.json()) as { internal_id: string };
		if (res.statusCode !== 200) throw new Error(`place call answered ${res.statusCode}`);
		ids[index] = body.internal_id;
	};
	if (concurrency <= 1) {
		for (let i = 0; i < spec.destinations.length; i++) await placeOne(i);
	} else {
		let next = 0;
		const lane = async (): Promise<void> => {
			while (next < spec.destinations.length) await placeOne(next++);
		};
		await Promise.all(Array.from({ length: concurrency }, lane));
	}
	const placed = ids.filter((id) => typeof id === 'string').length;
	return { items: placed, outputItems: placed };
}

async function rawCreate(spec: CreateRun, dispatcher: Dispatcher): Promise<RunOutput> {
	const { request } = await import('undici');
	const headers = {
		authorization: `Bearer ${spec.target.portalKey}`,
		'content-type': 'application/json',
		accept: 'application/json',
	};
	let created = 0;
	for (const name of spec.names) {
		const res = await request(`${spec.target.url}/api/v1/assistants`, {
			method: 'POST',
			headers,
			body: JSON.stringify({ name, description: '', mode: 'text' }),
			dispatcher,
		});
		const body = (await res.body.json()) as { assistantId?: string };
		if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`);
		if (typeof body.assistantId === 'string') created++;
	}
	return { items: created, outputItems: created };
}

// ------------------------------------------------------------------------------------------ n8n clients

type Engine = typeof import('./engine');
let engine: Engine | undefined;
async function loadEngine(withNodesBase: boolean): Promise<Engine> {
	engine ??= await import('./engine');
	if (withNodesBase) engine.loadNodesBase();
	return engine;
}

function credentialsFor(target: Target) {
	return {
		assistantPlatformPortalApi: { baseUrl: target.url, portalApiKey: target.portalKey },
		assistantPlatformOutboundApi: {
			outboundUrl: target.url,
			outboundApiKey: target.outboundKey,
			assistantApiKey: target.assistantKey,
		},
		httpBearerAuth: { token: target.portalKey },
		httpHeaderAuth: { name: 'X-APIKEY-SECRET-SERVICE', value: target.outboundKey },
	};
}

function batching(size: number) {
	return size > 1 ? { requestOptions: { batching: { batch: { batchSize: size, batchInterval: 0 } } } } : {};
}

function throwIfFailed(result: { error?: Error }): void {
	if (result.error) throw new Error(`workflow failed: ${result.error.message}`);
}

async function oursList(spec: ListRun): Promise<RunOutput> {
	const e = await loadEngine(false);
	const result = await e.runChain(
		[{ json: {} }],
		[
			{
				type: e.OUR_TYPE,
				parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
				credentials: ['assistantPlatformPortalApi'],
			},
		],
		credentialsFor(spec.target),
	);
	throwIfFailed(result);
	return { items: result.items.length, outputItems: result.items.length };
}

async function helperLoopList(spec: ListRun): Promise<RunOutput> {
	const e = await loadEngine(false);
	const result = await e.runChain(
		[{ json: {} }],
		[
			{
				type: e.FLOOR_TYPE,
				parameters: { baseUrl: spec.target.url, pageSize: spec.pageSize },
				credentials: ['assistantPlatformPortalApi'],
			},
		],
		credentialsFor(spec.target),
	);
	throwIfFailed(result);
	return { items: result.items.length, outputItems: result.items.length };
}

/** n8n's HTTP Request node with its own cursor pagination, configured as a user would in the editor. */
function httpListNode(e: Engine, spec: ListRun, version: number) {
	return {
		type: e.HTTP_TYPE,
		typeVersion: version,
		credentials: ['httpBearerAuth'],
		parameters: {
			method: 'GET',
			url: `${spec.target.url}/api/v1/assistants`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBearerAuth',
			sendQuery: true,
			specifyQuery: 'keypair',
			queryParameters: { parameters: [{ name: 'limit', value: String(spec.pageSize) }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.body.meta.nextCursor }}' }],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.meta.hasMore }}',
						limitPagesFetched: false,
						requestInterval: 0,
					},
				},
			},
		},
	};
}

async function httpList(spec: ListRun, splitOut: boolean): Promise<RunOutput> {
	const e = await loadEngine(true);
	const { httpRequestDefaultVersion } = e.loadNodesBase();
	const chain = [httpListNode(e, spec, httpRequestDefaultVersion)];
	if (splitOut) {
		chain.push({
			type: e.SPLIT_OUT_TYPE,
			typeVersion: 1,
			credentials: [],
			parameters: { fieldToSplitOut: 'data', include: 'noOtherFields' } as never,
		});
	}
	const result = await e.runChain([{ json: {} }], chain, credentialsFor(spec.target));
	throwIfFailed(result);
	const items = splitOut
		? result.items.length
		: result.items.reduce((sum, item) => sum + ((item.json.data as unknown[] | undefined)?.length ?? 0), 0);
	return { items, outputItems: result.items.length };
}

/** One Place Call node over the destinations, with these extra parameters; returns its output items. */
async function runPlaceCall(spec: PlaceRun | DialRun, extra: Record<string, unknown>): Promise<INodeExecutionData[]> {
	const e = await loadEngine(false);
	const result = await e.runChain(
		spec.destinations.map((dst) => ({ json: { dst } })),
		[
			{
				type: e.OUR_TYPE,
				parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.dst }}', callerId: spec.callerId, ...extra },
				credentials: ['assistantPlatformOutboundApi'],
			},
		],
		credentialsFor(spec.target),
	);
	throwIfFailed(result);
	return result.items;
}

async function oursPlace(spec: PlaceRun, batchSize: number): Promise<RunOutput> {
	const items = await runPlaceCall(spec, batching(batchSize));
	const placed = items.filter((item) => typeof item.json.internal_id === 'string').length;
	return { items: placed, outputItems: items.length };
}

/**
 * n8n's HTTP Request node POSTing a JSON body from fields for every input item, configured as a user
 * would in the editor (generic credential, default options); counts the answers that carry `idField`.
 */
async function httpPost(
	target: Target,
	inputs: Array<{ json: Record<string, string> }>,
	request: { url: string; credential: 'httpBearerAuth' | 'httpHeaderAuth'; fields: Array<{ name: string; value: string }>; idField: string },
): Promise<RunOutput> {
	const e = await loadEngine(true);
	const { httpRequestDefaultVersion } = e.loadNodesBase();
	const result = await e.runChain(
		inputs,
		[
			{
				type: e.HTTP_TYPE,
				typeVersion: httpRequestDefaultVersion,
				credentials: [request.credential],
				parameters: {
					method: 'POST',
					url: request.url,
					authentication: 'genericCredentialType',
					genericAuthType: request.credential,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'keypair',
					bodyParameters: { parameters: request.fields },
					options: {},
				},
			},
		],
		credentialsFor(target),
	);
	throwIfFailed(result);
	const produced = result.items.filter((item) => typeof item.json[request.idField] === 'string').length;
	return { items: produced, outputItems: result.items.length };
}

async function httpPlace(spec: PlaceRun): Promise<RunOutput> {
	return await httpPost(
		spec.target,
		spec.destinations.map((dst) => ({ json: { dst } })),
		{
			url: `${spec.target.url}/webhook/outbound_call`,
			credential: 'httpHeaderAuth',
			fields: [
				{ name: 'dst', value: '={{ $json.dst }}' },
				{ name: 'callerId', value: spec.callerId },
				{ name: 'assistantApiKey', value: spec.target.assistantKey },
			],
			idField: 'internal_id',
		},
	);
}

async function oursStatus(spec: StatusRun, batchSize: number): Promise<RunOutput> {
	const e = await loadEngine(false);
	const result = await e.runChain(
		spec.internalIds.map((id) => ({ json: { internal_id: id } })),
		[
			{
				type: e.OUR_TYPE,
				parameters: {
					resource: 'callStatus',
					operation: 'get',
					internalId: '={{ $json.internal_id }}',
					waitForRecord: true,
					...batching(batchSize),
				},
				credentials: ['assistantPlatformOutboundApi'],
			},
		],
		credentialsFor(spec.target),
	);
	throwIfFailed(result);
	const found = result.items.filter((item) => typeof item.json.dialStatus === 'string').length;
	return { items: found, outputItems: result.items.length };
}

async function oursCreate(spec: CreateRun, batchSize: number): Promise<RunOutput> {
	const e = await loadEngine(false);
	const result = await e.runChain(
		spec.names.map((name) => ({ json: { name } })),
		[
			{
				type: e.OUR_TYPE,
				parameters: { resource: 'assistant', operation: 'create', name: '={{ $json.name }}', ...batching(batchSize) },
				credentials: ['assistantPlatformPortalApi'],
			},
		],
		credentialsFor(spec.target),
	);
	throwIfFailed(result);
	const created = result.items.filter((item) => typeof item.json.assistantId === 'string').length;
	return { items: created, outputItems: result.items.length };
}

/** The same POST with n8n's HTTP Request node and a Bearer credential. */
async function httpCreate(spec: CreateRun): Promise<RunOutput> {
	return await httpPost(
		spec.target,
		spec.names.map((name) => ({ json: { name } })),
		{
			url: `${spec.target.url}/api/v1/assistants`,
			credential: 'httpBearerAuth',
			fields: [
				{ name: 'name', value: '={{ $json.name }}' },
				{ name: 'description', value: '' },
				{ name: 'mode', value: 'text' },
			],
			idField: 'assistantId',
		},
	);
}

/** Place Call with Campaign > Max Calls in Flight: every call placed as a line frees up and followed to its end. */
async function oursDial(spec: DialRun): Promise<RunOutput> {
	const items = await runPlaceCall(spec, { campaign: { maxCallsInFlight: spec.cap, statusCheckInterval: spec.intervalSeconds } });
	const ended = items.filter((item) => item.json.resultSource === 'status' && item.json.pending === false).length;
	return { items: ended, outputItems: items.length };
}

/** Loads what a client needs before the first run (so that loading is not timed). */
export async function prepare(client: ClientName): Promise<Record<string, unknown>> {
	if (client.startsWith('raw')) {
		await import('undici');
		if (client !== 'rawUndiciGlobal') await undiciAgent();
		return {};
	}
	const e = await loadEngine(client === 'http' || client === 'httpSplitOut');
	if (client === 'http' || client === 'httpSplitOut') {
		const { version, dir, httpRequestDefaultVersion } = e.loadNodesBase();
		return { nodesBaseVersion: version, nodesBaseDir: dir, httpRequestTypeVersion: httpRequestDefaultVersion };
	}
	return {};
}

export async function runClient(client: ClientName, spec: RunSpec): Promise<RunOutput> {
	switch (spec.kind) {
		case 'list':
			if (client === 'ours') return await oursList(spec);
			if (client === 'http') return await httpList(spec, false);
			if (client === 'helperLoop') return await helperLoopList(spec);
			if (client === 'httpSplitOut') return await httpList(spec, true);
			if (client === 'rawUndici') return await rawList(spec, await undiciAgent());
			if (client === 'rawUndiciGlobal') return await rawList(spec, undefined);
			break;
		case 'place':
			if (client === 'ours') return await oursPlace(spec, 1);
			if (client === 'oursBatch') return await oursPlace(spec, spec.batchSize);
			if (client === 'http') return await httpPlace(spec);
			if (client === 'rawUndici') return await rawPlace(spec, await undiciAgent(), 1);
			if (client === 'rawUndiciConcurrent') return await rawPlace(spec, await undiciAgent(), spec.batchSize);
			break;
		case 'status':
			if (client === 'ours') return await oursStatus(spec, 1);
			if (client === 'oursBatch') return await oursStatus(spec, spec.batchSize);
			break;
		case 'dial':
			if (client === 'ours') return await oursDial(spec);
			break;
		case 'create':
			if (client === 'ours') return await oursCreate(spec, 1);
			if (client === 'oursBatch') return await oursCreate(spec, spec.batchSize);
			if (client === 'http') return await httpCreate(spec);
			if (client === 'rawUndici') return await rawCreate(spec, await undiciAgent());
			break;
	}
	throw new Error(`client ${client} does not run ${spec.kind}`);
}
