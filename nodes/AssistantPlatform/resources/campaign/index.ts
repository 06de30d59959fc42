import type { INodeProperties } from 'n8n-workflow';

import { placementProperties } from '../../../shared/placementFields';
import type { ResourceModule } from '../../helpers/module';

import * as control from './control';
import * as dial from './dial';
import { contactsTableProperty, dialProperties } from './fields';
import * as recordResult from './recordResult';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['campaign'] } },
		options: [
			{
				name: 'Dial Due Contacts',
				value: 'dial',
				action: 'Dial the due contacts of a campaign',
				description:
					'Places the calls that are due, as many as lines are free, keeping every contact\'s state in its data table; run it on a schedule. Places real calls, each once.',
			},
			{
				name: 'Get Summary',
				value: 'summary',
				action: 'Get the summary of a campaign',
				description: 'Counts the contacts by state: in flight, answered, out of attempts, unknown, due. Read-only.',
			},
			{
				name: 'Pause',
				value: 'pause',
				action: 'Pause a campaign',
				description: 'Dial runs place no calls until Resume; calls in flight end and are recorded',
			},
			{
				name: 'Prepare Contacts Table',
				value: 'prepare',
				action: 'Prepare a contacts table for a campaign',
				description: "Adds the campaign's state columns to a data table of contacts",
			},
			{
				name: 'Record Call Result',
				value: 'recordResult',
				action: 'Record a call result in a campaign',
				description: 'Applies a call result to its contact by internal_id, once, and schedules the next attempt by the Retry Policy',
			},
			{
				name: 'Resume',
				value: 'resume',
				action: 'Resume a campaign',
				description: 'Dial runs place calls again',
			},
			{
				name: 'Stop',
				value: 'stop',
				action: 'Stop a campaign',
				description: 'Dial runs place no calls, for good; results of calls in flight are still recorded',
			},
		],
		default: 'dial',
	},
	contactsTableProperty(['dial', 'summary', 'pause', 'prepare', 'recordResult', 'resume', 'stop']),
	...dialProperties,
	...placementProperties({ resource: ['campaign'], operation: ['dial'] }, 'campaignDial'),
	...recordResult.description,
];

export const campaignResource: ResourceModule = {
	resource: {
		name: 'Campaign',
		value: 'campaign',
		description: 'Call a contact list kept in a data table, in short runs, surviving restarts',
	},
	properties,
	operations: {
		dial: dial.execute,
		summary: control.summary,
		pause: control.pause,
		prepare: control.prepare,
		recordResult: recordResult.execute,
		resume: control.resume,
		stop: control.stop,
	},
};
