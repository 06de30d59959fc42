import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeListSearchResult,
	INodeProperties,
	INodePropertyOptions,
	NodeOutput,
} from 'n8n-workflow';

/** One resource of the Assistant Platform node: its selector entry, its fields and its programmatic parts. */
export interface ResourceModule {
	resource: INodePropertyOptions;
	properties: INodeProperties[];
	/** Operations that need code (multipart uploads, polling, wait-and-resume), keyed by operation value. */
	customOperations?: Record<string, (this: IExecuteFunctions) => Promise<NodeOutput>>;
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
