/** The clients compared, and the worker process each runs in (the end of this file); a raw client's process never loads n8n-core. */
import type { IDataObject } from 'n8n-workflow';
import type { Dispatcher } from 'undici';
import type { ChainNode } from './engine';
import type { LABELS } from './report';

/** The clients compared, named in the report's LABELS. */
export type ClientName = keyof typeof LABELS;
export type Target = { url: string; portalKey: string; outboundKey: string; assistantKey: string };
/** A run of one kind (KINDS) with an input item per value (numbers, call ids, names). */
export type RunSpec = {
	kind: 'list' | 'place' | 'status' | 'create';
	target: Target;
	values: string[];
	callerId?: string;
} & Partial<Record<'batchSize' | 'pageSize', number>>;
/** Items produced (assistants listed, calls accepted, records read, ...); output items of the last node. */
export type RunOutput = { items: number; outputItems: number };
/** Items produced among output items or answers. */
type Count = (items: Array<{ json: IDataObject }>) => number;
const all: Count = (items) => items.length;
function withString(field: string): Count {
	return (items) => items.filter((item) => typeof item.json[field] === 'string').length;
}

const [PORTAL, OUTBOUND] = ['assistantPlatformPortalApi', 'assistantPlatformOutboundApi'] as const;
const placeCall = (s: RunSpec): IDataObject => ({ resource: 'outboundCall', operation: 'placeCall', route: 'trunk', callerId: s.callerId });
/** Per kind of run: our node's parameters, each input item's `field` (a parameter of that name), the items produced, the others' POST. */
type Kind = {
	parameters: (s: RunSpec) => IDataObject;
	count: Count;
	field?: string;
	post?: { path: string; body: (s: RunSpec) => IDataObject };
};
const KINDS: Record<RunSpec['kind'], Kind> = {
	list: { parameters: () => ({ resource: 'assistant', operation: 'getAll', returnAll: true }), count: all },
	place: {
		parameters: placeCall,
		count: withString('internal_id'),
		field: 'dst',
		post: { path: '/webhook/outbound_call', body: (s) => ({ callerId: s.callerId, assistantApiKey: s.target.assistantKey }) },
	},
	status: {
		parameters: () => ({ resource: 'callStatus', operation: 'get', waitForRecord: true }),
		count: withString('dialStatus'),
		field: 'internalId',
	},
	create: {
		parameters: () => ({ resource: 'assistant', operation: 'create' }),
		count: withString('assistantId'),
		field: 'name',
		post: { path: '/api/v1/assistants', body: () => ({ description: '', mode: 'text' }) },
	},
};
/** A POST to the management API (/api/v1) carries the portal key, to the outbound API the outbound key. */
const portal = (path: string): boolean => path.startsWith('/api/v1/');

let undici: typeof import('undici');
let agent: Dispatcher | undefined;
/** A keep-alive pool per origin, HTTP/1.1 without pipelining (what a careful hand-written client uses). */
const undiciAgent = (): Dispatcher =>
	(agent ??= new undici.Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: 64, pipelining: 1 }));
