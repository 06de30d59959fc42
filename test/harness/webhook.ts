/**
 * Webhook harness: serves a trigger node's webhooks over real HTTP the way n8n does, so tests post
 * real requests (from fetch, or from the platform sandbox's own callbacks) to the node's `webhook()`.
 *
 * What it reproduces from n8n 2.x (packages/cli: WebhookService, LiveWebhooks, TestWebhooks,
 * ActiveWorkflowManager, webhook-helpers, middlewares/body-parser):
 * - webhook paths from the node's webhook descriptions (expressions evaluated against the node's
 *   parameters, `isFullPath`, the webhookId prefix, dynamic `:param` segments), and routing: a static
 *   path first, then a dynamic one by webhookId and path length, the match with most static segments;
 *   two webhooks with the same stored path and method are refused, as the database would;
 * - production URLs (`/webhook/…`, only while published) and test URLs (`/webhook-test/…`, only
 *   while listening for a test event, which stops after the first run);
 * - the body: read raw (kept as `req.rawBody`; gzip and deflate decoded) up to N8N_PAYLOAD_SIZE_MAX
 *   (16 MB; test/harness/n8nBody.ts), parsed for a
 *   version-1 node like n8n's parseBody: `application/json` (invalid JSON → 422 from n8n, before the
 *   node runs), `text/plain` as a string, form-urlencoded;
 * - the node runs in n8n-core's real WebhookContext; its answer is handled like
 *   `handleImmediateWebhookResponse`: `noWebhookResponse` → the node answered; no `workflowData` →
 *   200 with `webhookResponse`; `workflowData` → a workflow start, answered 200 (onReceived);
 * - publish / unpublish / restart / test listen call `webhookMethods` (checkExists, create, delete)
 *   through n8n-core's real HookContext, with the modes and activation modes n8n uses, and keep the
 *   workflow's static data between them like n8n's database (saved only after a successful activation).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQueryString } from 'node:querystring';

import { HookContext, WebhookContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { jsonParse, NodeHelpers, resolveWebhookDescriptionField, Workflow } from 'n8n-workflow';

import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';

import { makeAdditionalData, nodeTypes, registerNodeType } from './engine';
import { readN8nRawBody } from './n8nBody';
import { recordProduced, registerSecret } from './secretsGuard';

export const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';
registerNodeType(TRIGGER_TYPE, new AssistantPlatformTrigger());

const TRIGGER_NAME = 'Assistant Platform Trigger';
const WORKFLOW_ID = 'trigger-workflow';
/** n8n's default N8N_PAYLOAD_SIZE_MAX, in MB. */
const DEFAULT_PAYLOAD_SIZE_MAX_MB = 16;

export interface TriggerHarnessOptions {
	/** Raw parameters of the trigger node (defaults are applied like n8n's Workflow does). */
	parameters: IDataObject;
	/** Credentials by type name (only needed for registration and list search). */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	webhookId?: string;
	/** n8n's N8N_PAYLOAD_SIZE_MAX in MB. */
	payloadSizeMaxMb?: number;
	/** Listen address (default 127.0.0.1). */
	host?: string;
}

export interface WorkflowStart {
	mode: 'production' | 'test';
	path: string;
	items: INodeExecutionData[];
}

export interface HandledRequest {
	method: string;
	mode: 'production' | 'test' | 'none';
	path: string;
	status: number;
	/** The response body, parsed when JSON. */
	response: unknown;
	started: boolean;
}

interface Route {
	method: string;
	/** Stored path (WebhookEntity.webhookPath): without the webhookId prefix for dynamic paths. */
	webhookPath: string;
	webhookId?: string;
	pathLength?: number;
	webhookData: IWebhookData;
}

/**
 * The trigger's secrets (the Webhook Secret in every URL, the conversation-end Auth Header Value)
 * are registered with the test-wide secrets guard: none may appear in any output, error or log.
 */
