import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { outboundBaseUrl } from '../../shared/transport';
import { invalid } from '../../shared/validation';
import { pollStatus, statusItem } from '../callStatus/status';

import { DEFAULT_MAX_WAIT_MINUTES, DEFAULT_RESULT_RECORD_WAIT_SECONDS, MAX_WAIT_MINUTES_LIMIT } from './fields';
import { outboundApi, readRequestSettings } from './outbound';
import {
	credentialAssistantKey,
	describeOutcome,
	failedItem,
	outcomeOf,
	placedItem,
	readPlacement,
	refuseAutomaticRetry,
} from './placement';

/*
 * Place Call and Wait for Result, with n8n's own wait-and-resume (docs/assumptions.md,
 * "Place Call and Wait for Result"):
 *
 * 1. execute(): validates the one input item, places the call with callResultUrl = this
 *    execution's resume URL ($execution.resumeUrl), and puts the execution to wait until Max Wait.
 *    n8n saves the execution and frees the worker.
 * 2. The platform POSTs {internal_id, dialstatus, duration} to the resume URL. n8n runs this node's
 *    webhook() (a restart webhook), whose output becomes the node's output: the callback checked
 *    against the call placed, enriched with the status query.
 * 3. No callback within Max Wait: n8n resumes the execution without running the node again and
 *    passes the node's input through. Before waiting, execute() replaced that input with an item
 *    that says so (resultSource "timeout", pending, internal_id) so the next step can read the
 *    status (Call Status → Get reads internal_id from the item by default).
 */

type NodeFailure = Error & { description?: string | null; httpCode?: string | null };

/** Fields of the waiting item that only describe the wait; the callback result replaces them. */
const WAIT_ONLY_FIELDS = ['resultSource', 'pending', 'message', 'waitTill'];
const RESULT_FIELDS = ['dialstatus', 'duration', 'dialStatus', 'billSec', 'trafficCost', 'trafficCostNumber'];

const emptyResult = (): IDataObject => ({
	dialstatus: null,
	duration: null,
	dialStatus: null,
	billSec: null,
	trafficCost: null,
	trafficCostNumber: null,
});

export async function placeCallAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const refused = refuseAutomaticRetry(node, this.continueOnFail());
	if (refused) return [[{ json: refused, pairedItem: { item: 0 } }]];
	const items = this.getInputData();
	if (items.length !== 1) {
		throw new NodeOperationError(
			node,
			`Place Call and Wait for Result places one call per execution and got ${items.length} input items`,
			{
				description:
					'Put a Loop Over Items node (batch size 1) before this node: each round places one call and waits for its result before the next round starts. To call many numbers without waiting, use Assistant Platform → Outbound Call → Place Call (results arrive at an Assistant Platform Trigger). Nothing was sent.',
			},
		);
	}
	if (node.type.endsWith('Tool')) {
		throw new NodeOperationError(node, 'Place Call and Wait for Result cannot run as an AI tool', {
			description:
				'An AI agent cannot pause its run until a call ends. Give the agent Assistant Platform → Outbound Call → Place Call instead. Nothing was sent.',
		});
	}

	const settings = readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0);
	const maxWaitMinutes = Number(this.getNodeParameter('maxWaitMinutes', 0, DEFAULT_MAX_WAIT_MINUTES));
	if (!Number.isFinite(maxWaitMinutes) || maxWaitMinutes <= 0 || maxWaitMinutes > MAX_WAIT_MINUTES_LIMIT) {
		throw invalid(node, 'Max Wait (Minutes)', `must be a number above 0 and at most ${MAX_WAIT_MINUTES_LIMIT}`, 0);
	}
	const resumeUrl = String(this.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const placement = readPlacement(this, node, 0, await credentialAssistantKey(this), resumeUrl);

	let accepted: IDataObject;
	try {
		const response = await outboundApi(this, settings, 'POST', placement.path, {
			body: placement.body,
			retry: false,
			itemIndex: 0,
		});
		accepted = placedItem(node, placement, response, new Date().toISOString(), 0);
	} catch (caught) {
		const error = caught as NodeFailure;
		const outcome = outcomeOf(error);
		describeOutcome(error, outcome);
		if (!this.continueOnFail()) throw error;
		const summary = { ...placement.summary };
		delete summary.callResultUrl;
		return [[{ json: failedItem(error, outcome, summary), pairedItem: { item: 0 } }]];
	}
	// The resume URL may carry n8n's resume token: it stays out of the output.
	delete accepted.callResultUrl;

	const waitTill = new Date(Date.now() + maxWaitMinutes * 60_000);
	const timeoutItem: INodeExecutionData = {
		json: {
			...accepted,
			resultSource: 'timeout',
			pending: true,
			...emptyResult(),
			waitTill: waitTill.toISOString(),
			message:
				'No call result arrived within Max Wait. Read the outcome with Assistant Platform → Call Status → Get (it reads internal_id from this item; turn on Wait for Call Record).',
		},
		pairedItem: { item: 0 },
	};
	// What n8n passes on if Max Wait passes with no callback: the waiting node's input. A new data
	// object (the upstream node's output array is left untouched).
	const executeData = this.getExecuteData();
	executeData.data = { ...executeData.data, main: [[timeoutItem]] };
	await this.putExecutionToWait(waitTill);

	// Shown while the execution waits; replaced by the result (or the item above) on resume.
	return [
		[
			{
				json: {
					...timeoutItem.json,
					resultSource: 'waiting',
					message: `Waiting for the call result until ${waitTill.toISOString()}`,
				},
				pairedItem: { item: 0 },
			},
		],
	];
}