async function rawRequest(url: string, headers: Record<string, string>, dispatcher?: Dispatcher, body?: string): Promise<any> {
	const res = await undici.request(url, { method: body === undefined ? 'GET' : 'POST', headers, body, dispatcher });
	const json = await res.body.json();
	if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`${url} answered ${res.statusCode}`);
	return json;
}
async function rawList(s: RunSpec, dispatcher: Dispatcher | undefined): Promise<RunOutput> {
	const headers = { authorization: `Bearer ${s.target.portalKey}`, accept: 'application/json' };
	const collected: unknown[] = [];
	for (let cursor: string | undefined, more = true; more; ) {
		const qs = new URLSearchParams({ limit: String(s.pageSize), ...(cursor === undefined ? {} : { cursor }) });
		const body = await rawRequest(`${s.target.url}/api/v1/assistants?${qs.toString()}`, headers, dispatcher);
		for (const item of body.data) collected.push(item);
		[more, cursor] = [body.meta.hasMore, body.meta.nextCursor ?? undefined];
	}
	return { items: collected.length, outputItems: collected.length };
}
/** The kind's POST per input value, `concurrency` at a time, through the Agent; the items produced among the answers. */
async function rawPosts(s: RunSpec, concurrency: number): Promise<RunOutput> {
	const { field, post, count } = KINDS[s.kind];
	const key: Record<string, string> = portal(post!.path)
		? { authorization: `Bearer ${s.target.portalKey}` }
		: { 'x-apikey-secret-service': s.target.outboundKey };
	const headers = { ...key, 'content-type': 'application/json', accept: 'application/json' };
	const body = (value: string) => JSON.stringify({ [field!]: value, ...post!.body(s) });
	const answers: Array<{ json: IDataObject }> = [];
	let next = 0;
	const lane = async (): Promise<void> => {
		while (next < s.values.length)
			answers.push({ json: await rawRequest(s.target.url + post!.path, headers, undiciAgent(), body(s.values[next++])) });
	};
	await Promise.all(Array.from({ length: concurrency }, lane));
	const items = count(answers);
	return { items, outputItems: items };
}

/** The in-process n8n (engine.ts), loaded by an n8n client's worker before its first run. */
let engine: typeof import('./engine');
/** Input (an item per value of the spec, or one empty item) -> the chain, every node with every credential; `count` reads the output. */
async function n8nRun(s: RunSpec, chain: ChainNode[], count: Count): Promise<RunOutput> {
	const { field } = KINDS[s.kind];
	const credentials = {
		[PORTAL]: { baseUrl: s.target.url, portalApiKey: s.target.portalKey },
		[OUTBOUND]: { outboundUrl: s.target.url, outboundApiKey: s.target.outboundKey, assistantApiKey: s.target.assistantKey },
		httpBearerAuth: { token: s.target.portalKey },
		httpHeaderAuth: { name: 'X-APIKEY-SECRET-SERVICE', value: s.target.outboundKey },
	};
	const items = field ? s.values.map((value) => ({ json: { [field]: value } })) : [{ json: {} }];
	const result = await engine.runChain(items, chain, credentials);
	if (result.error) throw new Error(`workflow failed: ${result.error.message}`);
	return { items: count(result.items), outputItems: result.items.length };
}
/** Our node for the kind of run; with Batching (Settings > Request Options) of the spec's batchSize for oursBatch. */
function ours(s: RunSpec, batching: boolean): Promise<RunOutput> {
	const { parameters, field, count } = KINDS[s.kind];
	const batch = batching ? { requestOptions: { batching: { batch: { batchSize: s.batchSize, batchInterval: 0 } } } } : {};
	const node = { parameters: { ...parameters(s), ...(field && { [field]: `={{ $json.${field} }}` }), ...batch } };
	return n8nRun(s, [{ type: engine.OUR_TYPE, ...node }], count);
}
/** n8n's HTTP Request node as a user configures it in the editor (generic credential), at its default version. */
const httpNode = (credential: string, parameters: IDataObject): ChainNode => ({
	type: engine.HTTP_TYPE,
	typeVersion: engine.loadNodesBase().httpRequestTypeVersion,
	parameters: { authentication: 'genericCredentialType', genericAuthType: credential, ...parameters },
});
/** Return All with the HTTP Request node's own cursor pagination, then (or not) Split Out. */
function httpList(s: RunSpec, splitOut: boolean): Promise<RunOutput> {
	const pagination = {
		paginationMode: 'updateAParameterInEachRequest',
		parameters: { parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.body.meta.nextCursor }}' }] },
		paginationCompleteWhen: 'other',
		completeExpression: '={{ !$response.body.meta.hasMore }}',
		limitPagesFetched: false,
		requestInterval: 0,
	};
	const list = httpNode('httpBearerAuth', {
		method: 'GET',
		url: `${s.target.url}/api/v1/assistants`,
		sendQuery: true,
		specifyQuery: 'keypair',
		queryParameters: { parameters: [{ name: 'limit', value: String(s.pageSize) }] },
		options: { pagination: { pagination } },
	});
	const split = { type: engine.SPLIT_OUT_TYPE, parameters: { fieldToSplitOut: 'data', include: 'noOtherFields' } };
	const pages: Count = (items) => items.reduce((sum, item) => sum + ((item.json.data as unknown[] | undefined)?.length ?? 0), 0);
	return n8nRun(s, splitOut ? [list, split] : [list], splitOut ? all : pages);
}
/** The HTTP Request node POSTing the kind's JSON body for every input item. */
function httpPost(s: RunSpec): Promise<RunOutput> {
	const { field, post, count } = KINDS[s.kind];
	const fields = { [field!]: `={{ $json.${field} }}`, ...post!.body(s) };
	const bodyParameters = { parameters: Object.entries(fields).map(([name, value]) => ({ name, value })) };
	const [auth, url] = [portal(post!.path) ? 'httpBearerAuth' : 'httpHeaderAuth', s.target.url + post!.path];
	const parameters = { method: 'POST', url, sendBody: true, contentType: 'json', specifyBody: 'keypair', bodyParameters, options: {} };
	return n8nRun(s, [httpNode(auth, parameters)], count);
}
/** What each client does: Return All (list) or the kind's run. */
const CLIENTS: Record<ClientName, (s: RunSpec) => Promise<RunOutput>> = {
	ours: (s) => ours(s, false),
	oursBatch: (s) => ours(s, true),
	helperLoop: (s) => n8nRun(s, [{ type: engine.FLOOR_TYPE, parameters: { baseUrl: s.target.url, pageSize: s.pageSize } }], all),
	http: (s) => (s.kind === 'list' ? httpList(s, false) : httpPost(s)),
	httpSplitOut: (s) => httpList(s, true),
	rawUndici: (s) => (s.kind === 'list' ? rawList(s, undiciAgent()) : rawPosts(s, 1)),
	rawUndiciGlobal: (s) => rawList(s, undefined),
	rawUndiciConcurrent: (s) => rawPosts(s, s.batchSize ?? 1),
};

