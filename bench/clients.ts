/**
 * The clients compared, and the worker process each runs in (below). The n8n clients load the engine lazily: a raw
 * client's process never loads n8n-core.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { Dispatcher } from 'undici';
import type { ChainNode } from './engine';
import type { LABELS } from './report';

/** The clients compared, named in the report's LABELS. */
export type ClientName = keyof typeof LABELS;
export type Target = { url: string; portalKey: string; outboundKey: string; assistantKey: string };
/** list: Return All; place: Place Call per destination; status: Call Status → Get, waiting for each record; create: Assistant → Create per name; dial: Place Call, Max Calls in Flight `cap`. */
export type RunSpec = { target: Target } & (
	| { kind: 'list'; pageSize: number }
	| { kind: 'place'; callerId: string; destinations: string[]; batchSize: number }
	| { kind: 'status'; internalIds: string[]; batchSize: number }
	| { kind: 'create'; names: string[]; batchSize: number }
	| { kind: 'dial'; callerId: string; destinations: string[]; cap: number; intervalSeconds: number }
);
type Spec<K extends RunSpec['kind']> = Extract<RunSpec, { kind: K }>;
/** Items produced (assistants listed, calls accepted, records read, ...); output items of the last node. */
export type RunOutput = { items: number; outputItems: number };

let undici: typeof import('undici');
let agent: Dispatcher | undefined;
/** A keep-alive pool per origin, HTTP/1.1 without pipelining (what a careful hand-written client uses). */
const undiciAgent = (): Dispatcher =>
	(agent ??= new undici.Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 }));
async function rawRequest(url: string, headers: Record<string, string>, dispatcher?: Dispatcher, body?: string): Promise<any> {
	const res = await undici.request(url, {
		method: body === undefined ? 'GET' : 'POST',
		headers,
		body,
		...(dispatcher ? { dispatcher } : {}),
	});
	const json = await res.body.json();
	if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`${url} answered ${res.statusCode}`);
	return json;
}
async function rawList(spec: Spec<'list'>, dispatcher: Dispatcher | undefined): Promise<RunOutput> {
	const headers = { authorization: `Bearer ${spec.target.portalKey}`, accept: 'application/json' };
	const collected: unknown[] = [];
	for (let cursor: string | undefined, more = true; more; ) {
		const qs = new URLSearchParams({ limit: String(spec.pageSize), ...(cursor === undefined ? {} : { cursor }) });
		const body = await rawRequest(`${spec.target.url}/api/v1/assistants?${qs.toString()}`, headers, dispatcher);
		for (const item of body.data) collected.push(item);
		[more, cursor] = [body.meta.hasMore, body.meta.nextCursor ?? undefined];
	}
	return { items: collected.length, outputItems: collected.length };
}
/** A POST per body, `concurrency` at a time, through the Agent; counts the answers that carry `idField`. */
async function rawPosts(url: string, key: Record<string, string>, bodies: object[], idField: string, concurrency = 1): Promise<RunOutput> {
	const headers = { ...key, 'content-type': 'application/json', accept: 'application/json' };
	let [next, produced] = [0, 0];
	const lane = async (): Promise<void> => {
		while (next < bodies.length) {
			const answer = await rawRequest(url, headers, undiciAgent(), JSON.stringify(bodies[next++]));
			if (typeof answer[idField] === 'string') produced++;
		}
	};
	await Promise.all(Array.from({ length: concurrency }, lane));
	return { items: produced, outputItems: produced };
}
const rawPlace = (s: Spec<'place'>, concurrency: number): Promise<RunOutput> => {
	const bodies = s.destinations.map((dst) => ({ dst, callerId: s.callerId, assistantApiKey: s.target.assistantKey }));
	return rawPosts(
		`${s.target.url}/webhook/outbound_call`,
		{ 'x-apikey-secret-service': s.target.outboundKey },
		bodies,
		'internal_id',
		concurrency,
	);
};

type Engine = typeof import('./engine');
let engine: Engine | undefined;
const loadEngine = async (): Promise<Engine> => (engine ??= await import('./engine'));

const [PORTAL, OUTBOUND] = ['assistantPlatformPortalApi', 'assistantPlatformOutboundApi'] as const;
type Count = (items: INodeExecutionData[]) => number;
const all: Count = (items) => items.length;
const withString =
	(field: string): Count =>
	(items) =>
		items.filter((item) => typeof item.json[field] === 'string').length;
