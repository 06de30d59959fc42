/**
 * What the hostile-platform suite runs: every operation of the Assistant Platform node (each with
 * valid input, so that it reaches the wire), its list-search and load-options methods, the Call and
 * Wait node and the trigger's registration on publish and unpublish. Each target gets fresh platform
 * objects of its own (prepare), so that targets can run at the same time without disturbing each other.
 * The Campaign targets keep their state in n8n's data tables (fx.n8n, a host that never misbehaves):
 * each run gets a contacts table of its own.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CONTROL_COLUMNS, CONTROL_TABLE } from '../../nodes/shared/campaign/campaignControl';
import { STATE_COLUMNS } from '../../nodes/shared/campaign/contactLife';
import { FREE_DEMO_NUMBER, SAVED_AUTH_NAME } from '../../sandbox';
import { runNode } from '../harness/engine';
import type { HostileFixture } from '../harness/hostile';
import { assistantKeysOf } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { startTrigger } from '../harness/webhook';
import { AP_TYPE, apNode, byId, itemWithFiles, WAIT_TYPE } from '../hardening/helpers';
import { loadOptionsContext, recorded } from '../node/runtime-helpers';

export interface Outcome {
	items: INodeExecutionData[];
	error?: Error & { description?: string | null };
	waitTill?: Date;
	/** Campaign targets: the rows of the run's contacts table after the run. */
	rows?: IDataObject[];
}

export interface RunSettings {
	/** Request Options > Timeout of every run. */
	timeoutMs: number;
	continueOnFail: boolean;
}

export interface Target {
	/** resource.operation (as in OPERATIONS), a method name, 'trigger.publish' or 'trigger.unpublish'. */
	op: string;
	name: string;
	kind: 'node' | 'method' | 'trigger';
	/** Places a call to `dst` (one POST at the front, never two). */
	dst?: string;
	/** Call and Wait: waits for the call's result. */
	waits?: boolean;
	/** Walks every page of a list. */
	list?: boolean;
	/** Runs before the misbehaviour is switched on; its result is handed to `run`. */
	before?(fx: HostileFixture): Promise<unknown>;
	run(fx: HostileFixture, settings: RunSettings, state?: unknown): Promise<Outcome>;
	/**
	 * The valid parameters a run uses (node and trigger targets: the node's; methods: the current
	 * parameters of the editor), and the node type they belong to: for tables that change one field.
	 */
	parameters?(fx: HostileFixture): Promise<IDataObject> | IDataObject;
	nodeType?: string;
	/** The fields of `parameters` a method reads (the others belong to the operation it serves). */
	reads?: string[];
	/** Input items of a node target (default: one empty item). */
	items?: INodeExecutionData[];
	/**
	 * How the target reports a failure besides a thrown error (or a Continue-On-Fail item):
	 * 'contacts' (Campaign → Dial): an output item and a row per contact, whose campaignState (failed,
	 * unknown) and reason say what happened; 'records' (Campaign → Record Call Result): an output item per
	 * result with recorded false and the reason.
	 */
	reports?: 'contacts' | 'records';
	/**
	 * Campaign targets: the contacts (by phone) whose call is placed and ended, whose result only the call's
	 * status record may settle: against a misbehaving platform they stay placed, unchanged.
	 */
	settledByRecord?: string[];
	/** Talks only to n8n's data-table API, never to the platform: a misbehaving platform must not change its run. */
	offPlatform?: boolean;
	/** What the first output item holds after a run that succeeded (offPlatform targets). */
	expects?: IDataObject;
	/** The credentials the target uses (default: the outbound one for calls and Call Status, else the portal one). */
	uses?: Array<'portal' | 'outbound' | 'n8n'>;
	/**
	 * A run changes what its parameters name (a Campaign's contacts table and status): every run needs
	 * parameters made anew (`parameters` makes a fresh table each time it is called).
	 */
	freshParameters?: boolean;
}

/** The trigger's Webhook Secret (the harness registers it with the secrets guard). */
export const TRIGGER_SECRET = 'hostile-trigger-secret-7f3c9a1d5e2b8c4f6a0d';
/** The key given as Assistant API Key Override on the override rows (a second assistant's key). */
export const prepared: { overrideKey: string; creditKey: string } = { overrideKey: '', creditKey: '' };

const CALLER = FREE_DEMO_NUMBER;
/** The number of the assistant whose key is the override key. */
export const OVERRIDE_CALLER = '+390200009876';
const CALLER_B = OVERRIDE_CALLER;
const PBX = 'pbx.example.com';

