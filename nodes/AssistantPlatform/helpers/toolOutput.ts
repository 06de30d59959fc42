import type { IDataObject, INodeExecutionData, NodeOutput } from 'n8n-workflow';

import { isKeyField, replaceFields } from './assistantKey';
import { dialStatusInWords, normalizeDialStatus } from '../../shared/calls/dialStatuses';
import { redactSecrets } from '../../shared/core/redact';
import { isObject } from '../../shared/core/object';
import { acceptedCallMessage } from '../../shared/calls/messages';

/*
 * What the model of an AI agent reads back from a tool is the tool's output: n8n hands it the JSON of every output
 * item (and keeps the same in the execution). One rule for every operation, applied where the node's output is
 * built for a tool run (the node's execute): no key reaches the model, whether the platform issued it (a new
 * assistant's key from Assistant → Create or Custom API Request POST /assistants), echoed it, or an option asked
 * for it. The keys the credentials hold are already redacted by the transport; this rule covers the keys no
 * credential knows.
 */

/**
 * `value` without its key fields (isKeyField), at any depth, and without their values anywhere else in it (a key
 * repeated in a message or a URL is redacted as "***"). Objects without a key are returned as they are.
 */
export function withoutKeys<T>(value: T): T {
	const found: string[] = [];
	const stripped = replaceFields(value, isKeyField, (child) => {
		if (typeof child === 'string' && child !== '') found.push(child);
		return {};
	});
	return found.length > 0 ? redactSecrets(stripped, found) : stripped;
}

/** Call Status → Get, for the model: what happened to the call, or that it is still in progress. */
export function callStatusInWords(json: IDataObject): string {
	const status = typeof json.dialStatus === 'string' ? normalizeDialStatus(json.dialStatus) : null;
	if (json.outcomeUnknown === true) {
		return 'Ended, but the platform\'s record of the call contradicts itself, so what happened is not known: do not place the call again; tell the user to check the platform\'s call log.';
	}
	if (status === null) {
		return 'Still in progress: the call is ringing or under way, or has just ended and its record is not written yet. Ask again in a minute; do not place the call again.';
	}
	const billed = status === 'ANSWER' && typeof json.billSec === 'number' ? ` and lasted ${json.billSec} s (billed)` : '';
	return dialStatusInWords(status, billed) ?? `Ended: the platform reports the call as ${String(json.dialStatus)}.`;
}

/** Per operation, the sentence a model reads with each item it gets back (resource.operation -> item -> words). */
const ANSWERS: Record<string, (json: IDataObject) => string | undefined> = {
	'outboundCall.placeCall': (json) => (json.internal_id !== undefined ? acceptedCallMessage(json.dst, json.internal_id) : undefined),
	'callStatus.get': (json) => (json.internal_id !== undefined ? callStatusInWords(json) : undefined),
};

/** One item for the model: without keys, with the words of its operation (an error item is left as it is). */
function itemForModel(json: IDataObject, answer: ((json: IDataObject) => string | undefined) | undefined): IDataObject {
	const clean = withoutKeys(json);
	const message = answer && clean.error === undefined ? answer(clean) : undefined;
	return message === undefined ? clean : { ...clean, message };
}

/**
 * The node's output as a tool gives it to the model: every item without keys (see withoutKeys), and for Place Call
 * and Call Status a `message` in words (what happened, what to keep, what not to do).
 */
export function outputForModel(output: NodeOutput, resource: string, operation: string): NodeOutput {
	if (!Array.isArray(output)) return output;
	const answer = ANSWERS[`${resource}.${operation}`];
	return output.map((items) =>
		(items as INodeExecutionData[]).map((item) => (isObject(item.json) ? { ...item, json: itemForModel(item.json, answer) } : item)),
	) as NodeOutput;
}
