import type { IDataObject, INodeType, INodeTypeDescription, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { registerNodeType, runNode } from '../harness/engine';
import { resumeAfterTimeout, runUntilWait, startResumeServer } from '../harness/resume';
import type { ResumeServer, WaitingExecution } from '../harness/resume';
import { assistantKeysOf, startSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';

/*
 * The Assistant Platform Call and Wait node, in-process:
 * n8n-core 2.41's WorkflowExecute runs Input → node → After until the node waits; the sandbox (real
 * clock, short calls) POSTs its real call result to the execution's resume URL, served by
 * test/harness/resume.ts, which runs the node's webhook() through n8n-core's WebhookContext and
 * continues the stored execution as n8n does. Max Wait passing is replayed the way n8n's
 * WaitTracker does it.
 */

const WAIT_TYPE = 'test.assistantPlatformCallAndWait';
const waitNode = new AssistantPlatformCallAndWait();
registerNodeType(WAIT_TYPE, waitNode);

const CALLER = '+390212345678';
const PBX = 'pbx.example.com';

let fx: SandboxFixture;
let server: ResumeServer;
let assistantId: string;
let assistantKey: string;
let run = 0;

beforeAll(async () => {
	// Real clock: a call rings 100 ms, talks 1 s, and its record is written 300 ms after it ends.
	fx = await startSandbox({ clock: 'real', ringMs: 100, durationSec: 1, persistDelayMs: 300 });
	server = await startResumeServer();
});

afterAll(async () => {
	await server.stop();
	await fx.sandbox.stop();
});

beforeEach(() => {
	fx.sandbox.reset();
	const assistant = fx.sandbox.createAssistant({ name: 'On duty', number: CALLER });
	assistantId = assistant.assistantId;
	assistantKey = assistant.assistantApiKey;
	registerSecret(assistantKey);
	fx.outbound.assistantApiKey = assistantKey;
	fx.sandbox.authorizePbx(PBX);
	fx.sandbox.clearJournal();
	run++;
});

function expectNoSecrets(value: unknown): void {
	const text = JSON.stringify(value);
	for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, assistantKey, ...assistantKeysOf(fx.sandbox)]) {
		expect(text).not.toContain(key);
	}
}

async function placeAndWait(
	parameters: IDataObject,
	options: { items?: Array<{ json: IDataObject }>; continueOnFail?: boolean; nodeSettings?: IDataObject } = {},
): Promise<WaitingExecution> {
	const execution = await runUntilWait({
		nodeType: WAIT_TYPE,
		parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER, ...parameters },
		credentials: fx.credentials,
		webhookBaseUrl: server.baseUrl,
		executionId: `exec-${run}`,
		items: options.items,
		continueOnFail: options.continueOnFail,
		nodeSettings: options.nodeSettings,
	});
	expectNoSecrets(execution.nodeItems);
	if (execution.error) expectNoSecrets({ m: execution.error.message, d: execution.error.description });
	return execution;
}

const resumeToken = (execution: WaitingExecution) =>
	(JSON.parse(execution.stored) as { resumeToken?: string }).resumeToken;

const resumeUrlOf = (execution: WaitingExecution) => {
	const token = resumeToken(execution);
	return `${server.baseUrl}/webhook-waiting/${execution.executionId}${token ? `?signature=${token}` : ''}`;
};

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
	const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	return { status: answer.status, text: await answer.text() };
}

