import type { IDataObject, INode } from 'n8n-workflow';

import { normalizeDialStatus } from '../shared/calls/dialStatuses';
import { splitList } from '../shared/core/text';
import { parseContextQuery } from '../shared/campaign/resultContext';
import { decideNextCall, noCall, readRetryPolicy } from '../shared/campaign/retryPolicy';
import type { NextCall } from '../shared/campaign/retryPolicy';

/*
 * What the trigger adds to a Call Result: the attempt and Result Context the placement put in the Call
 * Result URL's query (read only after the secret in the path was checked), and the Retry Policy's
 * decision. A result without context (placed without one, or a platform that dropped the query) is
 * never called again automatically: its attempt is not known.
 */

/** The raw query string of the request (after "?"), whatever n8n's own query parser made of it. */
function rawQuery(url: unknown): string {
	if (typeof url !== 'string') return '';
	const start = url.indexOf('?');
	if (start < 0) return '';
	const end = url.indexOf('#', start);
	return url.slice(start + 1, end < 0 ? undefined : end);
}

export type CampaignOfResult = { ok: true; fields: IDataObject } | { ok: false; reason: string };

export function callResultCampaign(
	node: INode,
	requestUrl: unknown,
	retryPolicy: () => unknown,
	dialStatus: string,
	receivedAt: number,
): CampaignOfResult {
	const parsed = parseContextQuery(rawQuery(requestUrl));
	if (!parsed.ok) return { ok: false, reason: `the Result Context in the URL is not valid: ${parsed.reason}` };
	let nextCall: NextCall;
	try {
		nextCall = decideNextCall(readRetryPolicy(node, retryPolicy()), dialStatus, parsed.present ? parsed.attempt : null, receivedAt);
	} catch (error) {
		// A policy that does not read (an expression gone wrong) must not lose the result.
		nextCall = noCall(`not decided: ${(error as Error).message}`);
	}
	return {
		ok: true,
		fields: {
			attempt: parsed.present ? parsed.attempt : null,
			context: parsed.present ? parsed.context : null,
			nextCall,
		},
	};
}

/** The Dial Status filter: the statuses chosen and the ones typed under Other Dial Statuses. */
export function filterStatuses(filters: IDataObject): Set<string> {
	const chosen = Array.isArray(filters.dialStatuses) ? filters.dialStatuses.map(normalizeDialStatus) : [];
	return new Set([...chosen, ...splitList(filters.otherDialStatuses).map(normalizeDialStatus)].filter((s) => s !== ''));
}
