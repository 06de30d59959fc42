import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as add from './add';
import * as check from './check';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['doNotCallList'] } },
		options: [
			{
				name: 'Add Number',
				value: 'add',
				action: 'Add a number to the do not call list',
				description: 'Adds a number (or a prefix) to the do-not-call list, with where the request came from and when: every call guarded by the list refuses it from then on',
			},
			{
				name: 'Check Number',
				value: 'check',
				action: 'Check a number on the do not call list',
				description: 'Whether a number is on the do-not-call list, itself or under a prefix. Read-only.',
			},
		],
		default: 'add',
	},
	...add.description,
	...check.description,
];

export const doNotCallListResource: ResourceModule = {
	resource: {
		name: 'Do-Not-Call List',
		value: 'doNotCallList',
		description: 'The numbers never called, checked before every call that has Guardrails > Do-Not-Call List set',
	},
	properties,
	operations: { add: add.execute, check: check.execute },
};
