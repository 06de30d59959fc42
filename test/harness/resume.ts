/**
 * In-process wait-and-resume harness: runs Input → node under test → After through n8n-core's real
 * WorkflowExecute until the node puts the execution to wait, keeps the execution data the way n8n
 * stores it (serialized), and resumes it the two ways n8n does:
 *
 * - by a request to the execution's resume URL: a real HTTP server at `${baseUrl}/webhook-waiting/
 *   <executionId>` that does what n8n's WaitingWebhooks + WebhookHelpers.executeWebhook do for a
 *   restart webhook (disable the waiting node, drop its waiting run, run its webhook() through
 *   n8n-core's real WebhookContext, put the webhook's items on the node, continue the run), its body
 *   read as n8n reads it (gzip and deflate decoded, up to 16 MB, kept as `req.rawBody`: n8nBody.ts);
 * - by Max Wait passing (what n8n's WaitTracker does): continue the stored run with waitTill still
 *   set, so n8n-core's own handleWaitingState disables the node and passes its input on.
 *
 * What is emulated here (packages/cli is not installed) is only that glue; the engine, the contexts
 * and the node are the real ones.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookContext, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	IRun,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { attachHooks, INPUT_TYPE, makeAdditionalData, nodeTypes, registerNodeType } from './engine';
import { readN8nRawBody } from './n8nBody';
import { recordProduced } from './secretsGuard';

export const AFTER_TYPE = 'test.after';
export const NODE_NAME = 'Node Under Test';
export const AFTER_NAME = 'After';

/** A node that outputs its input: what it receives is what the workflow continues with. */
class AfterNode implements INodeType {
	description = {
		displayName: 'After',
		name: AFTER_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Passes its input on',
		defaults: { name: AFTER_NAME },
		inputs: ['main'],
		outputs: ['main'],
		properties: [] as INodeProperties[],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}
registerNodeType(AFTER_TYPE, new AfterNode());

export interface WaitOptions {
	nodeType: string;
	parameters: IDataObject;
	items?: INodeExecutionData[];
	credentials: Record<string, ICredentialDataDecryptedObject>;
	continueOnFail?: boolean;
	nodeSettings?: Partial<INode>;
	executionId?: string;
	/** Base of the resume URL handed to the node (the resume server's base URL). */
	webhookBaseUrl: string;
}

export interface RunView {
	run: IRun;
	/** Output of the node under test in this run. */
	nodeItems: INodeExecutionData[];
	/** What the node after it received (and passed on). */
	afterItems: INodeExecutionData[];
	error?: Error & { description?: string };
}

export interface WaitingExecution extends RunView {
	executionId: string;
	waitTill?: Date;
	/** The execution data as n8n would store it (serialized, read back fresh for every resume). */
	stored: string;
	workflowNodes: INode[];
	options: WaitOptions;
	mode: WorkflowExecuteMode;
	finished: boolean;
}

function connections() {
	return {
		Input: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
		[NODE_NAME]: { main: [[{ node: AFTER_NAME, type: 'main', index: 0 }]] },
	} as never;
}

function buildWorkflow(nodes: INode[]): Workflow {
	return new Workflow({
		id: 'test-workflow',
		name: 'Test',
		nodes: JSON.parse(JSON.stringify(nodes)) as INode[],
		connections: connections(),
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
}

function withHooks(
	additionalData: IWorkflowExecuteAdditionalData,
	mode: WorkflowExecuteMode,
	workflow: Workflow,
): IWorkflowExecuteAdditionalData {
	attachHooks(additionalData, mode, workflow);
	return additionalData;
}

function view(run: IRun): RunView {
	const runData = run.data.resultData.runData;
	const nodeTask = runData[NODE_NAME]?.[runData[NODE_NAME].length - 1];
	const afterTask = runData[AFTER_NAME]?.[0];
	const nodeItems = (nodeTask?.data?.main?.[0] ?? []) as INodeExecutionData[];
	const afterItems = (afterTask?.data?.main?.[0] ?? []) as INodeExecutionData[];
	const error = (nodeTask?.error ?? run.data.resultData.error) as RunView['error'];
	recordProduced(nodeItems);
	recordProduced(afterItems);
	if (error) recordProduced(error);
	return { run, nodeItems, afterItems, error };
}

function serialize(data: IRunExecutionData): string {
	return JSON.stringify(data);
}

function fresh(execution: WaitingExecution): IRunExecutionData {
	return JSON.parse(execution.stored) as IRunExecutionData;
}

/** Runs Input → node → After until the node waits (or the run ends). */
export async function runUntilWait(options: WaitOptions): Promise<WaitingExecution> {
	const executionId = options.executionId ?? 'test-execution';
	const mode: WorkflowExecuteMode = 'manual';
	const items = options.items ?? [{ json: {} }];
	const credentialsOfNode: INode['credentials'] = {};
	for (const type of Object.keys(options.credentials)) {
		credentialsOfNode[type] = { id: `${type}-id`, name: `${type} (test)` };
	}
	const nodes: INode[] = [
		{
			id: 'input',
			name: 'Input',
			type: INPUT_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(items) },
		},
		{
			id: 'under-test',
			name: NODE_NAME,
			type: options.nodeType,
			typeVersion: 1,
			position: [200, 0],
			parameters: options.parameters as INode['parameters'],
			credentials: credentialsOfNode,
			continueOnFail: options.continueOnFail,
			...(options.nodeSettings ?? {}),
		},
		{
			id: 'after',
			name: AFTER_NAME,
			type: AFTER_TYPE,
			typeVersion: 1,
			position: [400, 0],
			parameters: {},
		},
	];
	const workflow = buildWorkflow(nodes);
	const additionalData = withHooks(
		makeAdditionalData(options.credentials, { executionId, webhookBaseUrl: options.webhookBaseUrl }),
		mode,
		workflow,
	);
	const run = await new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode: workflow.getNode('Input')!,
	});
	return {
		...view(run),
		executionId,
		waitTill: run.waitTill ?? undefined,
		stored: serialize(run.data),
		workflowNodes: nodes,
		options,
		mode,
		finished: run.waitTill === undefined || run.waitTill === null,
	};
}

