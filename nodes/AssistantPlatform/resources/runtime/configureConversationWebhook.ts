import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { forEachItem, itemScope } from '../../helpers/items';

import { assistantPath, patchRuntime, readHookSwitch, showFor } from './common';

const show = showFor('configureConversationWebhook');

export const description: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Enabled',
		name: 'webhookEnabled',
		type: 'boolean',
		default: true,
		description: 'Whether the platform calls the URL when a conversation ends. Off disables the integration.',
		displayOptions: { show },
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		default: '',
		placeholder: 'e.g. https://example.com/webhook/conversation-end',
		description:
			'The http:// or https:// URL that receives the conversation-end event (HTTPS recommended in production). Required when enabled. Tip: the Assistant Platform Trigger node gives you one.',
		displayOptions: { show },
	},
	{
		displayName: 'Authentication Name',
		name: 'webhookAuthName',
		type: 'string',
		default: '',
		placeholder: 'e.g. my-n8n-header-auth',
		description:
			'Name of an authentication already saved for your account in the portal; the platform resolves its credentials itself. Leave empty to send without authentication.',
		displayOptions: { show },
	},
];

/** PATCH /assistants/{assistantId}/runtime/hangup/conversation-webhook {enabled, url, authName} (docs/assumptions.md row 16). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/hangup/conversation-webhook');
		const { enabled, url, authName } = readHookSwitch(scope, {
			enabled: 'webhookEnabled',
			url: 'webhookUrl',
			urlLabel: 'Webhook URL',
			authName: 'webhookAuthName',
		});
		return await patchRuntime(this, scope, path, { enabled, url, authName });
	});
}
