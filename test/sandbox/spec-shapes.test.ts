/**
 * What a spec-mode sandbox (`answers: 'spec'`, the default) sends is what the platform's interface document
 * (docs/platform-api.md) shows, field for field: the nodes are tested against it, so a field the spec does not show
 * would let a node come to rely on something a real platform need not send. Where the spec says "not shown" the
 * sandbox sends its own documented shape (docs/assumptions.md "Management API", "Events received by the trigger")
 * or, for the outbound answers and the error body, the least a platform could send. Every row of SPEC_SHAPES
 * states one of those shapes; the drive below sends a request to every platform route the sandbox serves and
 * checks each answer (and each callback it POSTs) against its row: a field that neither the spec nor the row
 * names fails the test, naming the route and the field.
 *
 * `answers: 'rich'` plays a richer platform (the extras are listed in sandbox/README.md, "Answers"), so that the
 * nodes can be tested against both.
 */
import type { PlatformSandbox } from '../../sandbox';
import { PROVIDER_KINDS } from '../../sandbox';
import { managementRoutes } from '../../sandbox/management';
import { outboundRoutes } from '../../sandbox/outbound';
import type { CallOptions, HttpResult, MultipartPart } from './helpers';
import { call, expectError, expectRichError, file, multipart, Receiver, startSandbox } from './helpers';

// ------------------------------------------------------------------ shapes

/**
 * A leaf names the JSON type(s) a value may have, `|`-separated: `string`, `integer`, `number`, `boolean`, `null`,
 * `time` (an ISO 8601 time as `Date#toISOString` writes it), `decimal6` (a decimal number as text with six
 * fractional digits), `any` (whatever the request set, not looked into: `settings`, extracted `data`).
 */
type Leaf = string;
interface ObjectShape {
	/** Every field the object may have; a name ending in `?` may be left out, the others must be there. */
	object: Record<string, Shape>;
}
interface ArrayShape {
	array: Shape;
}
interface NullableShape {
	nullable: Shape;
}
/** A list endpoint: the bare array without `limit` and `cursor`, else the pagination envelope around the same items. */
interface ListShape {
	list: Shape;
}
interface EqualsShape {
	equals: string;
}
type Shape = Leaf | ObjectShape | ArrayShape | NullableShape | ListShape | EqualsShape;

const obj = (fields: Record<string, Shape>): ObjectShape => ({ object: fields });
const arr = (items: Shape): ArrayShape => ({ array: items });
const orNull = (shape: Shape): NullableShape => ({ nullable: shape });
const list = (items: Shape): ListShape => ({ list: items });

/** The spec's pagination meta (Resources, "Pagination envelope"). */
const META = obj({ count: 'integer', totalCount: 'integer', limit: 'integer', nextCursor: 'string|null', hasMore: 'boolean' });
/** The least error body: a code and a text (the spec shows codes, no error body). */
const ERROR = obj({ error: obj({ code: 'string', message: 'string' }) });

interface Problem {
	path: string;
	kind: 'extra' | 'missing' | 'type';
	text: string;
}

function leafMatches(value: unknown, leaf: string): boolean {
	switch (leaf) {
		case 'any':
			return true;
		case 'string':
			return typeof value === 'string';
		case 'integer':
			return Number.isInteger(value);
		case 'number':
			return typeof value === 'number' && Number.isFinite(value);
		case 'boolean':
			return typeof value === 'boolean';
		case 'null':
			return value === null;
		case 'time':
			return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;
		case 'decimal6':
			return typeof value === 'string' && /^\d+\.\d{6}$/.test(value);
		default:
			throw new Error(`unknown leaf type ${leaf}`);
	}
}

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** Every way `value` departs from `shape`; an extra field is reported once, not its contents. */
function shapeProblems(value: unknown, shape: Shape, path = ''): Problem[] {
	const at = path === '' ? '(the answer)' : path;
	if (typeof shape === 'string') {
		if (shape.split('|').some((leaf) => leafMatches(value, leaf))) return [];
		return [{ path: at, kind: 'type', text: `${JSON.stringify(value)?.slice(0, 80)} is not ${shape}` }];
	}
	if ('equals' in shape) {
		return value === shape.equals ? [] : [{ path: at, kind: 'type', text: `${JSON.stringify(value)} is not "${shape.equals}"` }];
	}
	if ('nullable' in shape) return value === null ? [] : shapeProblems(value, shape.nullable, path);
	if ('list' in shape) {
		return Array.isArray(value) ? shapeProblems(value, arr(shape.list), path) : shapeProblems(value, obj({ data: arr(shape.list), meta: META }), path);
	}
	if ('array' in shape) {
		if (!Array.isArray(value)) return [{ path: at, kind: 'type', text: 'is not an array' }];
		return value.flatMap((item, i) => shapeProblems(item, shape.array, `${path}[${i}]`));
	}
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return [{ path: at, kind: 'type', text: 'is not an object' }];
	const record = value as Record<string, unknown>;
	const problems: Problem[] = [];
	for (const key of Object.keys(record)) {
		const fieldShape = shape.object[key] ?? shape.object[`${key}?`];
		if (fieldShape === undefined) {
			problems.push({ path: join(path, key), kind: 'extra', text: 'is shown neither by the spec nor by the row' });
		} else {
			problems.push(...shapeProblems(record[key], fieldShape, join(path, key)));
		}
	}
	for (const key of Object.keys(shape.object)) {
		if (!key.endsWith('?') && !(key in record)) problems.push({ path: join(path, key), kind: 'missing', text: 'is missing' });
	}
	return problems;
}

// ------------------------------------------------------------------ the table

interface Row {
	/** The platform's answer or callback. */
	answer: string;
	/** Where the shape comes from: the spec's words, or the sandbox's documented shape of a "not shown" answer. */
	from: string;
	shape: Shape;
}

const ASSISTANT_ITEM = obj({ assistantId: 'string', name: 'string', description: 'string', mode: 'string', createdAt: 'time', numbers: arr('string') });
const RUNTIME = obj({ assistantId: 'string', kind: 'string', providerId: 'string', model: 'string|null', voice: 'string|null', language: 'string|null', settings: 'any' });
const BINDING = obj({ toolName: 'string', subscriptionName: 'string|null', kind: 'string' });
const COLLECTION = obj({ ragId: 'string', name: 'string', description: 'string', createdAt: 'time', documentCount: 'integer', sizeBytes: 'integer' });
const UPLOAD_DOCUMENT = obj({ documentId: 'string', fileName: 'string', sizeBytes: 'integer', status: 'string' });
const HOOK = obj({ enabled: 'boolean', url: 'string|null', authName: 'string|null' });
const SCHEMA_PROPERTY = obj({ name: 'string', type: 'string', description: 'string', required: 'boolean', 'values?': arr('string') });
const EXTRACTION = obj({ hangupUrl: 'string|null', schema: arr(SCHEMA_PROPERTY) });
const POSTCALL = obj({ enabled: 'boolean', serverUrl: 'string|null', authName: 'string|null', tools: arr('string'), settings: 'any' });
const ROW = 'docs/assumptions.md "Management API" row';

