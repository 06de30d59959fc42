import type {
	IDataObject,
	IHookFunctions,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, webhookDescriptionFields } from 'n8n-workflow';

import { PORTAL_CREDENTIAL } from '../shared/core/constants';
import { MAX_JSON_DEPTH, redactSecrets } from '../shared/core/redact';
import { callResultFields, parseCallResult } from '../shared/calls/callResult';
import type { Parsed } from '../shared/calls/callResult';
import { normalizeDialStatus } from '../shared/calls/dialStatuses';
import { assertSupportedN8n } from '../shared/n8n/n8nSupport';
import { isObject } from '../shared/core/object';
import { splitList } from '../shared/core/text';
import { searchAssistants } from '../shared/descriptions/searchAssistants';
import { callbackBodyTooLarge, refuse } from '../shared/n8n/webhookReply';

import { triggerProperties } from './description';
import type { EventName } from './events';
import { correlationFields, eventBySlug, MAX_BODY_BYTES, readJsonObject, REGISTRABLE_EVENTS } from './events';
import {
	desiredRegistration,
	eventUrls,
	needsRegistration,
	readConfig,
	register,
	sameRegistration,
	storedRegistration,
	storeRegistration,
	unregister,
} from './registration';
import { constantTimeEqual, ipAllowed, parseAllowlist, secretProblem } from './security';
import { DEFAULT_REPEAT_WINDOW_MINUTES, deliveryKey, isRepeat, triggerMemoryKey } from './repeats';
import { callResultContext, filterStatuses } from './callResultContext';

assertSupportedN8n();

/** The parts of n8n's request (an express Request) the trigger reads. */
interface TriggerRequest {
	path?: string;
	url?: string;
	originalUrl?: string;
	ip?: string;
	headers: Record<string, string | string[] | undefined>;
	rawBody?: unknown;
	body?: unknown;
	socket?: { remoteAddress?: string };
}

function header(req: TriggerRequest, name: string): string | undefined {
	const value = req.headers[name.toLowerCase()];
	return Array.isArray(value) ? value.join(', ') : value;
}

function requestPath(req: TriggerRequest): string {
	if (typeof req.path === 'string' && req.path !== '') return req.path;
	const url = typeof req.url === 'string' ? req.url : '';
	const query = url.indexOf('?');
	return query < 0 ? url : url.slice(0, query);
}

/**
 * The token and event of a request path: `…/<webhookId>/<token>/<event>`. A path with one segment
 * after the webhook id has no token.
 */
function tokenAndEvent(path: string, webhookId: string | undefined): { token?: string; slug: string } {
	const segments = path.split('/').filter((segment) => segment !== '');
	const anchor = webhookId ? segments.indexOf(webhookId) : -1;
	const rest = anchor >= 0 ? segments.slice(anchor + 1) : segments.slice(-2);
	const decode = (segment: string) => {
		try {
			return decodeURIComponent(segment);
		} catch {
			return segment;
		}
	};
	if (rest.length >= 2) {
		return { token: decode(rest[rest.length - 2]), slug: decode(rest[rest.length - 1]) };
	}
	return { slug: rest.length === 1 ? decode(rest[0]) : '' };
}

function clientIp(req: TriggerRequest, useForwardedFor: boolean): string {
	if (useForwardedFor) {
		const forwarded = splitList(header(req, 'x-forwarded-for'));
		if (forwarded.length > 0) return forwarded[forwarded.length - 1];
	}
	return req.ip ?? req.socket?.remoteAddress ?? '';
}

function isTestActivation(ctx: IHookFunctions): boolean {
	return ctx.getActivationMode() === 'manual' || ctx.getMode() === 'manual';
}

const webhookBase = { name: 'default' as const, httpMethod: 'POST', responseMode: 'onReceived' };

/**
 * The path of one event's URL, `<secret>/<slug>` under the node's webhook id: a template any n8n evaluates,
 * plus, where n8n-workflow has `webhookDescriptionFields` (2.41 on), a native resolver that spares n8n an
 * expression evaluation (an isolate under `N8N_EXPRESSION_ENGINE=vm`) on every request.
 */
export function eventWebhookPath(slug: string): Pick<IWebhookDescription, 'path'> {
	const template = `={{$parameter["webhookSecret"]}}/${slug}`;
	if (typeof webhookDescriptionFields !== 'function') return { path: template };
	return webhookDescriptionFields({
		path: {
			template,
			// What the expression gives: the secret as text (nothing for an unset one), then the slug.
			resolve: (parameters: INodeParameters) => `${stringOrEmpty(parameters.webhookSecret)}/${slug}`,
		},
	});
}

function stringOrEmpty(value: unknown): string {
	return value === undefined || value === null ? '' : String(value);
}

