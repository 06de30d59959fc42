import type { IExecuteFunctions, INodeExecutionData, NodeOutput } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Runs a custom operation item by item: every output item is paired with its input item, and with
 * Continue On Fail a failing item becomes `{error}` (paired too) while the others go on.
 */
export async function forEachItem(
	ctx: IExecuteFunctions,
	run: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<NodeOutput> {
	const items = ctx.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const results = await run(itemIndex);
			for (const result of results) output.push({ ...result, pairedItem: { item: itemIndex } });
		} catch (error) {
			if (ctx.continueOnFail()) {
				output.push({
					json: { error: (error as Error).message },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			const nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
			if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
			throw nodeError;
		}
	}
	return [output];
}
