import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { additionalFieldsJson } from '../../shared/descriptions';
import { mergeJsonInto } from '../../shared/routing';
import { assertNonEmpty } from '../../shared/validation';

const show = { resource: ['assistant'], operation: ['create'] };

async function validateCreate(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const node = this.getNode();
	const body = { ...((requestOptions.body as Record<string, unknown>) ?? {}) };
	body.name = assertNonEmpty(node, 'Name', body.name, this.getItemIndex());
	body.mode = assertNonEmpty(node, 'Mode', body.mode, this.getItemIndex());
	return { ...requestOptions, body };
}

export const createDescription: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Front desk',
		description: 'Name of the assistant',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'name' } },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
		typeOptions: { rows: 2 },
		description: 'What the assistant is for',
		displayOptions: { show },
		routing: { send: { type: 'body', property: 'description' } },
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'string',
		default: 'text',
		description:
			'Mode of the assistant. The platform documents the value "text"; other values depend on your account.',
		displayOptions: { show },
		routing: {
			send: { type: 'body', property: 'mode', preSend: [validateCreate, mergeJsonInto()] },
		},
	},
	additionalFieldsJson(show, 'create request'),
];
