import type {
	IDataObject,
	IExecuteFunctions,
	IGetNodeParameterOptions,
	INode,
	INodeExecutionData,
	NodeOutput,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { readBatching } from '../../shared/outbound';

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
 * Runs an operation item by item: every output item is paired with its input item (set in
 * place: the items are the operation's own, and lists can hold 100,000 of them), and with Continue
 * On Fail a failing item becomes `{error}` (paired too) while the others go on. Request Options >
 * Batching pauses Batch Interval before every Items per Batch-th item, as n8n does for its own nodes.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	run: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<NodeOutput> {
	const items = ctx.getInputData();
	const output: INodeExecutionData[] = [];
	const batching = readBatching(ctx.getNodeParameter('requestOptions', 0, {}));
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (itemIndex > 0 && batching.intervalMs > 0 && itemIndex % batching.size === 0) await sleep(batching.intervalMs);
		try {
			const results = await run(itemIndex);
			for (const result of results) {
				result.pairedItem = { item: itemIndex };
				output.push(result);
			}
		} catch (error) {
			if (ctx.continueOnFail()) {
				output.push(failureItem(error, itemIndex));
				continue;
			}
			throw asNodeError(ctx.getNode(), error, itemIndex);
		}
	}
	return [output];
}
