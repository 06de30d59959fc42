/**
 * Engine-level test harness: runs workflows through n8n-core's real WorkflowExecute (engine/workflow.ts,
 * shared with the benchmarks), with our node and credential types loaded from source, credentials applied
 * through their own `authenticate` definitions (as n8n does), and real HTTP to the platform sandbox. No
 * request mocking.
 */
import { engineAdditionalData, InputNode, INPUT_TYPE, nodeTypesOf, outputOf, runChain } from '../../engine/workflow';
import { MemoryCredentialsHelper } from '../../engine/credentials';
export { attachHooks, inputNode } from '../../engine/workflow';

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { LoggerProxy, NodeHelpers } from 'n8n-workflow';
import { Container } from '@n8n/di';

import { recordLog, recordProduced } from './secretsGuard';
import { AssistantPlatformN8nApi } from '../../credentials/AssistantPlatformN8nApi.credentials';
import { AssistantPlatformOutboundApi } from '../../credentials/AssistantPlatformOutboundApi.credentials';
import { AssistantPlatformPortalApi } from '../../credentials/AssistantPlatformPortalApi.credentials';
import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';

/**
 * n8n's logger, routed into the secrets guard's capture (recordLog) instead of winston's console
 * transport: a test that expects an error prints nothing, and the guard still scans every line.
 * n8n-core resolves the Logger service from the DI container (its own copy of @n8n/backend-common)
 * and LoggerProxy is what n8n-workflow and the engine log through.
 */
class CapturedLogger {
	error(message: unknown, metadata?: unknown): void {
		recordLog('error', message, metadata);
	}
	warn(message: unknown, metadata?: unknown): void {
		recordLog('warn', message, metadata);
	}
	info(message: unknown, metadata?: unknown): void {
		recordLog('info', message, metadata);
	}
	debug(message: unknown, metadata?: unknown): void {
		recordLog('debug', message, metadata);
	}
	scoped(): CapturedLogger {
		return this;
	}
}
const capturedLogger = new CapturedLogger();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [require.resolve('n8n-core')] })) as {
	Logger: new (...args: never[]) => unknown;
};
Container.set(Logger, capturedLogger);
LoggerProxy.init(capturedLogger as unknown as Parameters<typeof LoggerProxy.init>[0]);

export const NODE_TYPE = 'n8n-nodes-assistant-platform.assistantPlatform';
export { INPUT_TYPE };

export const credentialTypes: Record<string, ICredentialType> = {
	assistantPlatformPortalApi: new AssistantPlatformPortalApi(),
	assistantPlatformOutboundApi: new AssistantPlatformOutboundApi(),
	assistantPlatformN8nApi: new AssistantPlatformN8nApi(),
};

const nodeTypesByName: Record<string, INodeType> = {
	[NODE_TYPE]: new AssistantPlatform(),
	[INPUT_TYPE]: new InputNode(),
};

export function registerNodeType(name: string, type: INodeType): void {
	nodeTypesByName[name] = type;
}

export const nodeTypes: INodeTypes = nodeTypesOf(nodeTypesByName);

/**
 * The in-memory credentials (engine/credentials.ts) with our credential types and the registered node types: a
 * credential restricted to the nodes that name it (the Data Tables API's) goes only to those, as in n8n.
 */
export class TestCredentialsHelper extends MemoryCredentialsHelper {
	constructor(store: Record<string, ICredentialDataDecryptedObject>) {
		super(store, credentialTypes, nodeTypesByName);
	}
}

export interface RunOptions {
	/** Parameters of the Assistant Platform node. */
	parameters: IDataObject;
	/** Input items (json, optionally binary). Default: one empty item. */
	items?: INodeExecutionData[];
	credentials: Record<string, ICredentialDataDecryptedObject>;
	continueOnFail?: boolean;
	mode?: WorkflowExecuteMode;
	nodeType?: string;
	/** Extra node settings (e.g. retryOnFail). */
	nodeSettings?: Partial<INode>;
	executionId?: string;
	/** Base of webhook/resume URLs handed to nodes. */
	webhookBaseUrl?: string;
	/** The workflow's static data, kept by the caller between runs as n8n keeps it between executions that are not manual. */
	staticData?: IDataObject;
	/** The workflow's name (its id is derived from it): another name is another workflow. */
	workflowName?: string;
}

export interface RunResult {
	items: INodeExecutionData[];
	/** Error thrown by the node (when not continuing on fail). */
	error?: Error & { description?: string; context?: IDataObject; httpCode?: string | null };
	run: IRun;
	waitTill?: Date;
	/** How often the run loaded each credential type (n8n-core's getCredentials -> getDecrypted). */
	credentialReads: Record<string, number>;
}

export function makeAdditionalData(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	options: { executionId?: string; webhookBaseUrl?: string } = {},
): IWorkflowExecuteAdditionalData {
	const { executionId = 'test-execution', webhookBaseUrl } = options;
	return engineAdditionalData(new TestCredentialsHelper(credentials), { executionId, webhookBaseUrl });
}

/** A node's references to the test credentials (one per credential type given). */
export function credentialsOfNode(credentials: Record<string, ICredentialDataDecryptedObject>): INode['credentials'] {
	const references: INode['credentials'] = {};
	for (const type of Object.keys(credentials)) {
		references[type] = { id: `${type}-id`, name: `${type} (test)` };
	}
	return references;
}

/** Runs Input -> Assistant Platform through WorkflowExecute and returns the node's output and error. */
export async function runNode(options: RunOptions): Promise<RunResult> {
	const nodeType = options.nodeType ?? NODE_TYPE;
	const items = options.items ?? [{ json: {} }];
	const mode = options.mode ?? 'manual';
	const additionalData = makeAdditionalData(options.credentials, options);
	const credentialReads = (additionalData.credentialsHelper as TestCredentialsHelper).reads;
	const node = {
		id: 'under-test',
		name: 'Assistant Platform',
		type: nodeType,
		parameters: options.parameters as INode['parameters'],
		credentials: credentialsOfNode(options.credentials),
		continueOnFail: options.continueOnFail,
		...(options.nodeSettings ?? {}),
	};
	let run: IRun;
	try {
		({ run } = await runChain({ nodeTypes, additionalData, items, chain: [node], mode, name: options.workflowName ?? 'Test', staticData: options.staticData }));
	} catch (thrown) {
		// n8n's own pre-flight checks (e.g. a required parameter left empty) throw before any node runs.
		const error = thrown as RunResult['error'];
		recordProduced(error);
		return { items: [], error, run: { data: { resultData: { runData: {} } } } as unknown as IRun, credentialReads };
	}
	const { items: output, error } = outputOf(run, node as INode) as { items: INodeExecutionData[]; error: RunResult['error'] };
	recordProduced(output);
	if (error) recordProduced(error);
	return { items: output, error, run, waitTill: run.waitTill ?? undefined, credentialReads };
}

/** The parameters n8n would store for a node: the given ones plus every displayed default. */
export function resolvedParameters(parameters: IDataObject): IDataObject {
	const type = nodeTypesByName[NODE_TYPE];
	return NodeHelpers.getNodeParameters(
		type.description.properties,
		parameters as INode['parameters'],
		true,
		false,
		null,
		type.description,
	) as IDataObject;
}
