import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { OUTBOUND_CREDENTIAL } from '../core/constants';
import { assertAllowedDestination } from './allowedDestinations';
import type { PlatformResponse } from '../transport/request';
import type { NodeFailure } from '../transport/errors';
import {
	assertE164,
	assertHttpUrl,
	assertIntegerInRange,
	invalid,
	isIpOrHostname,
	parseJsonObject,
	textField,
} from '../core/validation';
import { redactUrl } from '../core/redact';
import { callResultFields, INTERNAL_ID_RULE, isInternalId } from './callResult';
import { isObject } from '../core/object';
import { acceptanceContradiction } from './acceptance';
import { CONTINUE_ON_FAIL_ADVICE, describeUnknownOutcome, forAuthor, markNoCallPlaced } from './messages';

export type Route = 'trunk' | 'pbx';

export const ROUTE_PATHS: Record<Route, string> = {
	trunk: '/webhook/outbound_call',
	pbx: '/webhook/outbound_call_pbx',
};

/** Wire names of the two fields that have a legacy name (the platform specification, "Versioning"). */
const KEY_FIELD = { current: 'assistantApiKey', legacy: 'apiKey_assistente' };
const RESULT_URL_FIELD = { current: 'callResultUrl', legacy: 'url_esito_chiamata' };

/**
 * Body fields that have a field of their own, checked before the call is placed. Additional Fields
 * (JSON) may not set them: a free-form field (which an AI agent may fill) must never change who is
 * called, from which number, with which key, or where the result (with the call's data) is sent.
 */
const OWN_FIELDS: Record<string, string> = {
	dst: 'Destination Number',
	callerId: 'Caller ID',
	[KEY_FIELD.current]: 'Options > Assistant API Key Override (or the credential)',
	[KEY_FIELD.legacy]: 'Options > Assistant API Key Override (or the credential)',
	[RESULT_URL_FIELD.current]: 'Options > Call Result URL',
	[RESULT_URL_FIELD.legacy]: 'Options > Call Result URL',
	ipPbx: 'PBX Address',
	sipPort: 'Options > SIP Port',
	addPrompt: 'Options > Additional Prompt',
};

/** Everything needed to place one call, read and checked before anything is sent. */
export interface Placement {
	route: Route;
	path: string;
	/** The exact body sent (contains the assistant key: never output or log it). */
	body: IDataObject;
	/** What the output item says about the request: never the key. */
	summary: IDataObject;
}

/** The assistant key configured in the Outbound API credential ('' when not set). */
export async function credentialAssistantKey(ctx: IExecuteFunctions): Promise<string> {
	const credentials = await ctx.getCredentials(OUTBOUND_CREDENTIAL);
	const key = credentials.assistantApiKey;
	return typeof key === 'string' ? key.trim() : '';
}

/**
 * Reads and validates item `i`. Throws a NodeOperationError naming the field and the rule; the
 * messages never contain the assistant key.
 */
export function readPlacement(
	ctx: IExecuteFunctions,
	node: INode,
	i: number,
	credentialKey: string,
	resultUrl?: string,
	/** The number to call when it does not come from the Destination Number field (a campaign's contact row). */
	number?: { value: unknown; field: string },
): Placement {
	const route = ctx.getNodeParameter('route', i, 'trunk') as string;
	if (route !== 'trunk' && route !== 'pbx') {
		throw invalid(node, 'Route', 'must be "trunk" or "pbx"', i);
	}
	const dst = number
		? assertE164(node, number.field, number.value, i)
		: assertE164(node, 'Destination Number', ctx.getNodeParameter('dst', i, ''), i);
	assertAllowedDestination(node, dst, ctx.getNodeParameter('allowedDestinations', i, ''), i);
	const callerId = assertE164(node, 'Caller ID', ctx.getNodeParameter('callerId', i, ''), i);
	const options = (ctx.getNodeParameter('options', i, {}) ?? {}) as IDataObject;
	const key = readAssistantKey(node, options, credentialKey, i);
	const pbx = route === 'pbx' ? readPbxFields(ctx, node, i, options) : undefined;
	const callResultUrl = readCallResultUrl(node, options, resultUrl, i);
	const legacy = options.legacyFieldNames === true;
	const extra = readAdditionalFields(ctx, node, i);

	const body: IDataObject = { dst, callerId };
	body[legacy ? KEY_FIELD.legacy : KEY_FIELD.current] = key;
	if (pbx) {
		body.ipPbx = pbx.ipPbx;
		if (pbx.sipPort !== undefined) body.sipPort = pbx.sipPort;
		if (pbx.addPrompt !== undefined) body.addPrompt = pbx.addPrompt;
	}
	if (callResultUrl !== undefined) {
		body[legacy ? RESULT_URL_FIELD.legacy : RESULT_URL_FIELD.current] = callResultUrl;
	}
	Object.assign(body, extra);

	const summary: IDataObject = { route, dst, callerId };
	if (pbx) {
		summary.ipPbx = pbx.ipPbx;
		if (pbx.sipPort !== undefined) summary.sipPort = pbx.sipPort;
	}
	if (callResultUrl !== undefined) summary.callResultUrl = redactUrl(callResultUrl);
	return { route, path: ROUTE_PATHS[route], body, summary };
}

