import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { limitKey } from '../calls/callLimit';
import { callRecordOf, costNumber } from '../calls/callResult';
import { NO_CALL_PLACED } from '../calls/messages';
import { readStatusOnce, statusRecordLimit } from '../calls/statusPoll';
import { outboundBaseUrl } from '../transport/endpoint';
import type { RequestSettings } from '../transport/settings';
import { writeToken } from '../transport/dataTables';
import { numberField, invalid } from '../core/validation';

import type { KeyedLedger } from './keyedLedger';
import { keyedLedger } from './keyedLedger';

/*
 * Spending Limit: calls stop once what they cost reaches the limit. The spec's status record gives each
 * call's trafficCost; a call in flight has none yet, so each call reserves Estimated Cost per Call before its POST
 * (the limit counts what the calls in flight may still cost, not only what is recorded) and its reservation becomes
 * its recorded cost once its record is read. Kept per campaign, workflow or Outbound credential in the data table
 * "Assistant Platform Spend": `spent` (recorded), and the open reservations [id, amount, time, internal_id]. Before
 * each call the oldest reservations whose call may have ended are settled from their records (a few status reads of
 * the platform); one without a record keeps its reservation. A reservation whose POST was refused (nothing placed)
 * is given back; an unknown outcome keeps it.
 */

export const SPEND_TABLE = 'Assistant Platform Spend';
/** Reservations settled before a call, at most, and how old one must be to be read (a call shorter than that has not ended). */
const SETTLE_AT_ONCE = 5;
const SETTLE_AFTER_MS = 15_000;

type Reservation = [id: string, amount: number, at: number, internalId: string];
export interface Spend {
	spent: number;
	open: Reservation[];
}

export type SpendScope = 'workflow' | 'credential' | 'campaign';

export interface SpendLimit {
	limit: number;
	perCall: number;
	scope: SpendScope;
	/** What it counts under: `workflow:<id>`, `credential:<id>`, or the campaign's (campaignSpendKey, set once its table is known). */
	key: string;
	/** Whose calls count, in words: "this campaign", "this workflow", "the Outbound credential". */
	whose: string;
}

const WHOSE: Record<SpendScope, string> = { campaign: 'this campaign', workflow: 'this workflow', credential: 'the calls of this Outbound credential' };

/** Guardrails > Spending Limit as set in the node; on Dial Due Contacts (`campaign`) it may count per campaign. */
export function readSpendLimit(
	ctx: IExecuteFunctions,
	raw: { amount?: unknown; perCall?: unknown; countPer?: unknown } | undefined,
	itemIndex: number,
	campaign = false,
): SpendLimit | undefined {
	if (!raw) return undefined;
	const node = ctx.getNode();
	const limit = amount(node, 'Guardrails > Spending Limit > Amount', raw.amount, itemIndex);
	const perCall = amount(node, 'Guardrails > Spending Limit > Estimated Cost per Call', raw.perCall, itemIndex);
	const scope = (raw.countPer ?? (campaign ? 'campaign' : 'workflow')) as SpendScope;
	if (!(scope in WHOSE)) throw invalid(node, 'Guardrails > Spending Limit > Count Per', 'must be Campaign, Workflow or Outbound Credential', itemIndex);
	if (scope === 'campaign' && !campaign) throw invalid(node, 'Guardrails > Spending Limit > Count Per', 'can be Campaign only on Dial Due Contacts', itemIndex);
	const key = scope === 'campaign' ? '' : limitKey(ctx, scope);
	return { limit, perCall, scope, key, whose: WHOSE[scope] };
}

function amount(node: INode, field: string, value: unknown, itemIndex: number): number {
	const n = numberField(node, field, value, Number.NaN, itemIndex);
	if (!(n > 0 && n < 1e12)) throw invalid(node, field, 'must be an amount above 0, in the currency of the platform\'s trafficCost', itemIndex);
	return n;
}

function spendLedger(ctx: IExecuteFunctions, itemIndex: number): KeyedLedger<Spend> {
	return keyedLedger<Spend>(
		ctx,
		{
			table: SPEND_TABLE,
			empty: () => ({ spent: 0, open: [] }),
			parse(text) {
				if (text === '') return { spent: 0, open: [] };
				try {
					const value = JSON.parse(text) as Spend;
					const valid =
						typeof value.spent === 'number' &&
						Number.isFinite(value.spent) &&
						Array.isArray(value.open) &&
						value.open.every((r) => Array.isArray(r) && typeof r[0] === 'string' && typeof r[1] === 'number' && typeof r[2] === 'number' && typeof r[3] === 'string');
					return valid ? value : undefined;
				} catch {
					return undefined;
				}
			},
			serialize: (spend) => JSON.stringify(spend),
			owner: 'Guardrails > Spending Limit counts what every call may cost before it is placed',
		},
		itemIndex,
	);
}