function registerTriggerSecrets(parameters: IDataObject): void {
	registerSecret(parameters.webhookSecret);
	registerSecret((parameters.options as IDataObject | undefined)?.authHeaderValue);
}

function isDynamic(path: string): boolean {
	return path.startsWith(':') || path.includes('/:');
}

function trimSlashes(path: string): string {
	return path.replace(/^\/+/, '').replace(/\/+$/, '');
}

function deepCopy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

/** The static data n8n would store: the workflow's object without ObservableObject bookkeeping. */
function persistable(staticData: IDataObject): IDataObject {
	const copy = deepCopy(staticData);
	delete copy.__dataChanged;
	return copy;
}

export class TriggerHarness {
	url = '';

	readonly starts: WorkflowStart[] = [];

	readonly requests: HandledRequest[] = [];

	/** The workflow's static data as n8n's database holds it. */
	staticData: IDataObject = {};

	published = false;

	listening = false;

	readonly webhookId: string;

	private parameters: IDataObject;

	private readonly credentials: Record<string, ICredentialDataDecryptedObject>;

	private readonly payloadSizeMax: number;

	private server?: Server;

	private productionRoutes: Route[] = [];

	private testRoutes: Route[] = [];

	private testStaticData: IDataObject = {};

	private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

	constructor(options: TriggerHarnessOptions) {
		registerTriggerSecrets(options.parameters);
		this.parameters = options.parameters;
		this.credentials = options.credentials ?? {};
		this.webhookId = options.webhookId ?? randomUUID();
		this.payloadSizeMax = (options.payloadSizeMaxMb ?? DEFAULT_PAYLOAD_SIZE_MAX_MB) * 1024 * 1024;
	}

