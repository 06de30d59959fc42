import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const callStatusResource: ResourceModule = {
	resource: {
		name: 'Call Status',
		value: 'callStatus',
		description: 'Read the outcome of a placed call',
	},
	properties: [],
};