describe('Assistant Platform Call and Wait: waiting', () => {
	test('places the call with this execution\'s resume URL, then puts the execution to wait', async () => {
		const before = Date.now();
		const execution = await placeAndWait({ maxWaitMinutes: 15 });
		expect(execution.error).toBeUndefined();
		expect(execution.waitTill).toBeInstanceOf(Date);
		const waitMs = execution.waitTill!.getTime() - before;
		expect(waitMs).toBeGreaterThanOrEqual(15 * 60_000 - 5_000);
		expect(waitMs).toBeLessThanOrEqual(15 * 60_000 + 5_000);
		expect(execution.run.status).toBe('waiting');

		// n8n-core 2.41 signs the resume URL ($execution.resumeUrl) with the execution's resume token.
		expect(resumeToken(execution)).toEqual(expect.any(String));
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry).toMatchObject({ method: 'POST', path: '/webhook/outbound_call', auth: 'ok', status: 200 });
		expect(entry.body).toEqual({
			dst: '+14155550123',
			callerId: CALLER,
			assistantApiKey: `[masked:${assistantId}]`,
			callResultUrl: resumeUrlOf(execution),
		});

		// While waiting: the node shows the accepted call; nothing after it has run.
		const call = [...fx.sandbox.state.calls.values()][0];
		expect(execution.nodeItems).toHaveLength(1);
		expect(execution.nodeItems[0].json).toMatchObject({
			internal_id: call.internalId,
			status: null,
			route: 'trunk',
			resultSource: 'waiting',
			pending: true,
		});
		expect(execution.nodeItems[0].json.callResultUrl).toBeUndefined();
		expect(execution.afterItems).toHaveLength(0);
	});

	// 'spec': the platform answers as the spec shows ({internal_id} on acceptance, {dialStatus, billSec, trafficCost}
	// as the record); 'rich': it adds status "queued" and the record's internal_id. The result is the same.
	test.each(['spec', 'rich'] as const)('the sandbox\'s real call result resumes the execution with the result and the status record (%s answers)', async (answers) => {
		fx.sandbox.setAnswers(answers);
		const execution = await placeAndWait({});
		expect(execution.waitTill).toBeDefined();
		server.register(execution);
		const call = [...fx.sandbox.state.calls.values()][0];

		const resumed = await server.resumed(execution.executionId);
		expect(resumed.error).toBeUndefined();

		// The sandbox delivered its callback to the resume URL and n8n (the harness) accepted it.
		// The sandbox records a delivery once it has read the answer.
		for (let i = 0; i < 100 && fx.sandbox.callbacks.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
		const delivered = fx.sandbox.callbacks.filter((c) => c.kind === 'callResult');
		expect(delivered).toHaveLength(1);
		expect(delivered[0]).toMatchObject({ url: resumeUrlOf(execution), status: 200, internal_id: call.internalId });
		expect(delivered[0].body).toEqual({ internal_id: call.internalId, dialstatus: 'ANSWER', duration: 1 });

		// The node's output (its webhook() result) is what the workflow continued with.
		expect(resumed.afterItems).toHaveLength(1);
		const result = resumed.afterItems[0].json;
		// The placement's answer (a richer platform's status "queued") is not kept once the call has ended.
		expect(result).toEqual({
			internal_id: call.internalId,
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			placedAt: expect.any(String),
			resultSource: 'callback',
			pending: false,
			dialstatus: 'ANSWER',
			duration: 1,
			dialStatus: 'ANSWER',
			billSec: 1,
			trafficCost: fx.sandbox.state.calls.get(call.internalId)!.trafficCost,
			trafficCostNumber: Number(fx.sandbox.state.calls.get(call.internalId)!.trafficCost),
			statusRecord: 'found',
			resultReceivedAt: expect.any(String),
		});
		expect(resumed.nodeItems.map((i) => i.json)).toEqual([result]);
		expect(resumed.afterItems[0].pairedItem).toEqual({ item: 0 });
		expect(resumed.run.status).not.toBe('waiting');
		expect(resumed.run.finished).toBe(true);

		// One call placed; the status was read after the result arrived.
		const methods = fx.sandbox.journal.map((e) => `${e.method} ${e.path}`);
		expect(methods.filter((m) => m.startsWith('POST'))).toEqual(['POST /webhook/outbound_call']);
		expect(methods.slice(1).filter((m) => m !== `GET /getDialstatus/${call.internalId}`)).toEqual([]);
		expect(methods.length).toBeGreaterThanOrEqual(2);
		expectNoSecrets(resumed.afterItems);
	});

	test('a request for another call or a body that is not a call result is refused; the execution keeps waiting', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'NOANSWER', ringMs: 1500 });
		const execution = await placeAndWait({});
		server.register(execution);
		const url = resumeUrlOf(execution);

		const other = await post(url, { internal_id: 'ffffffffffffffffffffffffffffffff', dialstatus: 'ANSWER', duration: 30 });
		expect(other.status).toBe(409);
		expect(other.text).toContain('another call');
		const garbage = await post(url, { hello: 'world' });
		expect(garbage.status).toBe(400);
		expect(garbage.text).toContain('internal_id');
		expect(execution.finished).toBe(false);

		// The real result still resumes it.
		const resumed = await server.resumed(execution.executionId);
		expect(resumed.afterItems[0].json).toMatchObject({
			resultSource: 'callback',
			dialstatus: 'NOANSWER',
			duration: 0,
			dialStatus: 'NOANSWER',
			billSec: 0,
		});
		expect(server.requests.filter((r) => r.path === `/webhook-waiting/${execution.executionId}`).map((r) => r.status)).toEqual([
			409, 400, 200,
		]);
	});

	test('no call result within Max Wait: the workflow continues with the timeout item; Call Status → Get reads the outcome from it', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'BUSY', ringMs: 600_000 });
		const execution = await placeAndWait({ maxWaitMinutes: 1 });
		const call = [...fx.sandbox.state.calls.values()][0];

		const timedOut = await resumeAfterTimeout(execution);
		expect(timedOut.error).toBeUndefined();
		expect(timedOut.afterItems).toHaveLength(1);
		const item = timedOut.afterItems[0].json;
		expect(item).toEqual({
			internal_id: call.internalId,
			status: null,
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			placedAt: expect.any(String),
			resultSource: 'timeout',
			pending: true,
			dialstatus: null,
			duration: null,
			dialStatus: null,
			billSec: null,
			trafficCost: null,
			trafficCostNumber: null,
			waitTill: execution.waitTill!.toISOString(),
			message: expect.stringContaining('Call Status → Get'),
		});
		// n8n did not run the node again: still one POST, no status read.
		expect(fx.sandbox.journal.map((e) => e.method)).toEqual(['POST']);

		// The fallback: the call ends later; Call Status → Get on the timeout item reads its record.
		await fx.sandbox.clock.advance(700_000);
		const status = await runNode({
			parameters: { resource: 'callStatus', operation: 'get', waitForRecord: true, maxWait: 5, initialDelay: 50 },
			items: [{ json: item }],
			credentials: fx.credentials,
		});
		expect(status.error).toBeUndefined();
		expect(status.items[0].json).toMatchObject({ internal_id: call.internalId, dialStatus: 'BUSY', billSec: 0 });
	});

	test('the status record is not written yet when the result arrives: the result is kept, statusRecord pending', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', durationSec: 1, persistDelayMs: 600_000 });
		const execution = await placeAndWait({ options: { resultRecordWait: 0.3 } });
		server.register(execution);
		const resumed = await server.resumed(execution.executionId);
		expect(resumed.afterItems[0].json).toMatchObject({
			resultSource: 'callback',
			dialstatus: 'ANSWER',
			duration: 1,
			dialStatus: 'ANSWER',
			billSec: null,
			trafficCost: null,
			statusRecord: 'pending',
		});
		const reads = fx.sandbox.journal.filter((e) => e.method === 'GET');
		expect(reads.length).toBeGreaterThanOrEqual(1);
		expect(reads.filter((e) => e.status !== 404).map((e) => e.status)).toEqual([]);
	});

	test('PBX route with legacy names: url_esito_chiamata carries the resume URL', async () => {
		const execution = await placeAndWait({
			route: 'pbx',
			ipPbx: PBX,
			options: { legacyFieldNames: true, sipPort: 5080 },
		});
		expect(execution.waitTill).toBeDefined();
		expect(fx.sandbox.journal[0].path).toBe('/webhook/outbound_call_pbx');
		expect(fx.sandbox.journal[0].body).toEqual({
			dst: '+14155550123',
			callerId: CALLER,
			apiKey_assistente: `[masked:${assistantId}]`,
			ipPbx: PBX,
			sipPort: 5080,
			url_esito_chiamata: resumeUrlOf(execution),
		});
	});
});

