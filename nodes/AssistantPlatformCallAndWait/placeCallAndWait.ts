import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isToolRun } from '../shared/n8n/agentTool';
import { outboundBaseUrl } from '../shared/transport/endpoint';
import type { RequestSettings } from '../shared/transport/settings';
import { readRequestSettings } from '../shared/transport/settings';
import { invalid, numberField } from '../shared/core/validation';
import {
	DEFAULT_MAX_WAIT_MINUTES,
	DEFAULT_RESULT_RECORD_WAIT_SECONDS,
	MAX_WAIT_MINUTES_LIMIT,
} from '../shared/descriptions/placementFields';
import {
	credentialAssistantKey,
	describeOutcome,
	failedItem,
	outcomeOf,
	placedItem,
	readPlacement,
	refuseAutomaticRetry,
} from '../shared/calls/placement';
import type { Placement } from '../shared/calls/placement';
import { markNoCallPlaced } from '../shared/calls/messages';
import type { GuardPlaces } from '../shared/guards/guards';
import { passGuards, readGuards } from '../shared/guards/guards';
import { CALL_RESULT_FIELDS, callResultFields, parseCallResult } from '../shared/calls/callResult';
import { isObject } from '../shared/core/object';
import { outboundApi } from '../shared/transport/outbound';
import type { NodeFailure } from '../shared/transport/errors';
import { pollStatus } from '../shared/calls/statusPoll';
import { callbackBodyTooLarge, MAX_CALLBACK_BODY_BYTES, refuse } from '../shared/n8n/webhookReply';

/*
 * Assistant Platform Call and Wait, on n8n's own wait-and-resume (docs/assumptions.md):
 * 1. execute() places the call with callResultUrl = this execution's resume URL and waits until Max
 *    Wait; n8n saves the execution and frees the worker.
 * 2. The platform's call result reaches the resume URL: n8n runs webhook(), whose output becomes the
 *    node's output.
 * 3. No result within Max Wait: n8n resumes without running the node and passes its input on, which
 *    execute() replaced with a pending item, so Call Status → Get can follow.
 */

/**
 * Fields of the waiting item the result does not keep: those that describe the wait, the result
 * fields (replaced), and the platform's answer to the placement (`status`, e.g. a richer platform's
 * "queued"), which is not the state of a call that has ended.
 */
const DROPPED_ON_RESULT = new Set<string>([
	'resultSource',
	'message',
	'waitTill',
	'status',
	'dialstatus',
	...CALL_RESULT_FIELDS,
]);

export async function placeCallAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const refused = refuseAutomaticRetry(node, this.continueOnFail());
	if (refused) return [[{ json: refused, pairedItem: { item: 0 } }]];
	refuseUnsupportedRun(this);
	const { settings, maxWaitMinutes } = readWaitOptions(this);
	const resumeUrl = String(this.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const credentialKey = await credentialAssistantKey(this);
	let placement: Placement;
	try {
		placement = readPlacement(this, node, 0, credentialKey, resumeUrl);
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}

	const guards = readGuards(this, settings);
	const verdict = await passGuards(this, guards, { dst: String(placement.body.dst), itemIndex: 0 });
	if ('refusal' in verdict) {
		if (!this.continueOnFail()) throw verdict.refusal;
		return onlyItem(failedItem(verdict.refusal, 'invalid', outputSummary(placement)));
	}
	const placed = await postPlacement(this, settings, placement, verdict.places);
	if ('failed' in placed) return placed.failed;
	return await waitForResult(this, placed.accepted, maxWaitMinutes);
}

/** One call per execution, never as an AI agent's tool: anything else is refused before a call is placed. */
function refuseUnsupportedRun(ctx: IExecuteFunctions): void {
	const node = ctx.getNode();
	const items = ctx.getInputData();
	if (items.length !== 1) {
		throw new NodeOperationError(
			node,
			`Assistant Platform Call and Wait places one call per execution and got ${items.length} input items`,
			{
				description:
					'Put a Loop Over Items node (batch size 1) before this node: each round places one call and waits for its result before the next round starts. To call many numbers without waiting, use Assistant Platform → Outbound Call → Place Call (results arrive at an Assistant Platform Trigger). Nothing was sent.',
			},
		);
	}
	if (isToolRun(node)) {
		throw new NodeOperationError(node, 'Assistant Platform Call and Wait cannot run as an AI tool', {
			description:
				'An AI agent cannot pause its run until a call ends. Give the agent Assistant Platform → Outbound Call → Place Call instead. Nothing was sent.',
		});
	}
}

