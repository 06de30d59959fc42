import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { additionalFieldsJson } from '../../../shared/descriptions';
import { mergeJsonInto } from '../../shared/routing';
import { assertNonEmpty } from '../../../shared/validation';

import { showFor } from './common';

const show = showFor('create');

/** Name is required and trimmed; an empty description is left out of the body (it is optional). */
async function validateCreate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const body = { ...((requestOptions.body as Record<string, unknown>) ?? {}) };
	body.name = assertNonEmpty(node, 'Name', body.name, this.getItemIndex());
	if (typeof body.description !== 'string' || body.description.trim() === '') {
		delete body.description;
	}
	return { ...requestOptions, body };
}

export const createDescription: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Product manuals',
		description: 'Name of the collection',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'name' } },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		description: 'What the collection contains. Left out of the request when empty.',
		displayOptions: { show },
		routing: {
			send: { type: 'body', property: 'description', preSend: [validateCreate, mergeJsonInto()] },
		},
	},
	additionalFieldsJson(show, 'create request'),
];