/**
 * The worker, forked by run.ts for the client its argument names: loads it (untimed) and says so with its RSS, then times
 * each run sent around the client's work only, with its CPU time (far less noisy than wall time on a shared machine) and
 * peak RSS (getrusage maxRSS); exits when run.ts disconnects, or when the client cannot load.
 */
const client = process.argv[2] as ClientName;
const megabytes = (bytes: number) => Math.round(bytes / 104857.6) / 10;
async function prepare(): Promise<object> {
	if (client.startsWith('raw')) {
		undici = await import('undici');
		if (client !== 'rawUndiciGlobal') undiciAgent();
		return {};
	}
	engine = await import('./engine');
	return client.startsWith('http') ? engine.loadNodesBase() : {};
}
async function run(spec: RunSpec): Promise<object> {
	const [startedAt, cpu0, t0] = [Date.now(), process.cpuUsage(), process.hrtime.bigint()];
	const output = await CLIENTS[client](spec);
	const [ms, cpu] = [Number(process.hrtime.bigint() - t0) / 1e6, process.cpuUsage(cpu0)];
	return { ms, cpuMs: (cpu.user + cpu.system) / 1000, startedAt, output, maxRssMB: megabytes(process.resourceUsage().maxRSS * 1024) };
}
const failed = (error: unknown, then?: () => void) => process.send!({ error: (error as Error)?.stack ?? String(error) }, then);
process.on('message', (spec: RunSpec) => run(spec).then((reply) => process.send!(reply), failed));
process.on('disconnect', () => process.exit(0));
prepare().then(
	(detail) => process.send!({ rssMB: megabytes(process.memoryUsage.rss()), detail }),
	(error) => failed(error, () => process.exit(1)),
);
