import type { IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { forEachItem } from '../../helpers/items';
import { assertNonEmpty } from '../../../shared/core/validation';

import { showFor } from './common';
import { readUpload, readWaitSettings, waitForUpload, waitProperties } from './waitForUpload';

const show = showFor('getUploadProgress');

export const description: INodeProperties[] = [
	{
		displayName: 'Upload ID',
		name: 'uploadId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. upl_3kX9pQ2mZ7aB4cD1',
		description: 'The uploadId returned by Upload Documents (its output field uploadId)',
		displayOptions: { show },
	},
	...waitProperties(show),
];

/** GET /rag/uploads/{uploadId}: the current state, or (Wait for Processing) the final one. */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	const node = this.getNode();
	return await forEachItem(this, async (itemIndex) => {
		const uploadId = assertNonEmpty(node, 'Upload ID', this.getNodeParameter('uploadId', itemIndex, ''), itemIndex);
		if (this.getNodeParameter('waitForProcessing', itemIndex, false) !== true) {
			return [{ json: await readUpload(this, uploadId, itemIndex) }];
		}
		const settings = readWaitSettings(this, itemIndex);
		const result = await waitForUpload(this, uploadId, settings, itemIndex);
		return [{ json: { ...result.state, timedOut: result.timedOut } }];
	});
}
