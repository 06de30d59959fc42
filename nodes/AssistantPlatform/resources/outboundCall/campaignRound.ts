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
import type { DialerHooks, DialerStats, InFlightCall, PlaceResult } from './callsInFlight';
import { dialWithCap, MAX_FAILED_STATUS_READS } from './callsInFlight';
import { isInternalId, notTheRecord, statusRecordItem } from '../../../shared/calls/callResult';
import type { Outcome, Placement } from '../../../shared/calls/placement';
import type { RequestSettings } from '../../../shared/transport/request';
import type { NextCall, RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { decideNextCall, noCall, readRetryPolicy } from '../../../shared/campaign/retryPolicy';
import { readStatusOnce, statusRecordLimit } from '../../../shared/calls/statusPoll';

/*
 * Place Call with Campaign options: what each item carries (attempt, Result Context, calling hours,
 * Earliest Call Time), the numbers already dialled in this execution, and, with Max Calls in Flight, the
 * calls followed to their end with the Retry Policy's decision.
 */

const NOT_KNOWN_YET: NextCall = noCall(
	'placed: the outcome is not known yet; the call result decides (Assistant Platform Trigger, or Call Status → Get)',
);

const STATUS_RECORD_LIMIT = statusRecordLimit('Campaign > Max Calls in Flight');

/** Ids listed in an error, at most. */
const LISTED_IDS = 50;

function itemList(indices: number[]): string {
	return `${indices.length === 1 ? 'item' : 'items'} ${indices.join(', ')}`;
}

export class PlaceCallCampaign {
	private readonly items: CampaignItem[] = [];
	private readonly policies: RetryPolicy[] = [];
	/** What each item's output says about the request (route, number, caller), for items never dialled. */
	private readonly summaries: IDataObject[] = [];
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
		this.summaries[i] = placement.summary;
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
		const reason =
			outcome === 'unknown'
				? 'outcome unknown: the call may have been placed; never called again automatically'
				: `not placed: ${String(json.error ?? 'refused')}`;
		return { ...json, ...campaignFields(this.items[i], noCall(reason)) };
	}

	/**
	 * Places the calls with Max Calls in Flight: `place` sends one (429 passed back as a refusal), the
	 * status of every call in progress is read each Status Check Interval, and an ended call's output
	 * (`results[i]`, its placed item) gets the record and the Retry Policy's decision.
	 */
	async dial(
		indices: number[],
		settings: RequestSettings,
		baseURL: string,
		results: Array<{ json: IDataObject; pairedItem: { item: number } } | undefined>,
		hooks: Pick<DialerHooks, 'place' | 'stopped'> & { skipOrDefer(i: number): boolean },
	): Promise<DialerStats> {
		const cancel = this.ctx.getExecutionCancelSignal?.();
		return await dialWithCap(
			indices,
			{ cap: this.run.maxCallsInFlight!, intervalMs: this.run.statusCheckIntervalMs, maxCallMs: this.run.maxCallMs },
			{
				skipOrDefer: (i) => hooks.skipOrDefer(i),
				place: async (i): Promise<PlaceResult> => await hooks.place(i),
				read: async (i, internalId) => {
					const response = await readStatusOnce(this.ctx, settings, internalId, i, baseURL, STATUS_RECORD_LIMIT);
					if (response.statusCode === 404) return 'pending';
					const wrong = notTheRecord(internalId, response.body);
					if (wrong !== undefined) {
						throw new NodeOperationError(
							this.node,
							`The status read of call ${internalId} answered ${wrong}: not the call's record with its outcome, so the call stays in flight`,
							{ itemIndex: i },
						);
					}
					const at = Date.now();
					const record = statusRecordItem(internalId, response.body);
					const placed = { ...results[i]!.json };
					delete placed.status;
					results[i] = {
						json: {
							...placed,
							...record,
							resultSource: 'status',
							resultReadAt: new Date(at).toISOString(),
							...campaignFields(this.items[i], decideNextCall(this.policies[i], record.dialStatus, this.items[i].attempt, at)),
						},
						pairedItem: { item: i },
					};
					return 'ended';
				},
				giveUp: (i, why, error) => {
					const item = results[i];
					if (why === 'refused') {
						results[i] = {
							json: {
								error: 'The account stayed at its limit of calls in flight (429) for Max Call Length: the call was not placed',
								outcome: 'rejected',
								placed: false,
								...campaignFields(this.items[i], noCall('not placed: the account stayed at its call limit')),
							},
							pairedItem: { item: i },
						};
						return;
					}
					if (!item) return;
					item.json = {
						...item.json,
						resultSource: 'status',
						statusRecord: 'pending',
						...(error ? { statusError: error.message } : {}),
						message: `The call record did not appear within Max Call Length (${this.run.maxCallMs / 60_000} min); its line was counted free. Read it later with Call Status → Get.`,
						...campaignFields(this.items[i], decideNextCall(this.policies[i], null, this.items[i].attempt, Date.now())),
					};
				},
				stopped: () => hooks.stopped() || cancel?.aborted === true,
				readsFailed: (inFlight, notDialled, error) => this.readsFailed(inFlight, notDialled, error, results),
			},
		);
	}

	/**
	 * Status reads failed MAX_FAILED_STATUS_READS times in a row: the node no longer knows which lines are
	 * free, so it dials nothing more. The calls in flight were placed and may still be ringing or talking:
	 * whoever reads the outcome must know not to place them again. With Continue On Fail they come out saying
	 * so and the items not dialled come out as errors; without it the run ends with an error naming them (n8n
	 * discards the output of a node that fails).
	 */
	private readsFailed(
		inFlight: InFlightCall[],
		notDialled: number[],
		error: Error,
		results: Array<{ json: IDataObject; pairedItem: { item: number } } | undefined>,
	): void {
		const stopped = `${MAX_FAILED_STATUS_READS} status reads of the calls in flight failed in a row (Campaign > Max Calls in Flight)`;
		if (this.ctx.continueOnFail()) {
			for (const call of inFlight) {
				const item = results[call.index];
				if (!item) continue;
				item.json = {
					...item.json,
					resultSource: 'status',
					statusRecord: 'error',
					statusError: (call.error ?? error).message,
					message: `Dialling stopped: ${stopped}. This call was placed and may still be in progress: do not place it again; read its outcome later with Call Status → Get (internal_id ${call.internalId}).`,
					...campaignFields(this.items[call.index], decideNextCall(this.policies[call.index], null, this.items[call.index].attempt, Date.now())),
				};
			}
			for (const i of notDialled) {
				const reason = `not dialled: ${stopped}`;
				results[i] = {
					json: {
						error: `Not dialled: ${stopped}. The last failure: ${error.message}`,
						placed: false,
						outcome: 'stopped',
						...this.summaries[i],
						...campaignFields(this.items[i], noCall(reason)),
					},
					pairedItem: { item: i },
				};
			}
			return;
		}
		const ended = results.flatMap((item, i) =>
			item && isInternalId(item.json.internal_id) && !inFlight.some((call) => call.index === i) ? [`item ${i}: ${String(item.json.internal_id)}`] : [],
		);
		const report = [
			`The last failure: ${error.message}.`,
			inFlight.length === 0
				? 'No call is in flight.'
				: `${inFlight.length} call(s) are still in flight as far as this node knows, their outcome not known: ${inFlight.map((call) => `item ${call.index}: ${call.internalId}`).join(', ')}. They were placed: do not place them again; read their outcome later with Call Status → Get.`,
			notDialled.length === 0 ? '' : `${notDialled.length} item(s) were not dialled (${itemList(notDialled)}).`,
			ended.length === 0
				? ''
				: `${ended.length} call(s) of this run ended or were given up on before and are NOT in any output, because n8n discards the output of a node that fails (${ended.slice(0, LISTED_IDS).join(', ')}${ended.length > LISTED_IDS ? ', …' : ''}): do not place them again either.`,
			'Set Settings > On Error to "Continue" (Continue On Fail) to get one result item per call instead.',
		]
			.filter((part) => part !== '')
			.join(' ');
		throw new NodeOperationError(this.node, `Stopped dialling: ${stopped}`, { description: report });
	}
}
