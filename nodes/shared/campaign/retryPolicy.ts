import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import { isTypedStatus, normalizeDialStatus } from '../calls/dialStatuses';
import { readNumber } from '../core/numbers';
import { isObject } from '../core/object';
import { splitList } from '../core/text';
import { assertIntegerInRange, invalid } from '../core/validation';

/*
 * The Retry Policy of a durable campaign (Dial Due Contacts): which dial statuses are called again, after how
 * long, and how many attempts in all. Its decision on a call's result (decideNextCall) is applied to the contact
 * the call was placed for.
 */

/** The highest Retry Policy > Max Attempts: how many calls the policy alone may make to one person. */
export const MAX_ATTEMPTS_PER_CONTACT = 20;
export const DEFAULT_MAX_ATTEMPTS = 3;
/** The longest retry delay: a week. */
const MAX_DELAY_MINUTES = 10_080;

/** The statuses with a field of their own (Retry <STATUS> After (Minutes)) and the field's name. */
const STATUS_FIELDS = [
	{ status: 'BUSY', name: 'busy' },
	{ status: 'CANCEL', name: 'cancel' },
	{ status: 'CHANUNAVAIL', name: 'chanUnavail' },
	{ status: 'CONGESTION', name: 'congestion' },
	{ status: 'FAILED', name: 'failed' },
	{ status: 'NOANSWER', name: 'noAnswer' },
] as const;

/**
 * Never called again, whatever the policy says: ANSWER (the call reached the person) and DONTCALL (the
 * person asked not to be called).
 */
const NEVER_RETRIED: Record<string, string> = {
	ANSWER: 'answered: never called again',
	DONTCALL: 'DONTCALL: the person asked not to be called; never called again',
};

/** Whether no Retry Policy ever calls after this dial status (ANSWER, DONTCALL): its result needs no policy. */
export function neverRetried(dialStatus: unknown): boolean {
	return Object.hasOwn(NEVER_RETRIED, normalizeDialStatus(dialStatus));
}

/** The decision on a call's result. */
export interface NextCall {
	/** Whether to call this contact again. */
	callAgain: boolean;
	/** When (ISO time), or null. */
	at: string | null;
	/** The attempt number of that call, or null. */
	attempt: number | null;
	/** Why, in words. */
	reason: string;
	[key: string]: boolean | string | number | null;
}

export interface RetryPolicy {
	maxAttempts: number;
	/** Delay in ms per (normalised) dial status. */
	delays: Map<string, number>;
}

/** The Retry Policy collection (`retryPolicy`), with the description of where it applies. */
export function retryPolicyProperty(description: string, display: Partial<INodeProperties> = {}): INodeProperties {
	return {
		displayName: 'Retry Policy',
		name: 'retryPolicy',
		type: 'collection',
		placeholder: 'Add Retry Rule',
		default: {},
		description,
		options: ([
			{
				displayName: 'Max Attempts',
				name: 'maxAttempts',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_ATTEMPTS_PER_CONTACT },
				default: DEFAULT_MAX_ATTEMPTS,
				description: `How many calls to one contact at most, the first included (1 to ${MAX_ATTEMPTS_PER_CONTACT})`,
			},
			{
				displayName: 'Retry BUSY After (Minutes)',
				name: 'busy',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 5,
				description: 'Call again when the line was busy (BUSY), this many minutes after the result',
			},
			{
				displayName: 'Retry CANCEL After (Minutes)',
				name: 'cancel',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 15,
				description: 'Call again when the call was cancelled before it was answered (CANCEL), this many minutes after the result',
			},
			{
				displayName: 'Retry CHANUNAVAIL After (Minutes)',
				name: 'chanUnavail',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 15,
				description: 'Call again when the number could not be reached (CHANUNAVAIL), this many minutes after the result',
			},
			{
				displayName: 'Retry CONGESTION After (Minutes)',
				name: 'congestion',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 5,
				description: 'Call again when the network was congested (CONGESTION), this many minutes after the result',
			},
			{
				displayName: 'Retry FAILED After (Minutes)',
				name: 'failed',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 15,
				description: 'Call again when the call failed (FAILED), this many minutes after the result',
			},
			{
				displayName: 'Retry NOANSWER After (Minutes)',
				name: 'noAnswer',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_DELAY_MINUTES, numberPrecision: 2 },
				default: 30,
				description: 'Call again when nobody answered (NOANSWER), this many minutes after the result',
			},
			{
				displayName: 'Retry Other Dial Statuses',
				name: 'other',
				type: 'string',
				default: '',
				placeholder: 'e.g. TORTURE=60, INVALIDARGS=1440',
				description:
					'Other statuses to call again, each as STATUS=minutes, separated by commas: any status the platform reports, listed or not. ANSWER and DONTCALL are never called again.',
			},
		] as INodeProperties[]).sort((a, b) => a.displayName.localeCompare(b.displayName)),
		...display,
	};
}

