/*
 * What Place Call (and Call and Wait) say about a call that failed, in one voice, in the error's message itself:
 * an AI agent reads only `error.message` of a failed tool, and a person reads it first. Two outcomes:
 * - nothing was dialled (refused before sending, or rejected by the platform with a 4xx): "No call was placed.";
 * - the outcome is unknown (timeout, reset, 5xx, an answer without internal_id): the call may have been placed,
 *   do not place it again, and how to find out (Call Status with its internal_id, or the platform when none came
 *   back). Nothing said about such a call tells anyone to try again.
 */

import type { INode } from 'n8n-workflow';

import { isToolRun } from '../n8n/agentTool';
import type { NodeFailure } from '../transport/errors';
import { descriptionWithoutRetry } from '../transport/errors';

export const NO_CALL_PLACED = 'No call was placed.';

/**
 * `advice` for the workflow's author (a node setting, the items of a run), as an error's description says it; none
 * when the node runs as a tool. There the description is what the model or MCP client reads after the message
 * (n8n 2.x's tool wrapper sends "<message>\n\nDetails: <description>"; with On Error → Continue, the item's
 * `description`), and neither can change a setting; one tool call is one item, with no other calls to report.
 */
export function forAuthor(node: INode, advice: string): string {
	return isToolRun(node) ? '' : advice;
}

/** What gives a run of many calls one result item each, failed ones included: the author's setting. */
export const CONTINUE_ON_FAIL_ADVICE = 'Set Settings > On Error to "Continue" (Continue On Fail) to get one result item per call instead.';

const UNKNOWN_PREFIX = 'Outcome unknown: ';

/** The human advice of an unknown outcome (the error's description); the message says the same in short. */
const UNKNOWN_OUTCOME_DESCRIPTION =
	'Placing a call is never retried automatically. Before this call is placed again, find out whether it was: Assistant Platform → Call Status → Get with its internal_id when one came back, else the call log on the platform.';

/** `text` ending with a full stop, so that a sentence can follow it. */
function sentence(text: string): string {
	const trimmed = text.trim();
	return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** Adds "No call was placed." to the message of an error after which nothing was dialled (once). */
export function markNoCallPlaced<T extends Error>(error: T): T {
	if (error instanceof Error && !error.message.includes(NO_CALL_PLACED)) {
		error.message = `${sentence(error.message)} ${NO_CALL_PLACED}`;
	}
	return error;
}

/** What the call is called in a message: "The call to +14155550123", or "The call". */
function theCall(dst: unknown): string {
	return typeof dst === 'string' && dst !== '' ? `The call to ${dst}` : 'The call';
}

/**
 * The message of a call whose outcome is unknown: the reason, that it may have been placed and must not be placed
 * again, and how to find out (Call Status with its internal_id when there is one).
 */
function unknownOutcomeMessage(reason: string, call: { dst?: unknown; internalId?: unknown } = {}): string {
	const id = call.internalId;
	const check =
		typeof id === 'string' || typeof id === 'number'
			? `Check Call Status with internal_id "${String(id)}" to learn what happened.`
			: 'No internal_id came back, so Call Status cannot check it: the call log on the platform tells whether it was placed.';
	return `${UNKNOWN_PREFIX}${sentence(reason)} ${theCall(call.dst)} may have been placed: do not place it again. ${check}`;
}

/** Rewrites an error of a call whose outcome is unknown: its message and description in the one voice above. */
export function describeUnknownOutcome(error: NodeFailure, call: { dst?: unknown; internalId?: unknown } = {}): void {
	if (error.message.startsWith(UNKNOWN_PREFIX)) return;
	error.message = unknownOutcomeMessage(error.message, call);
	// The rest of the transport's hint stays; its advice to try again (right for a read) does not.
	error.description = [UNKNOWN_OUTCOME_DESCRIPTION, descriptionWithoutRetry(error)].filter((part) => part !== '').join(' ');
}

/** Calls an error names, at most: n8n discards the output of a node that fails, so its error lists them. */
const LISTED_CALLS = 50;

/** Calls as an error lists them ("item 3: <internal_id>", ...): the first LISTED_CALLS, then an ellipsis. */
export function listedCalls(calls: string[]): string {
	return `${calls.slice(0, LISTED_CALLS).join(', ')}${calls.length > LISTED_CALLS ? ', …' : ''}`;
}

/** Why a call was refused past Max Calls per Agent Run, for the model: the cap is reached, no call was placed. */
export function callCapReachedMessage(used: number, cap: number): string {
	return `Not placed: this agent run already placed ${used} call${used === 1 ? '' : 's'}, the most Max Calls per Agent Run allows (${cap}). ${NO_CALL_PLACED} Do not try again in this run: tell the user the limit is reached.`;
}

/** What an AI agent's model reads with an accepted call: it is being placed, which id to keep, not to call again. */
export function acceptedCallMessage(dst: unknown, internalId: unknown): string {
	return `Call accepted: the platform is calling ${String(dst)} now. Keep internal_id "${String(internalId)}" to learn what happened (Call Status); do not place this call again.`;
}
