import type { IDataObject, IHookFunctions, INode } from 'n8n-workflow';

import { portalRequest } from '../shared/transport/request';
import { assertPathId, invalid, numberField, textField } from '../shared/core/validation';
import type { SchemaProperty } from '../shared/descriptions/extractionSchema';
import { clearedExtraction, readExtractionSchema } from '../shared/descriptions/extractionSchema';

import type { EventName } from './events';
import { EVENTS, REGISTRABLE_EVENTS, slugOf } from './events';
import { parseAllowlist, secretProblem } from './security';

/** What the trigger set on the platform, kept in the node's static data between publish and unpublish. */
export interface Registration {
	assistantId: string;
	/** Conversation-end webhook URL set (enabled) on the platform. */
	conversationEndUrl?: string;
	/** hangupUrl set in the extraction configuration. */
	extractedDataUrl?: string;
	/** authName and schema that were sent, to tell whether a re-activation must send them again. */
	fingerprint: string;
}

const STATIC_KEY = 'registration';

export interface TriggerConfig {
	events: EventName[];
	registerOnPublish: boolean;
	assistantId?: string;
	authName: string | null;
	schema: SchemaProperty[];
}

function selectedEvents(ctx: IHookFunctions): EventName[] {
	const raw = ctx.getNodeParameter('events', []) as unknown;
	const list = Array.isArray(raw) ? raw : [];
	return EVENTS.map((e) => e.value).filter((value) => list.includes(value));
}

export function needsRegistration(config: TriggerConfig): boolean {
	return config.registerOnPublish && config.events.some((e) => REGISTRABLE_EVENTS.includes(e));
}

function readSchema(ctx: IHookFunctions, node: INode): SchemaProperty[] {
	const collection = ctx.getNodeParameter('extractionSchema', {}) as IDataObject;
	return readExtractionSchema(node, collection.properties, 'Extraction Schema', 'add at least one property to extract');
}

/**
 * Reads and validates the trigger's configuration. Used on every activation, so a bad secret or
 * allowlist fails the publish or the test listen with a clear error; the registration fields
 * (assistant, schema, authentication name) only when they are used (`forRegistration`: a publish).
 */
export function readConfig(ctx: IHookFunctions, forRegistration: boolean): TriggerConfig {
	const node = ctx.getNode();
	const events = selectedEvents(ctx);
	if (events.length === 0) {
		throw invalid(node, 'Events', 'choose at least one event');
	}

	const problem = secretProblem(ctx.getNodeParameter('webhookSecret', '') as unknown);
	if (problem) throw invalid(node, 'Webhook Secret', problem);

	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	// Security settings of the wrong type are refused: read as empty they would switch a check off.
	const allowlist = textField(node, 'IP Allowlist', options.ipAllowlist, undefined, { numbers: false });
	if (allowlist !== '') {
		const { ranges, invalid: bad } = parseAllowlist(allowlist);
		if (bad.length > 0) {
			throw invalid(node, 'IP Allowlist', `not an IP address or CIDR range: ${bad.map((b) => `"${b}"`).join(', ')}`);
		}
		if (ranges.length === 0) throw invalid(node, 'IP Allowlist', 'lists no address');
	}
	const headerName = textField(node, 'Auth Header Name', options.authHeaderName, undefined, { numbers: false });
	const headerValue = textField(node, 'Auth Header Value', options.authHeaderValue, undefined, { trim: false, numbers: false });
	numberField(node, 'Remember Deliveries For (Minutes)', options.repeatWindowMinutes, 0);
	if ((headerName === '') !== (headerValue === '')) {
		throw invalid(
			node,
			headerName === '' ? 'Auth Header Name' : 'Auth Header Value',
			'set both the header name and its expected value, or neither',
		);
	}
	if (headerName !== '' && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(headerName)) {
		throw invalid(node, 'Auth Header Name', 'must be a valid HTTP header name, e.g. X-Webhook-Token');
	}

	const registerable = events.some((e) => REGISTRABLE_EVENTS.includes(e));
	const registerOnPublish = registerable && (ctx.getNodeParameter('registerOnPublish', true) as boolean);
	const config: TriggerConfig = { events, registerOnPublish, authName: null, schema: [] };
	if (!registerOnPublish || !forRegistration) return config;

	const assistantId = ctx.getNodeParameter('assistantId', '', { extractValue: true }) as unknown;
	if (typeof assistantId !== 'string' || assistantId.trim() === '') {
		throw invalid(node, 'Assistant', 'choose the assistant whose hooks this trigger configures');
	}
	config.assistantId = assertPathId(node, 'Assistant', assistantId);
	if (events.includes('conversationEnd')) {
		const authName = textField(node, 'Authentication Name', ctx.getNodeParameter('authName', ''));
		config.authName = authName === '' ? null : authName;
		if (headerName !== '' && config.authName === null) {
			throw invalid(
				node,
				'Authentication Name',
				'is needed when Auth Header Name is set: without it the platform sends conversation ends without the header',
			);
		}
	}
	if (events.includes('extractedData')) config.schema = readSchema(ctx, node);
	return config;
}

