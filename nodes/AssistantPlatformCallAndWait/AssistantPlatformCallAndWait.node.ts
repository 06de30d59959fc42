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

import { requestOptionsProperty } from '../shared/descriptions/fields';
import { placementProperties } from '../shared/descriptions/placementFields';
import { N8N_API_CREDENTIAL, OUTBOUND_CREDENTIAL } from '../shared/core/constants';
import { NO_GUARDRAIL_ADDED } from '../shared/guards/fields';
import { assertSupportedN8n } from '../shared/n8n/n8nSupport';

import { placeCallAndWait, placeCallAndWaitWebhook } from './placeCallAndWait';

assertSupportedN8n();

/**
 * Assistant Platform Call and Wait, its own node: n8n resumes a waiting execution through the node's
 * webhook(), and in n8n 2.x a declarative node with a webhook() gets no input items for its
 * expressions, so it cannot be an operation of the Assistant Platform node.
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
		subtitle: '={{"Place call and wait (" + ({ trunk: "Platform Trunk", pbx: "Your PBX" }[$parameter["route"]] || $parameter["route"]) + ")"}}',
		description:
			'Places a real phone call and waits for its result (answered, busy, no answer…) before the workflow continues, without holding a worker',
		defaults: {
			name: 'Assistant Platform Call and Wait',
		},
		// Not offered to AI agents: the node pauses the execution until the call result arrives, which a
		// tool call cannot do (it would always fail).
		usableAsTool: undefined,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: OUTBOUND_CREDENTIAL, required: true },
			// Guardrails count in this n8n's data tables, through n8n's API: needed once one is added.
			{ name: N8N_API_CREDENTIAL, required: true, displayOptions: { hide: { guardrails: [NO_GUARDRAIL_ADDED] } } },
		],
		// The resume webhook: n8n matches a POST to a waiting execution's resume URL against it.
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
		properties: [...placementProperties({}, 'placeCallAndWait'), requestOptionsProperty({ batching: false, timeoutDefault: 30000 })],
	};

	// Never called for a restart webhook; present only because the unedited lint rule
	// webhook-lifecycle-complete requires them on a node with webhooks.
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
