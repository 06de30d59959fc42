/**
 * Runs a credential type's `test` request the way n8n's CredentialsTester does (packages/cli
 * credentials-tester.service): a temporary declarative node whose one property routes the test
 * request, executed by n8n-core's RoutingNode with the decrypted credential, then the `rules`.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRunExecutionData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { credentialTypes, makeAdditionalData } from './engine';

function get(object: unknown, path: string): unknown {
	return path.split('.').reduce<unknown>(
		(value, key) => (value && typeof value === 'object' ? (value as IDataObject)[key] : undefined),
		object,
	);
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export async function testCredential(
	typeName: string,
	data: ICredentialDataDecryptedObject,
): Promise<CredentialTestResult> {
	const credentialType = credentialTypes[typeName];
	const testRequest = credentialType.test!;
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: typeName, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	} as unknown as INodeType;
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [typeName]: { id: 'c1', name: 'cred' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = makeAdditionalData({ [typeName]: data });
	const runExecutionData = { resultData: { runData: {} } } as unknown as IRunExecutionData;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, {
		id: 'c1',
		name: 'cred',
		type: typeName,
		data,
	});
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await routingNode.runNode();
	} catch (error) {
		const e = error as { cause?: { response?: { status: number; statusText?: string }; code?: string }; message: string };
		if (e.cause?.response) {
			const statusCode = e.cause.response.status;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && statusCode === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: e.cause.response.statusText || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (e.cause?.code) {
			return { status: 'Error', message: e.cause.code };
		}
		return { status: 'Error', message: e.message };
	}
	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const body = response![0][0].json as IDataObject;
			if (get(body, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
