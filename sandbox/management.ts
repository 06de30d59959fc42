import type { SandboxCore, UploadFile } from './core';
import { ApiError, invalid, notFound } from './errors';
import type { Reply, RequestContext, Route } from './http';
import { jsonObject, ok, queryValue } from './http';
import type { ListFilter } from './pagination';
import { paginate } from './pagination';
import type {
	AssistantRecord,
	ConversationWebhookConfig,
	ExtractionConfig,
	PostcallMcpConfig,
	ProviderKind,
	RagCollectionRecord,
	RagDocumentRecord,
	RuntimeConfig,
	SchemaProperty,
	SchemaPropertyType,
	ToolBinding,
	UploadRecord,
} from './types';
import { PROVIDER_KINDS } from './types';
import {
	CHUNK_DEFAULT,
	CHUNK_MAX,
	CHUNK_MIN,
	RAG_ID,
	isAcceptedFile,
	isHttpUrl,
	isObject,
	optionalString,
	requireBoolean,
	requireNonEmptyString,
} from './validate';

const SCHEMA_TYPES: readonly SchemaPropertyType[] = ['string', 'number', 'boolean', 'enum', 'object'];

// ------------------------------------------------------------------ projections

export function assistantView(a: AssistantRecord) {
	return { assistantId: a.assistantId, name: a.name, description: a.description, mode: a.mode, createdAt: a.createdAt, numbers: a.numbers.slice() };
}

function collectionView(c: RagCollectionRecord) {
	return { ragId: c.ragId, name: c.name, description: c.description, createdAt: c.createdAt, documentCount: c.documents.length, sizeBytes: c.sizeBytes };
}

function documentView(d: RagDocumentRecord) {
	return { documentId: d.documentId, fileName: d.fileName, sizeBytes: d.sizeBytes, chunkSize: d.chunkSize, status: d.status, uploadId: d.uploadId, createdAt: d.createdAt };
}

function uploadView(core: SandboxCore, u: UploadRecord) {
	return {
		uploadId: u.uploadId,
		ragId: u.ragId,
		status: u.status,
		progress: core.uploadProgress(u),
		documents: u.documentIds
			.map((id) => core.state.documents.get(id))
			.filter((d): d is RagDocumentRecord => d !== undefined)
			.map((d) => ({ documentId: d.documentId, fileName: d.fileName, sizeBytes: d.sizeBytes, status: d.status })),
		error: u.error,
	};
}

function runtimeView(r: RuntimeConfig) {
	return { assistantId: r.assistantId, kind: r.kind, providerId: r.providerId, model: r.model, voice: r.voice, language: r.language, settings: r.settings };
}

function bindingView(b: ToolBinding) {
	return { toolName: b.toolName, subscriptionName: b.subscriptionName, kind: b.kind };
}

/** GET /assistants/{id} (sandbox-only guess): everything the sandbox knows about one assistant, never its key. */
function assistantDetail(core: SandboxCore, a: AssistantRecord) {
	const s = core.state;
	const runtime: Record<string, unknown> = {};
	for (const [kind, cfg] of Object.entries(s.runtimeConfigs.get(a.assistantId) ?? {})) if (cfg) runtime[kind] = runtimeView(cfg);
	return {
		...assistantView(a),
		prompt: a.prompt,
		updatedAt: a.updatedAt,
		runtime,
		tools: (s.toolBindings.get(a.assistantId) ?? []).map(bindingView),
		ragId: s.ragAttachments.get(a.assistantId) ?? null,
		conversationWebhook: s.conversationWebhooks.get(a.assistantId) ?? null,
		extraction: s.extractionConfigs.get(a.assistantId) ?? null,
		postcallMcp: s.postcallMcpConfigs.get(a.assistantId) ?? null,
	};
}

function withoutSeq<T extends { seq: number }>(item: T): Omit<T, 'seq'> {
	const copy: Partial<T> = { ...item };
	delete copy.seq;
	return copy as Omit<T, 'seq'>;
}

function pageOf<T extends { seq: number }>(
	core: SandboxCore,
	ctx: RequestContext,
	listKey: string,
	items: readonly T[],
	project: (item: T) => unknown,
	filter?: ListFilter<T>,
): Reply {
	return ok(
		paginate(
			core.cursors,
			listKey,
			items,
			project,
			{ limit: ctx.query.limit, cursor: ctx.query.cursor },
			core.options.maxPageSize,
			filter,
		),
	);
}

