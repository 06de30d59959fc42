import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const ragCollectionResource: ResourceModule = {
	resource: {
		name: 'RAG Collection',
		value: 'ragCollection',
		description: 'Manage retrieval collections and their documents',
	},
	properties: [],
};
