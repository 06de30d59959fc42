import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isObject } from '../core/object';
import { kindOf } from '../core/validation';

/**
 * meta.hasMore of a list page as the contract has it, a boolean, or what it was instead: a guess
 * ("true" as true, 1 as true) could end a list early without a word or follow it forever. One rule
 * for the page walk and the editor's list search.
 */
export function readHasMore(meta: unknown): { ok: true; value: boolean } | { ok: false; problem: string } {
	const value = meta !== null && typeof meta === 'object' ? (meta as IDataObject).hasMore : undefined;
	if (typeof value === 'boolean') return { ok: true, value };
	if (value === undefined) return { ok: false, problem: 'meta.hasMore is missing' };
	const shown =
		typeof value === 'string'
			? `the text ${JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value)}`
			: typeof value === 'number'
				? `the number ${value}`
				: kindOf(value);
	return { ok: false, problem: `meta.hasMore is ${shown}, not true or false` };
}

/** The next cursor of a list-search page (one page per request), or an error for a hasMore of the wrong type. */
export function listSearchCursor(node: INode, meta: unknown): string | undefined {
	const hasMore = readHasMore(meta);
	if (!hasMore.ok) {
		throw new NodeOperationError(node, `The platform answered a list page whose ${hasMore.problem}`, {
			description: 'The list cannot be read further: its pages do not say whether more follow.',
		});
	}
	const next = hasMore.value ? (meta as IDataObject).nextCursor : undefined;
	return typeof next === 'string' && next !== '' ? next : undefined;
}

/** How a field of the platform is named in an error: quoted, cut short (a name is platform text). */
const fieldName = (name: string) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);

/**
 * The items of a list answer. The spec shows only `meta` in a page ("an object including meta"): the items are
 * `data` when it is a list (as docs/assumptions.md assumes), else the one list beside `meta`; a page with no list
 * at all whose `meta.count` is 0 is empty (a platform may leave an empty list out). A bare list is the
 * unpaginated form. Anything else is a `problem` ("… with <problem>") and never an empty list: which field holds
 * the items is not known, and a guess could drop them without a word. One rule for the page walk, the editor's
 * list search and the provider catalog.
 */
export function pageItems(body: unknown): { ok: true; items: unknown[] } | { ok: false; problem: string } {
	if (Array.isArray(body)) return { ok: true, items: body };
	if (!isObject(body)) return { ok: false, problem: `${kindOf(body)} where a list or an object holding one was expected` };
	if (Array.isArray(body.data)) return { ok: true, items: body.data };
	const lists = Object.keys(body).filter((key) => key !== 'meta' && Array.isArray(body[key]));
	if (lists.length === 1) return { ok: true, items: body[lists[0]] as unknown[] };
	if (lists.length > 1) {
		const names = lists.slice(0, 5).map(fieldName).join(', ') + (lists.length > 5 ? ', …' : '');
		return { ok: false, problem: `no "data" list but several lists beside "meta" (${names}), so which holds the items is not known` };
	}
	if (isObject(body.meta) && body.meta.count === 0) return { ok: true, items: [] };
	return { ok: false, problem: 'no "data" list and no list beside "meta"' };
}

/**
 * The entries of a list-search page (one page per request) that carry their id (`idField`, a non-empty text or
 * a number): an entry without it cannot be chosen. A page whose items cannot be found is an error, not an empty list.
 */
export function listSearchEntries(node: INode, body: unknown, idField: string): IDataObject[] {
	const page = pageItems(body);
	if (!page.ok) {
		throw new NodeOperationError(node, `The platform answered a list page with ${page.problem}`, {
			description: 'The list cannot be offered. Choose By ID instead, or read the raw answer with Custom API Request.',
		});
	}
	return page.items.filter((entry): entry is IDataObject => {
		const id = isObject(entry) ? entry[idField] : undefined;
		return (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id));
	});
}
