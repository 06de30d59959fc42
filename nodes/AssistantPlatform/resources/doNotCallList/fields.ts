import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_DO_NOT_CALL_TABLE } from '../../../shared/guards/doNotCall';
import { invalid, textField } from '../../../shared/core/validation';

/** The list both operations name: the same table Guardrails > Do-Not-Call List names. */
export function listProperty(operations: string[]): INodeProperties {
	return {
		displayName: 'Do-Not-Call List',
		name: 'list',
		type: 'string',
		required: true,
		default: DEFAULT_DO_NOT_CALL_TABLE,
		description:
			"The data table of this n8n (its name or ID) that holds the numbers never called: the one every call's Guardrails > Do-Not-Call List names. Add Number creates it when it is not there.",
		displayOptions: { show: { resource: ['doNotCallList'], operation: operations } },
	};
}

/** The list named at item `i`, never empty. */
export function readList(ctx: IExecuteFunctions, i: number): string {
	const list = textField(ctx.getNode(), 'Do-Not-Call List', ctx.getNodeParameter('list', i, DEFAULT_DO_NOT_CALL_TABLE), i);
	if (list === '') throw invalid(ctx.getNode(), 'Do-Not-Call List', 'must name a data table of this n8n (its name or ID)', i);
	return list;
}

/** A row of the list as both operations output it: the number and what was kept with it. */
export function entryJson(row: IDataObject): { phone: string; addedAt: string | null; source: string | null; note: string | null } {
	return { phone: row.phone as string, addedAt: (row.addedAt ?? null) as string | null, source: (row.source ?? null) as string | null, note: (row.note ?? null) as string | null };
}