/** The assistant key sent: Options > Assistant API Key Override, else the credential's; never empty. */
function readAssistantKey(node: INode, options: IDataObject, credentialKey: string, i: number): string {
	// Of the wrong type, an override is refused: read as empty it would place the call with the credential's key.
	const override = textField(node, 'Assistant API Key Override', options.assistantApiKeyOverride, i, { numbers: false });
	const key = override !== '' ? override : credentialKey;
	if (key === '') {
		throw invalid(
			node,
			'Assistant API Key',
			'must not be empty: set it in the Outbound API credential, or in Options > Assistant API Key Override',
			i,
		);
	}
	return key;
}

/** The fields of the PBX route: its address (required), and the SIP port and additional prompt when given. */
function readPbxFields(
	ctx: IExecuteFunctions,
	node: INode,
	i: number,
	options: IDataObject,
): { ipPbx: string; sipPort?: number; addPrompt?: string } {
	let sipPort: number | undefined;
	let addPrompt: string | undefined;
	const rawPbx = ctx.getNodeParameter('ipPbx', i, '');
	const ipPbx = typeof rawPbx === 'string' ? rawPbx.trim() : '';
	if (ipPbx === '') throw invalid(node, 'PBX Address', 'must not be empty on the PBX route', i);
	if (!isIpOrHostname(ipPbx)) {
		throw invalid(node, 'PBX Address', `must be an IPv4 or IPv6 address or a hostname (got "${ipPbx}")`, i);
	}
	if (options.sipPort !== undefined && options.sipPort !== null && options.sipPort !== '') {
		sipPort = assertIntegerInRange(node, 'SIP Port', options.sipPort, 1, 65535, i);
	}
	const prompt = textField(node, 'Additional Prompt', options.addPrompt, i, { trim: false });
	if (prompt.trim() !== '') addPrompt = prompt;
	return { ipPbx, sipPort, addPrompt };
}

/** Where the result is sent: `resultUrl` when the node sets it, else Options > Call Result URL (none when blank). */
function readCallResultUrl(node: INode, options: IDataObject, resultUrl: string | undefined, i: number): string | undefined {
	if (resultUrl !== undefined) return assertHttpUrl(node, 'Call Result URL', resultUrl, i);
	const raw = options.callResultUrl;
	const blank = raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '');
	return blank ? undefined : assertHttpUrl(node, 'Call Result URL', raw, i);
}

/** Additional Fields (JSON), refused when it sets a field that has a field of its own (OWN_FIELDS). */
function readAdditionalFields(ctx: IExecuteFunctions, node: INode, i: number): IDataObject {
	const extra = parseJsonObject(
		node,
		'Additional Fields (JSON)',
		ctx.getNodeParameter('additionalFieldsJson', i, ''),
		i,
	);

	for (const key of Object.keys(extra)) {
		if (Object.hasOwn(OWN_FIELDS, key)) {
			throw invalid(
				node,
				'Additional Fields (JSON)',
				`must not set "${key}": use ${OWN_FIELDS[key]}, which is checked before the call is placed`,
				i,
			);
		}
	}
	return extra;
}

/** What a 2xx answer that is not an acceptance held, without its content (which may echo anything). */
function describeAnswer(body: unknown): string {
	if (body === undefined) return 'no body';
	if (!isObject(body)) return `a JSON ${Array.isArray(body) ? 'list' : typeof body}`;
	const fields = Object.keys(body);
	if (fields.length === 0) return 'an empty object';
	const shown = fields.slice(0, 5).map((field) => JSON.stringify(field.slice(0, 40)));
	return `an object with ${shown.join(', ')}${fields.length > 5 ? ', …' : ''}`;
}

/**
 * The output item of an accepted call: the platform's answer (minus any key) and the request summary.
 * A call is accepted only with an internal_id; any other 2xx (empty, 204, an error object, a proxy's
 * page), or one that also says the call was not placed, throws an error whose outcome is unknown: the
 * call may or may not have been placed.
 */
