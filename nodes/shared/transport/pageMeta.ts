import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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
