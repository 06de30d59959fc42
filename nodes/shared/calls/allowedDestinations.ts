import type { INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertNotFromModel } from '../n8n/agentTool';
import { splitList } from '../core/text';
import { invalid } from '../core/validation';

/*
 * Allowed Destinations (Place Call, Call and Wait; docs/assumptions.md, "AI agents"): an optional list of number
 * prefixes; a destination outside it is refused before anything is sent. Toll fraud through premium-rate numbers
 * is the classic telephony attack, and an AI agent fed a hostile prompt or document is a new way to it.
 */


/** A number prefix: a plus, then 1 to 15 digits, the first not 0 (a country code, or longer). */
const PREFIX = /^\+[1-9]\d{0,14}$/;

/** The Allowed Destinations field, with the display condition of the operation (`display`). */
export function allowedDestinationsProperty(display: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Allowed Destinations',
		name: 'allowedDestinations',
		type: 'string',
		default: '',
		placeholder: 'e.g. +39, +4420',
		description:
			'Number prefixes calls may go to, separated by commas or new lines: country codes (+39) or longer prefixes (+4420 for London). Any other destination is refused before anything is sent. Empty: any destination. Keeps premium-rate numbers out (toll fraud), also when an AI agent or a document chooses the number: prefer the narrowest prefixes you need.',
		...display,
	};
}

/** The prefixes of Allowed Destinations; empty when every destination is allowed. */
export function readAllowedDestinations(node: INode, raw: unknown, itemIndex?: number): string[] {
	// Anything but text or a list is one entry as its text ("39", "true"), refused below, never read as empty.
	const list = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' || raw == null ? raw : [String(raw)];
	const prefixes = splitList(list, { words: true });
	for (const prefix of prefixes) {
		if (!PREFIX.test(prefix)) {
			throw invalid(
				node,
				'Allowed Destinations',
				`"${prefix}" is not a number prefix: write + and the first digits of the numbers to allow, e.g. +39 or +4420`,
				itemIndex,
			);
		}
	}
	return prefixes;
}

/** Refuses `dst` (already E.164) unless it starts with one of the Allowed Destinations (when there are any). */
export function assertAllowedDestination(node: INode, dst: string, raw: unknown, itemIndex?: number): void {
	assertNotFromModel(node, 'allowedDestinations', 'Allowed Destinations', itemIndex);
	const prefixes = readAllowedDestinations(node, raw, itemIndex);
	if (prefixes.length === 0 || prefixes.some((prefix) => dst.startsWith(prefix))) return;
	throw new NodeOperationError(node, `Invalid "Destination Number": ${dst} is not in Allowed Destinations (${prefixes.join(', ')})`, {
		itemIndex,
		description:
			'Allowed Destinations (in this node) lists the number prefixes calls may go to; any other destination is refused before anything is sent. Add the prefix if this number should be called.',
	});
}

// -------------------------------------------------------------------------------------- Max Calls per Agent Run
