import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import { readRequestSettings } from '../../../shared/transport/settings';
import { placementProperties } from '../../../shared/descriptions/placementFields';
import { readBatching } from '../../helpers/batches';
import { credentialAssistantKey, refuseAutomaticRetry } from '../../../shared/calls/placement';
import { agentRunCallSlots } from '../../../shared/agent/callsPerRun';
import { readGuards } from '../../../shared/guards/guards';

import { PlaceCallDialler } from './dialler';

export const description: INodeProperties[] = placementProperties({ resource: ['outboundCall'], operation: ['placeCall'] }, 'placeCall');

/**
 * Outbound Call → Place Call: one POST per input item, never retried.
 *
 * Every item is read and validated first: without Continue On Fail a bad item stops the node before
 * the first call (a bad row 500 never cuts a list after 499 calls). Calls then go one at a time,
 * or with Request Options > Batching up to Items per Batch at once with Batch Interval between
 * batches. Without Continue On Fail the first failure ends the run after the current batch and the
 * error lists the calls already placed (n8n discards the node's output when it fails). The guards (Allowed
 * Destinations, Max Calls per Agent Run, Calling Hours and the Guardrails: passGuards) refuse a call before its
 * POST. The dialler (dialler.ts) owns the outputs and failures. Calling a list until each contact is
 * reached (calls at once, calling hours, retries) is the Campaign resource's, whose state is durable.
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
	// Calling Hours and the Guardrails; as an AI agent's tool, Max Calls per Agent Run.
	const guards = readGuards(this, settings, { slots: (limited) => agentRunCallSlots(this, limited) });

	const dialler = new PlaceCallDialler(this, { settings, baseURL, credentialKey, continueOnFail, guards }, items.length);
	dialler.readItems();
	await dialler.dialAll(batching);
	dialler.throwOnFailure();
	return [dialler.outputItems()];
}