describe('Assistant Platform Call and Wait: nothing is sent, or nothing waits', () => {
	test('more than one input item: a clear error, nothing sent', async () => {
		const execution = await placeAndWait({}, { items: [{ json: {} }, { json: {} }] });
		expect(execution.error?.message).toBe('Assistant Platform Call and Wait places one call per execution and got 2 input items');
		expect(execution.error?.description).toMatch(/Loop Over Items node \(batch size 1\)/);
		expect(execution.waitTill).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test.each([
		['dst', { dst: '004915112345' }, /Invalid "Destination Number"/],
		['callerId', { callerId: '+0' }, /Invalid "Caller ID"/],
		['ipPbx', { route: 'pbx', ipPbx: 'bad host name' }, /Invalid "PBX Address"/],
		['sipPort', { route: 'pbx', ipPbx: PBX, options: { sipPort: 70000 } }, /Invalid "SIP Port"/],
	])('bad %s: NodeOperationError, nothing sent, no wait', async (_name, parameters, message) => {
		const execution = await placeAndWait(parameters as IDataObject);
		expect(execution.error?.name).toBe('NodeOperationError');
		expect(execution.error?.message).toMatch(message);
		expect(execution.waitTill).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('empty assistant key: nothing sent', async () => {
		fx.outbound.assistantApiKey = '';
		const execution = await placeAndWait({});
		expect(execution.error?.message).toMatch(/Invalid "Assistant API Key": must not be empty/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('Retry On Fail is refused', async () => {
		const execution = await placeAndWait({}, { nodeSettings: { retryOnFail: true, waitBetweenTries: 0 } });
		expect(execution.error?.message).toMatch(/Invalid "Retry On Fail"/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a platform rejection fails the node and nothing waits', async () => {
		const execution = await placeAndWait({ callerId: '+390211111111' });
		expect(execution.error?.name).toBe('NodeApiError');
		expect(execution.error?.message).toContain('CALLER_ID_NOT_ASSIGNED');
		expect(execution.waitTill).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
	});

	test('with Continue On Fail a rejection is the output and nothing waits', async () => {
		const execution = await placeAndWait({ callerId: '+390211111111' }, { continueOnFail: true });
		expect(execution.error).toBeUndefined();
		expect(execution.waitTill).toBeUndefined();
		expect(execution.afterItems[0].json).toMatchObject({ outcome: 'rejected', placed: false, code: 'CALLER_ID_NOT_ASSIGNED' });
		expect(execution.afterItems[0].json.callResultUrl).toBeUndefined();
	});

	test('a 500 on the POST: outcome unknown, never sent again, nothing waits', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
		const execution = await placeAndWait({});
		expect(execution.error?.message).toMatch(/^Outcome unknown: /);
		expect(execution.error?.description).toMatch(/find out whether it was/);
		expect(execution.waitTill).toBeUndefined();
		expect(fx.sandbox.journal.filter((e) => e.method === 'POST')).toHaveLength(1);
	});
});

test('with Continue On Fail, a placement whose outcome is unknown says so in the words Place Call uses', async () => {
	fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
	const execution = await placeAndWait({}, { continueOnFail: true });
	const [item] = execution.afterItems;
	expect(item.json).toMatchObject({ outcome: 'unknown', placed: 'unknown', error: expect.stringMatching(/^Outcome unknown: /) });
	expect(item.json).not.toHaveProperty('nextCall');
	expect(item.json).not.toHaveProperty('attempt');
	expect(fx.sandbox.journal.filter((e) => e.method === 'POST')).toHaveLength(1);
});

describe('Assistant Platform Call and Wait: the node', () => {
	test('its resume webhook is a POST restart webhook on the bare resume URL, and its description warns of real calls', () => {
		expect(waitNode.description.webhooks).toEqual([
			expect.objectContaining({ name: 'default', httpMethod: 'POST', path: '', restartWebhook: true }),
		]);
		expect(waitNode.description.description).toMatch(/^Places a real phone call/);
		expect(waitNode.description.credentials).toEqual([
			{ name: 'assistantPlatformOutboundApi', required: true },
			{ name: 'assistantPlatformN8nApi', required: true, displayOptions: { hide: { guardrails: [{ _cnd: { eq: {} } }] } } },
		]);
	});

	test('n8n 2.41 fact behind the separate node: a declarative node with webhook() loses $json', async () => {
		// The smallest declarative node that creates an assistant (the action node itself is programmatic).
		class Declarative implements INodeType {
			description: INodeTypeDescription = {
				...new AssistantPlatform().description,
				name: 'declarative',
				requestDefaults: { baseURL: '={{$credentials.baseUrl}}/api/v1', json: true },
				credentials: [{ name: 'assistantPlatformPortalApi', required: true }],
				properties: [
					{
						displayName: 'Operation',
						name: 'operation',
						type: 'options',
						options: [
							{
								name: 'Create',
								value: 'create',
								// Output only the name: the answer carries the assistant's key.
								routing: {
									request: { method: 'POST', url: '/assistants' },
									output: { postReceive: [{ type: 'setKeyValue', properties: { name: '={{$response.body.name}}' } }] },
								},
							},
						],
						default: 'create',
					},
					{ displayName: 'Name', name: 'name', type: 'string', default: '', routing: { send: { type: 'body', property: 'name' } } },
					{ displayName: 'Mode', name: 'mode', type: 'string', default: 'text', routing: { send: { type: 'body', property: 'mode' } } },
				],
			};
		}
		class DeclarativeWithWebhook extends Declarative {
			async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
				return {};
			}
		}
		registerNodeType('test.declarative', new Declarative());
		registerNodeType('test.declarativeWithWebhook', new DeclarativeWithWebhook());
		const parameters = { resource: 'assistant', operation: 'create', name: '={{ $json.who }}', mode: 'text' };
		const items = [{ json: { who: 'Front desk' } }];

		const broken = await runNode({ nodeType: 'test.declarativeWithWebhook', parameters, items, credentials: fx.credentials });
		expect(broken.error?.message).toMatch(/hasn't been executed|No execution data/);
		expect(fx.sandbox.journal).toHaveLength(0);

		const fine = await runNode({ nodeType: 'test.declarative', parameters, items, credentials: fx.credentials });
		expect(fine.error).toBeUndefined();
		expect((fx.sandbox.journal[0].body as IDataObject).name).toBe('Front desk');
	});
});

describe('Assistant Platform Call and Wait places one call and waits for its result', () => {
	/*
	 * No campaign rides on it: no attempt, no calling hours, no Result Context, no decision about calling again. A
	 * workflow that still holds such values places its call and waits as any other; nothing of them is read or output.
	 */
	test('values of removed Campaign options and a Retry Policy change nothing: the call is placed at once and its result has no decision', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'BUSY', ringMs: 300 });
		const closed = { days: ['monday'], from: '09:00', to: '09:00', timeZone: 'Nowhere/City' };
		const execution = await placeAndWait({
			campaign: { attempt: 2, notBefore: new Date(Date.now() + 3600_000).toISOString(), callingHours: { window: closed }, resultContext: { fields: [{ name: 'contactId', value: 'C-77' }] } },
			retryPolicy: { busy: 2, maxAttempts: 0 },
		});
		expect(execution.error).toBeUndefined();
		expect(execution.waitTill).toBeDefined();
		expect(fx.sandbox.journal.filter((e) => e.method === 'POST')).toHaveLength(1);
		expect(String((fx.sandbox.journal[0].body as IDataObject).callResultUrl)).not.toContain('ctx_');
		const [waiting] = execution.nodeItems;
		server.register(execution);
		const resumed = await server.resumed(execution.executionId);
		const [result] = resumed.afterItems;
		expect(result.json).toMatchObject({ resultSource: 'callback', dialStatus: 'BUSY' });
		for (const json of [waiting.json, result.json]) {
			for (const field of ['attempt', 'context', 'nextCall']) expect(json).not.toHaveProperty(field);
		}
	});
});
