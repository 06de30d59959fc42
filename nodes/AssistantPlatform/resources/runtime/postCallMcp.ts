import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions';
import { assertHttpUrl, parseJsonObject } from '../../../shared/validation';

import { readBoolean, readText, showFor, splitList } from './common';

const show = showFor('configurePostCallMcp');

/**
 * preSend: PATCH .../runtime/postcall/mcp-config with {enabled, serverUrl, authName, tools?, settings?}
 * (assumptions row 18). Server URL required when enabled (http/https); when disabled an empty one is
 * sent as null. An empty Authentication Name is sent as null (no authentication).
 */
export async function buildPostCallMcpRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const itemIndex = this.getItemIndex();
	const enabled = readBoolean(this, 'mcpEnabled', 'Enabled', true);
	const rawUrl = readText(this.getNodeParameter('mcpServerUrl', ''));
	const serverUrl = enabled || rawUrl !== '' ? assertHttpUrl(node, 'Server URL', rawUrl, itemIndex) : null;
	const authName = readText(this.getNodeParameter('mcpAuthName', ''));
	const body: IDataObject = { enabled, serverUrl, authName: authName === '' ? null : authName };
	const options = (this.getNodeParameter('mcpOptions', {}) ?? {}) as IDataObject;
	if (options.tools !== undefined) {
		const tools = splitList(options.tools);
		if (tools.length > 0) body.tools = tools;
	}
	if (options.settings !== undefined) {
		body.settings = parseJsonObject(node, 'Settings', options.settings, itemIndex);
	}
	return { ...requestOptions, body };
}

export const postCallMcpDescription: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Enabled',
		name: 'mcpEnabled',
		type: 'boolean',
		default: true,
		description: 'Whether the platform runs the tool server after each call',
		displayOptions: { show },
	},
	{
		displayName: 'Server URL',
		name: 'mcpServerUrl',
		type: 'string',
		default: '',
		placeholder: 'e.g. https://mcp.example.com/sse',
		description: 'The http:// or https:// URL of the MCP tool server. Required when enabled.',
		displayOptions: { show },
	},
	{
		displayName: 'Authentication Name',
		name: 'mcpAuthName',
		type: 'string',
		default: '',
		description:
			'Name of an authentication already saved for your account in the portal. Leave empty for none.',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'mcpOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Settings (JSON)',
				name: 'settings',
				type: 'json',
				default: '{}',
				description: 'Server-specific settings, sent as the "settings" object',
			},
			{
				displayName: 'Tools',
				name: 'tools',
				type: 'string',
				default: '',
				placeholder: 'e.g. summarize_call, create_ticket',
				description: 'Names of the server tools to run after the call, comma-separated. Leave empty for the server default.',
			},
		],
	},
];