const each = (values: string[], field: string): IDataObject[] => values.map((value) => ({ [field]: value }));
const batching = (size: number) => (size > 1 ? { requestOptions: { batching: { batch: { batchSize: size, batchInterval: 0 } } } } : {});
/** Input (these items) -> the chain; `count` reads the items produced from the output. */
async function n8nRun(target: Target, inputs: IDataObject[], chain: (e: Engine) => ChainNode[], count: Count): Promise<RunOutput> {
	const e = await loadEngine();
	const credentials = {
		[PORTAL]: { baseUrl: target.url, portalApiKey: target.portalKey },
		[OUTBOUND]: { outboundUrl: target.url, outboundApiKey: target.outboundKey, assistantApiKey: target.assistantKey },
		httpBearerAuth: { token: target.portalKey },
		httpHeaderAuth: { name: 'X-APIKEY-SECRET-SERVICE', value: target.outboundKey },
	};
	const result = await e.runChain(
		inputs.map((json) => ({ json })),
		chain(e),
		credentials,
	);
	if (result.error) throw new Error(`workflow failed: ${result.error.message}`);
	return { items: count(result.items), outputItems: result.items.length };
}
const ours = (target: Target, inputs: IDataObject[], parameters: IDataObject, credential: string, count: Count): Promise<RunOutput> =>
	n8nRun(target, inputs, (e) => [{ type: e.OUR_TYPE, parameters, credentials: [credential] }], count);
const placeCall = (s: Spec<'place' | 'dial'>, extra: IDataObject, count: Count): Promise<RunOutput> =>
	ours(
		s.target,
		each(s.destinations, 'dst'),
		{ resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '={{ $json.dst }}', callerId: s.callerId, ...extra },
		OUTBOUND,
		count,
	);
/** n8n's HTTP Request node as a user configures it in the editor (generic credential), at its default version. */
const httpNode = (e: Engine, credential: string, parameters: IDataObject): ChainNode => ({
	type: e.HTTP_TYPE,
	typeVersion: e.loadNodesBase().httpRequestDefaultVersion,
	credentials: [credential],
	parameters: { authentication: 'genericCredentialType', genericAuthType: credential, ...parameters },
});
/** Return All with the HTTP Request node's own cursor pagination, then (or not) Split Out. */
function httpList(s: Spec<'list'>, splitOut: boolean): Promise<RunOutput> {
	const pagination = {
		paginationMode: 'updateAParameterInEachRequest',
		parameters: { parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.body.meta.nextCursor }}' }] },
		paginationCompleteWhen: 'other',
		completeExpression: '={{ !$response.body.meta.hasMore }}',
		limitPagesFetched: false,
		requestInterval: 0,
	};
	const query = {
		sendQuery: true,
		specifyQuery: 'keypair',
		queryParameters: { parameters: [{ name: 'limit', value: String(s.pageSize) }] },
	};
	const list = (e: Engine) =>
		httpNode(e, 'httpBearerAuth', {
			method: 'GET',
			url: `${s.target.url}/api/v1/assistants`,
			...query,
			options: { pagination: { pagination } },
		});
	const split = (e: Engine): ChainNode => ({
		type: e.SPLIT_OUT_TYPE,
		typeVersion: 1,
		credentials: [],
		parameters: { fieldToSplitOut: 'data', include: 'noOtherFields' },
	});
	const pages: Count = (items) => items.reduce((sum, item) => sum + ((item.json.data as unknown[] | undefined)?.length ?? 0), 0);
	return n8nRun(s.target, [{}], (e) => (splitOut ? [list(e), split(e)] : [list(e)]), splitOut ? all : pages);
}
/** The HTTP Request node POSTing a JSON body from these fields for every input item; counts answers with `idField`. */
function httpPost(
	target: Target,
	inputs: IDataObject[],
	url: string,
	credential: string,
	fields: IDataObject,
	idField: string,
): Promise<RunOutput> {
	const bodyParameters = { parameters: Object.entries(fields).map(([name, value]) => ({ name, value })) };
	const post = (e: Engine) =>
		httpNode(e, credential, {
			method: 'POST',
			url,
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters,
			options: {},
		});
	return n8nRun(target, inputs, (e) => [post(e)], withString(idField));
}
/** What each client does for each kind of run; `size` is the spec's batchSize for oursBatch, else 1. */
const RUNS: Record<string, (spec: any, size: number) => Promise<RunOutput>> = {
	'list ours': (s: Spec<'list'>) => ours(s.target, [{}], { resource: 'assistant', operation: 'getAll', returnAll: true }, PORTAL, all),
	'list helperLoop': (s: Spec<'list'>) =>
		n8nRun(
			s.target,
			[{}],
			(e) => [{ type: e.FLOOR_TYPE, parameters: { baseUrl: s.target.url, pageSize: s.pageSize }, credentials: [PORTAL] }],
			all,
		),
	'list http': (s: Spec<'list'>) => httpList(s, false),
	'list httpSplitOut': (s: Spec<'list'>) => httpList(s, true),
	'list rawUndici': (s: Spec<'list'>) => rawList(s, undiciAgent()),
	'list rawUndiciGlobal': (s: Spec<'list'>) => rawList(s, undefined),
	'place ours': (s: Spec<'place'>, size) => placeCall(s, batching(size), withString('internal_id')),
	'place http': (s: Spec<'place'>) =>
		httpPost(
			s.target,
			each(s.destinations, 'dst'),
			`${s.target.url}/webhook/outbound_call`,
			'httpHeaderAuth',
			{ dst: '={{ $json.dst }}', callerId: s.callerId, assistantApiKey: s.target.assistantKey },
			'internal_id',
		),
	'place rawUndici': (s: Spec<'place'>) => rawPlace(s, 1),
	'place rawUndiciConcurrent': (s: Spec<'place'>) => rawPlace(s, s.batchSize),
	'status ours': (s: Spec<'status'>, size) =>
		ours(
			s.target,
			each(s.internalIds, 'internal_id'),
			{ resource: 'callStatus', operation: 'get', internalId: '={{ $json.internal_id }}', waitForRecord: true, ...batching(size) },
			OUTBOUND,
			withString('dialStatus'),
		),
	'create ours': (s: Spec<'create'>, size) =>
		ours(
			s.target,
			each(s.names, 'name'),
			{ resource: 'assistant', operation: 'create', name: '={{ $json.name }}', ...batching(size) },
			PORTAL,
			withString('assistantId'),
		),
	'create http': (s: Spec<'create'>) =>
		httpPost(
			s.target,
			each(s.names, 'name'),
			`${s.target.url}/api/v1/assistants`,
			'httpBearerAuth',
			{ name: '={{ $json.name }}', description: '', mode: 'text' },
			'assistantId',
		),
	'create rawUndici': (s: Spec<'create'>) =>
		rawPosts(
			`${s.target.url}/api/v1/assistants`,
			{ authorization: `Bearer ${s.target.portalKey}` },
			s.names.map((name) => ({ name, description: '', mode: 'text' })),
			'assistantId',
		),
	// Every call placed as a line frees up, and followed to its end.
	'dial ours': (s: Spec<'dial'>) =>
		placeCall(
			s,
			{ campaign: { maxCallsInFlight: s.cap, statusCheckInterval: s.intervalSeconds } },
			(items) => items.filter((i) => i.json.resultSource === 'status' && i.json.pending === false).length,
		),
};
/** Loads what a client needs before the first run (so that loading is not timed). */
async function prepare(client: ClientName): Promise<Record<string, unknown>> {
	if (client.startsWith('raw')) {
		undici = await import('undici');
		if (client !== 'rawUndiciGlobal') undiciAgent();
		return {};
	}
	const e = await loadEngine();
	if (!client.startsWith('http')) return {};
	const { version, dir, httpRequestDefaultVersion } = e.loadNodesBase();
	return { nodesBaseVersion: version, nodesBaseDir: dir, httpRequestTypeVersion: httpRequestDefaultVersion };
}

