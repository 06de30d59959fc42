import type { IDataObject } from 'n8n-workflow';

import { normalizeDialStatus } from '../shared/calls/dialStatuses';
import { splitList } from '../shared/core/text';
import { parseContextQuery } from '../shared/campaign/resultContext';

/*
 * What the trigger adds to a Call Result: the Result Context the placement put in the Call Result URL's query
 * (read only after the secret in the path was checked), under `context`; null for a result without one (placed
 * without one, or a platform that dropped the query). Whether to call again is not decided here: a list is called
 * to completion by the Campaign resource, whose Record Call Result applies the result to its contact.
 */

/** The raw query string of the request (after "?"), whatever n8n's own query parser made of it. */
function rawQuery(url: unknown): string {
	if (typeof url !== 'string') return '';
	const start = url.indexOf('?');
	if (start < 0) return '';
	const end = url.indexOf('#', start);
	return url.slice(start + 1, end < 0 ? undefined : end);
}

export type ContextOfResult = { ok: true; fields: IDataObject } | { ok: false; reason: string };

/** The `context` of a Call Result from its request URL, or why the context there is refused (no placement makes it). */
export function callResultContext(requestUrl: unknown): ContextOfResult {
	const parsed = parseContextQuery(rawQuery(requestUrl));
	if (!parsed.ok) return { ok: false, reason: `the Result Context in the URL is not valid: ${parsed.reason}` };
	return { ok: true, fields: { context: parsed.present ? parsed.context : null } };
}

/** The Dial Status filter: the statuses chosen and the ones typed under Other Dial Statuses. */
export function filterStatuses(filters: IDataObject): Set<string> {
	const chosen = Array.isArray(filters.dialStatuses) ? filters.dialStatuses.map(normalizeDialStatus) : [];
	return new Set([...chosen, ...splitList(filters.otherDialStatuses).map(normalizeDialStatus)].filter((s) => s !== ''));
}
