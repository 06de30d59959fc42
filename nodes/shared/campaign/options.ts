import type { INode, INodeProperties } from 'n8n-workflow';

import { WEEKDAYS } from './callingHours';
import type { Placement } from '../calls/placement';
import type { ResultContext } from './resultContext';
import { urlWithContext } from './resultContext';
import { REDACTED } from '../core/redact';

/*
 * What a placement carries for whoever reads its result: the days and hours of a calling window (Dial Due Contacts'
 * Calling Hours), and how a Result Context (Place Call's, or a dial run's claim) joins the call's
 * Call Result URL.
 */

/** The days and hours of a calling window, as a campaign's Dial Due Contacts asks them. */
export const CALLING_WINDOW_FIELDS: INodeProperties[] = [
	{
		displayName: 'Days',
		name: 'days',
		type: 'multiOptions',
		default: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
		description: 'Days a window starts on',
		options: WEEKDAYS.map((day) => ({ name: day[0].toUpperCase() + day.slice(1), value: day })),
	},
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '09:00',
		placeholder: 'e.g. 09:00',
		description: 'Local time the window opens (HH:MM)',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '20:00',
		placeholder: 'e.g. 20:00',
		description:
			'Local time the window closes (HH:MM, 24:00 for midnight). Earlier than From: the window ends the next day (22:00 to 02:00).',
	},
];

/**
 * Adds a Result Context to the call's Call Result URL, when it has one: the body sent carries it to the result,
 * the summary shown says the URL's query is redacted.
 */
export function carryInCallResultUrl(node: INode, i: number, placement: Placement, context: ResultContext): void {
	for (const field of ['callResultUrl', 'url_esito_chiamata']) {
		const url = placement.body[field];
		if (typeof url !== 'string') continue;
		placement.body[field] = urlWithContext(node, url, context, i);
		if (typeof placement.summary.callResultUrl === 'string' && !placement.summary.callResultUrl.endsWith(`?${REDACTED}`)) {
			placement.summary.callResultUrl = `${placement.summary.callResultUrl}?${REDACTED}`;
		}
	}
}