function authNameField(core: SandboxCore, body: Record<string, unknown>): string | null {
	const value = body.authName;
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string' || value.trim() === '') throw invalid('authName', 'must be the name of a saved authentication, or null');
	if (!core.state.savedAuthentications.has(value)) {
		throw invalid('authName', `no saved authentication is named "${value}"`);
	}
	return value;
}

function urlOrNull(body: Record<string, unknown>, field: string, required: boolean): string | null {
	const value = body[field];
	if (value === undefined || value === null) {
		if (required) throw invalid(field, 'must be an http:// or https:// URL');
		return null;
	}
	if (!isHttpUrl(value)) throw invalid(field, 'must be an http:// or https:// URL');
	return value;
}

// ------------------------------------------------------------------ assistants

function createAssistant(core: SandboxCore, ctx: RequestContext): Reply {
	const body = jsonObject(ctx);
	const name = requireNonEmptyString(body, 'name');
	const description = optionalString(body, 'description') ?? '';
	const modeValue = body.mode;
	let mode = 'text';
	if (modeValue !== undefined && modeValue !== null) {
		if (typeof modeValue !== 'string' || modeValue.trim() === '') throw invalid('mode', 'must be a non-empty string');
		mode = modeValue;
	}
	const a = core.createAssistant({ name, description, mode });
	// The spec shows assistantId and assistantApiKey; the remaining returned fields are not shown.
	const shown = { assistantId: a.assistantId, assistantApiKey: a.assistantApiKey };
	return ok(core.answers === 'rich' ? { ...shown, name: a.name, description: a.description, mode: a.mode, createdAt: a.createdAt } : shown, 201);
}

const nameFilter = (value: string | undefined): ListFilter<AssistantRecord> => ({
	param: 'name',
	value,
	test: (a, v) => a.name.toLowerCase().includes(v.toLowerCase()),
});

function listAssistants(core: SandboxCore, ctx: RequestContext): Reply {
	return pageOf(core, ctx, 'assistants', core.state.assistants.list, assistantView, nameFilter(queryValue(ctx, 'name')));
}

function updatePrompt(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	const prompt = requireNonEmptyString(body, 'prompt');
	a.prompt = prompt;
	a.updatedAt = core.nowIso();
	return ok({ assistantId: a.assistantId, prompt: a.prompt, updatedAt: a.updatedAt });
}

// ------------------------------------------------------------------ providers

function providerCatalog(core: SandboxCore, _ctx: RequestContext, [kind]: string[]): Reply {
	return ok(core.state.providerCatalog[kind as ProviderKind].map((p) => ({ ...p, models: p.models.slice() })));
}

function setRuntime(core: SandboxCore, ctx: RequestContext, [id, kindText]: string[]): Reply {
	const a = core.requireAssistant(id);
	const kind = kindText as ProviderKind;
	const body = jsonObject(ctx);
	const providerId = requireNonEmptyString(body, 'providerId');
	const provider = core.state.providerCatalog[kind].find((p) => p.providerId === providerId);
	if (!provider) throw invalid('providerId', `"${providerId}" is not a ${kind} provider of the catalog`);
	const model = optionalString(body, 'model') ?? null;
	if (model !== null && !provider.models.includes(model)) throw invalid('model', `"${model}" is not a model of ${providerId}`);
	const voice = optionalString(body, 'voice') ?? null;
	if (voice !== null && provider.voices && !provider.voices.includes(voice)) throw invalid('voice', `"${voice}" is not a voice of ${providerId}`);
	const language = optionalString(body, 'language') ?? null;
	if (language !== null && provider.languages && !provider.languages.includes(language)) {
		throw invalid('language', `"${language}" is not a language of ${providerId}`);
	}
	let settings: Record<string, unknown> = {};
	if (body.settings !== undefined && body.settings !== null) {
		if (!isObject(body.settings)) throw invalid('settings', 'must be an object');
		settings = body.settings;
	}
	const config: RuntimeConfig = { assistantId: a.assistantId, kind, providerId, model, voice, language, settings, updatedAt: core.nowIso() };
	const configs = core.state.runtimeConfigs.get(a.assistantId) ?? {};
	configs[kind] = config;
	core.state.runtimeConfigs.set(a.assistantId, configs);
	return ok(runtimeView(config));
}