/** One row per platform answer or callback. */
const SPEC_SHAPES = {
	// Outbound API and the call-result callback: the spec shows these fields.
	acceptTrunk: {
		answer: 'POST /webhook/outbound_call, call accepted',
		from: 'spec: "Returned when the call is accepted: internal_id; rest of the response: not shown" (the least: internal_id alone)',
		shape: obj({ internal_id: 'string' }),
	},
	acceptPbx: {
		answer: 'POST /webhook/outbound_call_pbx, call accepted',
		from: 'spec: "Returned: internal_id; rest of the response: not shown" (the least: internal_id alone)',
		shape: obj({ internal_id: 'string' }),
	},
	statusRecord: {
		answer: 'GET /getDialstatus/{internal_id}, record persisted',
		from: 'spec, "Call status": dialStatus (string), billSec (integer), trafficCost (string, six fractional digits)',
		shape: obj({ dialStatus: 'string', billSec: 'integer', trafficCost: 'decimal6' }),
	},
	statusNotPersisted: {
		answer: 'GET /getDialstatus/{internal_id}, record not yet persisted',
		from: 'spec: HTTP 404; its body is not shown (the least error body)',
		shape: ERROR,
	},
	callResult: {
		answer: 'call-result callback POSTed to callResultUrl',
		from: 'spec, "Call result (callback body)": internal_id, dialstatus, duration (integer); no transcript',
		shape: obj({ internal_id: 'string', dialstatus: 'string', duration: 'integer' }),
	},
	// Management API: what the spec shows.
	createAssistant: {
		answer: 'POST /api/v1/assistants',
		from: 'spec, endpoint 1: "Returned: assistantId and assistantApiKey; remaining returned fields: not shown" (the least: those two)',
		shape: obj({ assistantId: 'string', assistantApiKey: 'string' }),
	},
	pageEnvelope: {
		answer: 'a paginated list (limit or cursor given)',
		from: 'spec, "Pagination envelope": an object including meta {count, totalCount, limit, nextCursor, hasMore}; the items under data (docs/assumptions.md "Pagination")',
		shape: obj({ data: arr('any'), meta: META }),
	},
	ragCollectionInUse: {
		answer: 'delete of a RAG collection that is attached',
		from: 'spec, Errors: error code RAG_COLLECTION_IN_USE; its HTTP status and the error body are not shown (the least error body with that code)',
		shape: obj({ error: obj({ code: { equals: 'RAG_COLLECTION_IN_USE' }, message: 'string' }) }),
	},
	error: {
		answer: 'every other error of both surfaces (4xx, 5xx)',
		from: 'spec: "Error body shape, other error codes, and results of authentication and validation failures: not shown" (the least: {error: {code, message}})',
		shape: ERROR,
	},
	// Management API: the spec shows no shape; the sandbox's documented one.
	assistants: { answer: 'GET /api/v1/assistants', from: `spec: unpaginated form not shown, paginated "an object including meta"; items: ${ROW} 2`, shape: list(ASSISTANT_ITEM) },
	assistantDetail: {
		answer: 'GET /api/v1/assistants/{assistantId} (sandbox-only guess)',
		from: `${ROW} 2b`,
		shape: obj({
			assistantId: 'string',
			name: 'string',
			description: 'string',
			mode: 'string',
			createdAt: 'time',
			numbers: arr('string'),
			prompt: 'string|null',
			updatedAt: 'time',
			runtime: obj({ 'tts?': RUNTIME, 'asr?': RUNTIME, 'llm?': RUNTIME, 'audio-to-audio?': RUNTIME }),
			tools: arr(BINDING),
			ragId: 'string|null',
			conversationWebhook: orNull(HOOK),
			extraction: orNull(EXTRACTION),
			postcallMcp: orNull(POSTCALL),
		}),
	},
	deleteAssistant: {
		answer: 'DELETE /api/v1/assistants/{assistantId}',
		from: `spec: response body not shown; ${ROW} 3`,
		shape: obj({ assistantId: 'string', deleted: 'boolean', releasedNumbers: arr('string') }),
	},
	prompt: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/prompt',
		from: `spec: body and response not shown; ${ROW} 4`,
		shape: obj({ assistantId: 'string', prompt: 'string', updatedAt: 'time' }),
	},
	providerCatalog: {
		answer: 'GET /api/v1/catalog/providers/{tts,asr,llm,audio-to-audio}',
		from: `spec: response shape not shown; ${ROW} 5 (a bare array, never paginated)`,
		shape: arr(obj({ providerId: 'string', name: 'string', kind: 'string', models: arr('string'), 'voices?': arr('string'), 'languages?': arr('string') })),
	},
	runtime: { answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/{kind}', from: `spec: body and response not shown; ${ROW} 6`, shape: RUNTIME },
	toolCatalog: {
		answer: 'GET /api/v1/catalog/tools',
		from: `spec: instanceName for plugin and tool-server tools, other fields not shown; ${ROW} 7`,
		shape: list(obj({ toolName: 'string', kind: 'string', instanceName: 'string|null', description: 'string' })),
	},
	assistantTools: { answer: 'GET /api/v1/catalog/assistants/{assistantId}/tools', from: `spec: response shape not shown; ${ROW} 8`, shape: list(BINDING) },
	runtimeTools: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/tools',
		from: `spec: response not shown; ${ROW} 9`,
		shape: obj({ assistantId: 'string', tools: arr(BINDING) }),
	},
	collection: {
		answer: 'POST /api/v1/rag/collections, GET /api/v1/rag/collections/{ragId} (sandbox-only guess)',
		from: `spec: ragId; body and response not shown; ${ROW} 10 and 10c`,
		shape: COLLECTION,
	},
	collections: { answer: 'GET /api/v1/rag/collections', from: `spec: paginated, items not shown; ${ROW} 10b (row 10 items)`, shape: list(COLLECTION) },
	estimate: {
		answer: 'POST /api/v1/rag/documents/estimate',
		from: `spec: body and response not shown; ${ROW} 11`,
		shape: obj({
			totalBytes: 'integer',
			estimatedChunks: 'integer',
			chunkSize: 'integer',
			usedBytes: 'integer',
			allowanceBytes: 'integer',
			remainingBytes: 'integer',
			fitsAllowance: 'boolean',
		}),
	},
	upload: {
		answer: 'POST /api/v1/rag/collections/{ragId}/documents',
		from: `spec: uploadId; body and response not shown; ${ROW} 12`,
		shape: obj({ uploadId: 'string', ragId: 'string', status: 'string', chunkSize: 'integer', documents: arr(UPLOAD_DOCUMENT) }),
	},
	documents: {
		answer: 'GET /api/v1/rag/collections/{ragId}/documents',
		from: `spec: paginated, items not shown; ${ROW} 12b`,
		shape: list(obj({ documentId: 'string', fileName: 'string', sizeBytes: 'integer', chunkSize: 'integer', status: 'string', uploadId: 'string', createdAt: 'time' })),
	},
	uploadProgress: {
		answer: 'GET /api/v1/rag/uploads/{uploadId}',
		from: `spec: all fields of an upload record not shown; ${ROW} 13 (documents as in row 12)`,
		shape: obj({ uploadId: 'string', ragId: 'string', status: 'string', progress: 'integer', documents: arr(UPLOAD_DOCUMENT), error: 'string|null' }),
	},
	attachRag: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/rag',
		from: `spec: body and response not shown; ${ROW} 14`,
		shape: obj({ assistantId: 'string', ragId: 'string|null' }),
	},
	deleteCollection: {
		answer: 'DELETE /api/v1/rag/collections/{ragId}',
		from: `spec: method and path not shown; ${ROW} 15`,
		shape: obj({ ragId: 'string', deleted: 'boolean' }),
	},
	conversationWebhook: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/hangup/conversation-webhook',
		from: `spec: response not shown; ${ROW} 16 (the stored config, with the assistantId as rows 6, 9 and 14)`,
		shape: obj({ assistantId: 'string', enabled: 'boolean', url: 'string|null', authName: 'string|null' }),
	},
	extractionSchema: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/hangup/schema',
		from: `spec: response not shown; ${ROW} 17 (the stored config, with the assistantId)`,
		shape: obj({ assistantId: 'string', hangupUrl: 'string|null', schema: arr(SCHEMA_PROPERTY) }),
	},
	postcallMcp: {
		answer: 'PATCH /api/v1/assistants/{assistantId}/runtime/postcall/mcp-config',
		from: `spec: method and body not shown; ${ROW} 18 (the stored config, with the assistantId)`,
		shape: obj({ assistantId: 'string', enabled: 'boolean', serverUrl: 'string|null', authName: 'string|null', tools: arr('string'), settings: 'any' }),
	},
	knowledge: { answer: 'GET /api/v1/knowledge (sandbox-only guess)', from: `${ROW} 19`, shape: list(obj({ knowledgeId: 'string', name: 'string', type: 'string', createdAt: 'time' })) },
	walletKeys: {
		answer: 'GET /api/v1/provider-wallet/keys (sandbox-only guess)',
		from: `${ROW} 20`,
		shape: list(obj({ keyId: 'string', provider: 'string', label: 'string', last4: 'string', createdAt: 'time' })),
	},
	pluginInstances: {
		answer: 'GET /api/v1/plugin-instances (sandbox-only guess)',
		from: `${ROW} 21`,
		shape: list(obj({ instanceName: 'string', plugin: 'string', toolNames: arr('string'), createdAt: 'time' })),
	},
	fillerLists: {
		answer: 'GET /api/v1/filler-lists (sandbox-only guess)',
		from: `${ROW} 22`,
		shape: list(obj({ fillerListId: 'string', name: 'string', language: 'string', phrases: arr('string') })),
	},
	analyticsCalls: {
		answer: 'GET /api/v1/analytics/calls (sandbox-only guess)',
		from: `${ROW} 23`,
		shape: list(obj({ callId: 'string', internal_id: 'string|null', assistantId: 'string', direction: 'string', dialStatus: 'string', billSec: 'integer', startedAt: 'time' })),
	},
	numbers: {
		answer: 'GET /api/v1/numbers (sandbox-only guess)',
		from: `${ROW} 24`,
		shape: list(obj({ number: 'string', kind: 'string', assistantId: 'string|null' })),
	},
	// Callbacks whose body the spec does not show.
	conversationEnd: {
		answer: 'conversation-end callback POSTed to the webhook url',
		from: 'spec: body not shown; docs/assumptions.md "Events received by the trigger"',
		shape: obj({
			event: { equals: 'conversation_end' },
			assistantId: 'string',
			'internal_id?': 'string',
			callId: 'string',
			startedAt: 'time',
			endedAt: 'time',
			durationSec: 'integer',
			direction: 'string',
			from: 'string',
			to: 'string',
		}),
	},
	extractedData: {
		answer: 'extracted-data callback POSTed to hangupUrl',
		from: 'spec: body not shown; docs/assumptions.md "Events received by the trigger"',
		shape: obj({ event: { equals: 'extracted_data' }, assistantId: 'string', 'internal_id?': 'string', callId: 'string', data: 'any' }),
	},
} satisfies Record<string, Row>;

