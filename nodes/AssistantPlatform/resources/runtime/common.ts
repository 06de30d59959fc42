import type { IExecuteSingleFunctions } from 'n8n-workflow';

import { showOperations } from '../../shared/module';
import { invalid } from '../../shared/validation';

export { readText, splitList } from '../../../shared/text';

export const showFor = showOperations('runtime');

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