// ------------------------------------------------------------------ tools

function toolCatalog(core: SandboxCore, ctx: RequestContext): Reply {
	return pageOf(core, ctx, 'catalog/tools', core.state.toolCatalog.list, (t) => ({
		toolName: t.toolName,
		kind: t.kind,
		instanceName: t.instanceName,
		description: t.description,
	}));
}

function assistantTools(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	return pageOf(core, ctx, `assistants/${a.assistantId}/tools`, core.state.toolBindings.get(a.assistantId) ?? [], bindingView);
}

interface BindingInput {
	toolName: string;
	subscriptionName: string | null | undefined;
}

function bindingList(value: unknown, field: string): BindingInput[] {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) throw invalid(field, 'must be an array');
	return value.map((item, i) => {
		const path = `${field}[${i}]`;
		if (!isObject(item)) throw invalid(path, 'must be an object {toolName, subscriptionName}');
		const toolName = requireNonEmptyString(item, 'toolName', `${path}.toolName`);
		const sub = item.subscriptionName;
		if (sub !== undefined && sub !== null && typeof sub !== 'string') throw invalid(`${path}.subscriptionName`, 'must be a string or null');
		return { toolName, subscriptionName: sub as string | null | undefined };
	});
}

function updateTools(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	if (body.tools === undefined && body.deleteTools === undefined) throw invalid('tools', 'give tools and/or deleteTools');
	const adds = bindingList(body.tools, 'tools');
	const deletes = bindingList(body.deleteTools, 'deleteTools');
	const catalog = core.state.toolCatalog;
	const resolved = adds.map((b, i) => {
		const entry = catalog.get(b.toolName);
		if (!entry) throw invalid(`tools[${i}].toolName`, `"${b.toolName}" is not in the tool catalog`);
		const sub = b.subscriptionName ?? null;
		if (entry.kind === 'custom_tool') {
			if (sub !== null) throw invalid(`tools[${i}].subscriptionName`, 'must be null for a custom_tool');
		} else if (sub !== entry.instanceName) {
			throw invalid(`tools[${i}].subscriptionName`, `must be the catalog instanceName "${entry.instanceName}" for a ${entry.kind}`);
		}
		return { toolName: entry.toolName, subscriptionName: sub, kind: entry.kind };
	});
	let bindings = (core.state.toolBindings.get(a.assistantId) ?? []).slice();
	for (const d of deletes) {
		bindings = bindings.filter(
			(b) => !(b.toolName === d.toolName && (d.subscriptionName === undefined || d.subscriptionName === b.subscriptionName)),
		);
	}
	for (const r of resolved) {
		const existing = bindings.find((b) => b.toolName === r.toolName);
		if (existing) continue;
		const seq = bindings.length > 0 ? bindings[bindings.length - 1].seq + 1 : 1;
		bindings.push({ seq, ...r });
	}
	core.state.toolBindings.set(a.assistantId, bindings);
	return ok({ assistantId: a.assistantId, tools: bindings.map(bindingView) });
}

// ------------------------------------------------------------------ RAG

function createCollection(core: SandboxCore, ctx: RequestContext): Reply {
	const body = jsonObject(ctx);
	const name = requireNonEmptyString(body, 'name');
	const description = optionalString(body, 'description') ?? '';
	return ok(collectionView(core.createCollection(name, description)), 201);
}

function listCollections(core: SandboxCore, ctx: RequestContext): Reply {
	return pageOf(core, ctx, 'rag/collections', core.state.collections.list, collectionView);
}

function getCollection(core: SandboxCore, _ctx: RequestContext, [ragId]: string[]): Reply {
	return ok(collectionView(core.requireCollection(ragId)));
}

function deleteCollection(core: SandboxCore, _ctx: RequestContext, [ragId]: string[]): Reply {
	return ok(core.deleteCollection(ragId));
}

function chunkSizeFrom(value: unknown): number {
	if (value === undefined || value === null) return CHUNK_DEFAULT;
	const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < CHUNK_MIN || n > CHUNK_MAX) {
		throw invalid('chunkSize', `must be an integer from ${CHUNK_MIN} to ${CHUNK_MAX}`);
	}
	return n;
}

