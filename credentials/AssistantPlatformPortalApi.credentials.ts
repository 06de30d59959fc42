import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { assertUsable, baseUrlProblem, keyProblem, withHeaders } from './checks';

/**
 * Management API credential: the portal API key (Security > API Key in the platform portal),
 * sent as `Authorization: Bearer <key>` to `{baseUrl}/api/v1/...`.
 */
export class AssistantPlatformPortalApi implements ICredentialType {
	name = 'assistantPlatformPortalApi';

	displayName = 'Assistant Platform Portal API';

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

	// A function, not a generic block: n8n calls it with the decrypted credential on every request and
	// it sets the header directly, where a `={{ }}` value would go through n8n's expression engine on
	// every request (measured: docs/performance.md). The other headers of the request are kept. It refuses
	// a credential that would send the key where nobody meant, before anything is sent: the Test
	// button's request included (checks.ts).
	authenticate: IAuthenticate = async (credentials, requestOptions) => {
		assertUsable(this.displayName, [
			['Management Base URL', baseUrlProblem(credentials.baseUrl)],
			['Portal API Key', keyProblem(credentials.portalApiKey)],
		]);
		return withHeaders(requestOptions, { Authorization: `Bearer ${String(credentials.portalApiKey)}` });
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}/api/v1',
			url: '/assistants',
			method: 'GET',
			qs: { limit: 1 },
		},
	};
}
