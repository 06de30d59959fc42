import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

import { assistantLocator, ragCollectionLocator } from '../../../shared/descriptions';
import { assertRagId } from '../../../shared/validation';

import { showFor } from './common';

/** preSend: PATCH /assistants/{assistantId}/runtime/rag with {ragId} (assumptions row 14). */
export async function buildAttachRagRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const ragId = assertRagId(
		this.getNode(),
		'RAG Collection',
		this.getNodeParameter('ragId', '', { extractValue: true }),
		this.getItemIndex(),
	);
	return { ...requestOptions, body: { ragId } };
}

/** preSend: {ragId: null} detaches the collection, so that it can be deleted. */
export async function buildDetachRagRequest(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return { ...requestOptions, body: { ragId: null } };
}

export const attachRagDescription: INodeProperties[] = [
	assistantLocator(showFor('attachRag')),
	{
		displayName:
			'An assistant has at most one RAG collection: attaching one replaces the collection attached before',
		name: 'attachRagNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showFor('attachRag') },
	},
	ragCollectionLocator(showFor('attachRag'), { description: 'The collection to attach' }),
];

export const detachRagDescription: INodeProperties[] = [
	assistantLocator(showFor('detachRag'), {
		description: 'The assistant whose RAG collection to detach (a collection can be deleted only once detached)',
	}),
];