/** The parts of the HTTP response (an express Response, a Node ServerResponse) used to refuse a request. */
interface ResumeResponse {
	statusCode: number;
	setHeader(name: string, value: string): unknown;
	end(chunk?: string): unknown;
}

/** Answers the request with a status and a short JSON reason; the execution keeps waiting. */
function refuse(ctx: IWebhookFunctions, status: number, reason: string): IWebhookResponseData {
	const res = ctx.getResponseObject() as unknown as ResumeResponse;
	res.statusCode = status;
	res.setHeader('Content-Type', 'application/json; charset=utf-8');
	res.end(JSON.stringify({ error: reason }));
	return { noWebhookResponse: true };
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface CallResult {
	internal_id: string | number;
	dialstatus: string;
	duration: number;
}

/** `{internal_id, dialstatus, duration}` (dialStatus accepted too; duration as a number or digits). */
export function parseCallResult(body: unknown): { ok: true; value: CallResult } | { ok: false; reason: string } {
	if (!isObject(body)) return { ok: false, reason: 'the body must be a JSON object' };
	const id = body.internal_id;
	if (!((typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id)))) {
		return { ok: false, reason: 'internal_id must be a non-empty string' };
	}
	const dial = body.dialstatus ?? body.dialStatus;
	if (typeof dial !== 'string' || dial.trim() === '') {
		return { ok: false, reason: 'dialstatus must be a non-empty string' };
	}
	const rawDuration = body.duration;
	const duration =
		typeof rawDuration === 'string' && /^\d+$/.test(rawDuration.trim()) ? Number(rawDuration) : rawDuration;
	if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 0) {
		return { ok: false, reason: 'duration must be a whole number of seconds' };
	}
	return { ok: true, value: { internal_id: id as string | number, dialstatus: dial, duration } };
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
		if (!WAIT_ONLY_FIELDS.includes(key) && !RESULT_FIELDS.includes(key)) placementFields[key] = value;
	}

	const internalId = String(result.internal_id);
	let status: IDataObject = { dialStatus: null, billSec: null, trafficCost: null, trafficCostNumber: null };
	let statusRecord = 'pending';
	let statusError: string | undefined;
	try {
		const settings = readRequestSettings(node, this.getNodeParameter('requestOptions', {}));
		const waitSeconds = Number(
			this.getNodeParameter('options.resultRecordWait', DEFAULT_RESULT_RECORD_WAIT_SECONDS),
		);
		const maxWaitMs = Number.isFinite(waitSeconds) ? Math.min(Math.max(waitSeconds, 0), 60) * 1000 : 0;
		// The outbound URL is read once for all the reads of the poll (each getCredentials is a load in n8n).
		const baseURL = await outboundBaseUrl(this);
		const poll = await pollStatus(this, settings, internalId, { maxWaitMs, initialDelayMs: 500 }, undefined, baseURL);
		if (poll.found) {
			status = statusItem(internalId, poll.response.body);
			delete status.internal_id;
			statusRecord = 'found';
		}
	} catch (error) {
		// The result itself arrived: continue with it even when the status read fails.
		statusRecord = 'error';
		statusError = (error as Error).message;
	}

	const json: IDataObject = {
		...placementFields,
		...status,
		internal_id: result.internal_id,
		resultSource: 'callback',
		pending: false,
		dialstatus: result.dialstatus,
		duration: result.duration,
		statusRecord,
		...(statusError ? { statusError } : {}),
		resultReceivedAt: new Date().toISOString(),
	};
	return { workflowData: [[{ json, pairedItem: { item: 0 } }]] };
}