/** Continues the stored run as n8n's WaitTracker does when waitTill has passed with no callback. */
export async function resumeAfterTimeout(execution: WaitingExecution): Promise<RunView> {
	const workflow = buildWorkflow(execution.workflowNodes);
	const data = fresh(execution);
	const additionalData = withHooks(
		makeAdditionalData(execution.options.credentials, {
			executionId: execution.executionId,
			webhookBaseUrl: execution.options.webhookBaseUrl,
		}),
		execution.mode,
		workflow,
	);
	const run = await new WorkflowExecute(additionalData, execution.mode, data).processRunExecutionData(workflow);
	execution.finished = true;
	return view(run);
}

/** The URL n8n handed the node as `$execution.resumeUrl` (signed with the execution's resume token when it has one). */
export function resumeUrlOf(baseUrl: string, execution: WaitingExecution): string {
	const token = (JSON.parse(execution.stored) as { resumeToken?: string }).resumeToken;
	return `${baseUrl}/webhook-waiting/${execution.executionId}${token ? `?signature=${token}` : ''}`;
}

export interface ResumeRequest {
	method: string;
	path: string;
	body: unknown;
	status: number;
	response: string;
}

export interface ResumeServer {
	baseUrl: string;
	requests: ResumeRequest[];
	/** Makes a waiting execution resumable at `${baseUrl}/webhook-waiting/<executionId>`. */
	register(execution: WaitingExecution): void;
	/** Resolves with the continued run once a request resumed the execution. */
	resumed(executionId: string): Promise<RunView>;
	stop(): Promise<void>;
}

interface Entry {
	execution: WaitingExecution;
	running: boolean;
	resolve: (run: RunView) => void;
	reject: (error: Error) => void;
	promise: Promise<RunView>;
}

function send(res: ServerResponse, status: number, body: unknown): string {
	const text = JSON.stringify(body);
	if (!res.headersSent) {
		res.statusCode = status;
		res.setHeader('Content-Type', 'application/json');
	}
	if (!res.writableEnded) res.end(text);
	return text;
}