/** What the oldest reservations' calls cost, from their status records: reservation id → cost (only those read with a record). */
async function recordedCosts(ctx: IExecuteFunctions, request: RequestSettings, spend: Spend, now: number): Promise<Map<string, number>> {
	const due = spend.open.filter(([, , at, internalId]) => internalId !== '' && at < now - SETTLE_AFTER_MS).slice(0, SETTLE_AT_ONCE);
	const costs = new Map<string, number>();
	if (due.length === 0) return costs;
	const baseURL = await outboundBaseUrl(ctx);
	await Promise.all(
		due.map(async ([id, reserved, , internalId]) => {
			const response = await readStatusOnce(ctx, request, internalId, undefined, baseURL, statusRecordLimit('Guardrails > Spending Limit')).catch(() => undefined);
			if (!response || response.statusCode === 404) return;
			const record = callRecordOf(internalId, response.body);
			if (!record.ended) return;
			// A cost the record does not give (or a record that contradicts itself) keeps what was reserved.
			const cost = record.contradiction ? null : costNumber(record.record.trafficCost);
			costs.set(id, cost ?? reserved);
		}),
	);
	return costs;
}

function settled(spend: Spend, costs: Map<string, number>): Spend {
	if (costs.size === 0) return spend;
	let spent = spend.spent;
	const open = spend.open.filter(([id]) => {
		const cost = costs.get(id);
		if (cost === undefined) return true;
		spent += cost;
		return false;
	});
	return { spent: micro(spent) / 1e6, open };
}

/** An amount in millionths of the currency, the precision of trafficCost. */
function micro(amount: number): number {
	return Math.round(amount * 1e6);
}

/** A reservation: its call's internal_id is written once placed; given back when nothing was placed. */
export interface SpendPlace {
	placed(internalId: string): Promise<void>;
	release(): Promise<void>;
}

export type SpendVerdict = { place: SpendPlace } | { refusal: NodeOperationError };

/** Reserves the limit's Estimated Cost per Call when what is spent and reserved leaves room for it; else the refusal. */
export async function takeSpend(ctx: IExecuteFunctions, limit: SpendLimit, request: RequestSettings, itemIndex: number): Promise<SpendVerdict> {
	const ledger = spendLedger(ctx, itemIndex);
	const id = writeToken(ctx);
	let costs = new Map<string, number>();
	const settle = async (first: Spend) => {
		costs = await recordedCosts(ctx, request, first, Date.now());
	};
	const refused = await ledger.change<NodeOperationError | undefined>(limit.key, (value, now) => {
		const spend = settled(value, costs);
		const reserved = spend.open.reduce((sum, [, amount]) => sum + amount, 0);
		// Compared in millionths (trafficCost has six decimals): 0.1 + 0.2 is 0.3, not 0.30000000000000004.
		if (micro(spend.spent + reserved + limit.perCall) > micro(limit.limit)) {
			const refusal = new NodeOperationError(
				ctx.getNode(),
				`Not placed: the spending limit of ${limit.whose} is reached (${format(spend.spent)} spent and ${format(reserved)} reserved by calls in flight, of ${format(limit.limit)}; a call reserves ${format(limit.perCall)}). ${NO_CALL_PLACED} Do not try again: tell the user the spending limit is reached.`,
				{ itemIndex, description: `Guardrails > Spending Limit (in this node) counts what calls cost, in the data table "${SPEND_TABLE}" of this n8n. Raise the limit to place more calls.` },
			);
			// The costs settled are kept even so: the next call, and Get Summary, read the recorded spend.
			return spend === value ? { stop: refusal } : { next: spend, result: refusal };
		}
		return { next: { spent: spend.spent, open: [...spend.open, [id, limit.perCall, now, '']] }, result: undefined };
	}, settle);
	if (refused) return { refusal: refused };
	const update = async (change: (open: Reservation[]) => Reservation[]) =>
		await ledger.change<void>(limit.key, (value) => {
			if (!value.open.some(([open]) => open === id)) return { stop: undefined };
			return { next: { spent: value.spent, open: change(value.open) }, result: undefined };
		});
	return {
		place: {
			placed: async (internalId) => await update((open) => open.map((r): Reservation => (r[0] === id ? [r[0], r[1], r[2], internalId] : r))),
			release: async () => await update((open) => open.filter(([open]) => open !== id)),
		},
	};
}

/** What a key has spent (recorded) and holds reserved for calls in flight; undefined when nothing was ever counted (no table is created). */
export async function spendSoFar(ctx: IExecuteFunctions, key: string): Promise<{ spent: number; reserved: number } | undefined> {
	const spend = await spendLedger(ctx, 0).peek(key);
	return spend && { spent: spend.spent, reserved: spend.open.reduce((sum, [, amount]) => sum + amount, 0) };
}

/** The key a campaign's spend counts under (Count Per Campaign): its contacts table. */
export function campaignSpendKey(contactsTableId: string): string {
	return `campaign:${contactsTableId}`;
}

function format(amount: number): string {
	return amount.toFixed(6).replace(/\.?0+$/, '') || '0';
}
