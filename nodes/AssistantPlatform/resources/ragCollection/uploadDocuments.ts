import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { additionalFieldsJson, ragCollectionLocator } from '../../../shared/descriptions/fields';
import { forEachItem } from '../../helpers/items';
import { portalRequest } from '../../../shared/transport/request';
import { parseJsonObject } from '../../../shared/core/validation';
import { asObject } from '../../../shared/core/object';

import {
	assertWithinAllowance,
	binarySelectionProperties,
	chunkSizeProperty,
	readRagId,
	selectFiles,
	showFor,
	stringifyFormValue,
} from './common';
import type { MultipartFile } from './multipart';
import { buildMultipart } from './multipart';
import { assertChunkSize, CHUNK_SIZE_DEFAULT } from './rules';
import { readWaitSettings, waitForUpload, waitProperties } from './waitForUpload';

const show = showFor('uploadDocuments');

/** Uploads of up to 200 MB take longer than the default 30 s request timeout. */
const UPLOAD_TIMEOUT_MS = 600_000;

export const description: INodeProperties[] = [
	ragCollectionLocator(show, { description: 'The collection to upload the documents to' }),
	...binarySelectionProperties(show),
	chunkSizeProperty(show),
	{
		...additionalFieldsJson(show, 'upload'),
		description:
			'Extra form fields sent with the files (they override the fields above, e.g. chunkSize). Values that are not strings are sent as JSON text. Use it for fields this node does not know yet.',
	},
	...waitProperties(show),
];

/**
 * POST /rag/collections/{ragId}/documents as multipart/form-data: one part named "files" per file
 * and a text field "chunkSize". Everything is checked before sending; the upload is a write and is
 * sent once, never retried.
 */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const ragId = readRagId(node, this.getNodeParameter('ragId', itemIndex, '', { extractValue: true }), itemIndex);
		const chunkSize = assertChunkSize(
			node,
			this.getNodeParameter('chunkSize', itemIndex, CHUNK_SIZE_DEFAULT),
			itemIndex,
		);
		const extra = parseJsonObject(
			node,
			'Additional Fields (JSON)',
			this.getNodeParameter('additionalFieldsJson', itemIndex, ''),
			itemIndex,
		);
		const wait = this.getNodeParameter('waitForProcessing', itemIndex, false) === true;
		const settings = wait ? readWaitSettings(this, itemIndex) : undefined;

		const selected = await selectFiles(
			node,
			{
				item: this.getInputData()[itemIndex],
				assertBinaryData: (property) => this.helpers.assertBinaryData(itemIndex, property),
				getBuffer: async (property) => await this.helpers.getBinaryDataBuffer(itemIndex, property),
			},
			this.getNodeParameter('binarySelection', itemIndex, 'named'),
			this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
			itemIndex,
		);
		const files: MultipartFile[] = [];
		for (const file of selected) {
			files.push({
				fieldName: 'files',
				fileName: file.fileName,
				contentType: file.mimeType,
				content: await this.helpers.getBinaryDataBuffer(itemIndex, file.property),
			});
		}
		// The metadata may understate the size: check the bytes actually read, too.
		assertWithinAllowance(
			node,
			'Input Binary Fields',
			files.map((f) => f.content.length),
			itemIndex,
		);

		const fields = new Map<string, string>([['chunkSize', String(chunkSize)]]);
		for (const [key, value] of Object.entries(extra)) fields.set(key, stringifyFormValue(value));
		const multipart = buildMultipart([...fields.entries()], files);

		const { body } = await portalRequest(this, 'POST', `/rag/collections/${encodeURIComponent(ragId)}/documents`, {
			body: multipart.body,
			headers: { 'Content-Type': multipart.contentType, Accept: 'application/json' },
			timeout: UPLOAD_TIMEOUT_MS,
			retry: false,
			itemIndex,
		});
		const accepted = asObject(body);
		if (!settings) return [{ json: accepted }];

		const uploadId = accepted.uploadId;
		if (typeof uploadId !== 'string' || uploadId === '') {
			throw new NodeOperationError(node, 'The platform accepted the upload but returned no uploadId to wait for', {
				itemIndex,
				description: 'Turn off Wait for Processing; the answer of the platform is then output as it is.',
			});
		}
		// The accepted answer is the first state: the first poll comes after First Poll Interval.
		const result = await waitForUpload(this, uploadId, settings, itemIndex, accepted);
		return [{ json: { ...accepted, ...result.state, timedOut: result.timedOut } }];
	});
}
