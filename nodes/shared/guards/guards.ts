import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { CallSlots } from '../agent/callsPerRun';
import type { DurableCallLimit } from '../calls/callLimit';
import { readCallLimit } from '../calls/callLimit';
import { markNoCallPlaced } from '../calls/messages';
import type { NodeFailure } from '../transport/errors';
import type { RequestSettings } from '../transport/settings';
import { isObject } from '../core/object';
import { invalid } from '../core/validation';

import type { HoursSettings } from './callingHours';
import { hoursVerdict, readHoursField } from './callingHours';
import type { CallsPerNumber } from './callsPerNumber';
import { readCallsPerNumber, takeNumberPlace } from './callsPerNumber';
import type { DoNotCallList } from './doNotCall';
import { listedEntry, listedRefusal, readDoNotCallList } from './doNotCall';
import type { SpendLimit } from './spend';
import { campaignSpendKey, readSpendLimit, takeSpend } from './spend';

/*
 * The guards every route to a call passes, in one place, in one order: the calls one AI agent run may place (Max
 * Calls per Agent Run), the calling hours in the called person's time zone, the do-not-call list, the calls per
 * number across everything, Limit Calls Across Executions, and the spending limit. Each takes its place before the
 * POST and gives it back when nothing was placed (the platform refused the call); a refusal says which guard refused
 * and that no call was placed, never an internal key. Place Call, Call and Wait and Dial Due Contacts call
 * `passGuards`; a campaign defers a contact the calling hours or the calls per number refuse, where Place Call refuses.
 */

/** Which guard refused a call. */
export type GuardName = 'callsPerAgentRun' | 'callingHours' | 'doNotCall' | 'callsPerNumber' | 'callLimit' | 'spendingLimit';

/** The guards of a node, read once per run. */
export interface Guards {
	doNotCall?: DoNotCallList;
	callsPerNumber?: CallsPerNumber;
	spend?: SpendLimit;
	/** Calling Hours is set (its fields read per call, the time zone usually per item). */
	hours: boolean;
	limit?: DurableCallLimit;
	slots?: CallSlots;
	request: RequestSettings;
}

/**
 * The guards of a node, every field checked before anything is sent, none from an AI model ($fromAI): Guardrails
 * (Dial Due Contacts: its own, `campaignGuardrails`, whose spend may count per campaign: campaignGuards), whether
 * Calling Hours is set, and Max Calls per Agent Run when the node runs as an agent's tool (`slots`, given the limit).
 */
