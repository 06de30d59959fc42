import type { IExecuteSingleFunctions } from 'n8n-workflow';

import { invalid } from '../../shared/validation';

export const showFor = (operation: string) => ({ resource: ['runtime'], operation: [operation] });

/** A boolean parameter, tolerating "true"/"false" from an expression; anything else is rejected. */
export function readBoolean(
	ctx: IExecuteSingleFunctions,
	parameter: string,
	label: string,
	fallback: boolean,
): boolean {
	const value = ctx.getNodeParameter(parameter, fallback) as unknown;
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalid(ctx.getNode(), label, `must be true or false (got ${JSON.stringify(value)})`, ctx.getItemIndex());
}

/** A text parameter, trimmed; numbers are accepted as text, null/undefined as empty. */
export function readText(value: unknown): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' ? value.trim() : '';
}

/** Splits a comma-separated list (or takes an array from an expression), trimming and dropping empties. */
export function splitList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return parts.map((part) => readText(part)).filter((part) => part !== '');
}