export class AssistantPlatformTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Assistant Platform Trigger',
		name: 'assistantPlatformTrigger',
		icon: {
			light: 'file:assistantPlatformTrigger.svg',
			dark: 'file:assistantPlatformTrigger.dark.svg',
		},
		group: ['trigger'],
		// 2: the Webhook Secret of a new trigger defaults to its webhook ID (version 1 keeps an empty,
		// required secret: saved workflows are unchanged).
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{($parameter["events"] || []).map(e => ({ callResult: "Call Result", conversationEnd: "Conversation End", extractedData: "Extracted Data" })[e] || e).join(", ")}}',
		// n8n lists this trigger under its app's entry ("Assistant Platform") and shows this description
		// for that entry in every panel: it describes the app, the trigger's events are listed below it.
		description:
			'Manage voice assistants, place phone calls and start workflows from call results, conversation ends and extracted data',
		defaults: {
			name: 'Assistant Platform Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: PORTAL_CREDENTIAL,
				required: true,
				displayOptions: {
					show: { events: REGISTRABLE_EVENTS, registerOnPublish: [true] },
				},
			},
		],
		// One URL per event, each carrying the secret: …/<webhookId>/<secret>/<event>. The first one
		// (call result) is what getNodeWebhookUrl('default') returns; the others share its base.
		// The last two are hidden catch-alls (dynamic paths; the webhook id in the parameter names
		// keeps their stored path unique): a post with a wrong token, or none, reaches the node and
		// is answered 401 instead of n8n's 404.
		webhooks: [
			{
				...webhookBase,
				...eventWebhookPath('call-result'),
				ndvHideUrl: '={{!($parameter["events"] || []).includes("callResult")}}',
			},
			{
				...webhookBase,
				...eventWebhookPath('conversation-end'),
				ndvHideUrl: '={{!($parameter["events"] || []).includes("conversationEnd")}}',
			},
			{
				...webhookBase,
				...eventWebhookPath('extracted-data'),
				ndvHideUrl: '={{!($parameter["events"] || []).includes("extractedData")}}',
			},
			{
				...webhookBase,
				path: '={{":token" + $webhookId + "/:event"}}',
				isFullPath: true,
				ndvHideUrl: true,
			},
			{
				...webhookBase,
				path: '={{":event" + $webhookId}}',
				isFullPath: true,
				ndvHideUrl: true,
			},
		],
		properties: triggerProperties,
	};

	methods = { listSearch: { searchAssistants } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				// Validates the configuration on every activation, test or production.
				const test = isTestActivation(this);
				const config = readConfig(this, !test);
				if (test || !needsRegistration(config)) return true;
				const wanted = desiredRegistration(config, eventUrls(this));
				return sameRegistration(storedRegistration(this), wanted);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				// Listening for a test event never changes the platform: it keeps calling the
				// production URL (see the notice).
				const test = isTestActivation(this);
				const config = readConfig(this, !test);
				if (test || !needsRegistration(config)) return true;
				const wanted = desiredRegistration(config, eventUrls(this));
				const previous = storedRegistration(this);
				if (previous && !sameRegistration(previous, wanted)) {
					// Something else was set before (another assistant or event set): undo what the
					// new registration does not overwrite.
					const sameAssistant = previous.assistantId === wanted.assistantId;
					await unregister(this, {
						...previous,
						conversationEndUrl:
							sameAssistant && wanted.conversationEndUrl ? undefined : previous.conversationEndUrl,
						extractedDataUrl:
							sameAssistant && wanted.extractedDataUrl ? undefined : previous.extractedDataUrl,
					});
					storeRegistration(this, undefined);
				}
				await register(this, config, wanted);
				storeRegistration(this, wanted);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const previous = storedRegistration(this);
				if (!previous) return true;
				// The end of a test listen also calls delete, through the test URL: the production
				// registration is not its to remove.
				const urls = eventUrls(this);
				const ours =
					(previous.conversationEndUrl !== undefined &&
						previous.conversationEndUrl === urls.conversationEnd) ||
					(previous.extractedDataUrl !== undefined && previous.extractedDataUrl === urls.extractedData);
				if (!ours) return true;
				// n8n 2.x calls delete() for all of the node's webhooks at once: the first call takes the
				// registration before its first request, so the others find none and the platform is
				// turned off once. If that fails, it is put back for n8n's next attempt.
				storeRegistration(this, undefined);
				let turnedOff = false;
				try {
					await unregister(this, previous);
					turnedOff = true;
				} finally {
					if (!turnedOff) storeRegistration(this, previous);
				}
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject() as unknown as TriggerRequest;
		const options = this.getNodeParameter('options', {}) as IDataObject;

		// 1. Where the post comes from.
		if (!addressAllowed(req, options)) return refuse(this, 403, 'address not allowed');

		// 2. The secret token in the path, compared in constant time.
		const { token, slug } = tokenAndEvent(requestPath(req), this.getNode().webhookId);
		const secret = this.getNodeParameter('webhookSecret', '') as unknown;
		if (!tokenMatches(token, secret)) return refuse(this, 401, 'missing or wrong token');

		// 3. Which event.
		const event: EventName | undefined = eventBySlug(slug);
		if (!event) return refuse(this, 404, 'unknown event');
		const events = this.getNodeParameter('events', []) as unknown;
		if (!Array.isArray(events) || !events.includes(event)) {
			return refuse(this, 404, 'event not enabled on this trigger');
		}

		// 4. Size.
		if (callbackBodyTooLarge(req.headers, req.rawBody)) {
			return refuse(this, 413, `body larger than ${MAX_BODY_BYTES} bytes`);
		}

		// 5. The platform's authentication header on conversation ends, when configured.
		if (event === 'conversationEnd' && !authHeaderMatches(req, options)) {
			return refuse(this, 401, 'missing or wrong authentication header');
		}

		// 6. The body.
		const read = readBody(req, secret, options);
		if (!read.ok) return refuse(this, 400, read.reason);
		const body = read.value;
		const receivedAt = new Date().toISOString();

		let json: IDataObject;
		if (event === 'callResult') {
			const result = parseCallResult(body);
			if (!result.ok) return refuse(this, 400, result.reason);
			const filters = this.getNodeParameter('filters', {}) as IDataObject;
			const statuses = filterStatuses(filters);
			const minDuration = typeof filters.minDuration === 'number' ? filters.minDuration : 0;
			const statusMatches = statuses.size === 0 || statuses.has(normalizeDialStatus(result.value.dialStatus));
			if (!statusMatches || result.value.duration < minDuration) {
				return { webhookResponse: { received: true, started: false, reason: 'filtered out' } };
			}
			// The Result Context, from the URL's query: trusted only now that the secret matched.
			const context = callResultContext(req.originalUrl ?? req.url);
			if (!context.ok) return refuse(this, 400, context.reason);
			json = { event, ...callResultFields(result.value.internal_id, result.value), ...context.fields, receivedAt, body };
		} else if (event === 'conversationEnd') {
			json = { event, ...correlationFields(body), receivedAt, body };
		} else {
			const data = body.data;
			json = {
				event,
				...correlationFields(body),
				data: isObject(data) ? data : body,
				receivedAt,
				body,
			};
		}

		if (options.ignoreRepeats === true && isRepeatedDelivery(this, options, event, body, req.rawBody)) {
			return { webhookResponse: { received: true, started: false, reason: 'repeated delivery' } };
		}

		return { workflowData: [[{ json }]] };
	}
}

