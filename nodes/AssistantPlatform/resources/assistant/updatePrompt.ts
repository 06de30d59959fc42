import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { additionalFieldsJson, assistantLocator } from '../../../shared/descriptions';
import { mergeJsonInto } from '../../shared/routing';
import { assertNonEmpty } from '../../../shared/validation';

const show = { resource: ['assistant'], operation: ['updatePrompt'] };

async function validatePrompt(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const body = { ...((requestOptions.body as Record<string, unknown>) ?? {}) };
	if (typeof body.prompt !== 'string') {
		body.prompt = assertNonEmpty(this.getNode(), 'Prompt', body.prompt, this.getItemIndex());
	} else if (body.prompt.trim() === '') {
		assertNonEmpty(this.getNode(), 'Prompt', '', this.getItemIndex());
	}
	return { ...requestOptions, body };
}

export const updatePromptDescription: INodeProperties[] = [
	assistantLocator(show),
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 8 },
		description: 'The new prompt. It replaces the current one.',
		displayOptions: { show },
		routing: {
			send: { type: 'body', property: 'prompt', preSend: [validatePrompt, mergeJsonInto()] },
		},
	},
	additionalFieldsJson(show, 'prompt update'),
];