export function placedItem(
	node: INode,
	placement: Placement,
	response: PlatformResponse,
	placedAt: string,
	itemIndex: number,
): IDataObject {
	const answer: IDataObject = isObject(response.body) ? response.body : {};
	const id = answer.internal_id;
	if (!isInternalId(id)) {
		throw new NodeApiError(node, { status: response.statusCode } as JsonObject, {
			message: `The platform answered ${response.statusCode} without a usable internal_id`,
			description: `An accepted call always has an internal_id (${INTERNAL_ID_RULE}); this answer held ${describeAnswer(response.body)}.`,
			httpCode: String(response.statusCode),
			itemIndex,
		});
	}
	// An id and a refusal at once: not trusted either way, so a failed placement with outcome unknown.
	const contradiction = acceptanceContradiction(answer);
	if (contradiction) {
		throw new NodeApiError(node, { status: response.statusCode, internal_id: id } as JsonObject, {
			message: `The platform's answer names call ${JSON.stringify(id)} but says it was not placed (${contradiction})`,
			description: 'An answer that both accepts and refuses a call is trusted neither way.',
			httpCode: String(response.statusCode),
			itemIndex,
		});
	}
	// The answer without the assistant key, then the call-result fields and the request summary (one
	// object, built once; a field of the answer keeps its place when a later one replaces its value).
	const output: IDataObject = {};
	for (const key of Object.keys(answer)) {
		if (key !== KEY_FIELD.current && key !== KEY_FIELD.legacy) output[key] = answer[key];
	}
	Object.assign(output, callResultFields(id));
	output.status = answer.status ?? null;
	Object.assign(output, placement.summary);
	output.placedAt = placedAt;
	return output;
}

export type Outcome = 'rejected' | 'unknown';

/**
 * A 4xx answer means the platform refused the call (nothing was dialled). Anything else (5xx,
 * timeout, reset, unreadable answer) leaves the outcome unknown: the call may have been placed.
 */
export function outcomeOf(error: unknown): Outcome {
	const status = Number((error as { httpCode?: unknown })?.httpCode);
	return Number.isInteger(status) && status >= 400 && status < 500 ? 'rejected' : 'unknown';
}

/**
 * Says in the error's message what happened to the call (messages.ts): "No call was placed." after a
 * rejection; for an unknown outcome that the call may have been placed, must not be placed again, and how to
 * find out (`call`: its destination, and its internal_id when one is known).
 */
export function describeOutcome(
	error: NodeFailure,
	outcome: Outcome,
	call: { dst?: unknown; internalId?: unknown } = {},
): void {
	if (outcome === 'rejected') markNoCallPlaced(error);
	else describeUnknownOutcome(error, { internalId: internalIdOf(error), ...call });
}

/** The internal_id an error's answer named (an acceptance that contradicts itself), if any. */
function internalIdOf(error: Error): unknown {
	const response = (error as { errorResponse?: unknown }).errorResponse;
	return isObject(response) ? response.internal_id : undefined;
}

/** The per-item error output (Continue On Fail): the reason, whether the call may have been placed, and the request summary. */
export function failedItem(
	error: NodeFailure,
	outcome: Outcome | 'invalid',
	summary: IDataObject | undefined,
): IDataObject {
	const response = (error as { errorResponse?: unknown }).errorResponse;
	const code = isObject(response) && typeof response.code === 'string' ? response.code : undefined;
	return {
		error: error.message,
		...(error.description ? { description: error.description } : {}),
		outcome,
		placed: outcome === 'unknown' ? 'unknown' : false,
		...(code ? { code } : {}),
		...(error.httpCode && error.httpCode !== 'none' ? { httpCode: error.httpCode } : {}),
		...(summary ?? {}),
	};
}

/**
 * n8n's node setting "Retry On Fail" would run the node again after a failure and dial every number
 * a second time. Placing calls refuses it before anything is sent: an error, or with Continue On Fail
 * the item every input item gets (n8n would otherwise pass the input through as if calls were placed).
 */
export function refuseAutomaticRetry(node: INode, continueOnFail: boolean): IDataObject | undefined {
	if (node.retryOnFail === true) {
		const error = new NodeOperationError(
			node,
			'Invalid "Retry On Fail": must be off when placing calls. No call was placed.',
			{
				description: `Retry On Fail (node Settings) would run the node again after a failure and call every number a second time. Placing a call is never retried automatically: turn Retry On Fail off.${forAuthor(node, ` ${CONTINUE_ON_FAIL_ADVICE}`)}`,
			},
		);
		if (!continueOnFail) throw error;
		return failedItem(error, 'invalid', undefined);
	}
	return undefined;
}
