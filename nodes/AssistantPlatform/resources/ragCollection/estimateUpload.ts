import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { additionalFieldsJson, ragCollectionLocator } from '../../../shared/descriptions/fields';
import { assertNonEmpty, invalid, optionField, parseJsonObject } from '../../../shared/core/validation';
import { forEachItem } from '../../helpers/items';
import { managementRequest } from '../../helpers/request';

import {
	assertWithinAllowance,
	binarySelectionProperties,
	chunkSizeProperty,
	readRagId,
	selectFiles,
	showFor,
} from './common';
import { assertAcceptedFileType, assertChunkSize, CHUNK_SIZE_DEFAULT, readSizeBytes } from './rules';

const show = showFor('estimateUpload');

/**
 * `{ragId?, chunkSize, files: [{fileName, sizeBytes}]}` from the input item's binary data (the same
 * files Upload Documents would send) or from a typed list, checking chunk size, file types and the
 * 200 MB allowance before anything is sent. Additional Fields (JSON) are merged in as they are.
 */
async function buildEstimate(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = ctx.getNode();
	const parameter = (name: string, fallback: unknown, options?: { extractValue: boolean }) =>
		ctx.getNodeParameter(name, itemIndex, fallback, options);
	const chunkSize = assertChunkSize(node, parameter('chunkSize', CHUNK_SIZE_DEFAULT), itemIndex);

	const body: IDataObject = {};
	const ragValue = parameter('ragId', '', { extractValue: true });
	if (ragValue !== undefined && ragValue !== null && String(ragValue).trim() !== '') {
		body.ragId = readRagId(node, ragValue, itemIndex);
	}
	body.chunkSize = chunkSize;

	if (optionField(node, 'Files From', parameter('filesFrom', 'binary'), ['binary', 'list'], itemIndex) === 'list') {
		const rows = (parameter('fileList.files', []) as IDataObject[]) ?? [];
		if (rows.length === 0) {
			throw invalid(node, 'Files', 'add at least one file (File Name and Size in Bytes)', itemIndex);
		}
		const files = rows.map((row) => {
			const fileName = assertNonEmpty(node, 'File Name', row.fileName, itemIndex);
			assertAcceptedFileType(node, 'File Name', fileName, itemIndex);
			return { fileName, sizeBytes: readSizeBytes(node, row.sizeBytes, fileName, itemIndex) };
		});
		assertWithinAllowance(
			node,
			'Files',
			files.map((f) => f.sizeBytes),
			itemIndex,
		);
		body.files = files;
	} else {
		const selected = await selectFiles(
			node,
			{
				item: ctx.getInputData()[itemIndex],
				assertBinaryData: (property) => ctx.helpers.assertBinaryData(itemIndex, property),
				getBuffer: async (property) => await ctx.helpers.getBinaryDataBuffer(itemIndex, property),
			},
			parameter('binarySelection', 'named'),
			parameter('binaryPropertyName', 'data'),
			itemIndex,
		);
		body.files = selected.map((file) => ({ fileName: file.fileName, sizeBytes: file.sizeBytes }));
	}

	const extra = parseJsonObject(
		node,
		'Additional Fields (JSON)',
		parameter('additionalFieldsJson', ''),
		itemIndex,
	);
	return { ...body, ...extra };
}

export const description: INodeProperties[] = [
	ragCollectionLocator(show, {
		required: false,
		description:
			'Optional: the collection the documents are meant for. Leave empty to estimate without one.',
	}),
	{
		displayName: 'Files From',
		name: 'filesFrom',
		type: 'options',
		options: [
			{
				name: 'Input Binary Data',
				value: 'binary',
				description:
					"The input item's binary fields, exactly as Upload Documents would send them",
			},
			{
				name: 'List of Names and Sizes',
				value: 'list',
				description: 'Type file names and sizes, without having the files',
			},
		],
		default: 'binary',
		description: 'Where the names and sizes of the files to estimate come from',
		displayOptions: { show },
	},
	...binarySelectionProperties({ ...show, filesFrom: ['binary'] }),
	{
		displayName: 'Files',
		name: 'fileList',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add File',
		default: {},
		description: 'The files to estimate',
		displayOptions: { show: { ...show, filesFrom: ['list'] } },
		options: [
			{
				displayName: 'File',
				name: 'files',
				values: [
					{
						displayName: 'File Name',
						name: 'fileName',
						type: 'string',
						default: '',
						placeholder: 'e.g. manual.pdf',
						description: 'Name with extension (.pdf .txt .doc .docx .csv .xls .xlsx)',
					},
					{
						displayName: 'Size in Bytes',
						name: 'sizeBytes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Size of the file in bytes',
					},
				],
			},
		],
	},
	chunkSizeProperty(show),
	additionalFieldsJson(show, 'estimate request'),
];

/** POST /rag/documents/estimate: what an upload would use, and whether it fits the allowance. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const body = await buildEstimate(this, itemIndex);
		return await managementRequest(this, itemIndex, 'POST', '/rag/documents/estimate', body);
	});
}
