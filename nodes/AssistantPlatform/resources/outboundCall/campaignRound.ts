import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CampaignItem, CampaignRun } from '../../../shared/campaign/options';
import {
	campaignFields,
	carryInCallResultUrl,
	deferralAt,
	deferredItem,
	dialKey,
	dialledNumbers,
	readCampaignItem,
	readCampaignRun,
	skippedItem,
} from '../../../shared/campaign/options';
import type { InFlightCall } from './callsInFlight';
import { MAX_FAILED_STATUS_READS } from './callsInFlight';
import type { Outcome, Placement } from '../../../shared/calls/placement';
import type { NextCall, RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { afterFailedPlacement, decideNextCall, noCall, readRetryPolicy } from '../../../shared/campaign/retryPolicy';
import { CONTINUE_ON_FAIL_ADVICE, forAuthor, listedCalls } from '../../../shared/calls/messages';

/*
 * Place Call with Campaign options: what each item carries (attempt, Result Context, calling hours,
 * Earliest Call Time), the numbers already dialled in this execution, and what each item's output says
 * about the campaign, with Max Calls in Flight up to the Retry Policy's decision once its call ended.
 */

const NOT_KNOWN_YET: NextCall = noCall(
	'placed: the outcome is not known yet; the call result decides (Assistant Platform Trigger, or Call Status → Get)',
);

/** Why dialling stops when status reads keep failing. */
const READS_FAILED = `${MAX_FAILED_STATUS_READS} status reads of the calls in flight failed in a row (Campaign > Max Calls in Flight)`;

function itemList(indices: number[]): string {
	return `${indices.length === 1 ? 'item' : 'items'} ${indices.join(', ')}`;
}

export class PlaceCallCampaign {
	private readonly items: CampaignItem[] = [];
	private readonly policies: RetryPolicy[] = [];
	private readonly dialled?: Record<string, string>;

	private constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly node: INode,
		readonly run: CampaignRun,
	) {
		if (run.skipRepeatedNumbers) this.dialled = dialledNumbers(ctx);
	}

	/** The campaign of this run, or undefined when no Campaign option is set (each item is placed once, as it comes). */
	static read(ctx: IExecuteFunctions, node: INode): PlaceCallCampaign | undefined {
		const run = readCampaignRun(ctx, node, 'placeCall');
		return run ? new PlaceCallCampaign(ctx, node, run) : undefined;
	}

	/** Reads and checks item `i`'s Campaign options and Retry Policy; the attempt and context join the Call Result URL. */
	readItem(i: number, placement: Placement): void {
		this.items[i] = readCampaignItem(this.ctx, this.node, i, this.run);
		carryInCallResultUrl(this.node, i, placement, this.items[i]);
		this.policies[i] = readRetryPolicy(this.node, this.ctx.getNodeParameter('retryPolicy', i, {}), i);
	}

	/**
	 * The output of item `i` when it must not be dialled now: skipped (its number was dialled for this
	 * attempt) or deferred (its time has not come). Otherwise undefined, and the number is taken for this
	 * attempt (so two items of one batch cannot both dial it).
	 */
	skipOrDefer(i: number, placement: Placement, now: number): IDataObject | undefined {
		const item = this.items[i];
		const key = dialKey(String(placement.body.dst), item.attempt);
		if (this.dialled?.[key] !== undefined) {
			return skippedItem(item, placement, `${String(placement.body.dst)} was already dialled in this execution for attempt ${item.attempt} (${this.dialled[key]}): not dialled again`);
		}
		const deferral = deferralAt(item, now);
		if (deferral) return deferredItem(item, placement, deferral);
		if (this.dialled) this.dialled[key] = `item ${i}`;
		return undefined;
	}

	/** The placement was refused (nothing dialled): the number is free again for this attempt. */
	release(i: number, placement: Placement): void {
		const key = dialKey(String(placement.body.dst), this.items[i].attempt);
		if (this.dialled?.[key] === `item ${i}`) delete this.dialled[key];
	}

	/** A placed call's output with its campaign fields (the outcome is not known yet). */
	placed(i: number, json: IDataObject): IDataObject {
		return { ...json, ...campaignFields(this.items[i], NOT_KNOWN_YET) };
	}

	/** A failed placement's output with its campaign fields. */
	failed(i: number, json: IDataObject, outcome: Outcome | 'invalid'): IDataObject {
		if (!this.items[i]) return json;
		return { ...json, ...campaignFields(this.items[i], afterFailedPlacement(outcome, String(json.error ?? 'refused'))) };
	}

	/** An ended call's output: its placed output with the status record read at `at`, and the Retry Policy's decision. */
	ended(i: number, placed: IDataObject, record: IDataObject, at: number): IDataObject {
		const call = { ...placed };
		delete call.status;
		return {
			...call,
			...record,
			resultSource: 'status',
			resultReadAt: new Date(at).toISOString(),
			...this.decided(i, record.dialStatus, at),
		};
	}

	/** The output of a call the account's limit (429) kept from being placed for Max Call Length. */
	refusedTooLong(i: number): IDataObject {
		return {
			error: 'The account stayed at its limit of calls in flight (429) for Max Call Length: the call was not placed',
			outcome: 'rejected',
			placed: false,
			...campaignFields(this.items[i], afterFailedPlacement('rejected', 'the account stayed at its call limit')),
		};
	}

	/** The output of a call whose record did not appear within Max Call Length: its line was counted free. */
	givenUp(i: number, placed: IDataObject, error?: Error): IDataObject {
		return {
			...placed,
			resultSource: 'status',
			statusRecord: 'pending',
			...(error ? { statusError: error.message } : {}),
			message: `The call record did not appear within Max Call Length (${this.run.maxCallMs / 60_000} min); its line was counted free. Read it later with Call Status → Get.`,
			...this.decided(i, null, Date.now()),
		};
	}

	/**
	 * Status reads failed MAX_FAILED_STATUS_READS times in a row and dialling stopped (with Continue On Fail):
	 * the output of a call still in flight. It was placed and may still be ringing or talking: whoever reads the
	 * outcome must know not to place it again.
	 */
	stillInFlight(call: InFlightCall, placed: IDataObject, error: Error): IDataObject {
		return {
			...placed,
			resultSource: 'status',
			statusRecord: 'error',
			statusError: (call.error ?? error).message,
			message: `Dialling stopped: ${READS_FAILED}. This call was placed and may still be in progress: do not place it again; read its outcome later with Call Status → Get (internal_id ${call.internalId}).`,
			...this.decided(call.index, null, Date.now()),
		};
	}

	/** Dialling stopped on failed status reads (with Continue On Fail): the output of an item never dialled. */
	notDialled(i: number, placement: Placement, error: Error): IDataObject {
		return {
			error: `Not dialled: ${READS_FAILED}. The last failure: ${error.message}`,
			placed: false,
			outcome: 'stopped',
			...placement.summary,
			...campaignFields(this.items[i], noCall(`not dialled: ${READS_FAILED}`)),
		};
	}

	/**
	 * Dialling stopped on failed status reads, without Continue On Fail: the error that ends the run, naming the
	 * calls still in flight, the items not dialled and the calls that `ended` before (n8n discards the output of
	 * a node that fails, so none of them is in any output).
	 */
	readsFailedError(inFlight: InFlightCall[], notDialled: number[], ended: string[], error: Error): NodeOperationError {
		const report = [
			`The last failure: ${error.message}.`,
			inFlight.length === 0
				? 'No call is in flight.'
				: `${inFlight.length} call(s) are still in flight as far as this node knows, their outcome not known: ${inFlight.map((call) => `item ${call.index}: ${call.internalId}`).join(', ')}. They were placed: do not place them again; read their outcome later with Call Status → Get.`,
			notDialled.length === 0 ? '' : `${notDialled.length} item(s) were not dialled (${itemList(notDialled)}).`,
			ended.length === 0
				? ''
				: `${ended.length} call(s) of this run ended or were given up on before and are NOT in any output, because n8n discards the output of a node that fails (${listedCalls(ended)}): do not place them again either.`,
			forAuthor(this.node, CONTINUE_ON_FAIL_ADVICE),
		]
			.filter((part) => part !== '')
			.join(' ');
		return new NodeOperationError(this.node, `Stopped dialling: ${READS_FAILED}`, { description: report });
	}

	/** Item `i`'s campaign fields with the Retry Policy's decision on `dialStatus` (null: not known). */
	private decided(i: number, dialStatus: unknown, at: number): IDataObject {
		return campaignFields(this.items[i], decideNextCall(this.policies[i], dialStatus, this.items[i].attempt, at));
	}
}
