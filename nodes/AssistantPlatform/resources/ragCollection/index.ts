import type { INodeProperties } from 'n8n-workflow';

import type { ResourceModule } from '../../helpers/module';

import { RESOURCE } from './common';
import * as create from './create';
import * as del from './delete';
import * as estimateUpload from './estimateUpload';
import * as getMany from './getMany';
import * as getManyDocuments from './getManyDocuments';
import * as getUploadProgress from './getUploadProgress';
import * as uploadDocuments from './uploadDocuments';

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
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a RAG collection',
				description: 'Delete a collection and its documents. Fails while it is attached to an assistant.',
			},
			{
				name: 'Estimate Upload',
				value: 'estimateUpload',
				action: 'Estimate a document upload',
				description:
					'Estimate the chunks and storage an upload would use, and whether it fits the 200 MB allowance',
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
	...create.description,
	...del.description,
	...estimateUpload.description,
	...getMany.description,
	...getManyDocuments.description,
	...getUploadProgress.description,
	...uploadDocuments.description,
];

export const ragCollectionResource: ResourceModule = {
	resource: {
		name: 'RAG Collection',
		value: RESOURCE,
		description: 'Manage retrieval collections and their documents',
	},
	properties,
	operations: {
		create: create.execute,
		delete: del.execute,
		estimateUpload: estimateUpload.execute,
		getAll: getMany.execute,
		getManyDocuments: getManyDocuments.execute,
		getUploadProgress: getUploadProgress.execute,
		uploadDocuments: uploadDocuments.execute,
	},
};
