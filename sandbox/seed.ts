import { SAVED_AUTH_HEADER, SAVED_AUTH_NAME } from './constants';
import type { IdSource } from './ids';
import type {
	AssistantRecord,
	CreateAssistantInput,
	NumberKind,
	NumberRecord,
	ProviderCatalogEntry,
	ProviderKind,
	RagCollectionRecord,
	RagDocumentRecord,
	SandboxState,
	SavedAuthentication,
	SeedOptions,
	ToolKind,
} from './types';

/** What seeding uses of the sandbox core (core.ts passes itself). */
export interface SeedTarget {
	readonly state: SandboxState;
	readonly seedIds: IdSource;
	readonly clock: { now(): number };
	readonly savedAuthValue: string;
	bulkCounter: number;
	createAssistant(input: CreateAssistantInput, source: IdSource, createdAt?: string): AssistantRecord;
	assignNumber(number: string, assistantId: string | null, kind?: NumberKind): NumberRecord;
	addSavedAuthentication(name: string, auth: { header: string; value: string }): SavedAuthentication;
	createCollection(name: string, description: string, source: IdSource, createdAt?: string): RagCollectionRecord;
	addCompletedDocument(c: RagCollectionRecord, fileName: string, sizeBytes: number, chunkSize: number, source: IdSource): RagDocumentRecord;
}

export const DEMO_ASSISTANTS: { name: string; description: string; mode: string; prompt: string; number: string }[] = [
	{
		name: 'Reception Desk',
		description: 'Answers the main line and routes callers to the right team',
		mode: 'voice',
		prompt: 'You are the receptionist of Example Corp. Greet the caller, ask what they need and route them.',
		number: '+390200001001',
	},
	{
		name: 'Sales Qualifier',
		description: 'Calls inbound leads back and qualifies them',
		mode: 'voice',
		prompt: 'You call leads who asked for a quote. Ask about budget, timeline and decision makers.',
		number: '+390200001002',
	},
	{
		name: 'Appointment Scheduler',
		description: 'Books, moves and cancels appointments',
		mode: 'voice',
		prompt: 'You book appointments. Confirm the date, time and the name of the caller.',
		number: '+390200001003',
	},
	{
		name: 'Support Triage',
		description: 'First-line technical support with the product FAQ',
		mode: 'text',
		prompt: 'You are first-line support. Use the product FAQ; open a ticket when you cannot solve the issue.',
		number: '+390200001004',
	},
	{
		name: 'Survey Caller',
		description: 'Runs the post-purchase satisfaction survey',
		mode: 'voice',
		prompt: 'You run a three-question satisfaction survey. Be brief and polite.',
		number: '+390200001005',
	},
];

/** The demo number no assistant has. */
export const FREE_DEMO_NUMBER = '+390200001099';
/** Purchased numbers: the first is assigned to "Sales Qualifier", the others are free. */
export const PURCHASED_NUMBERS = ['+14155550101', '+14155550102', '+442079460001'];
export const AUTHORIZED_PBX = ['10.0.0.5', 'pbx.example.com'];

