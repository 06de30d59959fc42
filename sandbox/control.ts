import { CONTROL_PREFIX } from './constants';
import type { SandboxCore } from './core';
import { invalid } from './errors';
import type { RequestContext, Route } from './http';
import { ok } from './http';
import type { CreateAssistantInput, DialOutcomeRule, FaultSpec, NumberKind, SeedOptions } from './types';
import { maxInFlight, validateRule } from './network';
import { isObject } from './validate';

/** Counts and clock, cheap even with 100,000 assistants. */
export function stateSummary(core: SandboxCore) {
	const s = core.state;
	return {
		assistants: s.assistants.size,
		numbers: s.numbers.size,
		authorizedPbx: s.authorizedPbx.size,
		toolCatalog: s.toolCatalog.size,
		collections: s.collections.size,
		documents: s.documents.size,
		uploads: s.uploads.size,
		calls: s.calls.size,
		usedStorageBytes: s.usedStorageBytes,
		storageAllowanceBytes: core.options.storageAllowanceBytes,
		journal: core.journal.length,
		callbacks: core.callbacks.length,
		pendingEvents: core.clock.pending,
		clock: { mode: core.clock.mode, now: core.clock.now(), speed: core.clock.speed },
		callsInFlight: core.network.callsInFlight,
		maxConcurrentCalls: core.network.maxConcurrentCalls,
		latencyMs: core.latencyMs,
		answers: core.answers,
		faults: core.faults.list().length,
	};
}

/** The whole state as plain JSON (Maps become objects, Sets arrays). */
export function stateSnapshot(core: SandboxCore) {
	const s = core.state;
	return {
		summary: stateSummary(core),
		assistants: s.assistants.list,
		numbers: s.numbers.list,
		authorizedPbx: [...s.authorizedPbx],
		providerCatalog: s.providerCatalog,
		toolCatalog: s.toolCatalog.list,
		collections: s.collections.list.map(({ documents, ...rest }) => ({ ...rest, documentIds: documents.map((d) => d.documentId) })),
		documents: [...s.documents.values()],
		uploads: [...s.uploads.values()].map((u) => ({ ...u, progress: core.uploadProgress(u) })),
		usedStorageBytes: s.usedStorageBytes,
		calls: [...s.calls.values()],
		runtimeConfigs: Object.fromEntries(s.runtimeConfigs),
		toolBindings: Object.fromEntries(s.toolBindings),
		ragAttachments: Object.fromEntries(s.ragAttachments),
		conversationWebhooks: Object.fromEntries(s.conversationWebhooks),
		extractionConfigs: Object.fromEntries(s.extractionConfigs),
		postcallMcpConfigs: Object.fromEntries(s.postcallMcpConfigs),
		savedAuthentications: [...s.savedAuthentications.values()],
		knowledge: s.knowledge.list,
		providerWalletKeys: s.providerWalletKeys.list,
		pluginInstances: s.pluginInstances.list,
		fillerLists: s.fillerLists.list,
		analyticsCalls: s.analyticsCalls.list,
		dialOutcomes: core.dialOutcomes(),
		faults: core.faults.list(),
	};
}

function clockState(core: SandboxCore) {
	return { mode: core.clock.mode, now: core.clock.now(), speed: core.clock.speed, pendingEvents: core.clock.pending };
}

function accountState(core: SandboxCore) {
	return { maxConcurrentCalls: core.network.maxConcurrentCalls, callsInFlight: core.network.callsInFlight };
}

function body(ctx: RequestContext): Record<string, unknown> {
	if (ctx.bodyKind === 'empty') return {};
	if (ctx.bodyKind !== 'json' || !isObject(ctx.body)) throw invalid('body', 'must be a JSON object');
	return ctx.body;
}

function msField(b: Record<string, unknown>): number {
	const ms = b.ms;
	if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw invalid('ms', 'must be a number >= 0');
	return ms;
}