/** The request settings and Max Wait, and the resume webhook's Status Read Wait, checked before the call is placed. */
function readWaitOptions(ctx: IExecuteFunctions): { settings: RequestSettings; maxWaitMinutes: number } {
	const node = ctx.getNode();
	const settings = readRequestSettings(node, ctx.getNodeParameter('requestOptions', 0, {}), 0);
	const maxWaitMinutes = numberField(node, 'Max Wait (Minutes)', ctx.getNodeParameter('maxWaitMinutes', 0, DEFAULT_MAX_WAIT_MINUTES), DEFAULT_MAX_WAIT_MINUTES, 0);
	// Read by the resume webhook: checked here, before the call is placed.
	numberField(node, 'Status Read Wait After Result (Seconds)', ctx.getNodeParameter('options.resultRecordWait', 0, DEFAULT_RESULT_RECORD_WAIT_SECONDS), 0, 0);
	if (!Number.isFinite(maxWaitMinutes) || maxWaitMinutes <= 0 || maxWaitMinutes > MAX_WAIT_MINUTES_LIMIT) {
		throw invalid(node, 'Max Wait (Minutes)', `must be a number above 0 and at most ${MAX_WAIT_MINUTES_LIMIT}`, 0);
	}
	return { settings, maxWaitMinutes };
}

/** The execution's only output item, paired with its input item. */
function onlyItem(json: IDataObject): INodeExecutionData[][] {
	return [[{ json, pairedItem: { item: 0 } }]];
}

/** The placement's summary for the output: the resume URL may carry n8n's resume token. */
function outputSummary(placement: Placement): IDataObject {
	const summary = { ...placement.summary };
	delete summary.callResultUrl;
	return summary;
}

/**
 * POSTs the placement: the accepted call's item (without the resume URL), or, when it fails, the
 * node's error or its failed item with Continue On Fail. A refusal gives the guards' places back.
 */
async function postPlacement(
	ctx: IExecuteFunctions,
	settings: RequestSettings,
	placement: Placement,
	places: GuardPlaces,
): Promise<{ accepted: IDataObject } | { failed: INodeExecutionData[][] }> {
	let accepted: IDataObject;
	try {
		const response = await outboundApi(ctx, settings, 'POST', placement.path, {
			body: placement.body,
			retry: false,
			itemIndex: 0,
		});
		accepted = placedItem(ctx.getNode(), placement, response, new Date().toISOString(), 0);
	} catch (caught) {
		const error = caught as NodeFailure;
		const outcome = outcomeOf(error);
		// Refused by the platform: nothing was placed, the guards' places are given back.
		if (outcome === 'rejected') await places.giveBack();
		describeOutcome(error, outcome);
		if (!ctx.continueOnFail()) throw error;
		return { failed: onlyItem(failedItem(error, outcome, outputSummary(placement))) };
	}
	await places.placed(String(accepted.internal_id));
	// The resume URL may carry n8n's resume token: it stays out of the output.
	delete accepted.callResultUrl;
	return { accepted };
}

/**
 * Puts the execution to wait until Max Wait, with the item n8n passes on when no result arrives
 * (resultSource "timeout"); returns the item shown while it waits.
 */