type RowId = keyof typeof SPEC_SHAPES;

const CALLBACK_ROWS: Record<string, RowId> = { callResult: 'callResult', conversationEnd: 'conversationEnd', extractedData: 'extractedData' };

/** The paths of the fields `value` carries that the row does not name. */
function extras(value: unknown, row: RowId): string[] {
	return shapeProblems(value, SPEC_SHAPES[row].shape)
		.filter((p) => p.kind === 'extra')
		.map((p) => p.path)
		.sort();
}

// ------------------------------------------------------------------ the checker itself

describe('the shape check', () => {
	it('names an extra field, a missing one and a wrong type, with their paths', () => {
		expect(shapeProblems({ internal_id: 'abc', status: 'queued' }, SPEC_SHAPES.acceptTrunk.shape)).toEqual([
			{ path: 'status', kind: 'extra', text: 'is shown neither by the spec nor by the row' },
		]);
		expect(shapeProblems({ dialStatus: 'ANSWER', billSec: '2' }, SPEC_SHAPES.statusRecord.shape).map((p) => [p.path, p.kind])).toEqual([
			['billSec', 'type'],
			['trafficCost', 'missing'],
		]);
		expect(shapeProblems({ error: { code: 'X', message: 'm', details: { field: 'dst' } } }, SPEC_SHAPES.error.shape).map((p) => p.path)).toEqual(['error.details']);
		const page = { data: [{ assistantId: 'a', name: 'n', description: '', mode: 'text', createdAt: '2025-01-01T00:00:00.000Z', numbers: [], key: 'x' }], meta: { count: 1, totalCount: 1, limit: 1, nextCursor: null, hasMore: false, page: 1 } };
		expect(shapeProblems(page, SPEC_SHAPES.assistants.shape).map((p) => p.path)).toEqual(['data[0].key', 'meta.page']);
		expect(shapeProblems({ error: { code: 'NOT_FOUND', message: 'm' } }, SPEC_SHAPES.ragCollectionInUse.shape).map((p) => p.path)).toEqual(['error.code']);
		expect(shapeProblems({ trafficCost: '0.0125' }, obj({ trafficCost: 'decimal6' }))).toHaveLength(1);
		expect(shapeProblems('2025-01-01', 'time')).toHaveLength(1);
	});
});