/** Objects shared by the targets of one test: the calling assistants, a persisted call record. */
interface Shared {
	internalId: string;
}
let shared: Shared = { internalId: '' };

/** The internal_id of the call whose record prepare persisted (Call Status; the placed contacts of the Campaign targets). */
export function persistedCall(): string {
	return shared.internalId;
}

async function api(fx: HostileFixture, method: string, path: string, body?: unknown): Promise<IDataObject> {
	const res = await fetch(`${fx.sandbox.url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${fx.sandbox.portalKey}`, 'Content-Type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (res.status >= 300) throw new Error(`prepare: ${method} ${path} answered ${res.status}`);
	return (await res.json()) as IDataObject;
}

function newAssistant(fx: HostileFixture, name: string): string {
	return fx.sandbox.createAssistant({ name }).assistantId;
}

async function newCollection(fx: HostileFixture, name: string): Promise<string> {
	return String((await api(fx, 'POST', '/api/v1/rag/collections', { name })).ragId);
}

async function newUpload(fx: HostileFixture, ragId: string): Promise<string> {
	const form = new FormData();
	form.append('chunkSize', '1000');
	form.append('files', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
	const res = await fetch(`${fx.sandbox.url}/api/v1/rag/collections/${ragId}/documents`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${fx.sandbox.portalKey}` },
		body: form,
	});
	return String(((await res.json()) as { uploadId: string }).uploadId);
}

/**
 * Prepares the sandbox after a reset: the calling assistants (credential key and override key), an
 * authorized PBX and a call whose record is persisted (for Call Status).
 */
export async function prepare(fx: HostileFixture): Promise<void> {
	const caller = fx.sandbox.createAssistant({ name: 'Caller', number: CALLER });
	const other = fx.sandbox.createAssistant({ name: 'Other caller', number: CALLER_B });
	prepared.creditKey = caller.assistantApiKey;
	prepared.overrideKey = other.assistantApiKey;
	fx.outbound.assistantApiKey = caller.assistantApiKey;
	fx.sandbox.authorizePbx(PBX);
	const placed = await fetch(`${fx.sandbox.url}/webhook/outbound_call`, {
		method: 'POST',
		headers: { 'X-APIKEY-SECRET-SERVICE': fx.sandbox.outboundKey, 'Content-Type': 'application/json' },
		body: JSON.stringify({ dst: '+14155550100', callerId: CALLER, assistantApiKey: caller.assistantApiKey }),
	});
	shared = { internalId: String(((await placed.json()) as { internal_id: string }).internal_id) };
	await fx.sandbox.clock.advance(10_000);
	for (const key of assistantKeysOf(fx.sandbox)) registerSecret(key);
}

/** Every assistant key the sandbox knows, the portal and outbound keys, the override, the trigger secret and the n8n API key. */
export function secretsOf(fx: HostileFixture): Record<string, string> {
	const named: Record<string, string> = {
		'portal key': fx.sandbox.portalKey,
		'outbound key': fx.sandbox.outboundKey,
		'assistant key (credential)': prepared.creditKey,
		'assistant key (override)': prepared.overrideKey,
		'trigger secret': TRIGGER_SECRET,
		'n8n API key': String(fx.n8n.credentials.apiKey),
	};
	for (const key of assistantKeysOf(fx.sandbox)) if (!Object.values(named).includes(key)) named[`assistant key ${key.slice(0, 4)}…`] = key;
	return named;
}

function node(
	op: string,
	name: string,
	parameters: (fx: HostileFixture) => Promise<IDataObject> | IDataObject,
	extra: Partial<Target> & { items?: INodeExecutionData[] } = {},
): Target {
	const [resource, operation] = op.split('.');
	const nodeType = op === 'callAndWait' ? WAIT_TYPE : AP_TYPE;
	const all = async (fx: HostileFixture): Promise<IDataObject> => ({
		...(op === 'callAndWait' ? {} : { resource, operation }),
		...(await parameters(fx)),
	});
	return {
		op,
		name,
		kind: 'node',
		freshParameters: resource === 'campaign',
		...extra,
		parameters: all,
		nodeType,
		async run(fx, settings) {
			const parameters = await all(fx);
			const result = await runNode({
				nodeType,
				parameters: {
					...parameters,
					requestOptions: { timeout: settings.timeoutMs },
				},
				items: extra.items,
				credentials: fx.credentials,
				continueOnFail: settings.continueOnFail,
				webhookBaseUrl: 'http://127.0.0.1:1',
			});
			const outcome: Outcome = { items: result.items, error: result.error, waitTill: result.waitTill };
			if (resource === 'campaign') outcome.rows = rowsOf(fx, String(parameters.contactsTable));
			return outcome;
		},
	};
}

type Method = (this: unknown, filter?: string) => Promise<unknown>;

function method(name: string, current: (fx: HostileFixture) => IDataObject, reads: string[], list = false): Target {
	const methods = apNode.methods as unknown as Record<'listSearch' | 'loadOptions', Record<string, Method>>;
	const fn = methods.listSearch[name] ?? methods.loadOptions[name];
	return {
		op: name,
		name: `method ${name}`,
		kind: 'method',
		list,
		parameters: current,
		reads,
		async run(fx, settings) {
			const context = loadOptionsContext(fx, { ...current(fx), requestOptions: { timeout: settings.timeoutMs } });
			try {
				const value = await recorded(async () => await fn.call(context));
				return { items: [{ json: { value } as unknown as IDataObject }] };
			} catch (error) {
				return { items: [], error: error as Outcome['error'] };
			}
		},
	};
}

const TRIGGER_PARAMETERS = (assistantId: string) => ({
	webhookSecret: TRIGGER_SECRET,
	events: ['conversationEnd', 'extractedData'],
	assistantId: byId(assistantId),
	authName: SAVED_AUTH_NAME,
	extractionSchema: { properties: [{ name: 'customerName', type: 'string', description: 'Name', required: true }] },
});

async function triggerStep(h: TriggerHarness, step: 'publish' | 'unpublish'): Promise<Outcome> {
	let error: Outcome['error'];
	try {
		await h[step]();
	} catch (thrown) {
		error = thrown as Outcome['error'];
	} finally {
		await h.close();
	}
	return { items: [], error };
}

const triggerPublish: Target = {
	op: 'trigger.publish',
	name: 'Trigger: registration on publish',
	kind: 'trigger',
	parameters: (fx) => TRIGGER_PARAMETERS(newAssistant(fx, 'Trigger publish')),
	async run(fx) {
		const h = await startTrigger({ parameters: TRIGGER_PARAMETERS(newAssistant(fx, 'Trigger publish')), credentials: fx.credentials });
		return await triggerStep(h, 'publish');
	},
};

const triggerUnpublish: Target = {
	op: 'trigger.unpublish',
	name: 'Trigger: unregistration on unpublish',
	kind: 'trigger',
	// Published while the platform still behaves; unpublished under the misbehaviour.
	async before(fx) {
		const h = await startTrigger({ parameters: TRIGGER_PARAMETERS(newAssistant(fx, 'Trigger unpublish')), credentials: fx.credentials });
		await h.publish();
		return h;
	},
	async run(_fx, _settings, state) {
		return await triggerStep(state as TriggerHarness, 'unpublish');
	},
};

// ---- Campaign: contacts tables in n8n's data tables

let tables = 0;
const STATE_TYPES = STATE_COLUMNS as Record<string, string>;
const NO_STATE = Object.fromEntries(Object.keys(STATE_COLUMNS).map((column) => [column, null]));

/**
 * A contacts table of its own for one run, one row per contact (phone, then the campaign columns it sets):
 * prepared (every campaign column) unless `prepared` is false. Returns its name, the run's Contacts Table.
 */
function contactsTable(fx: HostileFixture, op: string, contacts: Record<string, IDataObject>, prepared = true): string {
	const name = `Hostile ${op} ${++tables}`;
	const rows = Object.entries(contacts).map(([phone, state]) => ({
		phone,
		name: `Contact ${phone.slice(-4)}`,
		...(prepared ? { ...NO_STATE, ...state } : {}),
	}));
	const seeded = fx.n8n.seed(name, rows as Array<Record<string, string | number | null>>, STATE_TYPES);
	// A prepared table has its campaign's control row, as Prepare Contacts Table creates it.
	if (prepared) controlRow(fx, { contactsTable: seeded.id, status: 'running', statusChangedAt: Date.now() - 60_000 });
	return name;
}

/** Adds a control row (the other columns empty), creating the control table as the node does when there is none. */
function controlRow(fx: HostileFixture, values: IDataObject): void {
	const blank = Object.fromEntries(Object.keys(CONTROL_COLUMNS).map((column) => [column, null]));
	const row = { ...blank, until: 0, version: 0, ...values } as Record<string, string | number | null>;
	const control = fx.n8n.tables.find((table) => table.name === CONTROL_TABLE);
	if (control) fx.n8n.insert(control, [row]);
	else fx.n8n.seed(CONTROL_TABLE, [row], CONTROL_COLUMNS);
}

/** The rows of a contacts table (copies), after a run. */
function rowsOf(fx: HostileFixture, name: string): IDataObject[] {
	return (fx.n8n.tables.find((table) => table.name === name)?.rows ?? []).map((row) => ({ ...row }));
}

/** A campaign paused before the run: a row of the control table (created as the node creates it when there is none). */
function paused(fx: HostileFixture, contacts: string): string {
	const id = fx.n8n.tables.find((table) => table.name === contacts)!.id;
	const existing = fx.n8n.tables.find((table) => table.name === CONTROL_TABLE)?.rows.find((row) => row.contactsTable === id);
	if (existing) Object.assign(existing, { status: 'paused', statusChangedAt: Date.now() - 60_000 });
	else controlRow(fx, { contactsTable: id, status: 'paused', statusChangedAt: Date.now() - 60_000 });
	return contacts;
}

/** A contact due now (a new row: dial runs make it pending). */
const DUE: IDataObject = {};
const DIAL_DST = '+14155550401';
const DIAL_DST_PBX = '+14155550402';
/** The contact of `shared.internalId`: its call was placed a minute ago and has ended (status record: ANSWER). */
const PLACED_PHONE = '+14155550411';

/** The state of the contact PLACED_PHONE (version 2: nobody wrote it since). */
function placedState(): IDataObject {
	const at = Date.now() - 60_000;
	return {
		campaignState: 'placed',
		attempt: 1,
		nextAttemptAt: 0,
		internalId: shared.internalId,
		claimToken: 'hostile-claim',
		claimedAt: at,
		placedAt: at,
		lineUntil: at + 30 * 60_000,
		version: 2,
		writeToken: 'hostile-write',
	};
}

const N8N_ONLY: Target['uses'] = ['n8n'];
const CALLS: Target['uses'] = ['outbound', 'n8n'];

const pdf = () => [itemWithFiles({ data: { fileName: 'manual.pdf', content: 'hello pdf' } })];
const schema = { property: [{ name: 'city', type: 'string', description: 'City', required: false }] };

export const TARGETS: Target[] = [
	// ---- Assistant
	node('assistant.create', 'Assistant → Create', () => ({ name: 'Hostile test', mode: 'text' })),
	node('assistant.delete', 'Assistant → Delete', (fx) => ({ assistantId: byId(newAssistant(fx, 'To delete')) })),
	node('assistant.getAll', 'Assistant → Get Many (Return All)', () => ({ returnAll: true }), { list: true }),
	node('assistant.updatePrompt', 'Assistant → Update Prompt', (fx) => ({ assistantId: byId(newAssistant(fx, 'Prompt')), prompt: 'Be brief.' })),

	// ---- Runtime
	node('runtime.setProvider', 'Runtime → Set Provider', (fx) => ({
		assistantId: byId(newAssistant(fx, 'Provider')),
		providerKind: 'llm',
		providerId: byId('openai'),
		model: byId('gpt-4o'),
	})),
	node(
		'runtime.updateTools',
		'Runtime → Update Tools',
		(fx) => ({
			assistantId: byId(newAssistant(fx, 'Tools')),
			toolsToAdd: { tools: [{ toolName: 'crm_search', toolKind: 'fromCatalog', subscriptionName: 'crm-mcp' }] },
		}),
		{ list: true },
	),
	node('runtime.attachRag', 'Runtime → Attach RAG', async (fx) => ({
		assistantId: byId(newAssistant(fx, 'Attach')),
		ragId: byId(await newCollection(fx, 'Attach target')),
	})),
	node('runtime.detachRag', 'Runtime → Detach RAG', async (fx) => {
		const assistantId = newAssistant(fx, 'Detach');
		const ragId = await newCollection(fx, 'Detach target');
		await api(fx, 'PATCH', `/api/v1/assistants/${assistantId}/runtime/rag`, { ragId });
		return { assistantId: byId(assistantId) };
	}),
	node('runtime.configureConversationWebhook', 'Runtime → Configure Conversation Webhook', (fx) => ({
		assistantId: byId(newAssistant(fx, 'Webhook')),
		webhookUrl: 'https://hooks.example.com/conversation-end',
	})),
	node('runtime.configureDataExtraction', 'Runtime → Configure Data Extraction', (fx) => ({
		assistantId: byId(newAssistant(fx, 'Extraction')),
		hangupUrl: 'https://hooks.example.com/data',
		schemaProperties: schema,
	})),
	node('runtime.clearDataExtraction', 'Runtime → Clear Data Extraction', (fx) => ({ assistantId: byId(newAssistant(fx, 'Clear')) })),
	node('runtime.configurePostCallMcp', 'Runtime → Configure Post-Call MCP', (fx) => ({
		assistantId: byId(newAssistant(fx, 'MCP')),
		mcpServerUrl: 'https://mcp.example.com',
	})),

	// ---- Catalog
	node('catalog.getProviders', 'Catalog → Get Providers', () => ({ providerKind: 'llm' })),
	node('catalog.getTools', 'Catalog → Get Tools (Return All)', () => ({ returnAll: true }), { list: true }),
	node(
		'catalog.getAssistantTools',
		'Catalog → Get Assistant Tools (Return All)',
		(fx) => ({ assistantId: byId(newAssistant(fx, 'Assistant tools')), returnAll: true }),
		{ list: true },
	),

	// ---- RAG Collection
	node('ragCollection.create', 'RAG Collection → Create', () => ({ name: 'Hostile collection' })),
	node('ragCollection.delete', 'RAG Collection → Delete', async (fx) => ({ ragId: byId(await newCollection(fx, 'To delete')) })),
	node('ragCollection.estimateUpload', 'RAG Collection → Estimate Upload', () => ({ binarySelection: 'all' }), { items: pdf() }),
	node('ragCollection.getAll', 'RAG Collection → Get Many (Return All)', () => ({ returnAll: true }), { list: true }),
	node(
		'ragCollection.getManyDocuments',
		'RAG Collection → Get Many Documents (Return All)',
		async (fx) => ({ ragId: byId(await newCollection(fx, 'Documents')), returnAll: true }),
		{ list: true },
	),
	node('ragCollection.getUploadProgress', 'RAG Collection → Get Upload Progress', async (fx) => ({
		uploadId: await newUpload(fx, await newCollection(fx, 'Upload progress')),
	})),
	node(
		'ragCollection.uploadDocuments',
		'RAG Collection → Upload Documents',
		async (fx) => ({ ragId: byId(await newCollection(fx, 'Upload')), binarySelection: 'all' }),
		{ items: pdf() },
	),

	// ---- Outbound Call, Call Status, Custom API Request
	node('outboundCall.placeCall', 'Outbound Call → Place Call (trunk, credential key)', () => ({ route: 'trunk', dst: '+14155550201', callerId: CALLER }), {
		dst: '+14155550201',
	}),
	node(
		'outboundCall.placeCall',
		'Outbound Call → Place Call (PBX, override key)',
		() => ({ route: 'pbx', ipPbx: PBX, dst: '+14155550202', callerId: CALLER_B, options: { assistantApiKeyOverride: prepared.overrideKey } }),
		{ dst: '+14155550202' },
	),
	node('callStatus.get', 'Call Status → Get', () => ({ internalId: shared.internalId })),
	node('customApiRequest.request', 'Custom API Request → GET', () => ({ method: 'GET', path: '/knowledge' })),
	node('customApiRequest.request', 'Custom API Request → POST', () => ({ method: 'POST', path: '/rag/collections', body: '{"name":"custom"}' })),
	node('customApiRequest.request', 'Custom API Request → GET with Paginate (Return All)', () => ({ method: 'GET', path: '/filler-lists', paginate: true, returnAll: true }), {
		list: true,
	}),

	// ---- Campaign (state in n8n's data tables; Dial and Record Call Result also reach the platform)
	node(
		'campaign.dial',
		'Campaign → Dial Due Contacts (trunk, credential key)',
		// Beside the due contact, a placed one: the run reads its status record first (reconcile).
		(fx) => ({ contactsTable: contactsTable(fx, 'dial', { [DIAL_DST]: DUE, [PLACED_PHONE]: placedState() }), route: 'trunk', callerId: CALLER }),
		{ dst: DIAL_DST, reports: 'contacts', settledByRecord: [PLACED_PHONE], uses: CALLS },
	),
	node(
		'campaign.dial',
		'Campaign → Dial Due Contacts (PBX, override key)',
		(fx) => ({
			contactsTable: contactsTable(fx, 'dial', { [DIAL_DST_PBX]: DUE }),
			route: 'pbx',
			ipPbx: PBX,
			callerId: CALLER_B,
			options: { assistantApiKeyOverride: prepared.overrideKey },
		}),
		{ dst: DIAL_DST_PBX, reports: 'contacts', uses: CALLS },
	),
	node(
		'campaign.recordResult',
		'Campaign → Record Call Result (verified with the call record)',
		// Wait for Call Record shortened from its 5 s: each misbehaviour is read again (the wait's path) within a second.
		(fx) => ({ contactsTable: contactsTable(fx, 'recordResult', { [PLACED_PHONE]: placedState() }), internalId: shared.internalId, dialStatus: 'ANSWER', recordWaitSeconds: 1 }),
		{ reports: 'records', settledByRecord: [PLACED_PHONE], uses: CALLS },
	),
	node('campaign.summary', 'Campaign → Get Summary', (fx) => ({ contactsTable: contactsTable(fx, 'summary', { '+14155550421': DUE }) }), {
		offPlatform: true,
		expects: { status: 'running', contacts: 1, new: 1 },
		uses: N8N_ONLY,
	}),
	node('campaign.pause', 'Campaign → Pause', (fx) => ({ contactsTable: contactsTable(fx, 'pause', { '+14155550422': DUE }) }), {
		offPlatform: true,
		expects: { status: 'paused', previousStatus: 'running' },
		uses: N8N_ONLY,
	}),
	node('campaign.resume', 'Campaign → Resume', (fx) => ({ contactsTable: paused(fx, contactsTable(fx, 'resume', { '+14155550423': DUE })) }), {
		offPlatform: true,
		expects: { status: 'running', previousStatus: 'paused' },
		uses: N8N_ONLY,
	}),
	node('campaign.stop', 'Campaign → Stop', (fx) => ({ contactsTable: contactsTable(fx, 'stop', { '+14155550424': DUE }) }), {
		offPlatform: true,
		expects: { status: 'stopped', previousStatus: 'running' },
		uses: N8N_ONLY,
	}),
	node('campaign.contacts', 'Campaign → Get Contacts', (fx) => ({ contactsTable: contactsTable(fx, 'contacts', { '+14155550426': DUE }) }), {
		offPlatform: true,
		expects: { phone: '+14155550426', state: 'new' },
		uses: N8N_ONLY,
	}),

	// ---- Do-Not-Call List (this n8n's data tables only)
	node('doNotCallList.add', 'Do-Not-Call List → Add Number', () => ({ number: '+14155550427' }), {
		offPlatform: true,
		expects: { phone: '+14155550427', listed: true },
		uses: N8N_ONLY,
	}),
	node('doNotCallList.check', 'Do-Not-Call List → Check Number', () => ({ number: '+14155550428' }), {
		offPlatform: true,
		expects: { phone: '+14155550428', listed: false },
		uses: N8N_ONLY,
	}),
	node('campaign.prepare', 'Campaign → Prepare Contacts Table', (fx) => ({ contactsTable: contactsTable(fx, 'prepare', { '+14155550425': DUE }, false) }), {
		offPlatform: true,
		expects: { prepared: true },
		uses: N8N_ONLY,
	}),

	// ---- Call and Wait
	node('callAndWait', 'Call and Wait (trunk, credential key)', () => ({ route: 'trunk', dst: '+14155550301', callerId: CALLER }), {
		dst: '+14155550301',
		waits: true,
	}),
	node(
		'callAndWait',
		'Call and Wait (PBX, override key)',
		() => ({ route: 'pbx', ipPbx: PBX, dst: '+14155550302', callerId: CALLER_B, options: { assistantApiKeyOverride: prepared.overrideKey } }),
		{ dst: '+14155550302', waits: true },
	),

	// ---- Methods (the editor's lists)
	method('searchAssistants', () => ({ resource: 'assistant', operation: 'delete', authentication: 'portalApi' }), []),
	method('searchRagCollections', () => ({ resource: 'ragCollection', operation: 'delete', authentication: 'portalApi' }), []),
	method('searchProviders', () => ({ resource: 'runtime', operation: 'setProvider', authentication: 'portalApi', providerKind: 'tts' }), [
		'providerKind',
	]),
	method(
		'searchProviderModels',
		() => ({
			resource: 'runtime',
			operation: 'setProvider',
			authentication: 'portalApi',
			providerKind: 'llm',
			providerId: { __rl: true, mode: 'list', value: 'openai' },
		}),
		['providerKind', 'providerId'],
	),
	method('getCatalogTools', () => ({ resource: 'runtime', operation: 'updateTools', authentication: 'portalApi' }), [], true),

	triggerPublish,
	triggerUnpublish,
];