/** Options > IP Allowlist: whether the post's address is in it (any address when it is empty). */
function addressAllowed(req: TriggerRequest, options: IDataObject): boolean {
	const allowlist = typeof options.ipAllowlist === 'string' ? options.ipAllowlist.trim() : '';
	if (allowlist === '') return true;
	const { ranges, invalid } = parseAllowlist(allowlist);
	const ip = clientIp(req, options.useForwardedFor === true);
	return invalid.length === 0 && ipAllowed(ip, ranges);
}

/** Whether the path's token is the Webhook Secret (a secret that is not usable matches no token). */
function tokenMatches(token: string | undefined, secret: unknown): secret is string {
	return (
		typeof secret === 'string' &&
		secretProblem(secret) === undefined &&
		token !== undefined &&
		constantTimeEqual(token, secret)
	);
}

/** Options > Authentication Header, when both its name and value are set: whether the post carries it. */
function authHeaderMatches(req: TriggerRequest, options: IDataObject): boolean {
	const name = typeof options.authHeaderName === 'string' ? options.authHeaderName.trim() : '';
	const expected = typeof options.authHeaderValue === 'string' ? options.authHeaderValue : '';
	if (name === '' || expected === '') return true;
	const received = header(req, name);
	return received !== undefined && constantTimeEqual(received, expected);
}

/** The post's JSON object, without the secrets it may echo back, or why it is refused (400). */
function readBody(req: TriggerRequest, secret: string, options: IDataObject): Parsed<IDataObject> {
	const contentType = (header(req, 'content-type') ?? '').toLowerCase();
	if (contentType.startsWith('multipart/')) return { ok: false, reason: 'the body is not JSON' };
	const parsed = readJsonObject(req.rawBody, req.body);
	if (!parsed.ok) return parsed;
	try {
		// The platform may echo the URL (and so the token) or the header value back: never output them.
		return { ok: true, value: redactSecrets(parsed.value, [secret, String(options.authHeaderValue ?? '')]) };
	} catch {
		// The only failure: JSON nested deeper than MAX_JSON_DEPTH (n8n's own copy of it would fail later).
		return { ok: false, reason: `the body is nested deeper than ${MAX_JSON_DEPTH} levels` };
	}
}

/** Options > Ignore Repeats: whether this delivery was received before within the repeat window (and remembers it). */
function isRepeatedDelivery(
	ctx: IWebhookFunctions,
	options: IDataObject,
	event: EventName,
	body: IDataObject,
	rawBody: unknown,
): boolean {
	const minutes = Number(options.repeatWindowMinutes ?? DEFAULT_REPEAT_WINDOW_MINUTES);
	const windowMs = (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_REPEAT_WINDOW_MINUTES) * 60_000;
	const key = deliveryKey(event, body, rawBody);
	// A test URL keeps its static data to itself and remembers nothing in this process.
	const mode = ctx.getMode();
	const memoryKey = mode === 'manual' ? undefined : triggerMemoryKey(mode, ctx.getWorkflow().id, ctx.getNode().name);
	return isRepeat(ctx.getWorkflowStaticData('node'), key, Date.now(), windowMs, memoryKey);
}
