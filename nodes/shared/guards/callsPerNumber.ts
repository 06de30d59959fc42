import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { NO_CALL_PLACED } from '../calls/messages';
import { assertIntegerInRange } from '../core/validation';

import type { KeyedLedger } from './keyedLedger';
import { keyedLedger } from './keyedLedger';

/*
 * Max Calls per Number: at most N calls to one number in a rolling period, counted across every
 * route that has it set (campaigns, Place Call, Call and Wait, agent routes, workflows), in the data table
 * "Assistant Platform Calls per Number": per number, the times of its calls of the last 31 days (the longest period).
 * A call is counted before its POST and given back only when nothing was placed (the platform refused it); an
 * unknown outcome counts.
 */

export const CALLS_PER_NUMBER_TABLE = 'Assistant Platform Calls per Number';
const MAX_CALLS = 1000;
/** The longest period: what the ledger keeps of a number's calls. */
export const MAX_PERIOD_HOURS = 744;

export interface CallsPerNumber {
	max: number;
	periodMs: number;
}

export function readCallsPerNumber(node: INode, raw: { max?: unknown; hours?: unknown } | undefined, itemIndex: number): CallsPerNumber | undefined {
	if (!raw) return undefined;
	const max = assertIntegerInRange(node, 'Guardrails > Max Calls per Number > Max Calls', raw.max ?? 3, 1, MAX_CALLS, itemIndex);
	const hours = assertIntegerInRange(node, 'Guardrails > Max Calls per Number > Per (Hours)', raw.hours ?? 24, 1, MAX_PERIOD_HOURS, itemIndex);
	return { max, periodMs: hours * 3_600_000 };
}

function numberLedger(ctx: IExecuteFunctions, itemIndex: number): KeyedLedger<number[]> {
	return keyedLedger<number[]>(
		ctx,
		{
			table: CALLS_PER_NUMBER_TABLE,
			empty: () => [],
			parse(text) {
				if (text === '') return [];
				try {
					const value = JSON.parse(text) as unknown;
					return Array.isArray(value) && value.every((t) => typeof t === 'number' && Number.isFinite(t)) ? (value as number[]) : undefined;
				} catch {
					return undefined;
				}
			},
			serialize: (times) => JSON.stringify(times),
			owner: 'Guardrails > Max Calls per Number counts every call to a number before it is placed',
		},
		itemIndex,
	);
}

/** A call counted against its number: given back when nothing was placed. */
export interface NumberPlace {
	release(): Promise<void>;
}

export type NumberVerdict = { place: NumberPlace } | { refusal: NodeOperationError; until: number };

/**
 * Counts a call to `dst` (canonical E.164) when fewer than `limit.max` calls went to it in the last period; otherwise
 * the refusal, and when the oldest of those calls leaves the period (`until`).
 */
export async function takeNumberPlace(ctx: IExecuteFunctions, dst: string, limit: CallsPerNumber, itemIndex: number): Promise<NumberVerdict> {
	const ledger = numberLedger(ctx, itemIndex);
	let at = 0;
	const verdict = await ledger.change<NumberVerdict | undefined>(dst, (times, now) => {
		const kept = times.filter((t) => t > now - MAX_PERIOD_HOURS * 3_600_000);
		const recent = kept.filter((t) => t > now - limit.periodMs).sort((a, b) => a - b);
		if (recent.length >= limit.max) {
			const until = recent[recent.length - limit.max] + limit.periodMs;
			const hours = limit.periodMs / 3_600_000;
			const refusal = new NodeOperationError(
				ctx.getNode(),
				`Not placed: ${dst} was called ${recent.length} time${recent.length === 1 ? '' : 's'} in the last ${hours} hour${hours === 1 ? '' : 's'}, the most Max Calls per Number allows (${limit.max}). ${NO_CALL_PLACED} It may be called again after ${new Date(until).toISOString()}.`,
				{
					itemIndex,
					description: `Guardrails > Max Calls per Number (in this node) counts every call to a number, across campaigns, workflows and agents, in the data table "${CALLS_PER_NUMBER_TABLE}" of this n8n.`,
				},
			);
			return { stop: { refusal, until } };
		}
		at = now;
		return { next: [...kept, now], result: undefined };
	});
	if (verdict) return verdict;
	const taken = at;
	return {
		place: {
			async release() {
				await ledger.change<void>(dst, (times) => {
					const index = times.lastIndexOf(taken);
					if (index < 0) return { stop: undefined };
					return { next: [...times.slice(0, index), ...times.slice(index + 1)], result: undefined };
				});
			},
		},
	};
}
