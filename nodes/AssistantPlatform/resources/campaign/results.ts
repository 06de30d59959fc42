import type { IExecuteFunctions } from 'n8n-workflow';

import type { ContactRow, ContactsTableRef } from '../../../shared/campaign/contactLife';
import { move } from '../../../shared/campaign/contactLife';
import type { CallRecord } from '../../../shared/calls/callResult';
import { callRecordOf, costNumber } from '../../../shared/calls/callResult';
import { normalizeDialStatus } from '../../../shared/calls/dialStatuses';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { decideNextCall, neverRetried, policyFromColumn } from '../../../shared/campaign/retryPolicy';
import type { RequestSettings } from '../../../shared/transport/settings';
import { pollStatus, readStatusOnce, statusRecordLimit } from '../../../shared/calls/statusPoll';

/*
 * A call's end applied to its contact, once: only a contact whose own POST returned this call's internal_id moves
 * (placed, or unknown after its record was late), and what happens next follows from the attempt and the Retry
 * Policy the row holds (written when it was claimed), never from anything carried in a URL.
 */

/** A dial run reads several records at once, and Record Call Result one per result: each up to 1 MB. */
const STATUS_RECORD_LIMIT = statusRecordLimit('A campaign');

/** What a status read says about a call: its record (callRecordOf), none yet (404), or nothing usable. */
export type StatusRead = { kind: 'record'; record: Extract<CallRecord, { ended: true }> } | { kind: 'none' } | { kind: 'unusable'; why: string };

/** One status read of `internalId`: only the call's own record ends it (callRecordOf); a failed read is unusable. */
export async function readRecord(ctx: IExecuteFunctions, settings: RequestSettings, internalId: string, baseURL: string): Promise<StatusRead> {
	let response;
	try {
		response = await readStatusOnce(ctx, settings, internalId, 0, baseURL, STATUS_RECORD_LIMIT);
	} catch (error) {
		return { kind: 'unusable', why: `the status read failed: ${(error as Error).message}` };
	}
	if (response.statusCode === 404) return { kind: 'none' };
	const record = callRecordOf(internalId, response.body);
	return record.ended ? { kind: 'record', record } : { kind: 'unusable', why: `the status read answered ${record.why}` };
}

/**
 * Reads the status of `internalId` until its record is there or `waitMs` has passed (pollStatus: a first pause of
 * half a second, doubling), for a result posted at hangup, before the platform has written the record.
 */
export async function waitForRecord(ctx: IExecuteFunctions, settings: RequestSettings, internalId: string, baseURL: string, waitMs: number): Promise<StatusRead> {
	if (waitMs <= 0) return await readRecord(ctx, settings, internalId, baseURL);
	let poll;
	try {
		poll = await pollStatus(ctx, settings, internalId, { maxWaitMs: waitMs, initialDelayMs: FIRST_PAUSE_MS }, 0, baseURL, STATUS_RECORD_LIMIT);
	} catch (error) {
		return { kind: 'unusable', why: `the status read failed: ${(error as Error).message}` };
	}
	if (poll.found) {
		const record = callRecordOf(internalId, poll.response.body);
		if (record.ended) return { kind: 'record', record };
	}
	if (poll.response.statusCode === 404) return { kind: 'none' };
	return { kind: 'unusable', why: `the status read answered ${poll.notEnded ?? 'no record'}` };
}

/** The first pause of waitForRecord: the platform writes a record shortly after it posted the result. */
const FIRST_PAUSE_MS = 500;

/** A policy that calls nobody again: enough for ANSWER and DONTCALL, which no policy calls again. */
const NO_RETRIES: RetryPolicy = { maxAttempts: 1, delays: new Map() };

export interface Applied {
	row: ContactRow;
	state: string;
	reason: string;
}

/**
 * Applies an ended call to its contact (placed, or unknown whose record came late): answered; pending again when
 * the Retry Policy the row was claimed under calls it again (due when it says); finished otherwise. A record that
 * contradicts itself ends the call with an outcome nobody can trust: unknown. Undefined when the row had moved on
 * (recorded by another execution, or changed), or when the row's policy cannot be read and the outcome needs it
 * (`fallback`: the dial run's policy applies it instead; Record Call Result passes none and leaves it to the run).
 */
export async function applyRecord(
	ctx: IExecuteFunctions,
	table: ContactsTableRef,
	row: ContactRow<'placed' | 'unknown'>,
	record: { dialStatus: string; contradiction?: string; trafficCost?: unknown },
	now: number,
	fallback?: RetryPolicy,
): Promise<Applied | undefined | 'noPolicy'> {
	const status = normalizeDialStatus(record.dialStatus);
	const trafficCost = costNumber(record.trafficCost);
	if (record.contradiction) {
		if (row.campaignState !== 'placed') return undefined;
		const reason = `the call's status record contradicts itself (${record.contradiction}): its outcome is not known, so it is never dialled again automatically`;
		const written = await move(ctx, table, row as ContactRow<'placed'>, 'noOutcome', { reason, dialStatus: status, lineUntil: 0, endedAt: now });
		return written ? { row: written, state: 'unknown', reason } : undefined;
	}
	const policy = policyFromColumn(row.retryPolicy) ?? fallback ?? (neverRetried(status) ? NO_RETRIES : undefined);
	if (!policy) return 'noPolicy';
	const decision = decideNextCall(policy, status, row.attempt, now);
	const outcome = { dialStatus: status, reason: decision.reason, trafficCost, spent: (Number(row.spent) || 0) + (trafficCost ?? 0) };
	let written: ContactRow | undefined;
	let state: string;
	if (status === 'ANSWER') {
		state = 'answered';
		written = await move(ctx, table, row, 'answer', outcome);
	} else if (decision.callAgain) {
		state = 'pending';
		written = await move(ctx, table, row, 'retry', { ...outcome, nextAttemptAt: Date.parse(String(decision.at)) });
	} else {
		state = 'finished';
		written = await move(ctx, table, row, 'finish', outcome);
	}
	return written ? { row: written, state, reason: decision.reason } : undefined;
}