// ------------------------------------------------------------------ the drive

interface Sent {
	method: string;
	path: string;
	status: number;
}

/** Drives one sandbox; `problems` collects every departure from the table, `sent` every request. */
class Driver {
	readonly problems: string[] = [];
	readonly sent: Sent[] = [];
	readonly rowsSeen = new Set<RowId>();

	constructor(readonly sb: PlatformSandbox) {}

	check(where: string, row: RowId, value: unknown): void {
		this.rowsSeen.add(row);
		for (const p of shapeProblems(value, SPEC_SHAPES[row].shape)) this.problems.push(`${where} [${row}]: field "${p.path}" ${p.text}`);
		const shape = SPEC_SHAPES[row].shape;
		if (typeof shape === 'object' && 'list' in shape && value !== null && typeof value === 'object' && !Array.isArray(value)) {
			this.check(where, 'pageEnvelope', value);
		}
	}

	/** Sends, requires `status`, checks the answer against `row`. */
	async send(row: RowId, status: number, method: string, path: string, opts: CallOptions = {}): Promise<any> {
		const res: HttpResult = await call(this.sb, method, path, opts);
		this.sent.push({ method, path, status: res.status });
		if (res.status !== status) throw new Error(`${method} ${path}: HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`);
		this.check(`${method} ${path}`, row, res.body);
		return res.body;
	}

	upload(row: RowId, status: number, ragId: string, parts: MultipartPart[]): Promise<any> {
		const m = multipart(parts);
		return this.send(row, status, 'POST', `/api/v1/rag/collections/${ragId}/documents`, { rawBody: m.body, headers: { 'content-type': m.contentType } });
	}
}

const m = (path: string) => `/api/v1${path}`;

/** The drive's storage allowance: small, so that one upload passes it (413 STORAGE_ALLOWANCE_EXCEEDED). */
const ALLOWANCE = 100_000;

