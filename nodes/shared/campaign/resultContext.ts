import type { IDataObject, INode } from 'n8n-workflow';

import { isObject } from '../core/object';
import { invalid, kindOf } from '../core/validation';
import type { Placement } from '../calls/placement';
import { REDACTED } from '../core/redact';

/*
 * Result Context: a few fields (contact id, ...) that come back with a call's result, so the workflow that
 * receives it knows whom it is about without a lookup table.
 *
 * They travel in the Call Result URL's query string (`ctx_contactId=42`): the platform posts the result to
 * that exact URL, the trigger reads them after it has checked its secret (a path segment of the same URL).
 * Nothing is stored anywhere. Place Call carries Options > Result Context; a campaign's dial run carries its
 * contact's claim. The limits keep the URL short and plain (many systems cut URLs near 2,000 bytes).
 */

export const CONTEXT_PREFIX = 'ctx_';
export const MAX_CONTEXT_FIELDS = 10;
export const MAX_CONTEXT_VALUE_LENGTH = 200;
/** The most bytes a context may add to the Call Result URL, measured by contextBytes. */
export const MAX_CONTEXT_BYTES = 1024;
/** A name: a letter, then letters, digits or "_", at most 32 (also a safe JSON key and query name). */
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
/** Control characters (C0, DEL, C1) and unpaired surrogates have no place in a URL or a value shown in n8n. */
function hasForbiddenCharacter(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
		if (code >= 0xd800 && code <= 0xdbff) {
			const next = text.charCodeAt(i + 1);
			if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
			i++;
		} else if (code >= 0xdc00 && code <= 0xdfff) {
			return true;
		}
	}
	return false;
}

export type ResultContext = Record<string, string>;

export const CONTEXT_RULES = `at most ${MAX_CONTEXT_FIELDS} fields; names of 1 to 32 letters, digits and "_" starting with a letter; values text or numbers of at most ${MAX_CONTEXT_VALUE_LENGTH} characters, without control characters; ${MAX_CONTEXT_BYTES} bytes in all once encoded`;

/** Reads the Result Context fields ({fields: [{name, value}]}) and checks them against CONTEXT_RULES. */
export function readResultContext(node: INode, raw: unknown, itemIndex: number): ResultContext {
	const field = 'Result Context';
	const entries = isObject(raw) && Array.isArray(raw.fields) ? (raw.fields as IDataObject[]) : [];
	if (entries.length > MAX_CONTEXT_FIELDS) {
		throw invalid(node, field, `has ${entries.length} fields; at most ${MAX_CONTEXT_FIELDS} are carried to the result`, itemIndex);
	}
	const context: ResultContext = {};
	for (const entry of entries) {
		const name = typeof entry.name === 'string' ? entry.name.trim() : '';
		if (!NAME.test(name)) {
			throw invalid(
				node,
				field,
				`field name "${String(entry.name ?? '')}" is not allowed: 1 to 32 letters, digits and "_", starting with a letter`,
				itemIndex,
			);
		}
		if (Object.hasOwn(context, name)) throw invalid(node, field, `names "${name}" twice`, itemIndex);
		const value = entry.value;
		let text: string;
		if (typeof value === 'string') text = value;
		else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
		else if (typeof value === 'boolean') text = String(value);
		else if (value === undefined || value === null) text = '';
		else throw invalid(node, field, `"${name}" must be text or a number, not ${kindOf(value)} (check the expression)`, itemIndex);
		if (text.length > MAX_CONTEXT_VALUE_LENGTH) {
			throw invalid(node, field, `"${name}" has ${text.length} characters; at most ${MAX_CONTEXT_VALUE_LENGTH} are carried`, itemIndex);
		}
		if (hasForbiddenCharacter(text)) {
			throw invalid(node, field, `"${name}" contains a control character (line break, tab, ...) or a broken character: not allowed in a URL`, itemIndex);
		}
		context[name] = text;
	}
	const bytes = contextBytes(context);
	if (bytes > MAX_CONTEXT_BYTES) {
		throw invalid(node, field, `is ${bytes} bytes once encoded for the Call Result URL; at most ${MAX_CONTEXT_BYTES}`, itemIndex);
	}
	return context;
}