/** The URL of each event, derived from the node's first webhook (the call-result one). */
export function eventUrls(ctx: IHookFunctions): Record<EventName, string> {
	const first = ctx.getNodeWebhookUrl('default');
	if (!first) {
		throw invalid(ctx.getNode(), 'Webhook Secret', 'could not build the webhook URL');
	}
	const base = first.slice(0, first.lastIndexOf('/'));
	return {
		callResult: `${base}/${slugOf('callResult')}`,
		conversationEnd: `${base}/${slugOf('conversationEnd')}`,
		extractedData: `${base}/${slugOf('extractedData')}`,
	};
}

function fingerprintOf(config: TriggerConfig): string {
	return JSON.stringify({ authName: config.authName, schema: config.schema });
}

export function desiredRegistration(config: TriggerConfig, urls: Record<EventName, string>): Registration {
	return {
		assistantId: config.assistantId!,
		conversationEndUrl: config.events.includes('conversationEnd') ? urls.conversationEnd : undefined,
		extractedDataUrl: config.events.includes('extractedData') ? urls.extractedData : undefined,
		fingerprint: fingerprintOf(config),
	};
}

export function storedRegistration(ctx: IHookFunctions): Registration | undefined {
	const data = ctx.getWorkflowStaticData('node');
	const value = data[STATIC_KEY];
	if (!value || typeof value !== 'object') return undefined;
	return value as unknown as Registration;
}

export function storeRegistration(ctx: IHookFunctions, registration: Registration | undefined): void {
	const data = ctx.getWorkflowStaticData('node');
	if (registration === undefined) {
		delete data[STATIC_KEY];
	} else {
		const stored: IDataObject = { assistantId: registration.assistantId, fingerprint: registration.fingerprint };
		if (registration.conversationEndUrl) stored.conversationEndUrl = registration.conversationEndUrl;
		if (registration.extractedDataUrl) stored.extractedDataUrl = registration.extractedDataUrl;
		data[STATIC_KEY] = stored;
	}
}

export function sameRegistration(a: Registration | undefined, b: Registration): boolean {
	return (
		a !== undefined &&
		a.assistantId === b.assistantId &&
		(a.conversationEndUrl ?? '') === (b.conversationEndUrl ?? '') &&
		(a.extractedDataUrl ?? '') === (b.extractedDataUrl ?? '') &&
		a.fingerprint === b.fingerprint
	);
}

/** PATCH /assistants/{assistantId}/runtime/hangup/{hook}, sent once; the status, or an error unless passed. */
async function setHook(
	ctx: IHookFunctions,
	assistantId: string,
	hook: 'conversation-webhook' | 'schema',
	body: IDataObject,
	passStatuses?: number[],
): Promise<number> {
	const path = `/assistants/${encodeURIComponent(assistantId)}/runtime/hangup/${hook}`;
	const { statusCode } = await portalRequest(ctx, 'PATCH', path, { body, retry: false, passStatuses });
	return statusCode;
}

/** Body that turns the conversation-end webhook off and removes the URL (and its token) from the platform. */
export const CONVERSATION_WEBHOOK_OFF: IDataObject = { enabled: false, url: null, authName: null };

/**
 * Undoes a registration. A 404 (the assistant no longer exists) means there is nothing left to turn
 * off; every other error is thrown.
 */
export async function unregister(ctx: IHookFunctions, registration: Registration): Promise<void> {
	if (registration.conversationEndUrl) {
		await setHook(ctx, registration.assistantId, 'conversation-webhook', CONVERSATION_WEBHOOK_OFF, [404]);
	}
	if (registration.extractedDataUrl) {
		await setHook(ctx, registration.assistantId, 'schema', clearedExtraction(), [404]);
	}
}

/**
 * Configures the platform: the conversation-end webhook (enabled, this URL, authName) and/or the
 * extraction configuration (hangupUrl = this URL, the schema). If the second call fails after the
 * first succeeded, the first is undone before the error is thrown, so nothing is left half-set.
 */
export async function register(
	ctx: IHookFunctions,
	config: TriggerConfig,
	wanted: Registration,
): Promise<void> {
	const assistantId = wanted.assistantId;
	let conversationSet = false;
	let failure: (Error & { description?: string }) | undefined;
	try {
		if (wanted.conversationEndUrl) {
			await setHook(ctx, assistantId, 'conversation-webhook', {
				enabled: true,
				url: wanted.conversationEndUrl,
				authName: config.authName,
			});
			conversationSet = true;
		}
		if (wanted.extractedDataUrl) {
			await setHook(ctx, assistantId, 'schema', {
				hangupUrl: wanted.extractedDataUrl,
				schema: config.schema as unknown as IDataObject[],
			});
		}
	} catch (error) {
		// Already a NodeApiError (platformRequest maps every failure); kept to rethrow after the rollback.
		failure = error as Error & { description?: string };
	}
	if (failure === undefined) return;
	if (conversationSet) {
		try {
			await setHook(ctx, assistantId, 'conversation-webhook', CONVERSATION_WEBHOOK_OFF, [404]);
		} catch (rollbackError) {
			// The original error is the one the user must see; the rollback failure is added to it.
			failure.description = `${failure.description ?? ''} The conversation-end webhook that was already enabled could not be turned off again (${(rollbackError as Error).message}); turn it off in the portal.`.trim();
		}
	}
	throw failure;
}