function unsupported(fileName: string, field: string): ApiError {
	return new ApiError(400, 'UNSUPPORTED_FILE_TYPE', `File type not accepted: "${fileName}". Accepted: .pdf .txt .doc .docx .csv .xls .xlsx`, {
		field,
		fileName,
	});
}

function estimate(core: SandboxCore, ctx: RequestContext): Reply {
	const body = jsonObject(ctx);
	if (body.ragId !== undefined && body.ragId !== null) {
		if (typeof body.ragId !== 'string' || !RAG_ID.test(body.ragId)) throw invalid('ragId', 'must be rag_ followed by letters and digits');
		if (!core.state.collections.has(body.ragId)) throw new ApiError(404, 'NOT_FOUND', `RAG collection ${body.ragId} not found`, { field: 'ragId' });
	}
	if (typeof body.chunkSize === 'string') throw invalid('chunkSize', `must be an integer from ${CHUNK_MIN} to ${CHUNK_MAX}`);
	const chunkSize = chunkSizeFrom(body.chunkSize);
	if (!Array.isArray(body.files) || body.files.length === 0) throw invalid('files', 'must be a non-empty array of {fileName, sizeBytes}');
	let totalBytes = 0;
	let estimatedChunks = 0;
	body.files.forEach((f: unknown, i: number) => {
		if (!isObject(f)) throw invalid(`files[${i}]`, 'must be an object {fileName, sizeBytes}');
		const fileName = requireNonEmptyString(f, 'fileName', `files[${i}].fileName`);
		if (typeof f.sizeBytes !== 'number' || !Number.isInteger(f.sizeBytes) || f.sizeBytes < 0) {
			throw invalid(`files[${i}].sizeBytes`, 'must be an integer >= 0');
		}
		if (!isAcceptedFile(fileName)) throw unsupported(fileName, `files[${i}].fileName`);
		totalBytes += f.sizeBytes;
		estimatedChunks += Math.ceil(f.sizeBytes / chunkSize);
	});
	const usedBytes = core.state.usedStorageBytes;
	const allowanceBytes = core.options.storageAllowanceBytes;
	return ok({
		totalBytes,
		estimatedChunks,
		chunkSize,
		usedBytes,
		allowanceBytes,
		remainingBytes: Math.max(0, allowanceBytes - usedBytes),
		fitsAllowance: usedBytes + totalBytes <= allowanceBytes,
	});
}

function upload(core: SandboxCore, ctx: RequestContext, [ragId]: string[]): Reply {
	const c = core.requireCollection(ragId);
	if (ctx.bodyKind !== 'form' || !ctx.form) {
		throw invalid('body', ctx.bodyKind === 'form-invalid' ? 'the multipart body could not be parsed' : 'must be multipart/form-data with file parts named "files"');
	}
	const form = ctx.form;
	const chunkValues = form.getAll('chunkSize');
	if (chunkValues.length > 1) throw invalid('chunkSize', 'must be given once');
	if (chunkValues.length === 1 && typeof chunkValues[0] !== 'string') throw invalid('chunkSize', 'must be a text field');
	const chunkText = chunkValues.length === 1 ? (chunkValues[0] as string) : undefined;
	if (chunkText !== undefined && !/^\d+$/.test(chunkText.trim())) throw invalid('chunkSize', `must be an integer from ${CHUNK_MIN} to ${CHUNK_MAX}`);
	const chunkSize = chunkSizeFrom(chunkText);
	const parts = form.getAll('files');
	if (parts.length === 0) throw invalid('files', 'at least one file part named "files" is required');
	const files: UploadFile[] = [];
	for (const part of parts) {
		if (typeof part === 'string') throw invalid('files', 'every "files" part must be a file');
		const fileName = part.name;
		if (!fileName) throw invalid('files', 'every file needs a file name');
		if (!isAcceptedFile(fileName)) throw unsupported(fileName, 'files');
		files.push({ fileName, contentType: part.type || 'application/octet-stream', sizeBytes: part.size });
	}
	const u = core.startUpload(c.ragId, chunkSize, files);
	return ok(
		{
			uploadId: u.uploadId,
			ragId: u.ragId,
			status: 'queued',
			chunkSize,
			documents: u.documentIds.map((id) => {
				const d = core.state.documents.get(id) as RagDocumentRecord;
				return { documentId: d.documentId, fileName: d.fileName, sizeBytes: d.sizeBytes, status: d.status };
			}),
		},
		202,
	);
}

