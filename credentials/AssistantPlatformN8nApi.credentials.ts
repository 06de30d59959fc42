import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { authenticateN8nApi, N8N_API_DISPLAY_NAME } from './authentication';

/**
 * n8n's own public API, for the state that must outlive one execution (the durable call limit): n8n's Data
 * Tables, reached at {baseUrl}/data-tables with an n8n API key (header `X-N8N-API-KEY`). n8n's data-table
 * helper serves only n8n's own Data Table nodes (docs/assumptions.md, "Durable state"), so a community node
 * reaches the same tables through the public API, with a key the user creates in n8n.
 */
export class AssistantPlatformN8nApi implements ICredentialType {
	name = 'assistantPlatformN8nApi';

	displayName = N8N_API_DISPLAY_NAME;

	icon: Icon = {
		light: 'file:../nodes/AssistantPlatform/assistantPlatform.svg',
		dark: 'file:../nodes/AssistantPlatform/assistantPlatform.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-assistant-platform/n8n-nodes-assistant-platform#ai-agents';

	properties: INodeProperties[] = [
		{
			displayName: 'n8n API URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:5678/api/v1',
			required: true,
			placeholder: 'https://n8n.example.com/api/v1',
			description:
				'The public API of this n8n instance: its address followed by /api/v1. On queue mode, an address every worker reaches.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An n8n API key (Settings > n8n API) whose owner may create and write data tables in the project the call limits are kept in',
		},
	];

	// n8n calls it with the decrypted credential on every request it sends with the credential (the Test
	// button's included); the package transport calls the same function (authentication.ts).
	authenticate: IAuthenticate = async (credentials, requestOptions) =>
		authenticateN8nApi(credentials, requestOptions);

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/data-tables',
			qs: { limit: 1 },
			method: 'GET',
		},
	};
}