function minutesToMs(node: INode, field: string, value: unknown, itemIndex?: number): number {
	const minutes = readNumber(value);
	if (minutes === undefined || minutes < 0 || minutes > MAX_DELAY_MINUTES) {
		throw invalid(node, field, `must be a number of minutes from 0 to ${MAX_DELAY_MINUTES} (got ${JSON.stringify(value)})`, itemIndex);
	}
	return Math.round(minutes * 60_000);
}

/** Reads and checks the Retry Policy collection; an empty one retries nothing. */
export function readRetryPolicy(node: INode, raw: unknown, itemIndex?: number): RetryPolicy {
	const options = isObject(raw) ? (raw as IDataObject) : {};
	const delays = new Map<string, number>();
	const maxAttempts =
		options.maxAttempts === undefined
			? DEFAULT_MAX_ATTEMPTS
			: assertIntegerInRange(node, 'Retry Policy > Max Attempts', options.maxAttempts, 1, MAX_ATTEMPTS_PER_CONTACT, itemIndex);
	for (const field of STATUS_FIELDS) {
		if (options[field.name] === undefined) continue;
		delays.set(field.status, minutesToMs(node, `Retry Policy > Retry ${field.status} After (Minutes)`, options[field.name], itemIndex));
	}
	const otherField = 'Retry Policy > Retry Other Dial Statuses';
	if (options.other !== undefined && typeof options.other !== 'string') {
		throw invalid(node, otherField, 'must be text such as "TORTURE=60, INVALIDARGS=1440"', itemIndex);
	}
	for (const entry of splitList(options.other)) {
		const match = /^([^=]+)=(.*)$/.exec(entry);
		const status = normalizeDialStatus(match?.[1]);
		if (!match || !isTypedStatus(status)) {
			throw invalid(node, otherField, `each entry must be STATUS=minutes, e.g. "TORTURE=60" (got "${entry}")`, itemIndex);
		}
		if (NEVER_RETRIED[status]) throw invalid(node, otherField, `must not list ${status}: ${NEVER_RETRIED[status]}`, itemIndex);
		delays.set(status, minutesToMs(node, `${otherField} (${status})`, match[2].trim(), itemIndex));
	}
	return { maxAttempts, delays };
}

/**
 * The Retry Policy as a contact's `retryPolicy` column holds it: the dial run that claims a contact writes the policy
 * it dials under, so that the call's result is applied under that policy wherever it arrives (one owner: the dial
 * run). `policyFromColumn` reads it back, checked as the field is: undefined when the cell holds none or something
 * else (edited by hand).
 */
export function policyColumn(policy: RetryPolicy): string {
	return JSON.stringify({ maxAttempts: policy.maxAttempts, delays: Object.fromEntries(policy.delays) });
}

export function policyFromColumn(text: unknown): RetryPolicy | undefined {
	if (typeof text !== 'string' || text === '') return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!isObject(value) || !isObject(value.delays)) return undefined;
	const maxAttempts = value.maxAttempts;
	if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_PER_CONTACT) return undefined;
	const delays = new Map<string, number>();
	for (const [status, ms] of Object.entries(value.delays)) {
		if (!isTypedStatus(status) || NEVER_RETRIED[status] || typeof ms !== 'number' || !(ms >= 0 && ms <= MAX_DELAY_MINUTES * 60_000)) return undefined;
		delays.set(status, ms);
	}
	return { maxAttempts, delays };
}

function formatMinutes(ms: number): string {
	const minutes = ms / 60_000;
	if (minutes < 1) return `${Math.round(ms / 1000)} s`;
	return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(2)} min`;
}

/**
 * What to do after a call: call again (when, which attempt) or not, and why. `dialStatus` null is an
 * outcome not known (never retried automatically); `attempt` is the call's, as the contact's row holds it.
 */
export function decideNextCall(
	policy: RetryPolicy,
	dialStatus: unknown,
	attempt: number,
	resultAt: number,
): NextCall {
	const done = noCall;
	const status = normalizeDialStatus(dialStatus);
	if (status === '') return done('outcome unknown: never called again automatically (read the call status first)');
	if (NEVER_RETRIED[status]) return done(NEVER_RETRIED[status]);
	const delay = policy.delays.get(status);
	if (delay === undefined) return done(`${status}: the Retry Policy does not call ${status} again`);
	if (attempt >= policy.maxAttempts) {
		return done(`${status}: out of attempts (attempt ${attempt} of ${policy.maxAttempts})`);
	}
	return {
		callAgain: true,
		at: new Date(resultAt + delay).toISOString(),
		attempt: attempt + 1,
		reason: `${status}: call again after ${formatMinutes(delay)} (attempt ${attempt + 1} of ${policy.maxAttempts})`,
	};
}

/** The decision not to call again, and why. */
function noCall(reason: string): NextCall {
	return { callAgain: false, at: null, attempt: null, reason };
}
