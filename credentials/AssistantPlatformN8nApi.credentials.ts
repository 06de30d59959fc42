import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { authenticateN8nApiRequest, N8N_API_DISPLAY_NAME } from './authentication';

/**
 * n8n's own public API, for the state that must outlive one execution (the durable call limit, durable campaigns):
 * n8n's Data Tables, reached at {baseUrl}/data-tables with an n8n API key (header `X-N8N-API-KEY`). n8n's data-table
 * helper serves only n8n's own Data Table nodes (docs/assumptions.md, "Durable state"), so a community node reaches
 * the same tables through the public API, with a key the user creates in n8n.
 *
 * That key opens, on most plans, all of n8n's public API with its owner's rights (workflows, credentials, users,
 * executions). So n8n lets only the nodes of this package use the credential (`restrictToSupportedNodes`: n8n's
 * HTTP Request node and its tool variants cannot pick it, save it or run with it), and the key goes only to
 * {baseUrl}/data-tables and below, whoever sends it (authentication.ts; docs/assumptions.md, "Credentials").
 */
export class AssistantPlatformN8nApi implements ICredentialType {
	name = 'assistantPlatformN8nApi';

	displayName = N8N_API_DISPLAY_NAME;

	icon: Icon = {
		light: 'file:../nodes/AssistantPlatform/assistantPlatform.svg',
		dark: 'file:../nodes/AssistantPlatform/assistantPlatform.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-assistant-platform/n8n-nodes-assistant-platform#credentials';

	// Only the nodes whose description names this credential (this package's, their tool variants included) may use
	// it: n8n checks it in the editor, when a workflow is saved and when a node asks for the credential at run time
	// (n8n 2.x; n8n 1.x ignores the flag, see authenticate below).
	restrictToSupportedNodes = true as const;

	properties: INodeProperties[] = [
		{
			displayName: 'n8n API URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:5678/api/v1',
			required: true,
			placeholder: 'https://n8n.example.com/api/v1',
			description:
				'The public API of this n8n instance: its address followed by /api/v1. On queue mode, an address every worker reaches. The key is sent only to its /data-tables and below.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"An n8n API key (Settings > n8n API) whose owner may create and write data tables in the project the call limits and campaigns are kept in. Unless its scopes say otherwise, the key can do in n8n's API whatever its owner can (read and change workflows, credentials, users, executions): keep it only in this credential, which only this package's nodes may use and which sends it only to n8n's data tables. Where your plan offers API key scopes, give it only dataTable:list, dataTable:create, dataTable:read, dataTableColumn:create, dataTableRow:read, dataTableRow:create and dataTableRow:update.",
		},
	];

	// n8n calls it with the decrypted credential on every request it sends with the credential (the Test
	// button's included): the key, for a request to {baseUrl}/data-tables and below only. The package transport
	// applies the same function's header and checks each URL itself (authentication.ts).
	authenticate: IAuthenticate = async (credentials, requestOptions) =>
		authenticateN8nApiRequest(credentials, requestOptions);

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/data-tables',
			qs: { limit: 1 },
			method: 'GET',
		},
	};
}
