import { sleep } from 'n8n-workflow';

import type { SizeLimit } from '../transport/answer';
import type { RequestContext } from '../transport/endpoint';
import { outboundBaseUrl } from '../transport/endpoint';
import type { PlatformResponse } from '../transport/request';
import { platformRequest } from '../transport/request';
import type { RequestSettings } from '../transport/settings';

import { MB, OUTBOUND_CREDENTIAL } from '../core/constants';
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
	found: boolean;
	response: PlatformResponse;
	attempts: number;
	waitedMs: number;
}

/**
 * Reads the status until the record exists (anything but 404) or the max wait has passed:
 * exponential backoff from the initial delay, doubling up to 30 s, with a last read at the deadline.
 */
export async function pollStatus(
	ctx: RequestContext,
	settings: RequestSettings,
	internalId: string,
	policy: PollPolicy,
	itemIndex?: number,
	baseURL?: string,
): Promise<PollResult> {
	const started = Date.now();
	const deadline = started + Math.max(0, policy.maxWaitMs);
	const maxDelay = policy.maxDelayMs ?? STATUS_POLL_MAX_DELAY_MS;
	let delay = Math.max(1, policy.initialDelayMs);
	let attempts = 0;
	for (;;) {
		attempts++;
		const response = await readStatusOnce(ctx, settings, internalId, itemIndex, baseURL);
		if (response.statusCode !== 404) {
			return { found: true, response, attempts, waitedMs: Date.now() - started };
		}
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			return { found: false, response, attempts, waitedMs: Date.now() - started };
		}
		await sleep(Math.min(delay, remaining));
		delay = Math.min(delay * 2, maxDelay);
	}
}