/** A real HTTP server standing in for n8n's /webhook-waiting/ endpoint. */
export async function startResumeServer(): Promise<ResumeServer> {
	const entries = new Map<string, Entry>();
	const requests: ResumeRequest[] = [];

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const rawBody = await readN8nRawBody(req);
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const raw = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : '';
		const record: ResumeRequest = { method: req.method ?? 'GET', path: url.pathname, body: raw, status: 0, response: '' };
		requests.push(record);
		if (!Buffer.isBuffer(rawBody)) {
			record.status = rawBody === 'too-large' ? 413 : 400;
			record.response = send(res, record.status, { message: rawBody === 'too-large' ? 'request entity too large' : 'Request body stream was aborted or is not readable' });
			return;
		}
		let body: unknown = {};
		if (raw !== '' && String(req.headers['content-type'] ?? '').includes('json')) {
			try {
				body = JSON.parse(raw);
			} catch {
				record.status = 400;
				record.response = send(res, 400, { message: 'Invalid JSON' });
				return;
			}
		}
		record.body = body;
		const match = /^\/webhook-waiting\/([^/]+)(?:\/(.*))?$/.exec(url.pathname);
		const entry = match ? entries.get(match[1]) : undefined;
		if (!match || !entry) {
			record.status = 404;
			record.response = send(res, 404, { message: 'The execution does not exist.' });
			return;
		}
		const { execution } = entry;
		if (entry.running) {
			record.status = 409;
			record.response = send(res, 409, { message: `The execution "${execution.executionId}" is running already.` });
			return;
		}
		if (execution.finished) {
			record.status = 409;
			record.response = send(res, 409, { message: `The execution "${execution.executionId} has finished already.` });
			return;
		}

		// WaitingWebhooks.getWebhookExecutionData
		const data = fresh(execution);
		data.executionData!.nodeExecutionStack[0].node.disabled = true;
		data.waitTill = undefined;
		const lastNodeExecuted = data.resultData.lastNodeExecuted as string;
		data.resultData.runData[lastNodeExecuted].pop();
		const workflow = buildWorkflow(execution.workflowNodes);
		const node = workflow.getNode(lastNodeExecuted)!;
		const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const suffix = match[2] ?? '';
		const description = (nodeType.description.webhooks ?? []).find((webhook) => {
			const method = workflow.expression.getSimpleParameterValue(node, webhook.httpMethod, 'internal', {}, undefined, 'GET');
			const path = String(workflow.expression.getSimpleParameterValue(node, webhook.path, 'internal', {}) ?? '');
			return webhook.restartWebhook === true && String(method) === req.method && path.replace(/^\/|\/$/g, '') === suffix;
		});
		if (!description || !nodeType.webhook) {
			record.status = 404;
			record.response = send(res, 404, {
				message: `The workflow for execution "${execution.executionId}" does not contain a waiting webhook with a matching path/method.`,
			});
			return;
		}

		// WebhookHelpers.executeWebhook → WebhookService.runWebhook
		const additionalData = makeAdditionalData(execution.options.credentials, {
			executionId: execution.executionId,
			webhookBaseUrl: execution.options.webhookBaseUrl,
		});
		const request = Object.assign(req, {
			rawBody,
			body,
			query: Object.fromEntries(url.searchParams),
			params: {},
			path: url.pathname,
		});
		additionalData.httpRequest = request as never;
		additionalData.httpResponse = res as never;
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: '',
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		};
		const context = new WebhookContext(workflow, node, additionalData, execution.mode, webhookData, [], data);
		let result: IWebhookResponseData;
		try {
			result = (await nodeType.webhook.call(context)) as IWebhookResponseData;
		} catch (error) {
			// n8n answers 500 and leaves a resumed execution waiting.
			record.status = 500;
			record.response = send(res, 500, { message: (error as Error).message });
			return;
		}
		if (result.workflowData === undefined) {
			// The node answered (or refused) the request itself: the execution keeps waiting.
			record.status = res.statusCode;
			if (!result.noWebhookResponse) record.response = send(res, 200, result.webhookResponse ?? { message: 'Webhook call received' });
			return;
		}
		record.status = 200;
		record.response = send(res, 200, { message: 'Workflow was started' });

		// prepareExecutionData for a restarted execution, then WorkflowRunner.run.
		const resuming = data.executionData!.nodeExecutionStack[0];
		resuming.data.main = result.workflowData;
		resuming.metadata = { ...resuming.metadata, forwardAllOutputs: true };
		entry.running = true;
		try {
			const runData = withHooks(
				makeAdditionalData(execution.options.credentials, {
					executionId: execution.executionId,
					webhookBaseUrl: execution.options.webhookBaseUrl,
				}),
				execution.mode,
				workflow,
			);
			const run = await new WorkflowExecute(runData, execution.mode, data).processRunExecutionData(workflow);
			execution.finished = true;
			entry.resolve(view(run));
		} catch (error) {
			entry.reject(error as Error);
		} finally {
			entry.running = false;
		}
	}

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error: Error) => {
			send(res, 500, { message: error.message });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const { port } = server.address() as AddressInfo;

	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		register(execution) {
			let resolve!: (run: RunView) => void;
			let reject!: (error: Error) => void;
			const promise = new Promise<RunView>((res, rej) => {
				resolve = res;
				reject = rej;
			});
			entries.set(execution.executionId, { execution, running: false, resolve, reject, promise });
		},
		async resumed(executionId) {
			const entry = entries.get(executionId);
			if (!entry) throw new Error(`Execution ${executionId} is not registered`);
			return await entry.promise;
		},
		async stop() {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
