import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const customApiRequestResource: ResourceModule = {
	resource: {
		name: 'Custom API Request',
		value: 'customApiRequest',
		description: 'Call any management API endpoint with the portal credential',
	},
	properties: [],
};
