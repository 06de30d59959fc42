import type { IDataObject } from 'n8n-workflow';

import { withoutKeys } from '../../nodes/AssistantPlatform/helpers/toolOutput';
import { runAgent } from '../harness/agent';
import type { ToolResult } from '../harness/agent';
import { runNode } from '../harness/engine';
import { assistantKeysOf, useSandbox } from '../harness/sandbox';
import { allowSecretInOutput } from '../harness/secretsGuard';

/*
 * Keys never reach the model. Whatever an operation outputs as an AI agent's tool is what the model reads (and
 * what n8n keeps in the execution): a key the platform issues or echoes there (a new assistant's key from
 * Assistant → Create or from Custom API Request POST /assistants) would be in the conversation, and a model can
 * repeat it to anyone. As a tool no operation returns a key, whatever its options say; outside tools the options
 * keep their meaning.
 */

const fx = useSandbox();

function newestAssistant() {
	const list = fx.sandbox.state.assistants.list;
	return list[list.length - 1];
}

/** Fails if any key the sandbox knows appears anywhere in what the agent read or in the execution's run data. */
function expectNoKeyReachedTheModel(results: ToolResult[], runData: unknown): void {
	const text = JSON.stringify({ results, runData });
	for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox)]) {
		expect(text).not.toContain(key);
	}
}

describe('as a tool, no operation returns a key to the model', () => {
	test('Custom API Request POST /assistants: the model reads the new assistant, never its key', async () => {
		const tool = 'Custom Request';
		const { results, run, error } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: tool, parameters: { resource: 'customApiRequest', operation: 'request', method: 'POST', path: '/assistants' } }],
			turns: [[{ tool, input: { Body: { name: 'Made by an agent', description: 'test', mode: 'text' } } }]],
		});
		expect(error).toBeUndefined();
		expect(results[0].error).toBeUndefined();
		const created = newestAssistant();
		expect(created.name).toBe('Made by an agent');
		const item = results[0].items![0];
		expect(item.assistantId).toBe(created.assistantId);
		expect(Object.keys(item).filter((key) => /api_?key/i.test(key) && !/hint$/i.test(key))).toEqual([]);
		expectNoKeyReachedTheModel(results, run.data.resultData.runData);
	});

	test('Assistant → Create with "Include API Key in Output" on: the model reads the new assistant, never its key', async () => {
		const tool = 'Create Assistant';
		const { results, run, error } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: tool, parameters: { resource: 'assistant', operation: 'create', options: { includeApiKey: true } } }],
			turns: [[{ tool, input: { Name: 'Front desk', Description: 'Answers the phone' } }]],
		});
		expect(error).toBeUndefined();
		const created = newestAssistant();
		expect(created.name).toBe('Front desk');
		expect(results[0].items![0].assistantId).toBe(created.assistantId);
		expect(results[0].items![0].assistantApiKey).toBeUndefined();
		expectNoKeyReachedTheModel(results, run.data.resultData.runData);
	});

	test('Assistant → Get Many as a tool: the model reads the assistants and nothing else', async () => {
		const tool = 'List Assistants';
		const { results, run } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: tool, parameters: { resource: 'assistant', operation: 'getAll', returnAll: true } }],
			turns: [[{ tool, input: {} }]],
		});
		expect(results[0].items!.length).toBe(fx.sandbox.state.assistants.list.length);
		expectNoKeyReachedTheModel(results, run.data.resultData.runData);
	});
});

describe('outside tools the options keep their meaning', () => {
	test('Assistant → Create with Include API Key in Output on outputs the key in a workflow', async () => {
		const { items, error } = await runNode({
			parameters: { resource: 'assistant', operation: 'create', name: 'Revealed', mode: 'text', options: { includeApiKey: true } },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		const created = newestAssistant();
		allowSecretInOutput(created.assistantApiKey);
		expect((items[0].json as IDataObject).assistantApiKey).toBe(created.assistantApiKey);
	});
});

describe('the rule: key fields leave the output, and their values leave every other field', () => {
	test('at any depth, in lists, under any key name; hints and other fields stay', () => {
		const key = 'ak_FreshlyIssuedKey0123456789';
		const answer = {
			assistantId: 'asst_1',
			assistantApiKey: key,
			assistantApiKeyHint: '…6789',
			message: `Created; your key is ${key}`,
			nested: { apiKey_assistente: 'ak_Legacy0123456789', list: [{ secret: 's3cr3t-value', name: 'x' }], token: 'tok_0123456789' },
			maxTokens: 500,
		};
		expect(withoutKeys(answer)).toEqual({
			assistantId: 'asst_1',
			assistantApiKeyHint: '…6789',
			message: 'Created; your key is ***',
			nested: { list: [{ name: 'x' }] },
			maxTokens: 500,
		});
	});

	test('an answer without keys is returned as it is (a 500-item page is not copied)', () => {
		const page = { data: Array.from({ length: 500 }, (_, i) => ({ assistantId: `asst_${i}`, name: `A${i}` })) };
		expect(withoutKeys(page)).toBe(page);
	});
});
