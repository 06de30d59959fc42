import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../core/object';

/*
 * An acceptance of a call (a 2xx answer with an internal_id) that also says the call was not placed
 * contradicts itself: Place Call and Call and Wait treat it as a failed placement whose outcome is
 * unknown (docs/assumptions.md, "The platform as untrusted input").
 */

/** Flags that, when false, say the call was not placed. */
const FLAGS = ['placed', 'accepted', 'success', 'ok'];
/** Fields whose text may name a refusal. */
const STATES = ['status', 'outcome', 'result', 'state'];
const REFUSAL = /^(rejected|refused|denied|declined|failed|failure|error|invalid|cancell?ed|not[ _-]?(placed|accepted))$/i;

const shown = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * What in an acceptance says the call was not placed (field names and short values, for an error),
 * or undefined when nothing does: a flag that is false, a status or outcome that names a refusal, or
 * an error (an object or a text).
 */
export function acceptanceContradiction(answer: IDataObject): string | undefined {
	const found: string[] = [];
	for (const field of FLAGS) {
		const value = answer[field];
		if (value === false || value === 0 || (typeof value === 'string' && /^(false|no)$/i.test(value.trim()))) {
			found.push(`${field}: ${typeof value === 'string' ? shown(value) : String(value)}`);
		}
	}
	for (const field of STATES) {
		const value = answer[field];
		if (typeof value === 'string' && REFUSAL.test(value.trim())) found.push(`${field}: ${shown(value)}`);
	}
	const error = answer.error;
	if (typeof error === 'string' && error.trim() !== '') found.push(`error: ${shown(error)}`);
	if (isObject(error) && Object.keys(error).length > 0) {
		found.push(typeof error.code === 'string' ? `error: code ${shown(error.code)}` : 'error: an object');
	}
	return found.length > 0 ? found.join(', ') : undefined;
}