/**
 * This file is the worker, forked by run.ts: a run is timed around the client's work only, with the process's CPU
 * time meanwhile (far less noisy than wall time on a shared machine) and its peak RSS (getrusage maxRSS).
 */
let client: ClientName;
const memory = () => ({
	rssMB: Math.round((process.memoryUsage.rss() / 1048576) * 10) / 10,
	maxRssMB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10,
});
async function answer(
	message: { type: 'prepare'; client: ClientName } | { type: 'run'; spec: RunSpec } | { type: 'exit' },
): Promise<Record<string, unknown>> {
	if (message.type === 'prepare') return { type: 'ready', ...memory(), detail: await prepare((client = message.client)) };
	if (message.type === 'exit') return { type: 'bye', maxRssMB: memory().maxRssMB };
	const { spec } = message;
	const [run, size] = [
		RUNS[`${spec.kind} ${client === 'oursBatch' ? 'ours' : client}`],
		client !== 'oursBatch' ? 1 : 'batchSize' in spec ? spec.batchSize : 0,
	];
	if (!run || !size) throw new Error(`client ${client} does not run ${spec.kind}`);
	const [startedAt, cpu0, t0] = [Date.now(), process.cpuUsage(), process.hrtime.bigint()];
	const output = await run(spec, size);
	const [ms, cpu] = [Number(process.hrtime.bigint() - t0) / 1e6, process.cpuUsage(cpu0)];
	return { type: 'done', ms, cpuMs: (cpu.user + cpu.system) / 1000, startedAt, endedAt: Date.now(), output, ...memory() };
}
process.on('message', (message: Parameters<typeof answer>[0]) => {
	answer(message).then(
		(reply) => {
			process.send!(reply);
			if (reply.type !== 'bye') return;
			process.disconnect();
			process.exit(0);
		},
		(error) => process.send!({ type: 'error', message: (error as Error)?.stack ?? String(error) }),
	);
});
