import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodeProperties,
	INodePropertyOptions,
	NodeOutput,
} from 'n8n-workflow';

/** What runs one operation for all input items (an `<op>.ts` file's `execute`). */
export type OperationExecute = (this: IExecuteFunctions) => Promise<NodeOutput>;

/**
 * One resource of the Assistant Platform node: its selector entry, its fields (the operation selector
 * first) and, per operation value, the `execute` of that operation's file.
 */
export interface ResourceModule {
	resource: INodePropertyOptions;
	properties: INodeProperties[];
	operations: Record<string, OperationExecute>;
	listSearch?: Record<
		string,
		(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) => Promise<INodeListSearchResult>
	>;
	loadOptions?: Record<string, (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>>;
}

/** `showFor(...operations)`: the `displayOptions.show` of some operations of one resource. */
export function showOperations(resource: string) {
	return (...operations: string[]): { resource: string[]; operation: string[] } => ({
		resource: [resource],
		operation: operations,
	});
}