export const CONTROL_ENDPOINTS = [
	'GET    /__sandbox',
	'POST   /__sandbox/reset',
	'POST   /__sandbox/seed',
	'GET    /__sandbox/state[?summary=true]',
	'GET    /__sandbox/journal',
	'DELETE /__sandbox/journal',
	'GET    /__sandbox/faults',
	'POST   /__sandbox/faults',
	'DELETE /__sandbox/faults',
	'GET    /__sandbox/answers',
	'POST   /__sandbox/answers',
	'GET    /__sandbox/latency',
	'POST   /__sandbox/latency',
	'GET    /__sandbox/clock',
	'POST   /__sandbox/clock/advance',
	'POST   /__sandbox/clock/speed',
	'GET    /__sandbox/dial-outcomes',
	'POST   /__sandbox/dial-outcomes',
	'DELETE /__sandbox/dial-outcomes',
	'GET    /__sandbox/account',
	'POST   /__sandbox/account',
	'GET    /__sandbox/call-journal',
	'DELETE /__sandbox/call-journal',
	'POST   /__sandbox/numbers/assign',
	'POST   /__sandbox/pbx/authorize',
	'POST   /__sandbox/authentications',
	'GET    /__sandbox/callbacks',
	'DELETE /__sandbox/callbacks',
	'POST   /__sandbox/assistants',
];

const r = (path: string) => new RegExp(`^${CONTROL_PREFIX}${path}$`);