	async listen(host = '127.0.0.1'): Promise<void> {
		this.server = createServer((req, res) => {
			void this.handle(req, res).catch((error: Error) => {
				if (!res.headersSent) {
					res.statusCode = 500;
					res.setHeader('Content-Type', 'application/json');
				}
				res.end(JSON.stringify({ code: 500, message: 'harness error', hint: error.message }));
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
		const { port } = this.server.address() as AddressInfo;
		this.url = `http://${host}:${port}`;
	}

	async close(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}

	/** Edits the node's parameters, as in the editor (takes effect at the next publish / request). */
	setParameters(parameters: IDataObject): void {
		registerTriggerSecrets(parameters);
		this.parameters = parameters;
	}

	/** Forgets recorded starts and requests. */
	clear(): void {
		this.starts.length = 0;
		this.requests.length = 0;
	}

	/** Resolves once at least `count` workflows have started. */
	async waitForStarts(count: number): Promise<void> {
		if (this.starts.length >= count) return;
		await new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
	}

	// -------------------------------------------------------------------------------------------
	// The node and its URLs

	node(): INode {
		const credentials: INode['credentials'] = {};
		for (const type of Object.keys(this.credentials)) {
			credentials[type] = { id: `${type}-id`, name: `${type} (test)` };
		}
		return {
			id: 'trigger-node',
			name: TRIGGER_NAME,
			type: TRIGGER_TYPE,
			typeVersion: 1,
			position: [0, 0],
			webhookId: this.webhookId,
			parameters: deepCopy(this.parameters) as INode['parameters'],
			credentials,
		};
	}

	workflow(staticData: IDataObject): Workflow {
		return new Workflow({
			id: WORKFLOW_ID,
			name: 'Trigger test',
			nodes: [this.node()],
			connections: {},
			active: this.published,
			nodeTypes,
			staticData: deepCopy(staticData),
			settings: { executionOrder: 'v1' },
		});
	}

	private nodeType(): INodeType {
		return nodeTypes.getByNameAndVersion(TRIGGER_TYPE, 1) as INodeType;
	}

	additionalData(extra: Partial<IWorkflowExecuteAdditionalData> = {}): IWorkflowExecuteAdditionalData {
		const data = makeAdditionalData(this.credentials, {
			webhookBaseUrl: this.url,
			executionId: 'trigger-execution',
		});
		return Object.assign(data, extra);
	}

	/** WebhookService.getNodeWebhooks: one entry per webhook description of the node. */
	webhooks(workflow: Workflow, additionalData: IWorkflowExecuteAdditionalData): IWebhookData[] {
		const node = workflow.getNode(TRIGGER_NAME)!;
		const out: IWebhookData[] = [];
		for (const description of this.nodeType().description.webhooks ?? []) {
			const path = trimSlashes(webhookPathOf(workflow, node, description));
			const isFullPath = workflow.expression.getSimpleParameterValue(
				node,
				description.isFullPath,
				'internal',
				{},
				undefined,
				false,
			) as boolean;
			const fullPath = NodeHelpers.getNodeWebhookPath(workflow.id, node, path, isFullPath, false);
			const method = String(
				workflow.expression.getSimpleParameterValue(node, description.httpMethod, 'internal', {}, undefined, 'GET'),
			);
			out.push({
				httpMethod: method as IWebhookData['httpMethod'],
				node: node.name,
				path: fullPath,
				webhookDescription: description,
				workflowId: workflow.id,
				workflowExecuteAdditionalData: additionalData,
				webhookId: isDynamic(fullPath) && node.webhookId ? node.webhookId : undefined,
			});
		}
		return out;
	}

	/** The URL of a webhook description, as n8n computes it (n8n-core getNodeWebhookUrl). */
	private urlOf(description: IWebhookDescription, mode: 'production' | 'test'): string {
		const workflow = this.workflow(this.staticData);
		const node = workflow.getNode(TRIGGER_NAME)!;
		const path = webhookPathOf(workflow, node, description);
		const isFullPath = workflow.expression.getSimpleParameterValue(
			node,
			description.isFullPath,
			'internal',
			{},
			undefined,
			false,
		) as boolean;
		const base = mode === 'test' ? `${this.url}/webhook-test` : `${this.url}/webhook`;
		return NodeHelpers.getNodeWebhookUrl(base, workflow.id, node, path, isFullPath);
	}

	/**
	 * The URLs the editor shows under "Webhook URLs" (descriptions whose `ndvHideUrl` is false), in
	 * the order of the descriptions.
	 */
	visibleUrls(mode: 'production' | 'test' = 'production'): string[] {
		const workflow = this.workflow(this.staticData);
		const node = workflow.getNode(TRIGGER_NAME)!;
		return (this.nodeType().description.webhooks ?? [])
			.filter((description) => {
				const hide = description.ndvHideUrl;
				if (typeof hide === 'string') {
					return !workflow.expression.getSimpleParameterValue(node, hide, 'internal', {});
				}
				return hide !== true;
			})
			.map((description) => this.urlOf(description, mode));
	}

	/** The URL of an event (…/call-result, …/conversation-end, …/extracted-data). */
	eventUrl(
		event: 'callResult' | 'conversationEnd' | 'extractedData',
		mode: 'production' | 'test' = 'production',
	): string {
		const slug = { callResult: 'call-result', conversationEnd: 'conversation-end', extractedData: 'extracted-data' }[event];
		const description = (this.nodeType().description.webhooks ?? []).find((d) => d.path.endsWith(`/${slug}`));
		if (!description) throw new Error(`no webhook for ${event}`);
		return this.urlOf(description, mode);
	}

	// -------------------------------------------------------------------------------------------
	// Activation (ActiveWorkflowManager / TestWebhooks)

	private addRoute(routes: Route[], webhookData: IWebhookData): void {
		const route: Route = {
			method: webhookData.httpMethod,
			webhookPath: trimSlashes(webhookData.path),
			webhookData,
		};
		if (isDynamic(route.webhookPath) && webhookData.webhookId) {
			route.webhookId = webhookData.webhookId;
			route.pathLength = route.webhookPath.split('/').length;
		}
		if (routes.some((r) => r.method === route.method && r.webhookPath === route.webhookPath)) {
			// The webhook table's primary key is (webhookPath, method).
			throw new Error(`The URL path that the "${webhookData.node}" node uses is already taken`);
		}
		routes.push(route);
	}

	private async runHook(
		method: 'checkExists' | 'create' | 'delete',
		workflow: Workflow,
		webhookData: IWebhookData,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		const fn = this.nodeType().webhookMethods?.[webhookData.webhookDescription.name]?.[method];
		if (!fn) return undefined;
		const node = workflow.getNode(webhookData.node)!;
		const context = new HookContext(
			workflow,
			node,
			webhookData.workflowExecuteAdditionalData,
			mode,
			activation,
			webhookData,
		);
		try {
			return await fn.call(context);
		} catch (error) {
			recordProduced(error);
			throw error;
		}
	}

	/** Publishing (ActiveWorkflowManager.addWebhooks): routes, then checkExists/create per webhook. */
	async publish(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		if (this.published) throw new Error('already published');
		const workflow = this.workflow(this.staticData);
		const additionalData = this.additionalData();
		const routes: Route[] = [];
		try {
			for (const webhookData of this.webhooks(workflow, additionalData)) {
				this.addRoute(routes, webhookData);
				const exists = await this.runHook('checkExists', workflow, webhookData, 'trigger', activation);
				if (!exists) await this.runHook('create', workflow, webhookData, 'trigger', activation);
			}
		} catch (error) {
			// n8n removes what it added (clearWebhooks, with the static data it has stored) and rethrows.
			this.productionRoutes = routes;
			this.published = true;
			try {
				await this.unpublish();
			} catch {
				// n8n logs this one; the activation error is what the user sees.
			}
			throw error;
		}
		this.productionRoutes = routes;
		this.published = true;
		this.staticData = persistable(workflow.staticData);
	}

	/** Unpublishing (ActiveWorkflowManager.clearWebhooks): delete per webhook, then static data saved. */
	async unpublish(): Promise<void> {
		if (!this.published) return;
		const workflow = this.workflow(this.staticData);
		const additionalData = this.additionalData();
		try {
			for (const webhookData of this.webhooks(workflow, additionalData)) {
				await this.runHook('delete', workflow, webhookData, 'internal', 'update');
			}
			this.staticData = persistable(workflow.staticData);
		} finally {
			this.productionRoutes = [];
			this.published = false;
		}
	}

	/** An n8n restart with the workflow published: activation 'init', no delete before. */
	async restart(): Promise<void> {
		this.productionRoutes = [];
		this.published = false;
		await this.publish('init');
	}

	/** "Listen for test event" (TestWebhooks.needsWebhook): test routes, checkExists/create in manual mode. */
	async listenForTest(): Promise<void> {
		const workflow = this.workflow(this.staticData);
		const additionalData = this.additionalData();
		const routes: Route[] = [];
		for (const webhookData of this.webhooks(workflow, additionalData)) {
			webhookData.isTest = true;
			this.addRoute(routes, webhookData);
			try {
				const exists = await this.runHook('checkExists', workflow, webhookData, 'manual', 'manual');
				if (!exists) await this.runHook('create', workflow, webhookData, 'manual', 'manual');
			} catch (error) {
				this.testRoutes = routes;
				this.testStaticData = persistable(workflow.staticData);
				await this.stopTest();
				throw error;
			}
		}
		this.testRoutes = routes;
		this.testStaticData = persistable(workflow.staticData);
		this.listening = true;
	}

	/** End of a test listen (TestWebhooks.deactivateWebhooks): delete per webhook, mode internal. */
	async stopTest(): Promise<void> {
		const workflow = this.workflow(this.testStaticData);
		const routes = this.testRoutes;
		this.testRoutes = [];
		this.listening = false;
		for (const route of routes) {
			await this.runHook('delete', workflow, route.webhookData, 'internal', 'update');
		}
	}

	// -------------------------------------------------------------------------------------------
	// Requests (LiveWebhooks / TestWebhooks / WebhookHelpers.executeWebhook)

	private findRoute(routes: Route[], method: string, path: string): { route: Route; params: IDataObject } | undefined {
		const exact = routes.find((r) => r.method === method && r.webhookPath === path && !isDynamic(r.webhookPath));
		if (exact) return { route: exact, params: {} };
		const [webhookId, ...segments] = path.split('/');
		const candidates = routes.filter(
			(r) => r.method === method && r.webhookId === webhookId && r.pathLength === segments.length,
		);
		let best: Route | undefined;
		let bestMatches = 0;
		const requestSegments = new Set(segments);
		for (const candidate of candidates) {
			const staticSegments = candidate.webhookPath.split('/').filter((s) => !s.startsWith(':'));
			const all = staticSegments.every((s) => requestSegments.has(s));
			if (all && staticSegments.length > bestMatches) {
				best = candidate;
				bestMatches = staticSegments.length;
			} else if (staticSegments.length === 0 && !best) {
				best = candidate;
			}
		}
		if (!best) return undefined;
		const params: IDataObject = {};
		best.webhookPath.split('/').forEach((segment, index) => {
			if (segment.startsWith(':')) params[segment.slice(1)] = segments[index];
		});
		return { route: best, params };
	}

	private send(
		res: ServerResponse,
		status: number,
		body: unknown,
		record: Omit<HandledRequest, 'status' | 'response'>,
	): void {
		res.statusCode = status;
		res.setHeader('Content-Type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(body));
		this.requests.push({ ...record, status, response: body });
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', this.url);
		const method = (req.method ?? 'GET').toUpperCase();
		let mode: 'production' | 'test' | 'none' = 'none';
		let rest = '';
		if (url.pathname.startsWith('/webhook/')) {
			mode = 'production';
			rest = url.pathname.slice('/webhook/'.length);
		} else if (url.pathname.startsWith('/webhook-test/')) {
			mode = 'test';
			rest = url.pathname.slice('/webhook-test/'.length);
		}
		const path = trimSlashes(rest);
		const record = { method, mode, path: url.pathname, started: false };
		const routes = mode === 'production' ? this.productionRoutes : mode === 'test' ? this.testRoutes : [];
		const found = this.findRoute(routes, method, path);
		if (!found) {
			req.resume();
			this.send(
				res,
				404,
				{ code: 404, message: `The requested webhook "${method} ${path}" is not registered.` },
				record,
			);
			return;
		}

		// rawBodyReader + parseBody (a version-1 node: every content type but multipart is parsed).
		const raw = await readN8nRawBody(req, this.payloadSizeMax);
		if (raw === 'too-large') {
			this.send(res, 413, { code: 413, message: 'request entity too large' }, record);
			return;
		}
		if (raw === 'unreadable') {
			this.send(res, 400, { code: 400, message: 'Request body stream was aborted or is not readable' }, record);
			return;
		}
		const contentTypeHeader = String(req.headers['content-type'] ?? '');
		const contentType = contentTypeHeader.split(';')[0].trim().toLowerCase() || undefined;
		const charset = /charset=([^;]+)/i.exec(contentTypeHeader)?.[1]?.trim().toLowerCase();
		const encoding = (charset === 'utf8' || !charset ? 'utf-8' : charset) as BufferEncoding;
		let body: unknown;
		if (raw.length > 0) {
			try {
				if (contentType === 'application/json') body = jsonParse(raw.toString(encoding));
				else if (contentType === 'application/x-www-form-urlencoded') body = parseQueryString(raw.toString(encoding));
				else if (contentType === 'text/plain') body = raw.toString(encoding);
			} catch (error) {
				this.send(
					res,
					422,
					{ code: 422, message: 'Failed to parse request body', hint: (error as Error).message },
					record,
				);
				return;
			}
		}

		const request = Object.assign(req, {
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			params: found.params,
			ip: req.socket.remoteAddress,
			rawBody: raw,
			body,
			contentType,
			encoding,
		});
		const isTest = mode === 'test';
		const workflow = this.workflow(isTest ? this.testStaticData : this.staticData);
		const node = workflow.getNode(TRIGGER_NAME)!;
		const additionalData = this.additionalData({
			httpRequest: request as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
			httpResponse: res as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
		});
		const webhookData: IWebhookData = { ...found.route.webhookData, workflowExecuteAdditionalData: additionalData };
		const context = new WebhookContext(workflow, node, additionalData, isTest ? 'manual' : 'webhook', webhookData, [], null);

		// Capture what the node writes itself (noWebhookResponse), for the request log.
		let written = '';
		const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
		(res as unknown as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
			if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) written += String(args[0]);
			return end(...args);
		};

		let result: IWebhookResponseData;
		try {
			result = (await this.nodeType().webhook!.call(context)) as IWebhookResponseData;
		} catch (error) {
			recordProduced(error);
			this.send(res, 500, { code: 500, message: 'Workflow Webhook Error: Workflow could not be started!' }, record);
			return;
		}
		// n8n 2.x saves the workflow's static data after a production webhook request (LiveWebhooks) only when it
		// started no execution: starting one builds a second Workflow on the same object, which clears its change flag.
		if (!isTest && result.workflowData === undefined) this.staticData = persistable(workflow.staticData);

		if (result.noWebhookResponse === true) {
			// The node answered the request itself.
			await new Promise<void>((resolve) => (res.writableFinished ? resolve() : res.once('finish', () => resolve())));
			let response: unknown = written;
			try {
				response = JSON.parse(written);
			} catch {
				// not JSON
			}
			this.requests.push({ ...record, status: res.statusCode, response });
			return;
		}
		if (result.workflowData === undefined) {
			this.send(res, 200, result.webhookResponse ?? { message: 'Webhook call received' }, record);
			return;
		}

		const items = result.workflowData[0] ?? [];
		recordProduced(items);
		this.starts.push({ mode: isTest ? 'test' : 'production', path: url.pathname, items });
		this.send(res, 200, { message: 'Workflow was started' }, { ...record, started: true });
		for (const waiter of [...this.waiters]) {
			if (this.starts.length >= waiter.count) {
				this.waiters.splice(this.waiters.indexOf(waiter), 1);
				waiter.resolve();
			}
		}
		// A test listen ends with the first execution.
		if (isTest) await this.stopTest();
	}
}

/** Starts a harness serving the trigger on 127.0.0.1. */
export async function startTrigger(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	const harness = new TriggerHarness(options);
	await harness.listen(options.host);
	return harness;
}

export interface PostResult {
	status: number;
	body: unknown;
}

/** POSTs a JSON value (or a raw string with the given content type) and reads the JSON answer. */
export async function post(
	url: string,
	body: unknown,
	options: { headers?: Record<string, string>; raw?: boolean; contentType?: string } = {},
): Promise<PostResult> {
	const headers: Record<string, string> = {
		'content-type': options.contentType ?? 'application/json',
		...(options.headers ?? {}),
	};
	const response = await fetch(url, {
		method: 'POST',
		headers,
		body: options.raw ? (body as string) : JSON.stringify(body),
	});
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: keep the text
	}
	return { status: response.status, body: parsed };
}

/**
 * A webhook description's path as n8n 2.41 works it out (WebhookService.getNodeWebhooks, n8n-core
 * getNodeWebhookUrl): the description's native resolver when it declares one and the node's parameters
 * are static, else the expression engine. `webhookPathStats` counts both kinds.
 */
export function webhookPathOf(workflow: Workflow, node: INode, description: IWebhookDescription): string {
	const native = resolveWebhookDescriptionField(node, description, 'path');
	if (native.resolved) {
		webhookPathStats.native++;
		return String(native.value);
	}
	webhookPathStats.engine++;
	return String(workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {}));
}

export const webhookPathStats = { native: 0, engine: 0 };
