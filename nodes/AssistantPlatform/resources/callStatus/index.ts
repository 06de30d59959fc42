import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as get from './get';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['callStatus'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get the status of a call',
				description:
					'Read the outcome of a placed call: dial status, billed seconds and traffic cost (GET /getDialstatus/{internal_id}). Read-only: it never places a call.',
			},
		],
		default: 'get',
	},
	...get.description,
];

export const callStatusResource: ResourceModule = {
	resource: {
		name: 'Call Status',
		value: 'callStatus',
		description: 'Read the outcome of a placed call',
	},
	properties,
	operations: { get: get.execute },
};
