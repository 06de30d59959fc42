import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { assertNonEmpty, parseJsonObject, textField } from '../../../shared/core/validation';
import { forEachItem, itemScope } from '../../helpers/items';
import { assertProviderKind, providerKindOptions } from '../catalog/catalogReader';

import { assistantPath, patchRuntime, showFor } from './common';

const show = showFor('setProvider');

export const description: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Kind',
		name: 'providerKind',
		type: 'options',
		options: providerKindOptions,
		default: 'llm',
		description: 'Which runtime slot of the assistant to set',
		displayOptions: { show },
	},
	{
		displayName: 'Provider',
		name: 'providerId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The provider to use, from the live catalog of the chosen kind',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a provider...',
				typeOptions: { searchListMethod: 'searchProviders', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. openai',
			},
		],
		displayOptions: { show },
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description:
			"The provider's model. Leave empty to keep the provider's default. The list shows the models the chosen provider offers in the catalog.",
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a model...',
				typeOptions: { searchListMethod: 'searchProviderModels', searchable: true },
			},
			{
				displayName: 'By Name',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. gpt-4o-mini',
			},
		],
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'providerOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'e.g. it-IT',
				description: 'Language for the provider, one of those the catalog lists for it',
			},
			{
				displayName: 'Settings (JSON)',
				name: 'settings',
				type: 'json',
				default: '{}',
				description: 'Provider-specific settings, sent as the "settings" object',
			},
			{
				displayName: 'Voice',
				name: 'voice',
				type: 'string',
				default: '',
				placeholder: 'e.g. alloy',
				description: 'Voice for speech synthesis, one of those the catalog lists for the provider',
			},
		],
	},
];

/**
 * PATCH /assistants/{assistantId}/runtime/{kind} {providerId, model?, voice?, language?, settings?}
 * (docs/assumptions.md row 6): empty Model, Voice and Language are left out.
 */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const runtimePath = assistantPath(scope, '/runtime');
		const kind = assertProviderKind(this, this.getNodeParameter('providerKind', itemIndex, ''), itemIndex);
		const providerId = assertNonEmpty(
			node,
			'Provider',
			this.getNodeParameter('providerId', itemIndex, '', { extractValue: true }),
			itemIndex,
		);
		const body: IDataObject = { providerId };
		const model = textField(node, 'Model', this.getNodeParameter('model', itemIndex, '', { extractValue: true }), itemIndex);
		if (model !== '') body.model = model;
		const options = (this.getNodeParameter('providerOptions', itemIndex, {}) ?? {}) as IDataObject;
		const voice = textField(node, 'Voice', options.voice, itemIndex);
		if (voice !== '') body.voice = voice;
		const language = textField(node, 'Language', options.language, itemIndex);
		if (language !== '') body.language = language;
		if (options.settings !== undefined) {
			body.settings = parseJsonObject(node, 'Settings', options.settings, itemIndex);
		}
		return await patchRuntime(this, scope, `${runtimePath}/${kind}`, body);
	});
}
