import type { IDataObject } from 'n8n-workflow';

/** The three events, their option values and the last path segment of their URL. */
export const EVENTS = [
	{ value: 'callResult', slug: 'call-result', name: 'Call Result' },
	{ value: 'conversationEnd', slug: 'conversation-end', name: 'Conversation End' },
	{ value: 'extractedData', slug: 'extracted-data', name: 'Extracted Data' },
] as const;

export type EventName = (typeof EVENTS)[number]['value'];

export function eventBySlug(slug: string): EventName | undefined {
	return EVENTS.find((event) => event.slug === slug)?.value;
}

export function slugOf(event: EventName): string {
	return EVENTS.find((e) => e.value === event)!.slug;
}

/** Largest body accepted (1 MiB); a call result is under 200 bytes, extracted data a few KB. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

export interface CallResult {
	internal_id: string | number;
	dialStatus: string;
	duration: number;
}

/**
 * Validates a call result body: `internal_id` a non-empty string (a number is accepted and kept as
 * sent), `dialstatus` (or the variant `dialStatus`) a non-empty string, `duration` a non-negative
 * integer number of seconds (a string of digits is accepted and converted).
 */
export function parseCallResult(body: IDataObject): Parsed<CallResult> {
	const id = body.internal_id;
	const idOk =
		(typeof id === 'string' && id.trim() !== '') ||
		(typeof id === 'number' && Number.isFinite(id));
	if (!idOk) {
		return {
			ok: false,
			reason:
				id === undefined || id === null
					? 'internal_id is missing'
					: 'internal_id must be a non-empty string',
		};
	}

	const raw = body.dialstatus !== undefined && body.dialstatus !== null ? body.dialstatus : body.dialStatus;
	if (raw === undefined || raw === null) return { ok: false, reason: 'dialstatus is missing' };
	if (typeof raw !== 'string' || raw.trim() === '') {
		return { ok: false, reason: 'dialstatus must be a non-empty string' };
	}

	const d = body.duration;
	let duration: number | undefined;
	if (typeof d === 'number' && Number.isInteger(d) && d >= 0) duration = d;
	else if (typeof d === 'string' && /^\d{1,9}$/.test(d.trim())) duration = Number(d.trim());
	if (d === undefined || d === null) return { ok: false, reason: 'duration is missing' };
	if (duration === undefined) {
		return { ok: false, reason: 'duration must be a non-negative whole number of seconds' };
	}

	return { ok: true, value: { internal_id: id as string | number, dialStatus: raw, duration } };
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
