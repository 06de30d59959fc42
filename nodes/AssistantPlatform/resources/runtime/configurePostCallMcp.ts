import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { invalid, kindOf, parseJsonObject } from '../../../shared/core/validation';
import type { ItemScope } from '../../helpers/items';
import { forEachItem, itemScope } from '../../helpers/items';

import { assistantPath, patchRuntime, readHookSwitch, showFor, splitList } from './common';

const show = showFor('configurePostCallMcp');

/** The body {enabled, serverUrl, authName, tools?, settings?} (docs/assumptions.md row 18). */
function mcpBody(scope: ItemScope): IDataObject {
	const node = scope.getNode();
	const itemIndex = scope.getItemIndex();
	const { enabled, url, authName } = readHookSwitch(scope, {
		enabled: 'mcpEnabled',
		url: 'mcpServerUrl',
		urlLabel: 'Server URL',
		authName: 'mcpAuthName',
	});
	const body: IDataObject = { enabled, serverUrl: url, authName };
	const options = (scope.getNodeParameter('mcpOptions', {}) ?? {}) as IDataObject;
	if (options.tools !== undefined) {
		if (options.tools !== null && typeof options.tools !== 'string' && !Array.isArray(options.tools)) {
			throw invalid(node, 'Tools', `must be comma-separated text or a list, not ${kindOf(options.tools)}`, itemIndex);
		}
		const tools = splitList(options.tools);
		if (tools.length > 0) body.tools = tools;
	}
	if (options.settings !== undefined) {
		body.settings = parseJsonObject(node, 'Settings', options.settings, itemIndex);
	}
	return body;
}

export const description: INodeProperties[] = [
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

/** PATCH /assistants/{assistantId}/runtime/postcall/mcp-config. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/postcall/mcp-config');
		return await patchRuntime(this, scope, path, mcpBody(scope));
	});
}