function listDocuments(core: SandboxCore, ctx: RequestContext, [ragId]: string[]): Reply {
	const c = core.requireCollection(ragId);
	return pageOf(core, ctx, `rag/collections/${c.ragId}/documents`, c.documents, documentView);
}

function getUpload(core: SandboxCore, _ctx: RequestContext, [uploadId]: string[]): Reply {
	const u = core.state.uploads.get(uploadId);
	if (!u) throw notFound('upload', uploadId);
	return ok(uploadView(core, u));
}

function attachRag(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	if (!('ragId' in body)) throw invalid('ragId', 'is required (a ragId, or null to detach)');
	const ragId = body.ragId;
	if (ragId === null) {
		core.state.ragAttachments.delete(a.assistantId);
		return ok({ assistantId: a.assistantId, ragId: null });
	}
	if (typeof ragId !== 'string' || !RAG_ID.test(ragId)) throw invalid('ragId', 'must be rag_ followed by letters and digits, or null');
	if (!core.state.collections.has(ragId)) throw new ApiError(404, 'NOT_FOUND', `RAG collection ${ragId} not found`, { field: 'ragId' });
	core.state.ragAttachments.set(a.assistantId, ragId);
	return ok({ assistantId: a.assistantId, ragId });
}

// ------------------------------------------------------------------ hangup hooks and post-call

function conversationWebhook(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	const enabled = requireBoolean(body, 'enabled');
	const url = urlOrNull(body, 'url', enabled);
	const authName = authNameField(core, body);
	const config: ConversationWebhookConfig = { enabled, url, authName };
	core.state.conversationWebhooks.set(a.assistantId, config);
	return ok({ assistantId: a.assistantId, ...config });
}

function extractionSchema(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	if (!('hangupUrl' in body)) throw invalid('hangupUrl', 'is required (an http(s) URL, or null)');
	const hangupUrl = urlOrNull(body, 'hangupUrl', false);
	if (!Array.isArray(body.schema)) throw invalid('schema', 'must be an array of property objects');
	const names = new Set<string>();
	const schema: SchemaProperty[] = body.schema.map((item: unknown, i: number) => {
		const path = `schema[${i}]`;
		if (!isObject(item)) throw invalid(path, 'must be an object {name, type, description, required}');
		const name = requireNonEmptyString(item, 'name', `${path}.name`);
		if (names.has(name)) throw invalid(`${path}.name`, `duplicate property name "${name}"`);
		names.add(name);
		if (typeof item.type !== 'string' || !SCHEMA_TYPES.includes(item.type as SchemaPropertyType)) {
			throw invalid(`${path}.type`, `must be one of ${SCHEMA_TYPES.join(', ')}`);
		}
		const type = item.type as SchemaPropertyType;
		if (typeof item.description !== 'string') throw invalid(`${path}.description`, 'must be a string');
		if (typeof item.required !== 'boolean') throw invalid(`${path}.required`, 'must be a boolean');
		const prop: SchemaProperty = { name, type, description: item.description, required: item.required };
		if (item.values !== undefined && item.values !== null) {
			if (type !== 'enum') throw invalid(`${path}.values`, 'is only allowed for type enum');
			if (!Array.isArray(item.values) || item.values.length === 0 || !item.values.every((v) => typeof v === 'string' && v !== '')) {
				throw invalid(`${path}.values`, 'must be a non-empty array of non-empty strings');
			}
			prop.values = (item.values as string[]).slice();
		}
		return prop;
	});
	const config: ExtractionConfig = { hangupUrl, schema };
	core.state.extractionConfigs.set(a.assistantId, config);
	return ok({ assistantId: a.assistantId, ...config });
}

function postcallMcp(core: SandboxCore, ctx: RequestContext, [id]: string[]): Reply {
	const a = core.requireAssistant(id);
	const body = jsonObject(ctx);
	const enabled = requireBoolean(body, 'enabled');
	const serverUrl = urlOrNull(body, 'serverUrl', enabled);
	const authName = authNameField(core, body);
	let tools: string[] = [];
	if (body.tools !== undefined && body.tools !== null) {
		if (!Array.isArray(body.tools) || !body.tools.every((t) => typeof t === 'string' && t !== '')) {
			throw invalid('tools', 'must be an array of non-empty strings');
		}
		tools = (body.tools as string[]).slice();
	}
	let settings: Record<string, unknown> = {};
	if (body.settings !== undefined && body.settings !== null) {
		if (!isObject(body.settings)) throw invalid('settings', 'must be an object');
		settings = body.settings;
	}
	const config: PostcallMcpConfig = { enabled, serverUrl, authName, tools, settings };
	core.state.postcallMcpConfigs.set(a.assistantId, config);
	return ok({ assistantId: a.assistantId, ...config });
}

