import { DirectoryLoader } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { registerNodeType, runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { startRecordingProxy } from '../harness/proxy';
import { assistantKeysOf, useSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';

/*
 * Outbound Call → Place Call, end to end through n8n-core's WorkflowExecute against the platform
 * sandbox. The node type is loaded the way n8n loads it (DirectoryLoader), so Settings > Request
 * Options with Batching are the real parameters.
 */

const LOADED_TYPE = 'test.assistantPlatform.loaded';
const loaded = new AssistantPlatform();
DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
registerNodeType(LOADED_TYPE, loaded);

const CALLER = '+390212345678';
const OTHER_NUMBER = '+390287654321';
const PBX = 'pbx.example.com';

const fx = useSandbox();
let assistantId: string;
let assistantKey: string;

beforeEach(() => {
	// After useSandbox's reset: a caller assistant whose key is the Outbound credential's.
	const assistant = fx.sandbox.createAssistant({ name: 'Caller', number: CALLER });
	assistantId = assistant.assistantId;
	assistantKey = assistant.assistantApiKey;
	registerSecret(assistantKey);
	fx.outbound.assistantApiKey = assistantKey;
	fx.sandbox.authorizePbx(PBX);
	fx.sandbox.clearJournal();
});

function secrets(): string[] {
	return [fx.sandbox.portalKey, fx.sandbox.outboundKey, assistantKey, ...assistantKeysOf(fx.sandbox)];
}

function expectNoSecrets(value: unknown): void {
	const text = JSON.stringify(value);
	for (const key of secrets()) expect(text).not.toContain(key);
}

async function place(
	parameters: IDataObject,
	options: Partial<Omit<RunOptions, 'parameters' | 'credentials'>> = {},
) {
	const result = await runNode({
		nodeType: LOADED_TYPE,
		parameters: { resource: 'outboundCall', operation: 'placeCall', ...parameters },
		credentials: fx.credentials,
		...options,
	});
	expectNoSecrets(result.items);
	if (result.error) expectNoSecrets({ message: result.error.message, description: result.error.description });
	return result;
}

const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');

function countByDst(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const entry of posts()) {
		const dst = String((entry.body as IDataObject).dst);
		counts.set(dst, (counts.get(dst) ?? 0) + 1);
	}
	return counts;
}

describe('Outbound Call → Place Call: wire', () => {
	test('trunk route: exact body, camelCase only, key from the credential, output with internal_id', async () => {
		const { items, error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			options: { callResultUrl: 'https://hooks.example.com/result' },
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry.method).toBe('POST');
		expect(entry.path).toBe('/webhook/outbound_call');
		expect(entry.query).toEqual({});
		expect(entry.auth).toBe('ok');
		expect(entry.headers['x-apikey-secret-service']).toBe('[masked]');
		expect(String(entry.headers['content-type'])).toContain('application/json');
		expect(entry.body).toEqual({
			dst: '+14155550123',
			callerId: CALLER,
			assistantApiKey: `[masked:${assistantId}]`,
			callResultUrl: 'https://hooks.example.com/result',
		});
		expect(entry.status).toBe(200);

		expect(items).toHaveLength(1);
		const call = [...fx.sandbox.state.calls.values()][0];
		expect(items[0].json).toEqual({
			internal_id: call.internalId,
			dialStatus: null,
			duration: null,
			billSec: null,
			trafficCost: null,
			trafficCostNumber: null,
			pending: true,
			// The spec's acceptance is {internal_id}: the platform's status is null when it sends none.
			status: null,
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			callResultUrl: 'https://hooks.example.com/result',
			placedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(call.route).toBe('trunk');
		expect(call.assistantId).toBe(assistantId);
	});

	test('an acceptance with more than the spec shows (status "queued") keeps those fields in the output', async () => {
		fx.sandbox.setAnswers('rich');
		const { items, error } = await place({ route: 'trunk', dst: '+14155550123', callerId: CALLER });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ internal_id: expect.any(String), status: 'queued', pending: true, dialStatus: null });
	});

	test('trunk route without a result URL sends no callResultUrl', async () => {
		const { error } = await place({ route: 'trunk', dst: '+14155550123', callerId: CALLER });
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({
			dst: '+14155550123',
			callerId: CALLER,
			assistantApiKey: `[masked:${assistantId}]`,
		});
	});

	test('PBX route: exact body with ipPbx, sipPort and addPrompt', async () => {
		const { items, error } = await place({
			route: 'pbx',
			dst: '+4212',
			callerId: '+390299999999',
			ipPbx: PBX,
			options: { sipPort: 5070, addPrompt: 'Ask for the invoice number.' },
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal).toHaveLength(1);
		const [entry] = fx.sandbox.journal;
		expect(entry.path).toBe('/webhook/outbound_call_pbx');
		expect(entry.auth).toBe('ok');
		expect(entry.body).toEqual({
			dst: '+4212',
			callerId: '+390299999999',
			assistantApiKey: `[masked:${assistantId}]`,
			ipPbx: PBX,
			sipPort: 5070,
			addPrompt: 'Ask for the invoice number.',
		});
		expect(items[0].json).toMatchObject({ route: 'pbx', ipPbx: PBX, sipPort: 5070, status: null });
		expect(typeof items[0].json.internal_id).toBe('string');
		const call = fx.sandbox.state.calls.get(String(items[0].json.internal_id))!;
		expect(call).toMatchObject({ route: 'pbx', ipPbx: PBX, sipPort: 5070, addPrompt: 'Ask for the invoice number.' });
	});

	test('Send Legacy Field Names sends apiKey_assistente and url_esito_chiamata instead', async () => {
		const { error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			options: { legacyFieldNames: true, callResultUrl: 'http://hooks.example.com/legacy' },
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toEqual({
			dst: '+14155550123',
			callerId: CALLER,
			apiKey_assistente: `[masked:${assistantId}]`,
			url_esito_chiamata: 'http://hooks.example.com/legacy',
		});
		const call = [...fx.sandbox.state.calls.values()][0];
		expect(call.callResultUrl).toBe('http://hooks.example.com/legacy');
	});

	test('Assistant API Key Override wins over the credential key', async () => {
		const other = fx.sandbox.createAssistant({ name: 'Other', number: OTHER_NUMBER });
		registerSecret(other.assistantApiKey);
		const { items, error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: OTHER_NUMBER,
			options: { assistantApiKeyOverride: other.assistantApiKey },
		});
		expect(error).toBeUndefined();
		expect((fx.sandbox.journal[0].body as IDataObject).assistantApiKey).toBe(`[masked:${other.assistantId}]`);
		expect(JSON.stringify(items)).not.toContain(other.assistantApiKey);
	});

	test('the key comes from the override when the credential has none', async () => {
		fx.outbound.assistantApiKey = '';
		const { error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			options: { assistantApiKeyOverride: assistantKey },
		});
		expect(error).toBeUndefined();
		expect((fx.sandbox.journal[0].body as IDataObject).assistantApiKey).toBe(`[masked:${assistantId}]`);
	});

	test('Additional Fields (JSON) are merged into the body', async () => {
		const { error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			additionalFieldsJson: '{"campaign": "spring"}',
		});
		expect(error).toBeUndefined();
		expect(fx.sandbox.journal[0].body).toMatchObject({ campaign: 'spring', dst: '+14155550123' });
	});

	test('the operation tells an AI agent that it places real phone calls', () => {
		const operation = loaded.description.properties.find(
			(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('outboundCall'),
		)!;
		const option = operation.options!.find((o) => 'value' in o && o.value === 'placeCall') as {
			action: string;
			description: string;
		};
		expect(option.action).toBe('Place a real phone call');
		expect(option.description).toMatch(/^Places a real phone call/);
	});
});

describe('Outbound Call → Place Call: platform rejections', () => {
	test('caller ID not assigned to the assistant: NodeApiError with the code and a hint', async () => {
		const { error, items } = await place({ route: 'trunk', dst: '+14155550123', callerId: '+390211111111' });
		expect(items).toHaveLength(0);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toContain('CALLER_ID_NOT_ASSIGNED');
		expect(error?.message).not.toMatch(/^Outcome unknown/);
		expect(error?.description).toMatch(/assigned to the assistant/);
		expect(error?.httpCode).toBe('403');
		expect(posts()).toHaveLength(1);
	});

	test('PBX not authorized: NodeApiError with a hint', async () => {
		const { error } = await place({ route: 'pbx', dst: '+14155550123', callerId: CALLER, ipPbx: '203.0.113.77' });
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toContain('PBX_NOT_AUTHORIZED');
		expect(error?.description).toMatch(/Authorize the PBX/);
		expect(error?.httpCode).toBe('403');
	});

	test('wrong outbound key: 401 with a hint that names the credential, never the key', async () => {
		const credentials = {
			...fx.credentials,
			assistantPlatformOutboundApi: { ...fx.outbound, outboundApiKey: 'wrong-outbound-key-123456' },
		};
		const result = await runNode({
			nodeType: LOADED_TYPE,
			parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', callerId: CALLER },
			credentials,
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('401');
		expect(result.error?.description).toContain('Assistant Platform Outbound API');
		expect(`${result.error?.message} ${result.error?.description}`).not.toContain('wrong-outbound-key-123456');
		expect(fx.sandbox.journal[0].auth).toBe('invalid');
		expectNoSecrets({ m: result.error?.message, d: result.error?.description });
	});

	test('unknown assistant key: 401 INVALID_ASSISTANT_KEY, the key not echoed', async () => {
		const bogus = `ak_${'Z'.repeat(32)}`;
		registerSecret(bogus);
		const { error } = await place({
			route: 'trunk',
			dst: '+14155550123',
			callerId: CALLER,
			options: { assistantApiKeyOverride: bogus },
		});
		expect(error?.message).toContain('INVALID_ASSISTANT_KEY');
		expect(error?.description).toMatch(/Assistant API Key/);
		expect(`${error?.message} ${error?.description}`).not.toContain(bogus);
	});

	test('with Continue On Fail a rejection is an item that says nothing was placed', async () => {
		const { items, error } = await place(
			{ route: 'trunk', dst: '+14155550123', callerId: '+390211111111' },
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			outcome: 'rejected',
			placed: false,
			code: 'CALLER_ID_NOT_ASSIGNED',
			httpCode: '403',
			dst: '+14155550123',
		});
		expect(String(items[0].json.error)).toContain('CALLER_ID_NOT_ASSIGNED');
	});
});

describe('Outbound Call → Place Call: bad input is rejected before anything is sent', () => {
	const base = { route: 'trunk', dst: '+14155550123', callerId: CALLER };
	const cases: Array<[string, IDataObject, RegExp]> = [
		['dst without a plus', { dst: '0039021234567' }, /Invalid "Destination Number": must be in international \(E\.164\) form/],
		['dst with a leading zero country code', { dst: '+0039021234' }, /Invalid "Destination Number"/],
		['dst too long', { dst: '+1234567890123456' }, /Invalid "Destination Number"/],
		['dst with letters', { dst: '+1415CALLME' }, /Invalid "Destination Number"/],
		['callerId without a plus', { callerId: '390212345678' }, /Invalid "Caller ID": must be in international \(E\.164\) form/],
		['callerId empty (from an expression)', { callerId: '={{ $json.nothing ?? "" }}' }, /Invalid "Caller ID"/],
		['ipPbx not an address', { route: 'pbx', ipPbx: 'not a host!' }, /Invalid "PBX Address": must be an IPv4 or IPv6 address or a hostname/],
		['ipPbx out-of-range IPv4', { route: 'pbx', ipPbx: '999.1.1.1' }, /Invalid "PBX Address"/],
		['ipPbx empty (from an expression)', { route: 'pbx', ipPbx: '={{ "" }}' }, /Invalid "PBX Address": must not be empty/],
		['sipPort 0', { route: 'pbx', ipPbx: PBX, options: { sipPort: 0 } }, /Invalid "SIP Port": must be a whole number from 1 to 65535/],
		['sipPort 65536', { route: 'pbx', ipPbx: PBX, options: { sipPort: 65536 } }, /Invalid "SIP Port"/],
		['callResultUrl ftp', { options: { callResultUrl: 'ftp://files.example.com/x' } }, /Invalid "Call Result URL": must be an http:\/\/ or https:\/\/ URL/],
		['callResultUrl not a URL', { options: { callResultUrl: 'result-please' } }, /Invalid "Call Result URL"/],
		['Additional Fields not JSON', { additionalFieldsJson: '{nope' }, /Invalid "Additional Fields \(JSON\)"/],
	];

	test.each(cases)('%s', async (_name, override, message) => {
		const { error, items } = await place({ ...base, ...override });
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(message);
		expect(items).toHaveLength(0);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('empty assistant key (credential empty, no override)', async () => {
		fx.outbound.assistantApiKey = '';
		const { error } = await place(base);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(/Invalid "Assistant API Key": must not be empty/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('a blank override does not hide an empty credential key', async () => {
		fx.outbound.assistantApiKey = '';
		const { error } = await place({ ...base, options: { assistantApiKeyOverride: '   ' } });
		expect(error?.message).toMatch(/Invalid "Assistant API Key"/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('short national numbering plans are valid E.164 and are sent', async () => {
		const { error } = await place({ ...base, dst: '+4212' });
		expect(error).toBeUndefined();
		expect((fx.sandbox.journal[0].body as IDataObject).dst).toBe('+4212');
	});

	test('one bad row among 1,000 stops the node before the first call', async () => {
		const items: INodeExecutionData[] = Array.from({ length: 1000 }, (_, i) => ({
			json: { phone: i === 500 ? '0039 02 1234' : `+1415555${String(i).padStart(4, '0')}` },
		}));
		const { error } = await place({ ...base, dst: '={{ $json.phone }}' }, { items });
		expect(error?.message).toMatch(/Invalid "Destination Number"/);
		expect(error?.message).toContain('0039 02 1234');
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('Retry On Fail is refused: it would dial every number again', async () => {
		const { error } = await place(base, { nodeSettings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } });
		expect(error?.message).toMatch(/Invalid "Retry On Fail": must be off when placing calls/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});

	test('with Continue On Fail a bad row is an error item and the others are placed', async () => {
		const items: INodeExecutionData[] = [
			{ json: { phone: '+14155550001' } },
			{ json: { phone: 'call me' } },
			{ json: { phone: '+14155550003' } },
		];
		const { items: out, error } = await place({ ...base, dst: '={{ $json.phone }}' }, { items, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(out).toHaveLength(3);
		expect(out[1].json).toMatchObject({ outcome: 'invalid', placed: false });
		expect(String(out[1].json.error)).toMatch(/Invalid "Destination Number"/);
		expect(out.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect([...countByDst().keys()].sort()).toEqual(['+14155550001', '+14155550003']);
	});
});

describe('Outbound Call → Place Call: campaigns, exactly once', () => {
	const campaign = (n: number): INodeExecutionData[] =>
		Array.from({ length: n }, (_, i) => ({ json: { phone: `+1415${String(i).padStart(7, '0')}` } }));
	const params = { route: 'trunk', dst: '={{ $json.phone }}', callerId: CALLER };

	function expectEachOnce(n: number): void {
		const counts = countByDst();
		expect(posts()).toHaveLength(n);
		expect(counts.size).toBe(n);
		expect([...counts].filter(([, c]) => c !== 1)).toEqual([]);
	}

	test('1,000 items, one at a time: exactly 1,000 POSTs, one per number, 1,000 outputs', async () => {
		const { items, error } = await place(params, { items: campaign(1000) });
		expect(error).toBeUndefined();
		expectEachOnce(1000);
		expect(items).toHaveLength(1000);
		expect(new Set(items.map((i) => i.json.internal_id)).size).toBe(1000);
		expect(items.map((item, i) => ({ i, pairedItem: item.pairedItem })).filter(({ i, pairedItem }) => (pairedItem as { item: number }).item !== i)).toEqual([]);
		expect(items[999].json.dst).toBe('+14150000999');
		// Without batching, calls go strictly one after the other: the journal is in input order.
		expect(posts().map((e) => (e.body as IDataObject).dst)).toEqual(campaign(1000).map((i) => i.json.phone));
	});

	test('1,000 items with Batching (50 per batch): exactly 1,000 POSTs, outputs in input order', async () => {
		const { items, error } = await place(
			{ ...params, requestOptions: { batching: { batch: { batchSize: 50, batchInterval: 1 } } } },
			{ items: campaign(1000) },
		);
		expect(error).toBeUndefined();
		expectEachOnce(1000);
		expect(items.map((i) => i.json.dst)).toEqual(campaign(1000).map((i) => i.json.phone));
	});

	test('Batching sends a batch at once and waits for it, then Batch Interval, before the next', async () => {
		const proxy = await startRecordingProxy(fx.sandbox.url);
		// Long enough that a loaded machine still gets a whole batch in before its first answer.
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 400 });
		const started = Date.now();
		try {
			const { error } = await runNode({
				nodeType: LOADED_TYPE,
				parameters: {
					resource: 'outboundCall',
					operation: 'placeCall',
					...params,
					requestOptions: { batching: { batch: { batchSize: 5, batchInterval: 200 } } },
				},
				items: campaign(15),
				credentials: { ...fx.credentials, assistantPlatformOutboundApi: { ...fx.outbound, outboundUrl: proxy.url } },
			});
			expect(error).toBeUndefined();
		} finally {
			await proxy.close();
		}
		expectEachOnce(15);
		expect(proxy.maxInFlight()).toBe(5);
		// Three batches: five requests at once, all answered before the next batch starts.
		const batch = [...Array(5).fill('start'), ...Array(5).fill('end')];
		expect(proxy.events).toEqual([...batch, ...batch, ...batch]);
		// Two Batch Intervals were waited (a lower bound: sleep never returns early).
		expect(Date.now() - started).toBeGreaterThanOrEqual(400);
	});

	test('without Batching calls never overlap', async () => {
		const proxy = await startRecordingProxy(fx.sandbox.url);
		try {
			const { error } = await runNode({
				nodeType: LOADED_TYPE,
				parameters: { resource: 'outboundCall', operation: 'placeCall', ...params },
				items: campaign(20),
				credentials: { ...fx.credentials, assistantPlatformOutboundApi: { ...fx.outbound, outboundUrl: proxy.url } },
			});
			expect(error).toBeUndefined();
		} finally {
			await proxy.close();
		}
		expectEachOnce(20);
		expect(proxy.maxInFlight()).toBe(1);
	});

	test('injected 500s, resets and timeouts on the POST route: still exactly 1,000 POSTs, each item reports', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 7 });
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'reset', times: 5 });
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 6_000, times: 3 });
		const { items, error } = await place(
			// Timeout is a deadline for the whole exchange: wide enough for any answer on a loaded machine.
			{ ...params, requestOptions: { timeout: 3_000 } },
			{ items: campaign(1000), continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1000);
		const failed = items.filter((i) => i.json.error !== undefined);
		expect(failed).toHaveLength(15);
		for (const item of failed) {
			expect(item.json.outcome).toBe('unknown');
			expect(item.json.placed).toBe('unknown');
			expect(String(item.json.error)).toMatch(/^Outcome unknown: /);
			expect(String(item.json.description)).toMatch(/find out whether it was/);
		}
		expect(failed.filter((i) => String(i.json.error).includes('timeout'))).toHaveLength(3);
		expect(failed.filter((i) => /connection to the platform was reset/.test(String(i.json.error)))).toHaveLength(5);
		expect(failed.filter((i) => i.json.httpCode === '500')).toHaveLength(7);
		expect(items.filter((i) => typeof i.json.internal_id === 'string')).toHaveLength(985);
		// The slow answers finish after the client gave up: wait until the journal has them.
		for (let i = 0; i < 200 && posts().length < 1000; i++) await new Promise((r) => setTimeout(r, 50));
		expectEachOnce(1000);
	});

	test('the same faults with Batching: exactly 1,000 POSTs', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 503, times: 4 });
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'reset', times: 4 });
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 6_000, times: 2 });
		const { items, error } = await place(
			{
				...params,
				// Timeout is a deadline for the whole exchange: wide enough for 25 calls at once on a loaded machine.
				requestOptions: { timeout: 3_000, batching: { batch: { batchSize: 25, batchInterval: 1 } } },
			},
			{ items: campaign(1000), continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.filter((i) => i.json.outcome === 'unknown')).toHaveLength(10);
		for (let i = 0; i < 50 && posts().length < 1000; i++) await new Promise((r) => setTimeout(r, 50));
		expectEachOnce(1000);
	});

	test('without Continue On Fail a 500 stops the campaign and lists the calls already placed', async () => {
		for (let i = 0; i < 3; i++) {
			fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'latency', delayMs: 0, times: 1 });
		}
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
		const { error, items } = await place(params, { items: campaign(10) });
		expect(items).toHaveLength(0);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toMatch(/^Outcome unknown: /);
		const placed = [...fx.sandbox.state.calls.values()];
		expect(placed).toHaveLength(3);
		expect(error?.description).toContain('Stopped at item 3.');
		expect(error?.description).toContain('3 call(s) were already placed in this run');
		for (const call of placed) expect(error?.description).toContain(call.internalId);
		expect(error?.description).toMatch(/find out whether it was/);
		expect(posts()).toHaveLength(4);
		expect(countByDst().get('+14150000003')).toBe(1);
	});

	test('without Continue On Fail a timeout is reported as outcome unknown, sent once', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'slow', delayMs: 600, times: 1 });
		const { error } = await place({ ...params, requestOptions: { timeout: 200 } }, { items: campaign(3) });
		expect(error?.message).toMatch(/^Outcome unknown: The platform did not answer within 200 ms/);
		expect(error?.description).toContain('No call was placed before this failure in this run.');
		for (let i = 0; i < 40 && posts().length < 1; i++) await new Promise((r) => setTimeout(r, 50));
		await new Promise((r) => setTimeout(r, 700));
		expect(posts()).toHaveLength(1);
	});
});