/** The control surface: no auth, never journaled, never faulted. */
export const controlRoutes: Route<SandboxCore>[] = [
	{ method: 'GET', pattern: r(''), handler: () => ok({ controlPrefix: CONTROL_PREFIX, endpoints: CONTROL_ENDPOINTS }) },
	{
		method: 'POST',
		pattern: r('/reset'),
		handler: (core) => {
			core.resetState();
			return ok({ ok: true, summary: stateSummary(core) });
		},
	},
	{
		method: 'POST',
		pattern: r('/seed'),
		handler: (core, ctx) => {
			const b = body(ctx) as SeedOptions;
			core.seed({ assistants: b.assistants, assistantNamePrefix: b.assistantNamePrefix, collections: b.collections, listItems: b.listItems });
			return ok({ ok: true, summary: stateSummary(core) });
		},
	},
	{
		method: 'GET',
		pattern: r('/state'),
		handler: (core, ctx) => ok(ctx.query.summary === 'true' || ctx.query.summary === '1' ? stateSummary(core) : stateSnapshot(core)),
	},
	{ method: 'GET', pattern: r('/journal'), handler: (core) => ok(core.journal) },
	{
		method: 'DELETE',
		pattern: r('/journal'),
		handler: (core) => {
			core.clearJournal();
			return ok({ ok: true });
		},
	},
	{ method: 'GET', pattern: r('/faults'), handler: (core) => ok(core.faults.list()) },
	{
		method: 'POST',
		pattern: r('/faults'),
		handler: (core, ctx) => {
			const specs = ctx.bodyKind === 'json' && Array.isArray(ctx.body) ? (ctx.body as FaultSpec[]) : [body(ctx) as unknown as FaultSpec];
			const added = specs.map((spec) => core.faults.add(spec));
			return ok({ ok: true, faults: added }, 201);
		},
	},
	{
		method: 'DELETE',
		pattern: r('/faults'),
		handler: (core) => {
			core.faults.clear();
			return ok({ ok: true });
		},
	},
	{ method: 'GET', pattern: r('/answers'), handler: (core) => ok({ answers: core.answers }) },
	{
		method: 'POST',
		pattern: r('/answers'),
		handler: (core, ctx) => {
			const answers = body(ctx).answers;
			if (answers !== 'spec' && answers !== 'rich') throw invalid('answers', 'must be "spec" or "rich"');
			core.answers = answers;
			return ok({ ok: true, answers });
		},
	},
	{ method: 'GET', pattern: r('/latency'), handler: (core) => ok({ ms: core.latencyMs }) },
	{
		method: 'POST',
		pattern: r('/latency'),
		handler: (core, ctx) => {
			core.latencyMs = msField(body(ctx));
			return ok({ ok: true, ms: core.latencyMs });
		},
	},
	{ method: 'GET', pattern: r('/clock'), handler: (core) => ok(clockState(core)) },
	{
		method: 'POST',
		pattern: r('/clock/advance'),
		handler: async (core, ctx) => {
			await core.clock.advance(msField(body(ctx)));
			return ok({ ok: true, ...clockState(core) });
		},
	},
	{
		method: 'POST',
		pattern: r('/clock/speed'),
		handler: (core, ctx) => {
			try {
				core.clock.setSpeed(body(ctx).speed as number);
			} catch (error) {
				throw invalid('speed', (error as Error).message);
			}
			return ok({ ok: true, ...clockState(core) });
		},
	},
	{ method: 'GET', pattern: r('/dial-outcomes'), handler: (core) => ok(core.dialOutcomes()) },
	{
		method: 'POST',
		pattern: r('/dial-outcomes'),
		handler: (core, ctx) => {
			if (ctx.bodyKind === 'json' && Array.isArray(ctx.body)) {
				const rules = (ctx.body as DialOutcomeRule[]).map((rule) => validateRule(rule));
				return ok({ ok: true, rules: rules.map((rule) => core.setDialOutcome(rule)) });
			}
			return ok({ ok: true, rule: core.setDialOutcome(body(ctx) as unknown as DialOutcomeRule) });
		},
	},
	{
		method: 'DELETE',
		pattern: r('/dial-outcomes'),
		handler: (core) => {
			core.clearDialOutcomes();
			return ok({ ok: true });
		},
	},
	{ method: 'GET', pattern: r('/account'), handler: (core) => ok(accountState(core)) },
	{
		method: 'POST',
		pattern: r('/account'),
		handler: (core, ctx) => {
			const b = body(ctx);
			if (!('maxConcurrentCalls' in b)) throw invalid('maxConcurrentCalls', 'is required (a whole number >= 1, or null for no limit)');
			core.network.setLimit(b.maxConcurrentCalls as number | null);
			return ok({ ok: true, ...accountState(core) });
		},
	},
	{
		method: 'GET',
		pattern: r('/call-journal'),
		handler: (core) => ok({ calls: core.network.calls, refusals: core.network.refusals, maxInFlight: maxInFlight(core.network.calls) }),
	},
	{
		method: 'DELETE',
		pattern: r('/call-journal'),
		handler: (core) => {
			core.network.clearJournal();
			return ok({ ok: true });
		},
	},
	{
		method: 'POST',
		pattern: r('/numbers/assign'),
		handler: (core, ctx) => {
			const b = body(ctx);
			if (typeof b.number !== 'string') throw invalid('number', 'is required');
			if (b.assistantId !== null && typeof b.assistantId !== 'string') throw invalid('assistantId', 'must be an assistantId or null');
			const kind = (b.kind ?? 'purchased') as NumberKind;
			const rec = core.assignNumber(b.number, b.assistantId as string | null, kind);
			return ok({ ok: true, number: { number: rec.number, kind: rec.kind, assistantId: rec.assistantId } });
		},
	},
	{
		method: 'POST',
		pattern: r('/pbx/authorize'),
		handler: (core, ctx) => {
			const b = body(ctx);
			const address = b.address ?? b.ipPbx;
			if (typeof address !== 'string') throw invalid('address', 'is required');
			return ok({ ok: true, address: core.authorizePbx(address) });
		},
	},
	{
		method: 'POST',
		pattern: r('/authentications'),
		handler: (core, ctx) => {
			const b = body(ctx);
			const saved = core.addSavedAuthentication(b.name as string, { header: b.header as string, value: b.value as string });
			return ok({ ok: true, name: saved.name, header: saved.header }, 201);
		},
	},
	{ method: 'GET', pattern: r('/callbacks'), handler: (core) => ok(core.callbacks) },
	{
		method: 'DELETE',
		pattern: r('/callbacks'),
		handler: (core) => {
			core.callbacks.length = 0;
			return ok({ ok: true });
		},
	},
	{
		method: 'POST',
		pattern: r('/assistants'),
		handler: (core, ctx) => {
			const b = body(ctx);
			for (const field of ['name', 'description', 'mode', 'prompt', 'number'] as const) {
				if (b[field] !== undefined && typeof b[field] !== 'string') throw invalid(field, 'must be a string');
			}
			if (b.name !== undefined && (b.name as string).trim() === '') throw invalid('name', 'must be a non-empty string');
			const a = core.createAssistant(b as CreateAssistantInput);
			return ok({ ...a, numbers: a.numbers.slice() }, 201);
		},
	},
];
