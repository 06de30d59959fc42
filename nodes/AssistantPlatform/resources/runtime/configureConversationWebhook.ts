import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions';
import { assertHttpUrl } from '../../../shared/validation';
import type { ItemScope } from '../../shared/items';
import { forEachItem, itemScope } from '../../shared/items';

import { assistantPath, patchRuntime, readBoolean, readText, showFor } from './common';

const show = showFor('configureConversationWebhook');

/**
 * The body {enabled, url, authName}
 * (assumptions row 16). The URL is required when enabled; when disabled an empty URL is sent as null,
 * a given one is still checked. An empty Authentication Name is sent as null (no authentication).
 */
function webhookBody(scope: ItemScope): IDataObject {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const enabled = readBoolean(scope, 'webhookEnabled', 'Enabled', true);
	const rawUrl = readText(scope.getNodeParameter('webhookUrl', ''));
	const url = enabled || rawUrl !== '' ? assertHttpUrl(node, 'Webhook URL', rawUrl, itemIndex) : null;
	const authName = readText(scope.getNodeParameter('webhookAuthName', ''));
	return { enabled, url, authName: authName === '' ? null : authName };
}

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

/** PATCH /assistants/{assistantId}/runtime/hangup/conversation-webhook. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/hangup/conversation-webhook');
		return await patchRuntime(this, scope, path, webhookBody(scope));
	});
}
