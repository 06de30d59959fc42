import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../../helpers/items';
import type { Batching } from '../../helpers/batches';
import { runInBatches } from '../../helpers/batches';
import type { RequestSettings } from '../../../shared/transport/settings';
import { outboundApi } from '../../../shared/transport/outbound';
import type { NodeFailure } from '../../../shared/transport/errors';
import type { Outcome, Placement } from '../../../shared/calls/placement';
import { describeOutcome, failedItem, outcomeOf, placedItem, readPlacement } from '../../../shared/calls/placement';
import { CONTINUE_ON_FAIL_ADVICE, forAuthor, listedCalls, markNoCallPlaced } from '../../../shared/calls/messages';
import type { Guards } from '../../../shared/guards/guards';
import { passGuards } from '../../../shared/guards/guards';
import type { ResultContext } from '../../../shared/campaign/resultContext';
import { carryInCallResultUrl, readResultContext } from '../../../shared/campaign/resultContext';

/** What every call of the run shares, read once before the first. */
export interface DialSetup {
	settings: RequestSettings;
	baseURL: string;
	/** The Outbound API credential's assistant key (an item may override it). */
	credentialKey: string;
	continueOnFail: boolean;
	/** The guards every call passes before its POST (passGuards). */
	guards: Guards;
}

/**
 * Place Call's dialler: reads the items, places their calls, and owns what comes of them: each input item's
 * output (paired with it), the failures that end the run without Continue On Fail (with it, a failure is the
 * item's output), and the calls placed, which that error names since n8n discards the output of a node that fails.
 */
