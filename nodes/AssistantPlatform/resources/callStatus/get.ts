import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isToolRun } from '../../../shared/n8n/agentTool';
import { readPlatformError } from '../../../shared/transport/errors';
import { asNodeError } from '../../helpers/items';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import type { RequestSettings } from '../../../shared/transport/settings';
import { readRequestSettings } from '../../../shared/transport/settings';
import { assertPathId, invalid } from '../../../shared/core/validation';
import { readBatching, runInBatches } from '../../helpers/batches';
import { anotherCallsRecord, callResultFields, statusRecordItem as statusItem } from '../../../shared/calls/callResult';
import { pollStatus, readStatusOnce, STATUS_POLL_MAX_DELAY_MS } from '../../../shared/calls/statusPoll';

const show = { resource: ['callStatus'], operation: ['get'] };
const showWait = { ...show, waitForRecord: [true] };

export const DEFAULT_MAX_WAIT_SECONDS = 300;
export const MAX_WAIT_LIMIT_SECONDS = 3600;
export const DEFAULT_INITIAL_DELAY_MS = 2000;

export const description: INodeProperties[] = [
	{
		displayName: 'Internal ID',
		name: 'internalId',
		type: 'string',
		required: true,
		default: '={{ $json.internal_id }}',
		placeholder: 'e.g. 9f1c2e4b7a8d4f0e9c3b5a6d7e8f9012',
		description:
			'The internal_id returned when the call was placed. By default it is read from the input item, so this node can follow Place Call directly.',
		displayOptions: { show },
	},
	{
		displayName: 'Wait for Call Record',
		name: 'waitForRecord',
		type: 'boolean',
		default: false,
		description:
			'Whether to keep reading while the platform answers 404 (the call record is written only after the call ends). Reads back off exponentially up to Max Wait. Without it, a 404 fails with a clear message.',
		displayOptions: { show },
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWait',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_WAIT_LIMIT_SECONDS, numberPrecision: 1 },
		default: DEFAULT_MAX_WAIT_SECONDS,
		description: `How long to keep reading before giving up (0 to ${MAX_WAIT_LIMIT_SECONDS}). The default, 5 minutes, covers a call of a few minutes read right after it was placed. The worker stays busy while it waits.`,
		displayOptions: { show: showWait },
	},
	{
		displayName: 'Initial Delay (Ms)',
		name: 'initialDelay',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: DEFAULT_INITIAL_DELAY_MS,
		description: `Pause after the first 404 before reading again. Each further pause doubles, up to ${STATUS_POLL_MAX_DELAY_MS / 1000} s.`,
		displayOptions: { show: showWait },
	},
	{
		displayName: 'On Timeout',
		name: 'onTimeout',
		type: 'options',
		default: 'error',
		options: [
			{
				name: 'Fail',
				value: 'error',
				description: 'Stop with an error saying the record did not appear within Max Wait',
			},
			{
				name: 'Output Pending Item',
				value: 'pending',
				description: 'Output {internal_id, pending: true} and continue, so a later step can read again',
			},
		],
		description: 'What to do when the record is still missing after Max Wait',
		displayOptions: { show: showWait },
	},
];

interface StatusRequest {
	internalId: string;
	wait?: { maxWaitMs: number; initialDelayMs: number; onTimeout: 'error' | 'pending' };
}

function readRequest(ctx: IExecuteFunctions, node: INode, i: number): StatusRequest {
	const internalId = assertPathId(node, 'Internal ID', ctx.getNodeParameter('internalId', i, ''), i);
	if (!(ctx.getNodeParameter('waitForRecord', i, false) as boolean)) return { internalId };
	const maxWait = Number(ctx.getNodeParameter('maxWait', i, DEFAULT_MAX_WAIT_SECONDS));
	if (!Number.isFinite(maxWait) || maxWait < 0 || maxWait > MAX_WAIT_LIMIT_SECONDS) {
		throw invalid(node, 'Max Wait (Seconds)', `must be a number from 0 to ${MAX_WAIT_LIMIT_SECONDS}`, i);
	}
	const initialDelay = Number(ctx.getNodeParameter('initialDelay', i, DEFAULT_INITIAL_DELAY_MS));
	if (!Number.isInteger(initialDelay) || initialDelay < 1 || initialDelay > 600_000) {
		throw invalid(node, 'Initial Delay (Ms)', 'must be a whole number from 1 to 600000', i);
	}
	const onTimeout = ctx.getNodeParameter('onTimeout', i, 'error') as string;
	if (onTimeout !== 'error' && onTimeout !== 'pending') {
		throw invalid(node, 'On Timeout', 'must be "error" or "pending"', i);
	}
	return { internalId, wait: { maxWaitMs: maxWait * 1000, initialDelayMs: initialDelay, onTimeout } };
}

