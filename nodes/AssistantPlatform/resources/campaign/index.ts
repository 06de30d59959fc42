import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import * as contacts from './contacts';
import * as dial from './dial';
import { contactsTableProperty } from './fields';
import * as pause from './pause';
import * as prepare from './prepare';
import * as recordResult from './recordResult';
import * as resume from './resume';
import * as stop from './stop';
import * as summary from './summary';

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
				name: 'Get Contacts',
				value: 'contacts',
				action: 'Get the contacts of a campaign',
				description: "Returns the contacts as a results view: each one's state, attempts, last outcome and cost, when it is called next and why. Read-only.",
			},
			{
				name: 'Get Summary',
				value: 'summary',
				action: 'Get the summary of a campaign',
				description: 'Counts the contacts by state (in flight, answered, out of attempts, unknown, due) and draws them: a picture, or a web page to leave open. Read-only.',
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
	contactsTableProperty(['contacts', 'dial', 'summary', 'pause', 'prepare', 'recordResult', 'resume', 'stop']),
	...contacts.description,
	...dial.description,
	...recordResult.description,
	...summary.description,
];

export const campaignResource: ResourceModule = {
	resource: {
		name: 'Campaign',
		value: 'campaign',
		description: 'Call a contact list kept in a data table, in short runs, surviving restarts',
	},
	properties,
	operations: {
		contacts: contacts.execute,
		dial: dial.execute,
		summary: summary.execute,
		pause: pause.execute,
		prepare: prepare.execute,
		recordResult: recordResult.execute,
		resume: resume.execute,
		stop: stop.execute,
	},
};