async function waitForResult(
	ctx: IExecuteFunctions,
	accepted: IDataObject,
	maxWaitMinutes: number,
): Promise<INodeExecutionData[][]> {
	const waitTill = new Date(Date.now() + maxWaitMinutes * 60_000);
	const timeoutItem: INodeExecutionData = {
		json: {
			...accepted,
			resultSource: 'timeout',
			...callResultFields(accepted.internal_id),
			dialstatus: null,
			waitTill: waitTill.toISOString(),
			message:
				'No call result arrived within Max Wait. Read the outcome with Assistant Platform → Call Status → Get (it reads internal_id from this item; turn on Wait for Call Record).',
		},
		pairedItem: { item: 0 },
	};
	// What n8n passes on if Max Wait passes with no callback: the waiting node's input. A new data
	// object (the upstream node's output array is left untouched).
	const executeData = ctx.getExecuteData();
	executeData.data = { ...executeData.data, main: [[timeoutItem]] };
	await ctx.putExecutionToWait(waitTill);

	// Shown while the execution waits; replaced by the result (or the item above) on resume.
	return onlyItem({
		...timeoutItem.json,
		resultSource: 'waiting',
		message: `Waiting for the call result until ${waitTill.toISOString()}`,
	});
}

/** The item the execution waits with (this node's input since execute()), or undefined. */
function waitingItem(ctx: IWebhookFunctions): IDataObject | undefined {
	try {
		const value = ctx.evaluateExpression('{{ $json }}', 0);
		return isObject(value) ? { ...value } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The resume webhook: n8n calls it when a request reaches this execution's resume URL. It accepts
 * only the result of the call this execution placed, reads the call status, and returns the item
 * the workflow continues with.
 */
export async function placeCallAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const node = this.getNode();
	// The bound the trigger applies: n8n has read (and decoded) the body, up to its own 16 MB.
	const req = this.getRequestObject() as unknown as { headers: Record<string, unknown>; rawBody?: unknown };
	if (callbackBodyTooLarge(req.headers, req.rawBody)) return refuse(this, 413, `body larger than ${MAX_CALLBACK_BODY_BYTES} bytes`);
	const parsed = parseCallResult(this.getBodyData());
	if (!parsed.ok) return refuse(this, 400, `Not a call result: ${parsed.reason}`);
	const result = parsed.value;

	const waiting = waitingItem(this) ?? {};
	const expected = waiting.internal_id;
	if (expected === undefined || expected === null || String(expected) !== String(result.internal_id)) {
		return refuse(this, 409, 'This execution is waiting for the result of another call (internal_id does not match)');
	}

	const placementFields: IDataObject = {};
	for (const [key, value] of Object.entries(waiting)) {
		if (!DROPPED_ON_RESULT.has(key)) placementFields[key] = value;
	}

	const internalId = String(result.internal_id);
	let record: IDataObject = {};
	let statusRecord = 'pending';
	let statusError: string | undefined;
	try {
		const settings = readRequestSettings(node, this.getNodeParameter('requestOptions', {}));
		const waitSeconds = Number(
			this.getNodeParameter('options.resultRecordWait', DEFAULT_RESULT_RECORD_WAIT_SECONDS),
		);
		const maxWaitMs = Number.isFinite(waitSeconds) ? Math.min(Math.max(waitSeconds, 0), 60) * 1000 : 0;
		const baseURL = await outboundBaseUrl(this);
		const poll = await pollStatus(this, settings, internalId, { maxWaitMs, initialDelayMs: 500 }, undefined, baseURL);
		if (poll.found) {
			record = isObject(poll.response.body) ? poll.response.body : {};
			statusRecord = 'found';
		}
	} catch (error) {
		// The result itself arrived: continue with it even when the status read fails.
		statusRecord = 'error';
		statusError = (error as Error).message;
	}

	const json: IDataObject = {
		...placementFields,
		...record,
		// The callback's outcome and duration; billed seconds and cost from the status record.
		...callResultFields(result.internal_id, {
			dialStatus: result.dialStatus,
			duration: result.duration,
			billSec: record.billSec,
			trafficCost: record.trafficCost,
		}),
		// The spelling of version 1's first outputs, kept for saved workflows that test it.
		dialstatus: result.dialStatus,
		resultSource: 'callback',
		statusRecord,
		...(statusError ? { statusError } : {}),
		resultReceivedAt: new Date().toISOString(),
	};
	return { workflowData: [[{ json, pairedItem: { item: 0 } }]] };
}
