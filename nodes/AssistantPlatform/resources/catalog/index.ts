import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const catalogResource: ResourceModule = {
	resource: {
		name: 'Catalog',
		value: 'catalog',
		description: 'Read the provider and tool catalogs',
	},
	properties: [],
};