async function driveAssistants(d: Driver, rx: Receiver): Promise<string> {
	const created = await d.send('createAssistant', 201, 'POST', m('/assistants'), { body: { name: 'Shapes', description: 'Checks the shapes', mode: 'voice' } });
	await d.send('error', 400, 'POST', m('/assistants'), { body: {} });
	await d.send('error', 400, 'POST', m('/assistants'), { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
	await d.send('error', 405, 'PUT', m('/assistants'));
	const id: string = created.assistantId;

	await d.send('assistants', 200, 'GET', m('/assistants'));
	const first = await d.send('assistants', 200, 'GET', m('/assistants?limit=2'));
	await d.send('assistants', 200, 'GET', m(`/assistants?limit=2&cursor=${first.meta.nextCursor}`));
	await d.send('assistants', 200, 'GET', m('/assistants?limit=2&name=shapes'));
	await d.send('error', 400, 'GET', m('/assistants?limit=0'));
	await d.send('error', 400, 'GET', m('/assistants?limit=2&cursor=forged'));

	await d.send('prompt', 200, 'PATCH', m(`/assistants/${id}/prompt`), { body: { prompt: 'Be brief.' } });
	await d.send('error', 400, 'PATCH', m(`/assistants/${id}/prompt`), { body: { prompt: '' } });
	await d.send('error', 404, 'PATCH', m('/assistants/asst_unknown/prompt'), { body: { prompt: 'x' } });

	for (const kind of PROVIDER_KINDS) {
		const catalog = await d.send('providerCatalog', 200, 'GET', m(`/catalog/providers/${kind}`));
		await d.send('providerCatalog', 200, 'GET', m(`/catalog/providers/${kind}?limit=1`));
		const p = catalog[catalog.length - 1];
		const body = { providerId: p.providerId, model: p.models[0], ...(p.voices ? { voice: p.voices[0] } : {}), ...(p.languages ? { language: p.languages[0] } : {}), settings: { speed: 1.1 } };
		await d.send('runtime', 200, 'PATCH', m(`/assistants/${id}/runtime/${kind}`), { body });
		await d.send('error', 400, 'PATCH', m(`/assistants/${id}/runtime/${kind}`), { body: { providerId: 'no-such-provider' } });
	}
	await d.send('error', 404, 'GET', m('/catalog/providers/video'));
	await d.send('error', 404, 'PATCH', m('/assistants/asst_unknown/runtime/llm'), { body: { providerId: 'openai' } });

	await d.send('toolCatalog', 200, 'GET', m('/catalog/tools'));
	const tools = await d.send('toolCatalog', 200, 'GET', m('/catalog/tools?limit=3'));
	await d.send('toolCatalog', 200, 'GET', m(`/catalog/tools?cursor=${tools.meta.nextCursor}`));
	await d.send('error', 405, 'DELETE', m('/catalog/tools'));
	const toolsPath = m(`/assistants/${id}/runtime/tools`);
	await d.send('runtimeTools', 200, 'PATCH', toolsPath, {
		body: {
			tools: [
				{ toolName: 'lookup_order', subscriptionName: null },
				{ toolName: 'google_calendar_create_event', subscriptionName: 'gcal-main' },
				{ toolName: 'kb_search', subscriptionName: 'kb-mcp' },
			],
			deleteTools: [],
		},
	});
	await d.send('runtimeTools', 200, 'PATCH', toolsPath, { body: { deleteTools: [{ toolName: 'kb_search', subscriptionName: 'kb-mcp' }] } });
	await d.send('error', 400, 'PATCH', toolsPath, { body: { tools: [{ toolName: 'no_such_tool', subscriptionName: null }] } });
	await d.send('assistantTools', 200, 'GET', m(`/catalog/assistants/${id}/tools`));
	const bound = await d.send('assistantTools', 200, 'GET', m(`/catalog/assistants/${id}/tools?limit=1`));
	await d.send('assistantTools', 200, 'GET', m(`/catalog/assistants/${id}/tools?cursor=${bound.meta.nextCursor}`));
	await d.send('error', 404, 'GET', m('/catalog/assistants/asst_unknown/tools'));

	const hookPath = m(`/assistants/${id}/runtime/hangup/conversation-webhook`);
	await d.send('conversationWebhook', 200, 'PATCH', hookPath, { body: { enabled: false, url: null, authName: null } });
	await d.send('conversationWebhook', 200, 'PATCH', hookPath, { body: { enabled: true, url: `${rx.url}/end`, authName: 'n8n-header-auth' } });
	await d.send('error', 400, 'PATCH', hookPath, { body: { enabled: 'yes', url: null, authName: null } });
	const schemaPath = m(`/assistants/${id}/runtime/hangup/schema`);
	await d.send('extractionSchema', 200, 'PATCH', schemaPath, {
		body: {
			hangupUrl: `${rx.url}/extracted`,
			schema: [
				{ name: 'customerName', type: 'string', description: 'Name', required: true },
				{ name: 'channel', type: 'enum', description: 'Channel', required: false, values: ['phone', 'email'] },
				{ name: 'address', type: 'object', description: 'Address', required: false },
			],
		},
	});
	await d.send('error', 400, 'PATCH', schemaPath, { body: { hangupUrl: null, schema: {} } });
	const mcpPath = m(`/assistants/${id}/runtime/postcall/mcp-config`);
	await d.send('postcallMcp', 200, 'PATCH', mcpPath, { body: { enabled: false } });
	await d.send('postcallMcp', 200, 'PATCH', mcpPath, { body: { enabled: true, serverUrl: 'https://mcp.example.com/sse', authName: 'n8n-header-auth', tools: ['summarize'], settings: { lang: 'it' } } });
	await d.send('error', 400, 'PATCH', mcpPath, { body: { enabled: true } });

	const doomed = await d.send('createAssistant', 201, 'POST', m('/assistants'), { body: { name: 'Doomed' } });
	d.sb.assignNumber('+14155550102', doomed.assistantId);
	await d.send('deleteAssistant', 200, 'DELETE', m(`/assistants/${doomed.assistantId}`));
	await d.send('error', 404, 'DELETE', m(`/assistants/${doomed.assistantId}`));
	return id;
}

async function driveRag(d: Driver, assistantId: string): Promise<void> {
	const collection = await d.send('collection', 201, 'POST', m('/rag/collections'), { body: { name: 'Shapes', description: 'Checks the shapes' } });
	const ragId: string = collection.ragId;
	await d.send('error', 400, 'POST', m('/rag/collections'), { body: { name: '' } });
	await d.send('collections', 200, 'GET', m('/rag/collections'));
	const page = await d.send('collections', 200, 'GET', m('/rag/collections?limit=1'));
	await d.send('collections', 200, 'GET', m(`/rag/collections?cursor=${page.meta.nextCursor}`));
	await d.send('collection', 200, 'GET', m(`/rag/collections/${ragId}`));
	await d.send('error', 404, 'GET', m('/rag/collections/rag_Unknown1'));

	const estimate = m('/rag/documents/estimate');
	await d.send('estimate', 200, 'POST', estimate, { body: { ragId, chunkSize: 1000, files: [{ fileName: 'a.pdf', sizeBytes: 2500 }, { fileName: 'b.csv', sizeBytes: 0 }] } });
	await d.send('error', 400, 'POST', estimate, { body: { files: [] } });
	await d.send('error', 400, 'POST', estimate, { body: { files: [{ fileName: 'a.exe', sizeBytes: 1 }] } });
	await d.send('error', 404, 'POST', estimate, { body: { ragId: 'rag_Missing1', files: [{ fileName: 'a.pdf', sizeBytes: 1 }] } });

	const mixed = await d.upload('upload', 202, ragId, [file('a.pdf', 1024), file('corrupt-scan.txt', 512), { name: 'chunkSize', value: '800' }]);
	const progress = m(`/rag/uploads/${mixed.uploadId}`);
	await d.send('uploadProgress', 200, 'GET', progress);
	await d.sb.clock.advance(200);
	await d.send('uploadProgress', 200, 'GET', progress);
	await d.sb.clock.advance(5000);
	const failed = await d.send('uploadProgress', 200, 'GET', progress);
	expect(failed.status).toBe('failed');
	const good = await d.upload('upload', 202, ragId, [file('b.docx', 2048)]);
	await d.sb.clock.advance(5000);
	const completed = await d.send('uploadProgress', 200, 'GET', m(`/rag/uploads/${good.uploadId}`));
	expect(completed.status).toBe('completed');
	await d.send('error', 404, 'GET', m('/rag/uploads/upl_unknown'));
	await d.upload('error', 400, ragId, [file('bad.exe', 5)]);
	await d.upload('error', 400, ragId, [{ name: 'chunkSize', value: '1000' }]);
	await d.upload('error', 404, 'rag_Unknown1', [file('a.pdf', 5)]);
	await d.upload('error', 413, ragId, [file('too-much.pdf', 40_000)]); // STORAGE_ALLOWANCE_EXCEEDED
	await d.upload('error', 413, ragId, [file('huge.pdf', ALLOWANCE + 1024 * 1024 + 10)]); // PAYLOAD_TOO_LARGE

	await d.send('documents', 200, 'GET', m(`/rag/collections/${ragId}/documents`));
	const docs = await d.send('documents', 200, 'GET', m(`/rag/collections/${ragId}/documents?limit=1`));
	await d.send('documents', 200, 'GET', m(`/rag/collections/${ragId}/documents?cursor=${docs.meta.nextCursor}`));
	await d.send('error', 404, 'GET', m('/rag/collections/rag_Unknown1/documents'));

	const attach = m(`/assistants/${assistantId}/runtime/rag`);
	await d.send('attachRag', 200, 'PATCH', attach, { body: { ragId } });
	await d.send('error', 400, 'PATCH', attach, { body: { ragId: 5 } });
	await d.send('error', 404, 'PATCH', attach, { body: { ragId: 'rag_Unknown1' } });
	await d.send('ragCollectionInUse', 409, 'DELETE', m(`/rag/collections/${ragId}`));
	await d.send('assistantDetail', 200, 'GET', m(`/assistants/${assistantId}`));
	await d.send('error', 404, 'GET', m('/assistants/asst_unknown'));
	await d.send('attachRag', 200, 'PATCH', attach, { body: { ragId: null } });
	await d.send('deleteCollection', 200, 'DELETE', m(`/rag/collections/${ragId}`));
	await d.send('error', 404, 'DELETE', m(`/rag/collections/${ragId}`));
	await d.send('assistantDetail', 200, 'GET', m(`/assistants/${d.sb.state.assistants.list[4].assistantId}`));
}

async function driveOutbound(d: Driver, rx: Receiver, assistantId: string): Promise<void> {
	const shapes = d.sb.state.assistants.get(assistantId)!;
	d.sb.assignNumber('+390200001099', assistantId, 'demo');
	const trunk = { dst: '+14155550199', callerId: '+390200001099', assistantApiKey: shapes.assistantApiKey, callResultUrl: `${rx.url}/result` };

	const accepted = await d.send('acceptTrunk', 200, 'POST', '/webhook/outbound_call', { body: trunk });
	await d.send('statusNotPersisted', 404, 'GET', `/getDialstatus/${accepted.internal_id}`);
	await d.sb.clock.advance(2300); // ring 300 ms + 2 s talk: result, conversation end, extracted data
	await d.send('statusNotPersisted', 404, 'GET', `/getDialstatus/${accepted.internal_id}`);
	await d.sb.clock.advance(500);
	await d.send('statusRecord', 200, 'GET', `/getDialstatus/${accepted.internal_id}`);

	const legacy = await d.send('acceptTrunk', 200, 'POST', '/webhook/outbound_call', {
		body: { dst: '+14155550198', callerId: '+390200001099', apiKey_assistente: shapes.assistantApiKey, url_esito_chiamata: `${rx.url}/result` },
	});
	d.sb.setDialOutcome({ dst: '+14155550142', dialstatus: 'BUSY', ringMs: 100, persistDelayMs: 0 });
	const pbx = await d.send('acceptPbx', 200, 'POST', '/webhook/outbound_call_pbx', {
		body: { ...trunk, dst: '+14155550142', callerId: '+390612345678', ipPbx: '10.0.0.5', sipPort: 5060, addPrompt: 'The customer is Ms Rossi.' },
	});
	await d.sb.clock.advance(2800);
	await d.send('statusRecord', 200, 'GET', `/getDialstatus/${pbx.internal_id}`);
	await d.send('statusRecord', 200, 'GET', `/getDialstatus/${legacy.internal_id}`);
	await d.send('statusNotPersisted', 404, 'GET', '/getDialstatus/0123456789abcdef0123456789abcdef');

	await d.send('error', 400, 'POST', '/webhook/outbound_call', { body: { ...trunk, dst: '14155550199' } });
	await d.send('error', 400, 'POST', '/webhook/outbound_call', { body: [1] });
	await d.send('error', 401, 'POST', '/webhook/outbound_call', { body: { ...trunk, assistantApiKey: 'ak_nope' } });
	await d.send('error', 403, 'POST', '/webhook/outbound_call', { body: { ...trunk, callerId: '+390200001002' } });
	await d.send('error', 400, 'POST', '/webhook/outbound_call_pbx', { body: { ...trunk, ipPbx: '' } });
	await d.send('error', 403, 'POST', '/webhook/outbound_call_pbx', { body: { ...trunk, ipPbx: '10.9.9.9' } });
	await d.send('error', 405, 'GET', '/webhook/outbound_call');
	d.sb.setAccountLimit(1);
	d.sb.setDialOutcome({ dst: '+14155550177', dialstatus: 'NOANSWER', ringMs: 60_000 });
	await d.send('acceptTrunk', 200, 'POST', '/webhook/outbound_call', { body: { ...trunk, dst: '+14155550177' } });
	await d.send('error', 429, 'POST', '/webhook/outbound_call', { body: { ...trunk, dst: '+14155550177' } }); // CALL_LIMIT_REACHED
	d.sb.setAccountLimit(null);
	await d.sb.clock.advance(60_000);
}

async function driveLists(d: Driver): Promise<void> {
	const lists: Array<[string, RowId]> = [
		['/knowledge', 'knowledge'],
		['/provider-wallet/keys', 'walletKeys'],
		['/plugin-instances', 'pluginInstances'],
		['/filler-lists', 'fillerLists'],
		['/analytics/calls', 'analyticsCalls'],
		['/numbers', 'numbers'],
	];
	for (const [path, row] of lists) {
		await d.send(row, 200, 'GET', m(path));
		const page = await d.send(row, 200, 'GET', m(`${path}?limit=2`));
		await d.send(row, 200, 'GET', m(`${path}?cursor=${page.meta.nextCursor}`));
		await d.send('error', 400, 'GET', m(`${path}?limit=x`));
	}
	const calls = await d.send('analyticsCalls', 200, 'GET', m('/analytics/calls'));
	expect(calls.filter((c: { internal_id: string | null }) => typeof c.internal_id === 'string').length).toBeGreaterThan(0);
}

/** A platform answer that is an injected fault plays the platform too: its error body follows the mode. */
async function driveFaultsAndStrayPaths(d: Driver): Promise<void> {
	d.sb.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 429, retryAfter: 2, times: 1 });
	await d.send('error', 429, 'GET', m('/assistants?limit=1'));
	d.sb.injectFault({ path: '/getDialstatus/*', kind: 'status', status: 503, times: 1 });
	await d.send('error', 503, 'GET', '/getDialstatus/abc');
	await d.send('error', 404, 'GET', m('/nothing/here'));
	await d.send('error', 404, 'GET', '/nothing/here');
	await d.send('error', 401, 'GET', m('/nothing/here'), { auth: 'none' });
	await d.send('error', 401, 'GET', m('/assistants'), { auth: 'outbound' });
}

