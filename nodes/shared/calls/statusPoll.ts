import { sleep } from 'n8n-workflow';

import type { SizeLimit } from '../transport/answer';
import type { RequestContext } from '../transport/endpoint';
import { outboundBaseUrl } from '../transport/endpoint';
import type { PlatformResponse } from '../transport/request';
import { platformRequest } from '../transport/request';
import type { RequestSettings } from '../transport/settings';

import { MB, OUTBOUND_CREDENTIAL } from '../core/constants';
import { notTheRecord } from './callResult';
import { outboundApi } from '../transport/outbound';

/** The backoff between two status reads while the record is pending never grows past this. */
export const STATUS_POLL_MAX_DELAY_MS = 30_000;

/**
 * A status record is a few fields. A caller that reads many at once (Max Calls in Flight, a dial run settling its
 * calls) reads each answer up to this bound, or Max Response Size when smaller; `reader` names it in the error.
 */
export function statusRecordLimit(reader: string): SizeLimit {
	return { bytes: MB, setting: `${reader} reads a status record up to 1 MB` };
}

export function statusPath(internalId: string): string {
	return `/getDialstatus/${encodeURIComponent(internalId)}`;
}

/**
 * One status read: retried on 429/5xx/resets (Retry-After honoured); a 404 is returned, not thrown.
 * `baseURL`: outboundBaseUrl read once by a caller that reads many statuses. `sizeLimit`: a tighter bound
 * on the answer than Max Response Size, for a caller that reads many statuses at once.
 */
export async function readStatusOnce(
	ctx: RequestContext,
	settings: RequestSettings,
	internalId: string,
	itemIndex?: number,
	baseURL?: string,
	sizeLimit?: SizeLimit,
): Promise<PlatformResponse> {
	if (!sizeLimit) {
		return await outboundApi(ctx, settings, 'GET', statusPath(internalId), {
			retry: true,
			itemIndex,
			passStatuses: [404],
			baseURL,
		});
	}
	// The request outboundApi sends, with the tighter bound on its answer.
	return await platformRequest(
		ctx,
		OUTBOUND_CREDENTIAL,
		{
			method: 'GET',
			baseURL: baseURL ?? (await outboundBaseUrl(ctx)),
			url: statusPath(internalId),
			headers: { Accept: 'application/json' },
			json: true,
			...settings,
		},
		{ retry: true, itemIndex, passStatuses: [404], sizeLimit },
	);
}

export interface PollPolicy {
	maxWaitMs: number;
	initialDelayMs: number;
	maxDelayMs?: number;
}

export interface PollResult {
	/** The call's record with its outcome was read (notTheRecord). */
	found: boolean;
	response: PlatformResponse;
	attempts: number;
	waitedMs: number;
	/** When not found: why the last answer that was not a 404 did not end the call; undefined when every read was 404. */
	notEnded?: string;
}

/**
 * Reads the status until the call's record with its outcome is there or the max wait has passed: a 404 (not
 * persisted yet), `{}`, a record without a dial status or another call's record all mean "read again" (they never
 * end a call, notTheRecord). `sizeLimit`: as readStatusOnce's. Exponential backoff from the initial delay,
 * doubling up to 30 s, with a last read at the deadline.
 */
export async function pollStatus(
	ctx: RequestContext,
	settings: RequestSettings,
	internalId: string,
	policy: PollPolicy,
	itemIndex?: number,
	baseURL?: string,
	sizeLimit?: SizeLimit,
): Promise<PollResult> {
	const started = Date.now();
	const deadline = started + Math.max(0, policy.maxWaitMs);
	const maxDelay = policy.maxDelayMs ?? STATUS_POLL_MAX_DELAY_MS;
	let delay = Math.max(1, policy.initialDelayMs);
	let attempts = 0;
	let notEnded: string | undefined;
	for (;;) {
		attempts++;
		const response = await readStatusOnce(ctx, settings, internalId, itemIndex, baseURL, sizeLimit);
		if (response.statusCode !== 404) {
			notEnded = notTheRecord(internalId, response.body);
			if (notEnded === undefined) return { found: true, response, attempts, waitedMs: Date.now() - started };
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			return { found: false, response, attempts, waitedMs: Date.now() - started, notEnded };
		}
		await sleep(Math.min(delay, remaining));
		delay = Math.min(delay * 2, maxDelay);
	}
}
