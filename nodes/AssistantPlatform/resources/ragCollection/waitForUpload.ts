import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { portalRequest } from '../../../shared/transport/request';
import { assertIntegerInRange } from '../../../shared/core/validation';
import { asObject } from '../../../shared/core/object';

import type { Show } from './common';

/** Final processing states of an upload (docs/assumptions.md, endpoint 13). */
export const FINAL_UPLOAD_STATES = ['completed', 'failed'];

export const POLL_INTERVAL_DEFAULT_MS = 1_000;
export const POLL_INTERVAL_MIN_MS = 100;
/** The wait between polls doubles after every poll, up to this bound. */
export const POLL_INTERVAL_MAX_MS = 15_000;
export const MAX_WAIT_DEFAULT_S = 600;
export const MAX_WAIT_MAX_S = 86_400;

export interface WaitSettings {
	maxWaitSeconds: number;
	pollIntervalMs: number;
	onTimeout: 'error' | 'output';
	errorOnFailed: boolean;
}

export interface WaitResult {
	state: IDataObject;
	timedOut: boolean;
	polls: number;
}

/** "Wait for Processing" and its options, for the operations that can wait for an upload. */
export function waitProperties(show: Show): INodeProperties[] {
	return [
		{
			displayName: 'Wait for Processing',
			name: 'waitForProcessing',
			type: 'boolean',
			default: false,
			description:
				'Whether to poll the upload until its processing is over (status "completed" or "failed") and output that final state. When off, the current state is output at once.',
			displayOptions: { show },
		},
		{
			displayName: 'Wait Options',
			name: 'waitOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show: { ...show, waitForProcessing: [true] } },
			options: [
				{
					displayName: 'Error on Failed Processing',
					name: 'errorOnFailed',
					type: 'boolean',
					default: false,
					description:
						'Whether a "failed" final state stops the node with an error. When off, it is output as data like any other state.',
				},
				{
					displayName: 'First Poll Interval (Ms)',
					name: 'pollIntervalMs',
					type: 'number',
					typeOptions: { minValue: POLL_INTERVAL_MIN_MS, maxValue: POLL_INTERVAL_MAX_MS },
					default: POLL_INTERVAL_DEFAULT_MS,
					description: `Wait before the second poll, in milliseconds (${POLL_INTERVAL_MIN_MS} to ${POLL_INTERVAL_MAX_MS}). The wait doubles after every poll, up to ${POLL_INTERVAL_MAX_MS / 1000} seconds.`,
				},
				{
					displayName: 'Max Wait (Seconds)',
					name: 'maxWaitSeconds',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_WAIT_MAX_S },
					default: MAX_WAIT_DEFAULT_S,
					description: 'How long to keep polling before giving up (see On Timeout)',
				},
				{
					displayName: 'On Timeout',
					name: 'onTimeout',
					type: 'options',
					options: [
						{
							name: 'Error',
							value: 'error',
							description: 'Stop the node with an error that reports the last known state',
						},
						{
							name: 'Output Last State',
							value: 'output',
							description: 'Output the last state read, with timedOut set to true',
						},
					],
					default: 'error',
					description: 'What to do when processing is not over within Max Wait',
				},
			],
		},
	];
}

export function readWaitSettings(ctx: IExecuteFunctions, itemIndex: number): WaitSettings {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('waitOptions', itemIndex, {}) as IDataObject;
	const maxWaitSeconds = assertIntegerInRange(
		node,
		'Max Wait (Seconds)',
		options.maxWaitSeconds ?? MAX_WAIT_DEFAULT_S,
		1,
		MAX_WAIT_MAX_S,
		itemIndex,
	);
	const pollIntervalMs = assertIntegerInRange(
		node,
		'First Poll Interval (Ms)',
		options.pollIntervalMs ?? POLL_INTERVAL_DEFAULT_MS,
		POLL_INTERVAL_MIN_MS,
		POLL_INTERVAL_MAX_MS,
		itemIndex,
	);
	const onTimeout = options.onTimeout === 'output' ? 'output' : 'error';
	return { maxWaitSeconds, pollIntervalMs, onTimeout, errorOnFailed: options.errorOnFailed === true };
}

