import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../shared/module';
import { listOperation, sendOnce } from '../../shared/routing';

import { RESOURCE, ragPath, ragPathOf } from './common';
import { createDescription } from './create';
import { deleteDescription } from './delete';
import { estimateUploadDescription, estimateUploadPreSend } from './estimateUpload';
import { getManyDescription } from './getMany';
import { getManyDocumentsDescription } from './getManyDocuments';
import { getUploadProgress, getUploadProgressDescription } from './getUploadProgress';
import { uploadDocuments, uploadDocumentsDescription } from './uploadDocuments';

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [RESOURCE] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a RAG collection',
				description: 'Create an empty retrieval collection',
				routing: {
					request: { method: 'POST', url: '/rag/collections' },
					send: { paginate: true },
					operations: { pagination: sendOnce },
				},
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a RAG collection',
				description: 'Delete a collection and its documents. Fails while it is attached to an assistant.',
				routing: {
					request: { method: 'DELETE', url: '=/rag/collections' },
					send: { paginate: true, preSend: [ragPath('/rag/collections/{ragId}')] },
					operations: { pagination: sendOnce },
				},
			},
			{
				name: 'Estimate Upload',
				value: 'estimateUpload',
				action: 'Estimate a document upload',
				description:
					'Estimate the chunks and storage an upload would use, and whether it fits the 200 MB allowance',
				routing: {
					request: { method: 'POST', url: '/rag/documents/estimate' },
					send: { paginate: true, preSend: estimateUploadPreSend },
					operations: { pagination: sendOnce },
				},
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many RAG collections',
				description: 'List collections, page by page',
			},
			{
				name: 'Get Many Documents',
				value: 'getManyDocuments',
				action: 'Get many documents of a RAG collection',
				description: 'List the documents of a collection, page by page',
			},
			{
				name: 'Get Upload Progress',
				value: 'getUploadProgress',
				action: 'Get the processing progress of an upload',
				description: 'Read the processing state of an upload, optionally waiting until it is over',
			},
			{
				name: 'Upload Documents',
				value: 'uploadDocuments',
				action: 'Upload documents to a RAG collection',
				description:
					"Upload the input item's binary files (.pdf .txt .doc .docx .csv .xls .xlsx) to a collection",
			},
		],
		default: 'getAll',
	},
	...createDescription,
	...deleteDescription,
	...estimateUploadDescription,
	...getManyDescription,
	...getManyDocumentsDescription,
	...getUploadProgressDescription,
	...uploadDocumentsDescription,
];

export const ragCollectionResource: ResourceModule = {
	resource: {
		name: 'RAG Collection',
		value: RESOURCE,
		description: 'Manage retrieval collections and their documents',
	},
	properties,
	customOperations: {
		getAll: listOperation({ path: () => '/rag/collections' }),
		getManyDocuments: listOperation({ path: (scope) => ragPathOf(scope, '/rag/collections/{ragId}/documents') }),
		uploadDocuments,
		getUploadProgress,
	},
};
