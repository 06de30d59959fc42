import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { authenticatePortalApiRequest, PORTAL_API_DISPLAY_NAME } from './authentication';

/**
 * Management API credential: the portal API key (Security > API Key in the platform portal),
 * sent as `Authorization: Bearer <key>` to `{baseUrl}/api/v1/...`.
 */
export class AssistantPlatformPortalApi implements ICredentialType {
	name = 'assistantPlatformPortalApi';

	displayName = PORTAL_API_DISPLAY_NAME;

	icon: Icon = {
		light: 'file:../nodes/AssistantPlatform/assistantPlatform.svg',
		dark: 'file:../nodes/AssistantPlatform/assistantPlatform.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-assistant-platform/n8n-nodes-assistant-platform#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Management Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Base URL of the management API host, without the /api/v1 prefix (the node adds it). Must start with http:// or https://.',
		},
		{
			displayName: 'Portal API Key',
			name: 'portalApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The key created in the portal under Security, API Key',
		},
	];

	// n8n calls it with the decrypted credential on every request it sends with the credential (the Test
	// button's included, and an HTTP Request node's: n8n lets that node use this credential, for the platform's
	// endpoints the nodes lack): the key, for a request to the credential's own host only. The package transport
	// applies the same function's header and checks each URL itself (authentication.ts).
	authenticate: IAuthenticate = async (credentials, requestOptions) =>
		authenticatePortalApiRequest(credentials, requestOptions);

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}/api/v1',
			url: '/assistants',
			method: 'GET',
			qs: { limit: 1 },
		},
	};
}
