import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { N8N_API_CREDENTIAL } from '../../nodes/shared/core/constants';
import { platformRequest } from '../../nodes/shared/transport/request';
import { registerNodeType } from './engine';

/*
 * A node that sends one request through the package transport with the Data Tables API credential, naming the
 * credential as the package's nodes do: `method` (GET by default; others with an empty body) to `url` (a path below
 * the credential's n8n API URL, or an absolute URL), never retried; `passStatuses` (comma-separated) come back as
 * answers instead of errors. Its item is `{statusCode}`.
 */
export const TRANSPORT_PROBE_TYPE = 'test.transportProbe';

class TransportProbe implements INodeType {
	description = {
		displayName: 'Transport Probe',
		name: TRANSPORT_PROBE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Sends one request with the Data Tables API credential',
		defaults: { name: 'Transport Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: N8N_API_CREDENTIAL, required: true }],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Pass Statuses', name: 'passStatuses', type: 'string', default: '' },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const method = this.getNodeParameter('method', 0) as 'GET' | 'POST' | 'PATCH';
		const url = this.getNodeParameter('url', 0) as string;
		const passStatuses = String(this.getNodeParameter('passStatuses', 0))
			.split(',')
			.filter((s) => s.trim() !== '')
			.map(Number);
		const body = method === 'GET' ? undefined : {};
		const { statusCode } = await platformRequest(this, N8N_API_CREDENTIAL, { method, url, body }, { retry: false, passStatuses });
		return [[{ json: { statusCode } }]];
	}
}
registerNodeType(TRANSPORT_PROBE_TYPE, new TransportProbe());