/** The query string the context adds: `ctx_<name>=<value>...`. */
export function contextQuery(context: ResultContext): string {
	const params = new URLSearchParams();
	for (const [name, value] of Object.entries(context)) params.set(`${CONTEXT_PREFIX}${name}`, value);
	return params.toString();
}

/**
 * The size of a context: the bytes of the query it adds to the Call Result URL (contextQuery, all ASCII
 * once encoded). One measure for Place Call, which refuses a larger context before sending it, and for the
 * trigger, which refuses one it receives.
 */
export function contextBytes(context: ResultContext): number {
	return contextQuery(context).length;
}

/**
 * The Call Result URL with the context appended to its query (whatever query it has is kept). A URL
 * that carries context parameters already is refused: the result would come back with two.
 */
export function urlWithContext(node: INode, url: string, context: ResultContext, itemIndex: number): string {
	const parsed = new URL(url);
	for (const key of parsed.searchParams.keys()) {
		if (key.startsWith(CONTEXT_PREFIX)) {
			throw invalid(
				node,
				'Call Result URL',
				`must not have a query parameter starting with "${CONTEXT_PREFIX}" (${key}): the Result Context is carried in them`,
				itemIndex,
			);
		}
	}
	const [beforeHash, hash] = url.split('#', 2);
	const separator = beforeHash.includes('?') ? (beforeHash.endsWith('?') || beforeHash.endsWith('&') ? '' : '&') : '?';
	return `${beforeHash}${separator}${contextQuery(context)}${hash !== undefined ? `#${hash}` : ''}`;
}

export type ParsedContext =
	| { ok: true; present: false }
	| { ok: true; present: true; context: ResultContext }
	| { ok: false; reason: string };

/**
 * The context of a request URL's query (raw text after "?"). No context parameter: not present (the
 * call was placed without one, or the platform dropped the query). Parameters that break the rules
 * above are refused: they were not made by a placement.
 */
export function parseContextQuery(query: string): ParsedContext {
	let params: URLSearchParams;
	try {
		params = new URLSearchParams(query);
	} catch {
		return { ok: false, reason: 'the query string is not readable' };
	}
	const context: ResultContext = {};
	let count = 0;
	for (const [key, value] of params) {
		if (!key.startsWith(CONTEXT_PREFIX)) continue;
		const name = key.slice(CONTEXT_PREFIX.length);
		if (!NAME.test(name) || Object.hasOwn(context, name)) return { ok: false, reason: `context parameter "${key}" is not allowed` };
		if (value.length > MAX_CONTEXT_VALUE_LENGTH || hasForbiddenCharacter(value)) {
			return { ok: false, reason: `context parameter "${key}" is too long or has a control character` };
		}
		if (++count > MAX_CONTEXT_FIELDS) return { ok: false, reason: `more than ${MAX_CONTEXT_FIELDS} context fields` };
		context[name] = value;
	}
	if (count === 0) return { ok: true, present: false };
	if (contextBytes(context) > MAX_CONTEXT_BYTES) return { ok: false, reason: `context longer than ${MAX_CONTEXT_BYTES} bytes` };
	return { ok: true, present: true, context };
}

/**
 * Adds a Result Context to the call's Call Result URL, when it has one: the body sent carries it to the result,
 * the summary shown says the URL's query is redacted.
 */
export function carryInCallResultUrl(node: INode, i: number, placement: Placement, context: ResultContext): void {
	for (const field of ['callResultUrl', 'url_esito_chiamata']) {
		const url = placement.body[field];
		if (typeof url !== 'string') continue;
		placement.body[field] = urlWithContext(node, url, context, i);
		if (typeof placement.summary.callResultUrl === 'string' && !placement.summary.callResultUrl.endsWith(`?${REDACTED}`)) {
			placement.summary.callResultUrl = `${placement.summary.callResultUrl}?${REDACTED}`;
		}
	}
}