export const PROVIDER_CATALOG: Record<ProviderKind, Omit<ProviderCatalogEntry, 'kind'>[]> = {
	tts: [
		{
			providerId: 'elevenlabs',
			name: 'ElevenLabs',
			models: ['eleven_multilingual_v2', 'eleven_turbo_v2_5'],
			voices: ['Rachel', 'Adam', 'Bella'],
			languages: ['en', 'it', 'de', 'fr'],
		},
		{
			providerId: 'azure-tts',
			name: 'Azure Speech (TTS)',
			models: ['neural'],
			voices: ['it-IT-ElsaNeural', 'en-US-JennyNeural'],
			languages: ['it-IT', 'en-US'],
		},
		{
			providerId: 'google-tts',
			name: 'Google Cloud Text-to-Speech',
			models: ['wavenet', 'neural2'],
			voices: ['en-US-Wavenet-D', 'it-IT-Wavenet-A'],
			languages: ['en-US', 'it-IT'],
		},
	],
	asr: [
		{ providerId: 'deepgram', name: 'Deepgram', models: ['nova-2', 'nova-3'], languages: ['en', 'it', 'multi'] },
		{ providerId: 'azure-stt', name: 'Azure Speech (STT)', models: ['default'], languages: ['it-IT', 'en-US'] },
		{ providerId: 'google-stt', name: 'Google Cloud Speech-to-Text', models: ['latest_long', 'telephony'], languages: ['en-US', 'it-IT'] },
	],
	llm: [
		{ providerId: 'openai', name: 'OpenAI', models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1'] },
		{ providerId: 'anthropic', name: 'Anthropic', models: ['claude-3-5-sonnet', 'claude-3-5-haiku'] },
		{ providerId: 'mistral', name: 'Mistral AI', models: ['mistral-large', 'mistral-small'] },
		{ providerId: 'google-gemini', name: 'Google Gemini', models: ['gemini-1.5-pro', 'gemini-1.5-flash'] },
	],
	'audio-to-audio': [
		{
			providerId: 'openai-realtime',
			name: 'OpenAI Realtime',
			models: ['gpt-4o-realtime-preview', 'gpt-4o-mini-realtime-preview'],
			voices: ['alloy', 'verse', 'shimmer'],
			languages: ['en', 'it'],
		},
		{ providerId: 'gemini-live', name: 'Gemini Live', models: ['gemini-2.0-flash-live'], voices: ['Puck', 'Kore'], languages: ['en', 'it'] },
	],
};

export const TOOL_CATALOG: { toolName: string; kind: ToolKind; instanceName: string | null; description: string }[] = [
	{ toolName: 'lookup_order', kind: 'custom_tool', instanceName: null, description: 'Looks up an order by number (HTTP endpoint)' },
	{ toolName: 'create_ticket', kind: 'custom_tool', instanceName: null, description: 'Opens a support ticket (HTTP endpoint)' },
	{ toolName: 'check_availability', kind: 'custom_tool', instanceName: null, description: 'Returns free appointment slots (HTTP endpoint)' },
	{ toolName: 'google_calendar_create_event', kind: 'plugin_tool', instanceName: 'gcal-main', description: 'Creates a Google Calendar event' },
	{ toolName: 'hubspot_create_contact', kind: 'plugin_tool', instanceName: 'hubspot-crm', description: 'Creates a HubSpot contact' },
	{ toolName: 'crm_search', kind: 'custom_mcp_tool', instanceName: 'crm-mcp', description: 'Searches the CRM (tool server)' },
	{ toolName: 'kb_search', kind: 'custom_mcp_tool', instanceName: 'kb-mcp', description: 'Searches the knowledge base (tool server)' },
];

const PLUGIN_OF: Record<string, string> = {
	'gcal-main': 'google-calendar',
	'hubspot-crm': 'hubspot',
	'crm-mcp': 'mcp-server',
	'kb-mcp': 'mcp-server',
};

const KNOWLEDGE_NAMES = ['Opening hours', 'Shipping policy', 'Returns', 'Warranty', 'Price list', 'Store locations', 'Payment methods', 'Loyalty program', 'Privacy notice', 'Contact channels', 'Product sizes', 'Holiday schedule'];
const FILLERS: { name: string; language: string; phrases: string[] }[] = [
	{ name: 'Thinking (English)', language: 'en', phrases: ['Let me check that for you.', 'One moment, please.', 'Just a second.'] },
	{ name: 'Thinking (Italian)', language: 'it', phrases: ['Un attimo, verifico subito.', 'Solo un momento.'] },
	{ name: 'Hold on (English)', language: 'en', phrases: ['Thanks for waiting.', 'I am still here.'] },
	{ name: 'Tool call (English)', language: 'en', phrases: ['I am looking that up now.', 'Checking our system.'] },
];
const DIAL_MIX = ['ANSWER', 'ANSWER', 'ANSWER', 'NOANSWER', 'BUSY'] as const;

function isoMinutesAgo(now: number, minutes: number): string {
	return new Date(now - minutes * 60_000).toISOString();
}

function count(value: number | undefined, name: string): number {
	if (value === undefined) return 0;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new RangeError(`seed.${name} must be an integer >= 0`);
	return value;
}

interface ListCounts {
	knowledge: number;
	walletKeys: number;
	pluginInstances: number;
	fillerLists: number;
	analytics: number;
}

function addListItems(core: SeedTarget, counts: ListCounts): void {
	const s = core.state;
	const ids = core.seedIds;
	const now = core.clock.now();
	for (let i = 0; i < counts.knowledge; i++) {
		const k = s.knowledge.size;
		s.knowledge.add({
			seq: s.knowledge.takeSeq(),
			knowledgeId: 'kb_' + ids.alphanumeric(16),
			name: k < KNOWLEDGE_NAMES.length ? KNOWLEDGE_NAMES[k] : `Knowledge item ${k + 1}`,
			type: k % 3 === 0 ? 'url' : 'text',
			createdAt: isoMinutesAgo(now, 600 - (k % 600)),
		});
	}
	for (let i = 0; i < counts.walletKeys; i++) {
		const k = s.providerWalletKeys.size;
		s.providerWalletKeys.add({
			seq: s.providerWalletKeys.takeSeq(),
			keyId: 'pwk_' + ids.alphanumeric(16),
			provider: ['openai', 'elevenlabs', 'deepgram', 'anthropic'][k % 4],
			label: `Key ${k + 1}`,
			last4: ids.alphanumeric(4),
			createdAt: isoMinutesAgo(now, 900 - (k % 900)),
		});
	}
	for (let i = 0; i < counts.fillerLists; i++) {
		const k = s.fillerLists.size;
		s.fillerLists.add({
			seq: s.fillerLists.takeSeq(),
			fillerListId: 'fl_' + ids.alphanumeric(16),
			...(k < FILLERS.length ? FILLERS[k] : { name: `Filler list ${k + 1}`, language: 'en', phrases: ['One moment.'] }),
		});
	}
	for (let i = 0; i < counts.pluginInstances; i++) {
		let k = s.pluginInstances.size + 1;
		while (s.pluginInstances.has(`webhook-instance-${k}`)) k++;
		s.pluginInstances.add({
			seq: s.pluginInstances.takeSeq(),
			instanceName: `webhook-instance-${k}`,
			plugin: 'webhook',
			toolNames: [],
			createdAt: isoMinutesAgo(now, 1200 - (k % 1200)),
		});
	}
	const assistants = s.assistants.list;
	for (let i = 0; i < counts.analytics; i++) {
		const k = s.analyticsCalls.size;
		const assistant = assistants.length > 0 ? assistants[k % assistants.length] : undefined;
		const dialStatus = DIAL_MIX[k % DIAL_MIX.length];
		s.analyticsCalls.add({
			seq: s.analyticsCalls.takeSeq(),
			callId: 'call_' + ids.alphanumeric(16),
			internal_id: null,
			assistantId: assistant ? assistant.assistantId : 'asst_unknown',
			direction: k % 2 === 0 ? 'inbound' : 'outbound',
			dialStatus,
			billSec: dialStatus === 'ANSWER' ? 30 + (k % 240) : 0,
			startedAt: isoMinutesAgo(now, 60 * 24 - (k % (60 * 24))),
		});
	}
}

/**
 * Seeding. On start and reset (`initial`) with `demo` the demo data set is created first. Then
 * `assistants`, `collections` and `listItems` add bulk items. Seeded ids come from `core.seedIds`
 * (deterministic with `deterministic: true`).
 */
export function applySeed(core: SeedTarget, opts: SeedOptions, initial: boolean): void {
	const s = core.state;
	const ids = core.seedIds;
	const now = core.clock.now();
	const bulkAssistants = count(opts.assistants, 'assistants');
	const bulkCollections = count(opts.collections, 'collections');
	const bulkListItems = count(opts.listItems, 'listItems');

	if (initial && opts.demo !== false) {
		for (const kind of Object.keys(PROVIDER_CATALOG) as ProviderKind[]) {
			s.providerCatalog[kind] = PROVIDER_CATALOG[kind].map((p) => ({ ...p, kind }));
		}
		for (const t of TOOL_CATALOG) s.toolCatalog.add({ seq: s.toolCatalog.takeSeq(), ...t });
		for (const address of AUTHORIZED_PBX) s.authorizedPbx.add(address);
		core.addSavedAuthentication(SAVED_AUTH_NAME, { header: SAVED_AUTH_HEADER, value: core.savedAuthValue });

		const created = DEMO_ASSISTANTS.map((d, i) =>
			core.createAssistant(
				{ name: d.name, description: d.description, mode: d.mode, prompt: d.prompt },
				ids,
				isoMinutesAgo(now, 60 * (DEMO_ASSISTANTS.length - i)),
			),
		);
		DEMO_ASSISTANTS.forEach((d, i) => core.assignNumber(d.number, created[i].assistantId, 'demo'));
		core.assignNumber(FREE_DEMO_NUMBER, null, 'demo');
		core.assignNumber(PURCHASED_NUMBERS[0], created[1].assistantId, 'purchased');
		for (const n of PURCHASED_NUMBERS.slice(1)) core.assignNumber(n, null, 'purchased');

		const [reception, , , support] = created;
		const at = new Date(now).toISOString();
		s.runtimeConfigs.set(reception.assistantId, {
			tts: { assistantId: reception.assistantId, kind: 'tts', providerId: 'elevenlabs', model: 'eleven_multilingual_v2', voice: 'Rachel', language: 'en', settings: {}, updatedAt: at },
			llm: { assistantId: reception.assistantId, kind: 'llm', providerId: 'openai', model: 'gpt-4o-mini', voice: null, language: null, settings: { temperature: 0.3 }, updatedAt: at },
		});
		s.toolBindings.set(support.assistantId, [
			{ seq: 1, toolName: 'create_ticket', subscriptionName: null, kind: 'custom_tool' },
			{ seq: 2, toolName: 'crm_search', subscriptionName: 'crm-mcp', kind: 'custom_mcp_tool' },
		]);

		const faq = core.createCollection('Product FAQ', 'Frequently asked questions about our products', ids, isoMinutesAgo(now, 300));
		core.addCompletedDocument(faq, 'faq.pdf', 48_213, 5000, ids);
		core.addCompletedDocument(faq, 'returns-policy.txt', 5_120, 1000, ids);
		const prices = core.createCollection('Price List 2025', 'Current prices', ids, isoMinutesAgo(now, 200));
		core.addCompletedDocument(prices, 'price-list.xlsx', 18_432, 5000, ids);
		s.ragAttachments.set(support.assistantId, faq.ragId);

		for (const t of TOOL_CATALOG) {
			if (t.instanceName && !s.pluginInstances.has(t.instanceName)) {
				s.pluginInstances.add({
					seq: s.pluginInstances.takeSeq(),
					instanceName: t.instanceName,
					plugin: PLUGIN_OF[t.instanceName] ?? 'plugin',
					toolNames: TOOL_CATALOG.filter((x) => x.instanceName === t.instanceName).map((x) => x.toolName),
					createdAt: isoMinutesAgo(now, 1000),
				});
			}
		}
		addListItems(core, { knowledge: 12, walletKeys: 3, pluginInstances: 0, fillerLists: 4, analytics: 20 });
	}

	if (bulkAssistants > 0) {
		const prefix = opts.assistantNamePrefix ?? 'Load Test Assistant';
		if (typeof prefix !== 'string') throw new RangeError('seed.assistantNamePrefix must be a string');
		const width = Math.max(5, String(core.bulkCounter + bulkAssistants).length);
		const createdAt = new Date(now).toISOString();
		for (let i = 0; i < bulkAssistants; i++) {
			const n = ++core.bulkCounter;
			core.createAssistant(
				{ name: `${prefix} ${String(n).padStart(width, '0')}`, description: 'Bulk-seeded assistant', mode: 'text' },
				ids,
				createdAt,
			);
		}
	}
	for (let i = 0; i < bulkCollections; i++) {
		core.createCollection(`Seeded collection ${s.collections.size + 1}`, 'Bulk-seeded collection', ids);
	}
	if (bulkListItems > 0) {
		addListItems(core, {
			knowledge: bulkListItems,
			walletKeys: bulkListItems,
			pluginInstances: bulkListItems,
			fillerLists: bulkListItems,
			analytics: bulkListItems,
		});
	}
}
