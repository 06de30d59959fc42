import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { asNodeError } from '../../helpers/items';
import { outboundBaseUrl, readRequestSettings, retryAfterMs } from '../../../shared/transport/request';
import { placementProperties } from '../../../shared/descriptions/placementFields';
import { readBatching, runInBatches } from '../../helpers/batches';
import { outboundApi } from '../../../shared/transport/outbound';

import type { Outcome, Placement } from '../../../shared/calls/placement';
import {
	credentialAssistantKey,
	describeOutcome,
	failedItem,
	outcomeOf,
	placedItem,
	readPlacement,
	refuseAutomaticRetry,
} from '../../../shared/calls/placement';
import { markNoCallPlaced } from '../../../shared/calls/messages';
import { agentRunCallSlots } from '../../../shared/agent/callsPerRun';
import type { LimitPlace } from '../../../shared/calls/callLimit';
import { readCallLimit } from '../../../shared/calls/callLimit';
import type { PlaceResult } from './callsInFlight';

import { PlaceCallCampaign } from './campaignRound';

export const description: INodeProperties[] = placementProperties({ resource: ['outboundCall'], operation: ['placeCall'] }, 'placeCall');

type NodeFailure = Error & { description?: string | null; httpCode?: string | null };

const LISTED_IDS = 50;