// ------------------------------------------------------------------ routes

const ID = '([^/]+)';
const KINDS = `(${PROVIDER_KINDS.join('|')})`;
const r = (path: string) => new RegExp(`^${path}$`);

/** Paths relative to /api/v1. */
export const managementRoutes: Route<SandboxCore>[] = [
	{ method: 'POST', pattern: r('/assistants'), handler: createAssistant },
	{ method: 'GET', pattern: r('/assistants'), handler: listAssistants },
	{ method: 'GET', pattern: r(`/assistants/${ID}`), handler: (core, _ctx, [id]) => ok(assistantDetail(core, core.requireAssistant(id))) },
	{ method: 'DELETE', pattern: r(`/assistants/${ID}`), handler: (core, _ctx, [id]) => ok(core.deleteAssistant(id)) },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/prompt`), handler: updatePrompt },
	{ method: 'GET', pattern: r(`/catalog/providers/${KINDS}`), handler: providerCatalog },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/${KINDS}`), handler: setRuntime },
	{ method: 'GET', pattern: r('/catalog/tools'), handler: toolCatalog },
	{ method: 'GET', pattern: r(`/catalog/assistants/${ID}/tools`), handler: assistantTools },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/tools`), handler: updateTools },
	{ method: 'POST', pattern: r('/rag/collections'), handler: createCollection },
	{ method: 'GET', pattern: r('/rag/collections'), handler: listCollections },
	{ method: 'GET', pattern: r(`/rag/collections/${ID}`), handler: getCollection },
	{ method: 'DELETE', pattern: r(`/rag/collections/${ID}`), handler: deleteCollection },
	{ method: 'POST', pattern: r('/rag/documents/estimate'), handler: estimate },
	{ method: 'POST', pattern: r(`/rag/collections/${ID}/documents`), handler: upload },
	{ method: 'GET', pattern: r(`/rag/collections/${ID}/documents`), handler: listDocuments },
	{ method: 'GET', pattern: r(`/rag/uploads/${ID}`), handler: getUpload },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/rag`), handler: attachRag },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/hangup/conversation-webhook`), handler: conversationWebhook },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/hangup/schema`), handler: extractionSchema },
	{ method: 'PATCH', pattern: r(`/assistants/${ID}/runtime/postcall/mcp-config`), handler: postcallMcp },
	// Sandbox-only guesses (docs/assumptions.md): lists the spec names without details.
	{ method: 'GET', pattern: r('/knowledge'), handler: (core, ctx) => pageOf(core, ctx, 'knowledge', core.state.knowledge.list, withoutSeq) },
	{
		method: 'GET',
		pattern: r('/provider-wallet/keys'),
		handler: (core, ctx) => pageOf(core, ctx, 'provider-wallet/keys', core.state.providerWalletKeys.list, withoutSeq),
	},
	{
		method: 'GET',
		pattern: r('/plugin-instances'),
		handler: (core, ctx) =>
			pageOf(core, ctx, 'plugin-instances', core.state.pluginInstances.list, (p) => ({ ...withoutSeq(p), toolNames: p.toolNames.slice() })),
	},
	{
		method: 'GET',
		pattern: r('/filler-lists'),
		handler: (core, ctx) => pageOf(core, ctx, 'filler-lists', core.state.fillerLists.list, (f) => ({ ...withoutSeq(f), phrases: f.phrases.slice() })),
	},
	{ method: 'GET', pattern: r('/analytics/calls'), handler: (core, ctx) => pageOf(core, ctx, 'analytics/calls', core.state.analyticsCalls.list, withoutSeq) },
	{
		method: 'GET',
		pattern: r('/numbers'),
		handler: (core, ctx) =>
			pageOf(core, ctx, 'numbers', core.state.numbers.list, (n) => ({ number: n.number, kind: n.kind, assistantId: n.assistantId })),
	},
];
