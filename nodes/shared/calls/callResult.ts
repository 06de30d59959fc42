import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../core/object';
import { acceptanceContradiction } from './acceptance';
import { normalizeDialStatus } from './dialStatuses';
import { kindOf } from '../core/validation';

/*
 * A call's result, read and output the same way by Place Call, Call Status → Get, Call and Wait and
 * the trigger (README, "Output of a call result").
 */

const MAX_ID_LENGTH = 200;
const MAX_STATUS_LENGTH = 100;
export const INTERNAL_ID_RULE = `a non-empty string of at most ${MAX_ID_LENGTH} characters, or a whole number up to 2^53`;
const ID_RULE = `internal_id must be ${INTERNAL_ID_RULE}`;

/** A call's id as the platform gives it: a non-empty string of bounded length, or a safe integer. */
export function isInternalId(id: unknown): id is string | number {
	return (
		(typeof id === 'string' && id.trim() !== '' && id.length <= MAX_ID_LENGTH) ||
		(typeof id === 'number' && Number.isSafeInteger(id))
	);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The fields every item about a call carries, in output order. */
export const CALL_RESULT_FIELDS = [
	'internal_id',
	'dialStatus',
	'duration',
	'billSec',
	'trafficCost',
	'trafficCostNumber',
	'pending',
] as const;

/** Whole seconds: a non-negative safe integer, or a string of digits; anything else is null. */
export function wholeSeconds(value: unknown): number | null {
	if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
	if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return null;
	const seconds = Number(value.trim());
	return Number.isSafeInteger(seconds) ? seconds : null;
}

/** "0.012000" -> 0.012; anything that is not a finite decimal -> null. */
export function costNumber(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value !== 'string' || !/^\s*-?\d+(\.\d+)?\s*$/.test(value)) return null;
	return Number(value);
}

interface ResultSource {
	dialStatus?: unknown;
	duration?: unknown;
	billSec?: unknown;
	trafficCost?: unknown;
}

/**
 * The call-result fields of an item: `dialStatus` null and `pending` true until the outcome is known;
 * numbers by the rules above; `trafficCost` as received, with its numeric copy.
 */
export function callResultFields(internalId: unknown, source: ResultSource = {}): IDataObject {
	const dialStatus =
		typeof source.dialStatus === 'string' && source.dialStatus.trim() !== '' ? source.dialStatus : null;
	return {
		internal_id: (internalId ?? null) as IDataObject[string],
		dialStatus,
		duration: wholeSeconds(source.duration),
		billSec: wholeSeconds(source.billSec),
		trafficCost: (source.trafficCost ?? null) as IDataObject[string],
		trafficCostNumber: costNumber(source.trafficCost),
		pending: dialStatus === null,
	};
}

/**
 * A status record (GET /getDialstatus/{internal_id}) as output: every field it has, then the call-result fields
 * of the call it was read for (the URL names the call; the spec's record carries no internal_id). A record that
 * contradicts itself gives no dial status (`outcomeUnknown`, `contradiction`: what contradicts it).
 */
export function statusRecordItem(internalId: string, body: unknown): IDataObject {
	const record = isObject(body) ? body : {};
	const read = callRecordOf(internalId, body);
	// A record that contradicts itself: the call has ended, with an outcome nobody can trust (callRecordOf).
	if (read.ended && read.contradiction) {
		return { ...record, ...callResultFields(internalId, { ...record, dialStatus: null }), pending: false, outcomeUnknown: true, contradiction: read.contradiction };
	}
	return { ...record, ...callResultFields(internalId, record) };
}

/** The platform's call-result post: `{internal_id, dialstatus, duration}`. */
export interface CallbackResult {
	internal_id: string | number;
	dialStatus: string;
	duration: number;
}

/**
 * Validates a call-result post: `internal_id` a non-empty string (a number is kept as sent),
 * `dialstatus` (or `dialStatus`) a non-empty string, `duration` whole seconds (see wholeSeconds).
 */
