import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { placementProperties, requestOptionsProperty } from '../AssistantPlatform/resources/outboundCall/fields';
import {
	placeCallAndWait,
	placeCallAndWaitWebhook,
} from '../AssistantPlatform/resources/outboundCall/placeCallAndWait';
import { OUTBOUND_CREDENTIAL } from '../AssistantPlatform/shared/constants';
import { assertSupportedN8n } from '../AssistantPlatform/shared/n8nSupport';

assertSupportedN8n();

/**
 * Outbound Call → Place Call and Wait for Result, as its own (programmatic) node.
 *
 * Why not an operation of the Assistant Platform node: n8n resumes a waiting execution by calling
 * the waiting node's webhook() method, and in n8n 2.x a declarative node that has a webhook()
 * method gets no input items for its expressions ($json fails in every declarative operation).
 * See docs/assumptions.md, "Place Call and Wait for Result".
 */
export class AssistantPlatformCallAndWait implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Assistant Platform Call and Wait',
		name: 'assistantPlatformCallAndWait',
		icon: {
			light: 'file:../AssistantPlatform/assistantPlatform.svg',
			dark: 'file:../AssistantPlatform/assistantPlatform.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{"Place call and wait (" + $parameter["route"] + ")"}}',
		description:
			'Places a real phone call and waits for its result (answered, busy, no answer…) before the workflow continues, without holding a worker',
		defaults: {
			name: 'Place Call and Wait',
		},
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: OUTBOUND_CREDENTIAL, required: true }],
		// The resume webhook: n8n matches a request to this execution's resume URL
		// ($execution.resumeUrl, POST, no suffix) against it while the execution waits. A restart
		// webhook is never registered when the workflow is activated.
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: '',
				restartWebhook: true,
				isFullPath: true,
				ndvHideUrl: true,
				ndvHideMethod: true,
			},
		],
		properties: [...placementProperties({}, 'placeCallAndWait'), requestOptionsProperty()],
	};

	// n8n never registers a restart webhook (it only matches requests to a waiting execution's resume
	// URL), so there is nothing to create or delete on the platform: these lifecycle methods are
	// never called and only complete the webhook contract.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await placeCallAndWait.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await placeCallAndWaitWebhook.call(this);
	}
}
