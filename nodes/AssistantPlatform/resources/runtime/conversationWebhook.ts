import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions';
import { assertHttpUrl } from '../../../shared/validation';

import { readBoolean, readText, showFor } from './common';

const show = showFor('configureConversationWebhook');

/**
 * preSend: PATCH .../runtime/hangup/conversation-webhook with {enabled, url, authName}
 * (assumptions row 16). The URL is required when enabled; when disabled an empty URL is sent as null,
 * a given one is still checked. An empty Authentication Name is sent as null (no authentication).
 */
export async function buildConversationWebhookRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const itemIndex = this.getItemIndex();
	const enabled = readBoolean(this, 'webhookEnabled', 'Enabled', true);
	const rawUrl = readText(this.getNodeParameter('webhookUrl', ''));
	const url = enabled || rawUrl !== '' ? assertHttpUrl(node, 'Webhook URL', rawUrl, itemIndex) : null;
	const authName = readText(this.getNodeParameter('webhookAuthName', ''));
	return { ...requestOptions, body: { enabled, url, authName: authName === '' ? null : authName } };
}

export const conversationWebhookDescription: INodeProperties[] = [
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
