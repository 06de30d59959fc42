import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { asNodeError } from '../../shared/items';
import { outboundBaseUrl } from '../../../shared/transport';
import { placementProperties } from '../../../shared/placementFields';
import { runInBatches } from '../../../shared/batches';
import { outboundApi, readBatching, readRequestSettings } from '../../../shared/outbound';

import type { Outcome, Placement } from '../../../shared/placement';
import {
	credentialAssistantKey,
	describeOutcome,
	failedItem,
	outcomeOf,
	placedItem,
	readPlacement,
	refuseAutomaticRetry,
} from '../../../shared/placement';
import { markNoCallPlaced } from '../../../shared/placementMessages';
import { agentRunCallSlots } from '../../../shared/guardrails';

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
	// getCredentials loads and decrypts it (read with item 0 as before, so the values are the same).
	// n8n-core's httpRequestWithAuthentication still loads it for each request it authenticates.
	const credentialKey = await credentialAssistantKey(this);
	const baseURL = await outboundBaseUrl(this);
	// As an AI agent's tool: Max Calls per Agent Run (undefined otherwise).
	const slots = agentRunCallSlots(this);

	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	const placements: Array<Placement | undefined> = new Array(items.length);
	for (let i = 0; i < items.length; i++) {
		try {
			placements[i] = readPlacement(this, node, i, credentialKey);
		} catch (error) {
			markNoCallPlaced(error as Error);
			if (!continueOnFail) throw asNodeError(node, error, i);
			results[i] = { json: failedItem(error as NodeFailure, 'invalid', undefined), pairedItem: { item: i } };
		}
	}

	const placed: Array<{ index: number; internalId: unknown }> = [];
	const failures: Array<{ index: number; error: NodeFailure; outcome: Outcome }> = [];
	const todo = placements.flatMap((placement, i) => (placement ? [i] : []));

	await runInBatches(
		todo,
		batching,
		async (i) => {
			const placement = placements[i]!;
			const refusal = slots?.take(i);
			if (refusal) {
				if (continueOnFail) results[i] = { json: failedItem(refusal, 'invalid', placement.summary), pairedItem: { item: i } };
				else failures.push({ index: i, error: refusal, outcome: 'rejected' });
				return;
			}
			try {
				const response = await outboundApi(this, settings, 'POST', placement.path, {
					baseURL,
					body: placement.body,
					retry: false,
					itemIndex: i,
				});
				const json = placedItem(node, placement, response, new Date().toISOString(), i);
				placed.push({ index: i, internalId: json.internal_id });
				results[i] = { json, pairedItem: { item: i } };
			} catch (caught) {
				const error = caught as NodeFailure;
				const outcome = outcomeOf(error);
				if (outcome === 'rejected') slots?.release();
				describeOutcome(error, outcome, { dst: placement.summary.dst });
				if (!continueOnFail) {
					failures.push({ index: i, error, outcome });
					return;
				}
				results[i] = { json: failedItem(error, outcome, placement.summary), pairedItem: { item: i } };
			}
		},
		() => failures.length > 0,
	);

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