/** One request without credentials to every route: 401 and the least error body. */
async function driveUnauthenticated(d: Driver, assistantId: string): Promise<void> {
	const id = assistantId;
	const requests: Array<[string, string]> = [
		['POST', m('/assistants')],
		['GET', m('/assistants')],
		['GET', m(`/assistants/${id}`)],
		['DELETE', m(`/assistants/${id}`)],
		['PATCH', m(`/assistants/${id}/prompt`)],
		...PROVIDER_KINDS.map((kind): [string, string] => ['GET', m(`/catalog/providers/${kind}`)]),
		...PROVIDER_KINDS.map((kind): [string, string] => ['PATCH', m(`/assistants/${id}/runtime/${kind}`)]),
		['GET', m('/catalog/tools')],
		['GET', m(`/catalog/assistants/${id}/tools`)],
		['PATCH', m(`/assistants/${id}/runtime/tools`)],
		['POST', m('/rag/collections')],
		['GET', m('/rag/collections')],
		['GET', m('/rag/collections/rag_Any1')],
		['DELETE', m('/rag/collections/rag_Any1')],
		['POST', m('/rag/documents/estimate')],
		['POST', m('/rag/collections/rag_Any1/documents')],
		['GET', m('/rag/collections/rag_Any1/documents')],
		['GET', m('/rag/uploads/upl_any')],
		['PATCH', m(`/assistants/${id}/runtime/rag`)],
		['PATCH', m(`/assistants/${id}/runtime/hangup/conversation-webhook`)],
		['PATCH', m(`/assistants/${id}/runtime/hangup/schema`)],
		['PATCH', m(`/assistants/${id}/runtime/postcall/mcp-config`)],
		['GET', m('/knowledge')],
		['GET', m('/provider-wallet/keys')],
		['GET', m('/plugin-instances')],
		['GET', m('/filler-lists')],
		['GET', m('/analytics/calls')],
		['GET', m('/numbers')],
		['POST', '/webhook/outbound_call'],
		['POST', '/webhook/outbound_call_pbx'],
		['GET', '/getDialstatus/abc'],
	];
	for (const [method, path] of requests) {
		const body = method === 'GET' || method === 'DELETE' ? undefined : {};
		await d.send('error', 401, method, path, { auth: 'none', body });
	}
}