export function readGuards(
	ctx: IExecuteFunctions,
	request: RequestSettings,
	options: { campaign?: boolean; slots?: (limited: boolean) => CallSlots | undefined } = {},
): Guards {
	const node = ctx.getNode();
	const name = options.campaign ? 'campaignGuardrails' : 'guardrails';
	let guards: Guards;
	try {
		if (/\$fromai\s*\(/i.test(JSON.stringify([node.parameters?.[name] ?? '', node.parameters?.callingHours ?? '']))) {
			throw invalid(node, 'Guardrails', 'must be set in the node, not by the AI model ($fromAI): they limit what the model may do', 0);
		}
		const raw = ctx.getNodeParameter(name, 0, {}) as IDataObject;
		const set = isObject(raw) ? raw : {};
		const limitOf = (option: string) => (isObject(set[option]) ? ((set[option] as IDataObject).limit as IDataObject | undefined) : undefined);
		const hours = options.campaign ? undefined : (ctx.getNodeParameter('callingHours', 0, {}) as IDataObject);
		guards = {
			doNotCall: set.doNotCallList === undefined ? undefined : readDoNotCallList(ctx, set.doNotCallList, 0),
			callsPerNumber: readCallsPerNumber(node, limitOf('callsPerNumber'), 0),
			spend: readSpendLimit(ctx, limitOf('spendingLimit'), 0, options.campaign),
			limit: readCallLimit(ctx, limitOf('callLimit')),
			hours: readHoursField(node, hours, 0) !== undefined,
			request,
		};
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	guards.slots = options.slots?.(guards.limit !== undefined);
	return guards;
}

/** A campaign's guards once its contacts table is known: a Spending Limit counted per campaign counts under it. */
export function campaignGuards(guards: Guards, contactsTableId: string): Guards {
	if (guards.spend?.scope !== 'campaign') return guards;
	return { ...guards, spend: { ...guards.spend, key: campaignSpendKey(contactsTableId) } };
}

/** Calling Hours of item `i` (its Time Zone is usually an expression of the item); undefined when none is set. */
function itemHours(ctx: IExecuteFunctions, i: number): HoursSettings | undefined {
	const field = readHoursField(ctx.getNode(), ctx.getNodeParameter('callingHours', i, {}), i);
	return field && { windows: field.windows, timeZone: field.zone.timeZone, withoutTimeZone: field.withoutTimeZone };
}

/** What the guards decided: the call may go (its places, to confirm or give back), or which guard refused and why. */
export type GuardVerdict = { places: GuardPlaces } | GuardRefusal;

/** A refusal: the guard, what the caller reads, when the call may go (calling hours, calls per number), and `unchecked` when the guard could not be read or counted (its table, n8n's API) rather than said no. */
export interface GuardRefusal {
	refused: GuardName;
	refusal: NodeFailure;
	until?: number;
	unchecked?: boolean;
}

export interface GuardPlaces {
	/** The call was placed (its internal_id): the places stay. */
	placed(internalId: string): Promise<void>;
	/** Nothing was placed (the platform refused it): the places go back. Never fails (a place not given back over-counts). */
	giveBack(): Promise<void>;
}

/** One call to pass: its number (E.164), its item, and its calling hours when not the node's Calling Hours of the item. */
export interface GuardCall {
	dst: string;
	itemIndex: number;
	hours?: HoursSettings;
}

/** Passes one call through every guard, in order; a refusal gives back the places taken before it. */
export async function passGuards(ctx: IExecuteFunctions, guards: Guards, call: GuardCall): Promise<GuardVerdict> {
	const node = ctx.getNode();
	const { dst, itemIndex } = call;
	const taken: GuardPlaces[] = [];
	const giveBackAll = async () => {
		for (const place of [...taken].reverse()) await place.giveBack().catch(() => undefined);
	};
	const refuse = async (refused: GuardName, refusal: NodeFailure, until?: number, unchecked?: boolean): Promise<GuardVerdict> => {
		await giveBackAll();
		return { refused, refusal: markNoCallPlaced(refusal), ...(until !== undefined ? { until } : {}), ...(unchecked ? { unchecked } : {}) };
	};
	const noop = async () => undefined;
	let step: GuardName = 'callsPerAgentRun';
	try {
		const slot = guards.slots?.take(itemIndex);
		if (slot) return await refuse('callsPerAgentRun', slot);
		if (guards.slots) taken.push({ placed: noop, giveBack: async () => guards.slots?.release() });
		step = 'callingHours';
		const hours = call.hours ?? (guards.hours ? itemHours(ctx, itemIndex) : undefined);
		if (hours) {
			const verdict = hoursVerdict(node, hours, ctx.getTimezone(), itemIndex, Date.now());
			if (verdict) return await refuse('callingHours', verdict.refusal, verdict.until);
		}
		step = 'doNotCall';
		if (guards.doNotCall) {
			const entry = await listedEntry(ctx, guards.doNotCall, dst, itemIndex);
			if (entry) return await refuse('doNotCall', listedRefusal(node, dst, entry, (await guards.doNotCall.table()).name, itemIndex));
		}
		step = 'callsPerNumber';
		if (guards.callsPerNumber) {
			const verdict = await takeNumberPlace(ctx, dst, guards.callsPerNumber, itemIndex);
			if ('refusal' in verdict) return await refuse('callsPerNumber', verdict.refusal, verdict.until);
			taken.push({ placed: noop, giveBack: async () => await verdict.place.release() });
		}
		step = 'callLimit';
		if (guards.limit) {
			const verdict = await guards.limit.take(itemIndex);
			if (verdict.refusal) return await refuse('callLimit', verdict.refusal);
			if (verdict.place) {
				const place = verdict.place;
				taken.push({ placed: noop, giveBack: async () => await place.release() });
			}
		}
		step = 'spendingLimit';
		if (guards.spend) {
			const verdict = await takeSpend(ctx, guards.spend, guards.request, itemIndex);
			if ('refusal' in verdict) return await refuse('spendingLimit', verdict.refusal);
			taken.push({ placed: async (internalId) => await verdict.place.placed(internalId), giveBack: async () => await verdict.place.release() });
		}
	} catch (error) {
		// A guard that cannot be read or counted (its table, n8n's API) places nothing.
		return await refuse(step, error as NodeFailure, undefined, true);
	}
	return {
		places: {
			async placed(internalId) {
				for (const place of taken) await place.placed(internalId).catch(() => undefined);
			},
			giveBack: giveBackAll,
		},
	};
}
