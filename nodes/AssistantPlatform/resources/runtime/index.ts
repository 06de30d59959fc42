import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const runtimeResource: ResourceModule = {
	resource: {
		name: 'Runtime',
		value: 'runtime',
		description: 'Configure an assistant at run time: providers, tools, RAG collection, hangup hooks',
	},
	properties: [],
};