/** Every route the sandbox serves on the platform surfaces that was not answered both 2xx and 4xx in the drive. */
function unexercisedRoutes(sent: Sent[]): string[] {
	const routes = [
		...managementRoutes.map((r) => ({ method: r.method, pattern: r.pattern, prefix: '/api/v1' })),
		...outboundRoutes.map((r) => ({ method: r.method, pattern: r.pattern, prefix: '' })),
	];
	const missing: string[] = [];
	for (const route of routes) {
		const hits = sent.filter((s) => {
			const path = s.path.split('?')[0];
			return s.method === route.method && path.startsWith(route.prefix) && route.pattern.test(path.slice(route.prefix.length));
		});
		if (!hits.some((s) => s.status >= 200 && s.status < 300)) missing.push(`${route.method} ${route.prefix}${route.pattern.source}: no 2xx answer`);
		if (!hits.some((s) => s.status >= 400 && s.status < 500)) missing.push(`${route.method} ${route.prefix}${route.pattern.source}: no 4xx answer`);
	}
	return missing;
}


describe('a spec-mode sandbox answers in the shapes of the spec', () => {
	it('every platform route, success and error, every list and every callback: no field that neither the spec nor its row names', async () => {
		const sb = await startSandbox({ storageAllowanceBytes: ALLOWANCE });
		const rx = await Receiver.start();
		try {
			expect(sb.answers).toBe('spec');
			const d = new Driver(sb);
			const id = await driveAssistants(d, rx);
			await driveRag(d, id);
			await driveOutbound(d, rx, id);
			await driveLists(d);
			await driveFaultsAndStrayPaths(d);
			await driveUnauthenticated(d, id);

			// The callbacks, as recorded and as received on the wire.
			for (const cb of sb.callbacks) {
				expect(cb.status).toBe(200);
				d.check(`callback ${cb.kind} POST ${cb.url}`, CALLBACK_ROWS[cb.kind], cb.body);
			}
			const byPath: Record<string, RowId> = { '/result': 'callResult', '/end': 'conversationEnd', '/extracted': 'extractedData' };
			for (const r of rx.received) d.check(`callback received at ${r.path}`, byPath[r.path], r.body);
			expect(new Set(sb.callbacks.map((c) => c.kind))).toEqual(new Set(['callResult', 'conversationEnd', 'extractedData']));
			expect(rx.received.map((r) => r.body).sort(byJson)).toEqual(sb.callbacks.map((c) => c.body).sort(byJson));

			expect(d.problems).toEqual([]);
			expect(unexercisedRoutes(d.sent)).toEqual([]);
			expect(Object.keys(SPEC_SHAPES).filter((row) => !d.rowsSeen.has(row as RowId))).toEqual([]);
			expect(sb.eventErrors).toEqual([]);
		} finally {
			await rx.stop();
			await sb.stop();
		}
	});
});

function byJson(a: unknown, b: unknown): number {
	const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
	return x < y ? -1 : x > y ? 1 : 0;
}

// ------------------------------------------------------------------ rich answers and switching

function reception(sb: PlatformSandbox) {
	const a = sb.state.assistants.list.find((x) => x.name === 'Reception Desk')!;
	return { dst: '+14155550199', callerId: '+390200001001', assistantApiKey: a.assistantApiKey };
}

describe("answers: 'rich'", () => {
	let sb: PlatformSandbox;
	let rx: Receiver;
	beforeAll(async () => {
		sb = await startSandbox({ answers: 'rich' });
		rx = await Receiver.start();
	});
	afterAll(async () => {
		await rx.stop();
		await sb.stop();
	});
	beforeEach(() => {
		sb.reset();
		rx.clear();
	});

	it('adds status "queued" to both acceptances and internal_id to the status record', async () => {
		expect(sb.answers).toBe('rich');
		const trunk = await call(sb, 'POST', '/webhook/outbound_call', { body: { ...reception(sb), callResultUrl: `${rx.url}/result` } });
		expect(trunk.body).toStrictEqual({ internal_id: expect.stringMatching(/^[0-9a-f]{32}$/), status: 'queued' });
		expect(extras(trunk.body, 'acceptTrunk')).toEqual(['status']);
		const pbx = await call(sb, 'POST', '/webhook/outbound_call_pbx', { body: { ...reception(sb), ipPbx: '10.0.0.5' } });
		expect(pbx.body).toStrictEqual({ internal_id: expect.stringMatching(/^[0-9a-f]{32}$/), status: 'queued' });
		expect(extras(pbx.body, 'acceptPbx')).toEqual(['status']);

		const pending = await call(sb, 'GET', `/getDialstatus/${trunk.body.internal_id}`);
		expectRichError(pending, 404, 'CALL_RECORD_NOT_FOUND');
		expect(pending.body.error.details).toBeUndefined();
		await sb.clock.advance(2800);
		const record = await call(sb, 'GET', `/getDialstatus/${trunk.body.internal_id}`);
		expect(record.body).toStrictEqual({ internal_id: trunk.body.internal_id, dialStatus: 'ANSWER', billSec: 2, trafficCost: '0.025000' });
		expect(extras(record.body, 'statusRecord')).toEqual(['internal_id']);
		// The callback is the spec's in both modes.
		expect(rx.at('/result').map((r) => r.body)).toStrictEqual([{ internal_id: trunk.body.internal_id, dialstatus: 'ANSWER', duration: 2 }]);
	});

	it('adds name, description, mode and createdAt to the created assistant', async () => {
		const res = await call(sb, 'POST', '/api/v1/assistants', { body: { name: 'Rich', description: 'More fields', mode: 'voice' } });
		expect(res.status).toBe(201);
		expect(res.body).toStrictEqual({
			assistantId: expect.stringMatching(/^asst_[A-Za-z0-9]{16}$/),
			assistantApiKey: expect.stringMatching(/^ak_[A-Za-z0-9]{32}$/),
			name: 'Rich',
			description: 'More fields',
			mode: 'voice',
			createdAt: sb.state.assistants.get(res.body.assistantId)?.createdAt,
		});
		expect(extras(res.body, 'createAssistant')).toEqual(['createdAt', 'description', 'mode', 'name']);
	});

	it('adds status and details to error bodies', async () => {
		const support = sb.state.assistants.list.find((a) => a.name === 'Support Triage')!;
		const ragId = sb.state.ragAttachments.get(support.assistantId)!;
		const inUse = await call(sb, 'DELETE', `/api/v1/rag/collections/${ragId}`);
		expect(inUse.body).toStrictEqual({
			error: { code: 'RAG_COLLECTION_IN_USE', message: expect.any(String), status: 409, details: { ragId, assistantIds: [support.assistantId] } },
		});
		expect(extras(inUse.body, 'ragCollectionInUse')).toEqual(['error.details', 'error.status']);

		const invalid = await call(sb, 'POST', '/webhook/outbound_call', { body: { ...reception(sb), dst: '123' } });
		expectRichError(invalid, 400, 'VALIDATION_ERROR', 'dst');
		expect(extras(invalid.body, 'error')).toEqual(['error.details', 'error.status']);

		const unauthorized = await call(sb, 'GET', '/api/v1/assistants', { auth: 'none' });
		expect(unauthorized.body).toStrictEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String), status: 401 } });
		expect(extras(unauthorized.body, 'error')).toEqual(['error.status']);

		sb.setAccountLimit(1);
		sb.setDialOutcome({ dialstatus: 'NOANSWER', ringMs: 30_000 });
		expect((await call(sb, 'POST', '/webhook/outbound_call', { body: reception(sb) })).status).toBe(200);
		const full = await call(sb, 'POST', '/webhook/outbound_call', { body: reception(sb) });
		expectRichError(full, 429, 'CALL_LIMIT_REACHED');
		expect(full.body.error.details).toStrictEqual({ limit: 1, inFlight: 1 });

		sb.injectFault({ path: '/api/v1/assistants', kind: 'status', status: 503, times: 1 });
		expect((await call(sb, 'GET', '/api/v1/assistants')).body).toStrictEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), status: 503 } });
	});

	it('leaves the pagination envelope, the lists and the management answers as in spec mode', async () => {
		const page = await call(sb, 'GET', '/api/v1/assistants?limit=2');
		expect(shapeProblems(page.body, SPEC_SHAPES.assistants.shape)).toEqual([]);
		expect(Object.keys(page.body.meta).sort()).toEqual(['count', 'hasMore', 'limit', 'nextCursor', 'totalCount']);
		const tools = await call(sb, 'GET', '/api/v1/catalog/tools?limit=3');
		expect(shapeProblems(tools.body, SPEC_SHAPES.toolCatalog.shape)).toEqual([]);
		const reception = sb.state.assistants.list[0];
		const runtime = await call(sb, 'PATCH', `/api/v1/assistants/${reception.assistantId}/runtime/llm`, { body: { providerId: 'openai' } });
		expect(shapeProblems(runtime.body, SPEC_SHAPES.runtime.shape)).toEqual([]);
	});
});

