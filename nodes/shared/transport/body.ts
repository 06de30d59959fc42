import type { IDataObject } from 'n8n-workflow';

import { MAX_JSON_DEPTH, redactSecrets, URL_FIELDS, urlSecrets } from '../core/redact';
import type { Endpoint } from './endpoint';

/*
 * The answer's body as the node may use it: parsed, and with every secret of the request redacted
 * before anything reads it.
 */

/** Body fields that carry a secret of the request itself (an assistant key given as an override). */
const SECRET_BODY_FIELDS = ['assistantApiKey', 'apiKey_assistente'];

/** The values redacted from the answer: the credential's secrets and those the request's body carries. */
export function secretsOf(endpoint: Endpoint, body: unknown): string[] {
	const secrets = [...endpoint.secrets];
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		for (const field of SECRET_BODY_FIELDS) {
			const value = (body as IDataObject)[field];
			if (typeof value === 'string') secrets.push(value);
		}
		// A URL handed to the platform (a trigger URL, a resume URL) carries a token: never echoed back.
		for (const field of URL_FIELDS) secrets.push(...urlSecrets((body as IDataObject)[field]));
	}
	return secrets;
}

function isJsonContent(headers: IDataObject): boolean {
	const type = headers?.['content-type'];
	return typeof type === 'string' && type.toLowerCase().includes('json');
}

function contentTypeOf(headers: IDataObject): string {
	const type = String(headers?.['content-type'] ?? '').split(';')[0].trim();
	return type === '' ? 'a body without a content type' : type.replace(/[^\w./+-]/g, '').slice(0, 80);
}

/**
 * The answer's body as the node may use it: JSON parsed whatever the content type, as n8n's client
 * did (an empty body is none), every secret redacted at any depth. Refused: malformed JSON, a body
 * that is not JSON, nesting deeper than MAX_JSON_DEPTH.
 */
export function readBody(
	raw: unknown,
	headers: IDataObject,
	secrets: string[],
): { ok: true; body: unknown } | { ok: false; reason: string } {
	let body = raw;
	if (typeof body === 'string' || Buffer.isBuffer(body)) {
		const text = body.toString().replace(/^\uFEFF/, '');
		if (text.trim() === '') return { ok: true, body: undefined };
		try {
			body = JSON.parse(text);
		} catch {
			return {
				ok: false,
				reason: isJsonContent(headers)
					? 'The platform answered with malformed JSON'
					: `The platform answered ${contentTypeOf(headers)} instead of JSON`,
			};
		}
	}
	try {
		return { ok: true, body: redactSecrets(body, secrets) };
	} catch {
		return { ok: false, reason: `The platform answered JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
	}
}