export function parseCallResult(body: unknown): Parsed<CallbackResult> {
	if (!isObject(body)) return { ok: false, reason: 'the body must be a JSON object' };
	// One rule for numbers and strings: numbers only as safe integers (JSON already rounded larger
	// ones, so they could name another call), strings bounded.
	const id = body.internal_id;
	if (id === undefined || id === null) return { ok: false, reason: 'internal_id is missing' };
	if (!isInternalId(id)) {
		const blank = typeof id === 'object' || (typeof id === 'string' && (id as string).trim() === '');
		return { ok: false, reason: blank ? 'internal_id must be a non-empty string' : ID_RULE };
	}
	const dial = body.dialstatus !== undefined && body.dialstatus !== null ? body.dialstatus : body.dialStatus;
	if (dial === undefined || dial === null) return { ok: false, reason: 'dialstatus is missing' };
	if (typeof dial !== 'string' || dial.trim() === '') {
		return { ok: false, reason: 'dialstatus must be a non-empty string' };
	}
	if (dial.length > MAX_STATUS_LENGTH) {
		return { ok: false, reason: `dialstatus must be a non-empty string of at most ${MAX_STATUS_LENGTH} characters` };
	}
	if (body.duration === undefined || body.duration === null) return { ok: false, reason: 'duration is missing' };
	const duration = wholeSeconds(body.duration);
	if (duration === null) {
		return { ok: false, reason: 'duration must be a non-negative whole number of seconds' };
	}
	return { ok: true, value: { internal_id: id, dialStatus: dial, duration } };
}

/** Why a status answer is not the record of the call it was read for, or undefined when it may be (see notTheRecord). */
export function anotherCallsRecord(internalId: string, body: unknown): string | undefined {
	if (!isObject(body)) return undefined;
	const id = body.internal_id;
	if (id === undefined || id === null || (isInternalId(id) && String(id) === internalId)) return undefined;
	return isInternalId(id) ? `the record of another call (internal_id ${JSON.stringify(id)})` : 'a record whose internal_id is not an id';
}

/**
 * Why a status answer does not end the call, or undefined when it does: the one rule for Place Call's Max Calls in
 * Flight, a campaign's dial runs, Record Call Result, Call and Wait and Call Status. The spec's record is
 * `{dialStatus, billSec, trafficCost}` and GET /getDialstatus/{internal_id} names the call, so a record needs no
 * internal_id: one with a non-empty dialStatus ends the call it was read for. An internal_id in it, when present,
 * must name that call (else it is another call's record). `{}`, a record without a dial status, and anything that
 * is not an object never end a call (a failed read or a 404 never reaches here).
 */
export function notTheRecord(internalId: string, body: unknown): string | undefined {
	if (!isObject(body)) return `${kindOf(body)}, not a status record`;
	if (Object.keys(body).length === 0) return 'an empty record ({})';
	const another = anotherCallsRecord(internalId, body);
	if (another !== undefined) return another;
	if (typeof body.dialStatus !== 'string' || body.dialStatus.trim() === '') return 'a record without a dial status';
	return undefined;
}

/**
 * What a call's status record says, the one rule for every reader: not ended (notTheRecord says why), or ended with
 * its dial status; an ended call whose record also says something went wrong (an error, success false: the same
 * words that make an acceptance contradict itself) has ended with an outcome nobody can trust (`contradiction`).
 */
export type CallRecord =
	| { ended: false; why: string }
	| { ended: true; dialStatus: string; record: IDataObject; contradiction?: string };

export function callRecordOf(internalId: string, body: unknown): CallRecord {
	const why = notTheRecord(internalId, body);
	if (why !== undefined) return { ended: false, why };
	const record = body as IDataObject;
	const contradiction = acceptanceContradiction(record);
	return { ended: true, dialStatus: normalizeDialStatus(record.dialStatus), record, ...(contradiction ? { contradiction } : {}) };
}