describe('switching the answers', () => {
	it("setAnswers switches until reset(), which restores the start option; a value other than 'spec' or 'rich' is a RangeError", async () => {
		const sb = await startSandbox();
		try {
			const place = async () => (await call(sb, 'POST', '/webhook/outbound_call', { body: reception(sb) })).body;
			expect(sb.answers).toBe('spec');
			expect(await place()).toStrictEqual({ internal_id: expect.any(String) });
			sb.setAnswers('rich');
			expect(sb.answers).toBe('rich');
			expect(await place()).toStrictEqual({ internal_id: expect.any(String), status: 'queued' });
			expect(() => sb.setAnswers('full' as never)).toThrow(RangeError);
			expect(() => sb.setAnswers(undefined as never)).toThrow(RangeError);
			expect(sb.answers).toBe('rich');
			sb.reset();
			expect(sb.answers).toBe('spec');
			expect(await place()).toStrictEqual({ internal_id: expect.any(String) });
			sb.setAnswers('rich');
			sb.setAnswers('spec');
			expect(await place()).toStrictEqual({ internal_id: expect.any(String) });
		} finally {
			await sb.stop();
		}
		const rich = await startSandbox({ answers: 'rich' });
		try {
			rich.setAnswers('spec');
			expect(rich.answers).toBe('spec');
			rich.reset();
			expect(rich.answers).toBe('rich');
		} finally {
			await rich.stop();
		}
	});

	it('an unknown answers option is refused at start', async () => {
		await expect(startSandbox({ answers: 'full' as never })).rejects.toThrow(RangeError);
	});

	it('GET and POST /__sandbox/answers read and switch the mode; POST /__sandbox/reset restores the start option; a bad value is 400', async () => {
		const sb = await startSandbox();
		try {
			const ctl = (method: string, path: string, body?: unknown) => call(sb, method, `/__sandbox${path}`, { body, auth: 'none' });
			expect((await ctl('GET', '/answers')).body).toStrictEqual({ answers: 'spec' });
			const set = await ctl('POST', '/answers', { answers: 'rich' });
			expect([set.status, set.body]).toStrictEqual([200, { ok: true, answers: 'rich' }]);
			expect(sb.answers).toBe('rich');
			expect((await ctl('GET', '/answers')).body).toStrictEqual({ answers: 'rich' });
			expect((await ctl('GET', '/state?summary=true')).body.answers).toBe('rich');
			expect((await call(sb, 'POST', '/webhook/outbound_call', { body: reception(sb) })).body.status).toBe('queued');

			for (const bad of [{ answers: 'full' }, { answers: null }, {}, { answers: ['rich'] }]) {
				expectRichError(await ctl('POST', '/answers', bad), 400, 'VALIDATION_ERROR', 'answers');
			}
			expectRichError(await call(sb, 'POST', '/__sandbox/answers', { rawBody: '{', auth: 'none' }), 400, 'VALIDATION_ERROR', 'body');
			expect(sb.answers).toBe('rich');

			await ctl('POST', '/reset');
			expect(sb.answers).toBe('spec');
			expect((await ctl('GET', '/answers')).body).toStrictEqual({ answers: 'spec' });
			await ctl('POST', '/answers', { answers: 'spec' });
			expect(sb.answers).toBe('spec');
		} finally {
			await sb.stop();
		}
	});

	it('the control surface answers in full in spec mode (it is not the platform)', async () => {
		const sb = await startSandbox();
		try {
			expect(sb.answers).toBe('spec');
			expectRichError(await call(sb, 'POST', '/__sandbox/latency', { body: { ms: 'x' }, auth: 'none' }), 400, 'VALIDATION_ERROR', 'ms');
			expectRichError(await call(sb, 'GET', '/__sandbox/nope', { auth: 'none' }), 404, 'NOT_FOUND');
			const created = await call(sb, 'POST', '/__sandbox/assistants', { body: { name: 'Demo' }, auth: 'none' });
			expect(created.body).toMatchObject({ assistantId: expect.any(String), assistantApiKey: expect.any(String), name: 'Demo', mode: 'text' });
			// The same mistake on the platform surface gets the least error body.
			expectError(await call(sb, 'GET', '/api/v1/nope'), 404, 'NOT_FOUND');
		} finally {
			await sb.stop();
		}
	});
});
