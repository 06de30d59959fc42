import type { IDataObject } from 'n8n-workflow';

import type { Parsed } from '../shared/calls/callResult';
import { isObject } from '../shared/core/object';
import { MAX_CALLBACK_BODY_BYTES } from '../shared/n8n/webhookReply';

/** The three events, their option values and the last path segment of their URL. */
export const EVENTS = [
	{ value: 'callResult', slug: 'call-result', name: 'Call Result' },
	{ value: 'conversationEnd', slug: 'conversation-end', name: 'Conversation End' },
	{ value: 'extractedData', slug: 'extracted-data', name: 'Extracted Data' },
] as const;

export type EventName = (typeof EVENTS)[number]['value'];

/** Events whose platform configuration the trigger can set when the workflow is published. */
export const REGISTRABLE_EVENTS: EventName[] = ['conversationEnd', 'extractedData'];

export function eventBySlug(slug: string): EventName | undefined {
	return EVENTS.find((event) => event.slug === slug)?.value;
}

export function slugOf(event: EventName): string {
	return EVENTS.find((e) => e.value === event)!.slug;
}

/** Largest body accepted (1 MiB, the one bound of every callback: nodes/shared/n8n/webhookReply.ts). */
export const MAX_BODY_BYTES = MAX_CALLBACK_BODY_BYTES;

/**
 * Reads the JSON body: from the raw bytes when n8n kept them (any content type), else from the body
 * n8n parsed. Anything but a JSON object is refused.
 */
export function readJsonObject(rawBody: unknown, parsedBody: unknown): Parsed<IDataObject> {
	let value: unknown;
	if (rawBody instanceof Uint8Array && rawBody.length > 0) {
		const text = Buffer.from(rawBody).toString('utf8');
		try {
			value = JSON.parse(text);
		} catch {
			return { ok: false, reason: 'the body is not valid JSON' };
		}
	} else if (typeof parsedBody === 'string') {
		if (parsedBody.trim() === '') return { ok: false, reason: 'the body is empty; a JSON object is expected' };
		try {
			value = JSON.parse(parsedBody);
		} catch {
			return { ok: false, reason: 'the body is not valid JSON' };
		}
	} else if (isObject(parsedBody) && Object.keys(parsedBody).length > 0) {
		value = parsedBody;
	} else {
		return { ok: false, reason: 'the body is empty; a JSON object is expected' };
	}
	if (!isObject(value)) {
		return {
			ok: false,
			reason: `the body must be a JSON object, not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`,
		};
	}
	return { ok: true, value };
}

/** The correlation fields a conversation-end or extracted-data body may carry (not required). */
export function correlationFields(body: IDataObject): IDataObject {
	const out: IDataObject = {};
	const assistantId = body.assistantId ?? body.assistant_id;
	if (typeof assistantId === 'string' && assistantId !== '') out.assistantId = assistantId;
	const internalId = body.internal_id ?? body.internalId;
	if ((typeof internalId === 'string' && internalId !== '') || typeof internalId === 'number') {
		out.internal_id = internalId;
	}
	return out;
}
