import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as request from './request';

const { RESOURCE } = request;

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			{
				name: 'Request',
				value: 'request',
				action: 'Make a custom API request',
				description: 'Send a request to any management API path with the portal credential',
			},
		],
		default: 'request',
	},
	...request.description,
];

export const customApiRequestResource: ResourceModule = {
	resource: {
		name: 'Custom API Request',
		value: RESOURCE,
		description: 'Call any management API endpoint with the portal credential',
	},
	properties,
	operations: { request: request.execute },
};
