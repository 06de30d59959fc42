import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isInternalId, notTheRecord, statusRecordItem } from '../../../shared/calls/callResult';
import { readStatusOnce, statusRecordLimit } from '../../../shared/calls/statusPoll';
import type { DialerHooks, InFlightCall } from './callsInFlight';
import { dialWithCap } from './callsInFlight';
import type { PlaceCallCampaign } from './campaignRound';
import type { DialSetup } from './dialler';
import { PlaceCallDialler } from './dialler';

const STATUS_RECORD_LIMIT = statusRecordLimit('Campaign > Max Calls in Flight');

/**
 * Place Call's dialler with Campaign > Max Calls in Flight: calls are placed as lines free up (callsInFlight.ts)
 * instead of in batches, and followed to their end: the status of every call in progress is read each Status
 * Check Interval, and an ended call's output gets its record and the Retry Policy's decision.
 */
export class InFlightDialler extends PlaceCallDialler implements DialerHooks {
	private readonly campaign: PlaceCallCampaign;
	private cancel?: AbortSignal;

	constructor(
		ctx: IExecuteFunctions,
		setup: DialSetup & { campaign: PlaceCallCampaign },
		itemCount: number,
		private readonly cap: number,
	) {
		super(ctx, setup, itemCount);
		this.campaign = setup.campaign;
	}

	override async dialAll(): Promise<void> {
		this.cancel = this.ctx.getExecutionCancelSignal?.();
		const { run } = this.campaign;
		await dialWithCap(this.toDial(), { cap: this.cap, intervalMs: run.statusCheckIntervalMs, maxCallMs: run.maxCallMs }, this);
	}

	/** True once a call failed without Continue On Fail, or the execution was cancelled. */
	override stopped(): boolean {
		return super.stopped() || this.cancel?.aborted === true;
	}

	async read(i: number, internalId: string): Promise<'ended' | 'pending'> {
		const response = await readStatusOnce(this.ctx, this.setup.settings, internalId, i, this.setup.baseURL, STATUS_RECORD_LIMIT);
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
		this.write(i, this.campaign.ended(i, this.output(i)!, statusRecordItem(internalId, response.body), at));
		return 'ended';
	}

	giveUp(i: number, why: 'record' | 'refused', error?: Error): void {
		if (why === 'refused') {
			this.write(i, this.campaign.refusedTooLong(i));
			return;
		}
		const placed = this.output(i);
		if (placed) this.write(i, this.campaign.givenUp(i, placed, error));
	}

	/**
	 * Status reads failed MAX_FAILED_STATUS_READS times in a row: the node no longer knows which lines are free,
	 * so it dials nothing more. With Continue On Fail the calls in flight come out saying not to place them again
	 * and the items not dialled come out as errors; without it the run ends with an error naming them.
	 */
	readsFailed(inFlight: InFlightCall[], notDialled: number[], error: Error): void {
		if (this.setup.continueOnFail) {
			for (const call of inFlight) {
				const placed = this.output(call.index);
				if (placed) this.write(call.index, this.campaign.stillInFlight(call, placed, error));
			}
			for (const i of notDialled) this.write(i, this.campaign.notDialled(i, this.placements[i]!, error));
			return;
		}
		const ended = this.toDial().flatMap((i) => {
			const id = this.output(i)?.internal_id;
			return isInternalId(id) && !inFlight.some((call) => call.index === i) ? [`item ${i}: ${String(id)}`] : [];
		});
		throw this.campaign.readsFailedError(inFlight, notDialled, ended, error);
	}
}
