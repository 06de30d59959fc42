import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ContactRow, ContactsTable } from '../../../shared/campaign/contactsTable';
import { changeRow } from '../../../shared/campaign/contactsTable';
import { acceptanceContradiction } from '../../../shared/calls/acceptance';
import { normalizeDialStatus } from '../../../shared/calls/dialStatuses';
import { notTheRecord } from '../../../shared/calls/callResult';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { decideNextCall } from '../../../shared/campaign/retryPolicy';
import type { RequestSettings } from '../../../shared/transport/settings';
import { pollStatus, readStatusOnce, statusRecordLimit } from '../../../shared/calls/statusPoll';

/*
 * A call's result applied to its contact, once: only a row still "placed" with the same internalId changes (a
 * repeated or late delivery finds it changed and changes nothing), and what happens next follows from the attempt
 * the row holds, never from one carried in a URL.
 */

/** A dial run reads several records at once, and Record Call Result one per result: each up to 1 MB. */
const STATUS_RECORD_LIMIT = statusRecordLimit('A campaign');

/** What a status read says about a call: its record (same id, a dial status), none yet, or nothing usable. */
export type StatusRead = { kind: 'record'; dialStatus: string; record: IDataObject } | { kind: 'none' } | { kind: 'unusable'; why: string };

/**
 * One status read of `internalId`. Only a record naming the same call with a dial status ends a call: an empty
 * object, a record of another id or without a dial status, and a failed read are not an end (the line stays busy).
 */
export async function readRecord(ctx: IExecuteFunctions, settings: RequestSettings, internalId: string, baseURL: string): Promise<StatusRead> {
	let response;
	try {
		response = await readStatusOnce(ctx, settings, internalId, 0, baseURL, STATUS_RECORD_LIMIT);
	} catch (error) {
		return { kind: 'unusable', why: `the status read failed: ${(error as Error).message}` };
	}
	if (response.statusCode === 404) return { kind: 'none' };
	const wrong = notTheRecord(internalId, response.body);
	if (wrong !== undefined) return { kind: 'unusable', why: `the status read answered ${wrong}` };
	return asRecord(response.body as IDataObject);
}

/**
 * Reads the status of `internalId` until its record is there or `waitMs` has passed (pollStatus: a first pause of
 * half a second, doubling), for a result posted at hangup, before the platform has written the record. What the
 * last read says, as readRecord says it.
 */
export async function waitForRecord(
	ctx: IExecuteFunctions,
	settings: RequestSettings,
	internalId: string,
	baseURL: string,
	waitMs: number,
): Promise<StatusRead> {
	if (waitMs <= 0) return await readRecord(ctx, settings, internalId, baseURL);
	let poll;
	try {
		poll = await pollStatus(ctx, settings, internalId, { maxWaitMs: waitMs, initialDelayMs: FIRST_PAUSE_MS }, 0, baseURL, STATUS_RECORD_LIMIT);
	} catch (error) {
		return { kind: 'unusable', why: `the status read failed: ${(error as Error).message}` };
	}
	if (poll.found) return asRecord(poll.response.body as IDataObject);
	if (poll.response.statusCode === 404) return { kind: 'none' };
	return { kind: 'unusable', why: `the status read answered ${poll.notEnded ?? 'no record'}` };
}

/** The first pause of waitForRecord: the platform writes a record shortly after it posted the result. */
const FIRST_PAUSE_MS = 500;

/** A call's own record with its dial status (notTheRecord passed): its outcome, unless it contradicts itself. */
function asRecord(body: IDataObject): StatusRead {
	// A record that also says something went wrong (an error, success false) is trusted neither way.
	const contradiction = acceptanceContradiction(body);
	if (contradiction) return { kind: 'unusable', why: `the status read answered a record that contradicts itself (${contradiction})` };
	return { kind: 'record', dialStatus: normalizeDialStatus(body.dialStatus), record: body };
}

export interface Applied {
	row?: ContactRow;
	state: string;
	reason: string;
}

/**
 * Applies `dialStatus` to a placed contact: answered; pending again when the Retry Policy calls it again (due when
 * it says); finished otherwise. Undefined when the row was no longer the placed call (already recorded, or changed).
 */
export async function applyResult(
	ctx: IExecuteFunctions,
	table: ContactsTable,
	row: ContactRow,
	dialStatus: string,
	policy: RetryPolicy,
	now: number,
): Promise<Applied | undefined> {
	const status = normalizeDialStatus(dialStatus);
	const decision = decideNextCall(policy, status, row.attempt, now);
	const state = status === 'ANSWER' ? 'answered' : decision.callAgain ? 'pending' : 'finished';
	const data: IDataObject = { campaignState: state, dialStatus: status, reason: decision.reason, claimToken: '' };
	if (state === 'pending') data.nextAttemptAt = Date.parse(String(decision.at));
	const written = await changeRow(ctx, table, row, data, [
		{ columnName: 'campaignState', condition: 'eq', value: 'placed' },
		{ columnName: 'internalId', condition: 'eq', value: String(row.internalId ?? '') },
	]);
	return written ? { row: written, state, reason: decision.reason } : undefined;
}

/** Marks a contact unknown: the call may have been placed and what happened is not known; never dialled again automatically. */
export async function markUnknown(ctx: IExecuteFunctions, table: ContactsTable, row: ContactRow, reason: string, extra: IDataObject = {}): Promise<ContactRow | undefined> {
	return await changeRow(ctx, table, row, { campaignState: 'unknown', reason, ...extra });
}