export class PlaceCallDialler {
	private readonly node: INode;
	private readonly outputs: Array<INodeExecutionData | undefined>;
	/** The placement of each item read without error: the items dialled. */
	private readonly placements: Array<Placement | undefined>;
	/** Each item's Options > Result Context, when it has fields: carried in its Call Result URL, shown in its output. */
	private readonly contexts: Array<ResultContext | undefined>;
	private readonly placed: Array<{ index: number; internalId: unknown }> = [];
	private readonly failures: Array<{ index: number; error: NodeFailure; outcome: Outcome }> = [];

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly setup: DialSetup,
		itemCount: number,
	) {
		this.node = ctx.getNode();
		this.outputs = new Array(itemCount);
		this.placements = new Array(itemCount);
		this.contexts = new Array(itemCount);
	}

	/**
	 * Reads and checks every item before the first call: without Continue On Fail a bad item stops the node
	 * before anything is placed (a bad row 500 never cuts a list after 499 calls); with it, the item comes
	 * out as an error and is not dialled. A Result Context joins the item's Call Result URL.
	 */
	readItems(): void {
		for (let i = 0; i < this.outputs.length; i++) {
			try {
				const placement = readPlacement(this.ctx, this.node, i, this.setup.credentialKey);
				const context = readResultContext(this.node, this.ctx.getNodeParameter('options.resultContext', i, {}), i);
				if (Object.keys(context).length > 0) {
					carryInCallResultUrl(this.node, i, placement, context);
					this.contexts[i] = context;
				}
				this.placements[i] = placement;
			} catch (error) {
				markNoCallPlaced(error as Error);
				if (!this.setup.continueOnFail) throw asNodeError(this.node, error, i);
				this.write(i, failedItem(error as NodeFailure, 'invalid', undefined));
			}
		}
	}

	/**
	 * Places the calls of the items read, one at a time, or with Request Options > Batching up to Items per
	 * Batch at once with Batch Interval between batches; a failure without Continue On Fail ends the dialling
	 * after its batch.
	 */
	async dialAll(batching: Batching): Promise<void> {
		await runInBatches(this.toDial(), batching, async (i) => await this.place(i), () => this.stopped());
	}

	/**
	 * Places item `i`'s call, once, and writes what came of it: its output, or its failure. Every 4xx, a 429
	 * included, is a refusal: nothing was placed.
	 */
	private async place(i: number): Promise<void> {
		const placement = this.placements[i]!;
		const { guards } = this.setup;
		const verdict = await passGuards(this.ctx, guards, { dst: String(placement.body.dst), itemIndex: i });
		if ('refusal' in verdict) return this.refuse(i, placement, verdict.refusal);
		const { places } = verdict;
		try {
			const response = await outboundApi(this.ctx, this.setup.settings, 'POST', placement.path, {
				baseURL: this.setup.baseURL,
				body: placement.body,
				retry: false,
				itemIndex: i,
			});
			const json = placedItem(this.node, placement, response, new Date().toISOString(), i);
			this.placed.push({ index: i, internalId: json.internal_id });
			this.write(i, json);
			await places.placed(String(json.internal_id));
		} catch (error) {
			await this.failed(i, placement, error as NodeFailure, places.giveBack);
		}
	}

	/** True once a call failed without Continue On Fail: nothing more is placed. */
	private stopped(): boolean {
		return this.failures.length > 0;
	}

	/**
	 * Without Continue On Fail a failed call ends the run: throws the first failure, its description saying where
	 * the run stopped and which calls were already placed (they are in no output: n8n discards it). Not on a tool
	 * run, whose one item is the tool call and whose description the model or MCP client reads (forAuthor).
	 */
	throwOnFailure(): void {
		if (this.failures.length === 0) return;
		this.failures.sort((a, b) => a.index - b.index);
		const { error, index } = this.failures[0];
		const placed = [...this.placed].sort((a, b) => a.index - b.index);
		const unknown = this.failures.filter((f) => f.outcome === 'unknown').length;
		const ids = placed.map((p) => `item ${p.index}: ${String(p.internalId)}`);
		const report = forAuthor(
			this.node,
			[
				`Stopped at item ${index}.`,
				placed.length === 0
					? 'No call was placed before this failure in this run.'
					: `${placed.length} call(s) were already placed in this run and are NOT in any output, because n8n discards the output of a node that fails (${listedCalls(ids)}). Re-running the node would call them again: remove those items first.`,
				this.failures.length > 1 ? `${this.failures.length} calls of the last batch failed.` : '',
				unknown > 0 ? `${unknown} of the failed calls may have been placed (outcome unknown).` : '',
				CONTINUE_ON_FAIL_ADVICE,
			]
				.filter((part) => part !== '')
				.join(' '),
		);
		if (report !== '') error.description = `${error.description ? `${error.description} ` : ''}${report}`;
		throw error;
	}

	/** The output items, in the order of the input items, each paired with its own. */
	outputItems(): INodeExecutionData[] {
		return this.outputs.filter((item): item is INodeExecutionData => item !== undefined);
	}

	/** The indices of the items to dial: those read without error. */
	private toDial(): number[] {
		return this.placements.flatMap((placement, i) => (placement ? [i] : []));
	}

	/** Writes item `i`'s output, with its Result Context when it has one. */
	private write(i: number, json: IDataObject): void {
		const context = this.contexts[i];
		this.outputs[i] = { json: context ? { ...json, context: { ...context } } : json, pairedItem: { item: i } };
	}

	/** The call was refused before its POST: nothing was placed. */
	private refuse(i: number, placement: Placement, refusal: NodeFailure): void {
		if (this.setup.continueOnFail) this.write(i, failedItem(refusal, 'invalid', placement.summary));
		else this.failures.push({ index: i, error: refusal, outcome: 'rejected' });
	}

	/** The POST failed, or its answer was no acceptance: rejected (the places go back) or an unknown outcome. */
	private async failed(i: number, placement: Placement, error: NodeFailure, giveBack: () => Promise<void>): Promise<void> {
		const outcome = outcomeOf(error);
		if (outcome === 'rejected') await giveBack();
		describeOutcome(error, outcome, { dst: placement.summary.dst });
		if (!this.setup.continueOnFail) {
			this.failures.push({ index: i, error, outcome });
			return;
		}
		this.write(i, failedItem(error, outcome, placement.summary));
	}
}