function describeState(state: IDataObject): string {
	const status = typeof state.status === 'string' ? state.status : 'unknown';
	const progress = typeof state.progress === 'number' ? `, progress ${state.progress}%` : '';
	return `status "${status}"${progress}`;
}

export async function readUpload(
	ctx: IExecuteFunctions,
	uploadId: string,
	itemIndex: number,
): Promise<IDataObject> {
	const { body } = await portalRequest(ctx, 'GET', `/rag/uploads/${encodeURIComponent(uploadId)}`, {
		retry: true,
		itemIndex,
	});
	return asObject(body);
}

/**
 * A record read without a `status` text: no field of an upload record is shown by the spec, and without one the
 * end of processing cannot be told, so waiting stops at once rather than polling until Max Wait.
 */
function noStatus(ctx: IExecuteFunctions, uploadId: string, itemIndex: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The upload record of ${uploadId} has no "status": Wait for Processing cannot tell when processing is over`,
		{
			itemIndex,
			description:
				'Waiting reads the record\'s "status" until it is "completed" or "failed"; this platform\'s record has none. Turn off Wait for Processing to output the record as it is, and read it again later with Get Upload Progress.',
		},
	);
}

function isFinal(state: IDataObject): boolean {
	return typeof state.status === 'string' && FINAL_UPLOAD_STATES.includes(state.status);
}

/**
 * Polls `GET /rag/uploads/{uploadId}` with bounded exponential backoff until the upload reaches a
 * final state or Max Wait passes. Reads are retried by the transport; the wait between polls
 * starts at First Poll Interval and doubles up to 15 seconds. `first` (the upload's answer) needs no
 * status; a record read without one stops the wait (noStatus).
 */
export async function waitForUpload(
	ctx: IExecuteFunctions,
	uploadId: string,
	settings: WaitSettings,
	itemIndex: number,
	first?: IDataObject,
): Promise<WaitResult> {
	const node = ctx.getNode();
	const deadline = Date.now() + settings.maxWaitSeconds * 1000;
	let delay = settings.pollIntervalMs;
	let polls = 0;
	let state = first;
	for (;;) {
		if (state === undefined) {
			state = await readUpload(ctx, uploadId, itemIndex);
			polls++;
			if (typeof state.status !== 'string' || state.status === '') throw noStatus(ctx, uploadId, itemIndex);
		}
		if (isFinal(state)) break;
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			if (settings.onTimeout === 'output') return { state, timedOut: true, polls };
			throw new NodeOperationError(
				node,
				`Upload ${uploadId} was still being processed after ${settings.maxWaitSeconds} s (last ${describeState(state)})`,
				{
					itemIndex,
					description:
						'Raise Wait Options → Max Wait, read it again later with Get Upload Progress, or set On Timeout to "Output Last State" to continue with the state read last.',
				},
			);
		}
		if (ctx.getExecutionCancelSignal()?.aborted) {
			throw new NodeOperationError(node, `Stopped waiting for upload ${uploadId}: the execution was cancelled`, {
				itemIndex,
			});
		}
		await sleep(Math.min(delay, remaining));
		delay = Math.min(delay * 2, POLL_INTERVAL_MAX_MS);
		state = undefined;
	}

	if (state.status === 'failed' && settings.errorOnFailed) {
		const reason = typeof state.error === 'string' && state.error !== '' ? `: ${state.error}` : '';
		throw new NodeOperationError(node, `Processing of upload ${uploadId} failed${reason}`, {
			itemIndex,
			description:
				'The platform could not process the documents. Turn off Wait Options → Error on Failed Processing to get the failed state as data instead.',
		});
	}
	return { state, timedOut: false, polls };
}
