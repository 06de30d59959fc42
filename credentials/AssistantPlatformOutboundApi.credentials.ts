import type {
	IAuthenticate,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { authenticateOutboundApiRequest, OUTBOUND_API_DISPLAY_NAME } from './authentication';

const REJECTED = 'The outbound API key was rejected (401). Check the Outbound API Key.';
const FORBIDDEN = 'The outbound API key is not allowed to use the outbound API (403).';

/**
 * Outbound API credential: the outbound secret (header `X-APIKEY-SECRET-SERVICE`) and, optionally,
 * the assistant API key that outbound call requests carry in their body as `assistantApiKey`.
 */
export class AssistantPlatformOutboundApi implements ICredentialType {
	name = 'assistantPlatformOutboundApi';

	displayName = OUTBOUND_API_DISPLAY_NAME;

	icon: Icon = {
		light: 'file:../nodes/AssistantPlatform/assistantPlatform.svg',
		dark: 'file:../nodes/AssistantPlatform/assistantPlatform.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-assistant-platform/n8n-nodes-assistant-platform#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Outbound Base URL',
			name: 'outboundUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://outbound.example.com',
			description: 'Base URL of the outbound API host. Must start with http:// or https://.',
		},
		{
			displayName: 'Outbound API Key',
			name: 'outboundApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Secret sent in the X-APIKEY-SECRET-SERVICE header of every outbound request',
		},
		{
			displayName: 'Assistant API Key',
			name: 'assistantApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional. The confidential key returned when the assistant was created; outbound calls send it as assistantApiKey. A node can override it per call.',
		},
	];

	// n8n calls it with the decrypted credential on every request it sends with the credential (the Test
	// button's included, and an HTTP Request node's: n8n lets that node use this credential, for the platform's
	// endpoints the nodes lack): the key, for a request to the credential's own host only. The package transport
	// applies the same function's header and checks each URL itself (authentication.ts).
	authenticate: IAuthenticate = async (credentials, requestOptions) =>
		authenticateOutboundApiRequest(credentials, requestOptions);

	// The outbound API has no read-only "who am I" endpoint: a status query for an id that cannot exist
	// is answered 404 once the key is accepted and 401 when it is not. n8n fails a test on any non-2xx
	// status and shows its rules only the body, so status errors are ignored and the rules read the
	// platform's JSON error body: its code (`{error: {code, message}}`, the least error body that carries
	// one), or a richer platform's `error.status`. An answer without an error object (an HTML 404 from
	// another host) fails too (docs/assumptions.md, "Credentials").
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.outboundUrl.replace(/\\/+$/, "")}}',
			url: '/getDialstatus/n8n-credential-test',
			method: 'GET',
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{ type: 'responseSuccessBody', properties: { key: 'error.code', value: 'UNAUTHORIZED', message: REJECTED } },
			{ type: 'responseSuccessBody', properties: { key: 'error.status', value: 401, message: REJECTED } },
			{ type: 'responseSuccessBody', properties: { key: 'error.code', value: 'FORBIDDEN', message: FORBIDDEN } },
			{ type: 'responseSuccessBody', properties: { key: 'error.status', value: 403, message: FORBIDDEN } },
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error',
					value: undefined,
					message:
						'The host did not answer like the outbound API (no JSON error body for the probe). Check the Outbound Base URL.',
				},
			},
		],
	};
}
