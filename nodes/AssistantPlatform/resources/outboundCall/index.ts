import type { ResourceModule } from '../../shared/module';

// Work in progress: filled in by the engineer who owns this resource.
export const outboundCallResource: ResourceModule = {
	resource: {
		name: 'Outbound Call',
		value: 'outboundCall',
		description: 'Place phone calls through the platform trunks or your PBX',
	},
	properties: [],
};