/**
 * Outbound Call → Place Call: one POST per input item, never retried.
 *
 * Every item is read and validated first: without Continue On Fail a bad item stops the node before
 * the first call (a bad row 500 never cuts a campaign after 499 calls). Calls then go one at a time,
 * or with Request Options > Batching up to Items per Batch at once with Batch Interval between
 * batches. Without Continue On Fail the first failure ends the run after the current batch and the
 * error lists the calls already placed (n8n discards the node's output when it fails).
 *
 * With Campaign options (campaign.ts): an item whose number was dialled in this execution for the same
 * attempt, or whose time has not come, is not dialled and comes out saying so; with Max Calls in Flight
 * the calls are placed as lines free up and followed to their end instead of in batches.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const refused = refuseAutomaticRetry(node, continueOnFail);
	if (refused) return [items.map((_, i) => ({ json: refused, pairedItem: { item: i } }))];
	const rawRequestOptions = this.getNodeParameter('requestOptions', 0, {});
	const settings = readRequestSettings(node, rawRequestOptions, 0);
	const batching = readBatching(rawRequestOptions);
	// The credential's assistant key and URL are read once per run, not once per call: in n8n every
	// getCredentials loads and decrypts it (read with item 0: a credential is the same for every item).
	// n8n-core's httpRequestWithAuthentication still loads it for each request it authenticates.
	const credentialKey = await credentialAssistantKey(this);
	const baseURL = await outboundBaseUrl(this);
	// Limit Calls Across Executions (undefined when off); as an AI agent's tool, Max Calls per Agent Run.
	const limit = readCallLimit(this);
	const slots = agentRunCallSlots(this, limit !== undefined);
	let campaign: PlaceCallCampaign | undefined;
	try {
		campaign = PlaceCallCampaign.read(this, node);
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}

	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	const placements: Array<Placement | undefined> = new Array(items.length);
	for (let i = 0; i < items.length; i++) {
		try {
			const placement = readPlacement(this, node, i, credentialKey);
			campaign?.readItem(i, placement);
			placements[i] = placement;
		} catch (error) {
			markNoCallPlaced(error as Error);
			if (!continueOnFail) throw asNodeError(node, error, i);
			results[i] = { json: failedItem(error as NodeFailure, 'invalid', undefined), pairedItem: { item: i } };
		}
	}

	const placed: Array<{ index: number; internalId: unknown }> = [];
	const failures: Array<{ index: number; error: NodeFailure; outcome: Outcome }> = [];
	const todo = placements.flatMap((placement, i) => (placement ? [i] : []));

	/** An item that must not be dialled now (Campaign options: skipped or deferred) gets its output here; true when it did. */
	const skipOrDefer = (i: number): boolean => {
		const json = campaign?.skipOrDefer(i, placements[i]!, Date.now());
		if (json) results[i] = { json, pairedItem: { item: i } };
		return json !== undefined;
	};
	const place = async (i: number): Promise<PlaceResult> => {
		const placement = placements[i]!;
		const refuse = (refusal: NodeFailure): PlaceResult => {
			campaign?.release(i, placement);
			if (continueOnFail) results[i] = { json: failedItem(refusal, 'invalid', placement.summary), pairedItem: { item: i } };
			else failures.push({ index: i, error: refusal, outcome: 'rejected' });
			return { kind: 'done' };
		};
		const refusal = slots?.take(i);
		if (refusal) return refuse(refusal);
		// The durable count is taken before the POST; a failure to take it places nothing.
		let limitPlace: LimitPlace | undefined;
		if (limit) {
			let taken: Awaited<ReturnType<typeof limit.take>>;
			try {
				taken = await limit.take(i);
			} catch (error) {
				slots?.release();
				return refuse(markNoCallPlaced(error as NodeFailure));
			}
			if (taken.refusal) {
				slots?.release();
				return refuse(taken.refusal);
			}
			limitPlace = taken.place;
		}
		/** Nothing was placed: the places taken for this call are given back (a failure to give one back over-counts). */
		const giveBack = async () => {
			slots?.release();
			await limitPlace?.release().catch(() => undefined);
		};
		const capped = campaign?.run.maxCallsInFlight !== undefined;
		try {
			const response = await outboundApi(this, settings, 'POST', placement.path, {
				baseURL,
				body: placement.body,
				retry: false,
				itemIndex: i,
				// With Max Calls in Flight a 429 (nothing was placed) is waited out, not an error.
				...(capped ? { passStatuses: [429] } : {}),
			});
			if (response.statusCode === 429) {
				await giveBack();
				campaign?.release(i, placement);
				return { kind: 'refused', retryAfterMs: retryAfterMs(response.headers) ?? 1000 };
			}
			const json = placedItem(node, placement, response, new Date().toISOString(), i);
			placed.push({ index: i, internalId: json.internal_id });
			results[i] = { json: campaign ? campaign.placed(i, json) : json, pairedItem: { item: i } };
			return { kind: 'placed', internalId: String(json.internal_id) };
		} catch (caught) {
			const error = caught as NodeFailure;
			const outcome = outcomeOf(error);
			if (outcome === 'rejected') {
				await giveBack();
				campaign?.release(i, placement);
			}
			describeOutcome(error, outcome, { dst: placement.summary.dst });
			if (!continueOnFail) {
				failures.push({ index: i, error, outcome });
				return { kind: 'done' };
			}
			const json = failedItem(error, outcome, placement.summary);
			results[i] = { json: campaign ? campaign.failed(i, json, outcome) : json, pairedItem: { item: i } };
			return { kind: 'done' };
		}
	};

	if (campaign?.run.maxCallsInFlight !== undefined) {
		await campaign.dial(todo, settings, baseURL, results as Parameters<PlaceCallCampaign['dial']>[3], {
			skipOrDefer,
			place,
			stopped: () => failures.length > 0,
		});
	} else {
		await runInBatches(
			todo,
			batching,
			async (i) => {
				if (!skipOrDefer(i)) await place(i);
			},
			() => failures.length > 0,
		);
	}

	if (failures.length > 0) {
		failures.sort((a, b) => a.index - b.index);
		const { error, index } = failures[0];
		placed.sort((a, b) => a.index - b.index);
		const unknown = failures.filter((f) => f.outcome === 'unknown').length;
		const ids = placed.slice(0, LISTED_IDS).map((p) => `item ${p.index}: ${String(p.internalId)}`);
		const report = [
			`Stopped at item ${index}.`,
			placed.length === 0
				? 'No call was placed before this failure in this run.'
				: `${placed.length} call(s) were already placed in this run and are NOT in any output, because n8n discards the output of a node that fails (${ids.join(', ')}${placed.length > LISTED_IDS ? ', …' : ''}). Re-running the node would call them again: remove those items first.`,
			failures.length > 1 ? `${failures.length} calls of the last batch failed.` : '',
			unknown > 0 ? `${unknown} of the failed calls may have been placed (outcome unknown).` : '',
			'Set Settings > On Error to "Continue" (Continue On Fail) to get one result item per call instead.',
		]
			.filter((part) => part !== '')
			.join(' ');
		error.description = `${error.description ? `${error.description} ` : ''}${report}`;
		throw error;
	}

	return [results.filter((item): item is INodeExecutionData => item !== undefined)];
}