function notPersistedError(node: INode, body: unknown, itemIndex: number): NodeApiError {
	const platform = readPlatformError(body);
	return new NodeApiError(
		node,
		{ code: platform.code ?? null, message: platform.message ?? null, status: 404 } as JsonObject,
		{
			message: 'The call record is not persisted yet (404)',
			description:
				'The platform answers 404 until the call record is written, usually shortly after the call ends. Turn on "Wait for Call Record" to keep reading until it is there, or read it again later.',
			httpCode: '404',
			itemIndex,
		},
	);
}

/** The status query names its call in the URL: an answer naming another internal_id is not this call's record. */
function anotherCallsRecordError(node: INode, internalId: string, another: string, statusCode: number, itemIndex: number): NodeApiError {
	return new NodeApiError(node, { status: statusCode } as JsonObject, {
		message: `The status read of "${internalId}" answered ${another}: not used`,
		description:
			"The status query names the call in its URL, so its answer is that call's record; this one named another call. Read it again later, or look the call up in the platform's call log.",
		httpCode: String(statusCode),
		itemIndex,
	});
}

async function readOne(
	ctx: IExecuteFunctions,
	node: INode,
	settings: RequestSettings,
	request: StatusRequest,
	i: number,
	baseURL: string,
): Promise<IDataObject> {
	if (!request.wait) {
		const response = await readStatusOnce(ctx, settings, request.internalId, i, baseURL);
		if (response.statusCode === 404) {
			// As an AI agent's tool it is an answer, not a failure: the call is still in progress (the model is told so).
			if (isToolRun(node)) return callResultFields(request.internalId);
			throw notPersistedError(node, response.body, i);
		}
		const another = anotherCallsRecord(request.internalId, response.body);
		if (another !== undefined) throw anotherCallsRecordError(node, request.internalId, another, response.statusCode, i);
		return statusItem(request.internalId, response.body);
	}
	const result = await pollStatus(ctx, settings, request.internalId, request.wait, i, baseURL);
	if (result.found) return statusItem(request.internalId, result.response.body);
	const waitedSeconds = Math.round(result.waitedMs / 100) / 10;
	const within = `within ${request.wait.maxWaitMs / 1000} s`;
	const message =
		result.notEnded === undefined
			? `The call record of "${request.internalId}" was not persisted ${within} (${result.attempts} reads, all 404)`
			: `The status of "${request.internalId}" gave no outcome of the call ${within} (${result.attempts} reads; the last answered ${result.notEnded})`;
	if (request.wait.onTimeout === 'pending') {
		return {
			...callResultFields(request.internalId),
			attempts: result.attempts,
			waitedSeconds,
			message,
		};
	}
	throw new NodeOperationError(node, message, {
		itemIndex: i,
		description:
			'The call may still be in progress, or the record is late. Raise Max Wait, choose On Timeout > Output Pending Item to continue without it, or read it again later.',
	});
}

/** Call Status → Get: GET /getDialstatus/{internal_id} for each item. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const rawOptions = this.getNodeParameter('requestOptions', 0, {});
	const settings = readRequestSettings(node, rawOptions, 0);
	const batching = readBatching(rawOptions);

	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	const requests: Array<StatusRequest | undefined> = new Array(items.length);
	for (let i = 0; i < items.length; i++) {
		try {
			requests[i] = readRequest(this, node, i);
		} catch (error) {
			if (!continueOnFail) throw asNodeError(node, error, i);
			results[i] = { json: { error: (error as Error).message }, pairedItem: { item: i } };
		}
	}

	let failure: Error | undefined;
	const todo = requests.flatMap((request, i) => (request ? [i] : []));
	// Read once per run, not once per status read: in n8n every getCredentials loads and decrypts it.
	const baseURL = todo.length > 0 ? await outboundBaseUrl(this) : '';
	await runInBatches(
		todo,
		batching,
		async (i) => {
			const request = requests[i]!;
			try {
				results[i] = { json: await readOne(this, node, settings, request, i, baseURL), pairedItem: { item: i } };
			} catch (error) {
				if (!continueOnFail) {
					failure ??= error as Error;
					return;
				}
				results[i] = {
					json: { error: (error as Error).message, internal_id: request.internalId },
					pairedItem: { item: i },
				};
			}
		},
		() => failure !== undefined,
	);
	if (failure) throw failure;
	return [results.filter((item): item is INodeExecutionData => item !== undefined)];
}
