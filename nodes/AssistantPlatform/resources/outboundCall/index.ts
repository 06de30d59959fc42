import type { INodeProperties } from 'n8n-workflow';

import { callsPerRunProperty } from '../../../shared/agent/callsPerRun';
import type { ResourceModule } from '../../helpers/module';

import * as placeCall from './placeCall';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['outboundCall'] } },
		options: [
			{
				name: 'Place Call',
				value: 'placeCall',
				action: 'Place a real phone call',
				description:
					'Places a real phone call: the assistant dials the destination number, through the platform trunks or your PBX. One call per input item, never retried automatically. Returns internal_id to correlate the call result. To wait for the result in the same workflow, use the Assistant Platform Call and Wait node.',
			},
		],
		default: 'placeCall',
	},
	...placeCall.description,
	callsPerRunProperty({ resource: ['outboundCall'], operation: ['placeCall'] }),
];

export const outboundCallResource: ResourceModule = {
	resource: {
		name: 'Outbound Call',
		value: 'outboundCall',
		description: 'Place phone calls through the platform trunks or your PBX',
	},
	properties,
	operations: { placeCall: placeCall.execute },
};
