import type {
	IDataObject,
	IExecuteFunctions,
	IGetNodeParameterOptions,
	INode,
	INodeExecutionData,
	NodeOutput,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readBatching, runInBatches } from './batches';

/** The parameters of one input item: what the code that reads and checks parameters needs. */
export interface ItemScope {
	getNode(): INode;
	getItemIndex(): number;
	getNodeParameter(name: string, fallback?: unknown, options?: IGetNodeParameterOptions): unknown;
}

/** The item scope of input item `itemIndex`. */
export function itemScope(ctx: IExecuteFunctions, itemIndex: number): ItemScope {
	return {
		getNode: () => ctx.getNode(),
		getItemIndex: () => itemIndex,
		getNodeParameter: (name, fallback, options) => ctx.getNodeParameter(name, itemIndex, fallback, options),
	};
}

/** With Continue On Fail, a failing item becomes `{error, description?}`, paired with its input item. */
function failureItem(error: unknown, itemIndex: number): INodeExecutionData {
	const e = error as { message?: string; description?: string | null };
	const json: IDataObject = { error: e?.message ?? String(error) };
	if (e?.description) json.description = e.description;
	return { json, pairedItem: { item: itemIndex } };
}

/** The error as n8n shows it: a NodeApiError or NodeOperationError that names the failing item. */
export function asNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	const nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(node, error as Error, { itemIndex });
	if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
	return nodeError;
}

/**
 * Runs an operation over the input items with the node's one batching rule (runInBatches, as Place
 * Call): without Request Options > Batching one item at a time; with it up to Items per Batch at
 * once, then Batch Interval before the next batch. Every output item is paired with its input item
 * and the output keeps the input order. With Continue On Fail a failing item becomes `{error}`
 * (paired too) while the others go on; without it the run stops after the batch with the failure and
 * the first failing item's error is thrown.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	run: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<NodeOutput> {
	const items = ctx.getInputData();
	const results: INodeExecutionData[][] = new Array(items.length);
	const failures = new Map<number, unknown>();
	const continueOnFail = ctx.continueOnFail();
	await runInBatches(
		items.map((_item, itemIndex) => itemIndex),
		readBatching(ctx.getNodeParameter('requestOptions', 0, {})),
		async (itemIndex) => {
			try {
				results[itemIndex] = await run(itemIndex);
			} catch (error) {
				failures.set(itemIndex, error);
			}
		},
		() => !continueOnFail && failures.size > 0,
	);
	if (!continueOnFail && failures.size > 0) {
		const first = Math.min(...failures.keys());
		throw asNodeError(ctx.getNode(), failures.get(first), first);
	}
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (failures.has(itemIndex)) {
			output.push(failureItem(failures.get(itemIndex), itemIndex));
			continue;
		}
		// Paired in place: the items are the operation's own, and lists can hold 100,000 of them.
		for (const result of results[itemIndex]) {
			result.pairedItem = { item: itemIndex };
			output.push(result);
		}
	}
	return [output];
}
