/**
 * The trigger's per-event webhook paths declare a native resolver next to their expression template
 * (n8n-workflow's webhookDescriptionFields): n8n 2.41 then works out the path of a trigger with static
 * parameters without its expression engine, which under N8N_EXPRESSION_ENGINE=vm costs an isolate
 * evaluation per description on every request (docs/performance.md, case 4). Both ways must give
 * the same path, the template must stay what it was (the editor and older n8n versions use it), and
 * a package loaded by an n8n-workflow without the helper must fall back to the template alone.
 */
import type { INode, IWebhookDescription } from 'n8n-workflow';
import { resolveWebhookDescriptionField, Workflow } from 'n8n-workflow';

import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';
import { nodeTypes } from '../harness/engine';
import { post, startTrigger, TRIGGER_TYPE, webhookPathStats } from '../harness/webhook';

const SLUGS = ['call-result', 'conversation-end', 'extracted-data'];

function triggerWorkflow(parameters: INode['parameters']): { workflow: Workflow; node: INode } {
	const workflow = new Workflow({
		id: 'paths',
		name: 'Paths',
		nodes: [
			{
				id: 'trigger',
				name: 'Trigger',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters,
				webhookId: '4f2c1a36-7d7e-4e43-9b0e-2b8d9a7f0c11',
			},
		],
		connections: {},
		active: false,
		nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	return { workflow, node: workflow.getNode('Trigger')! };
}

const descriptions = (): IWebhookDescription[] => new AssistantPlatformTrigger().description.webhooks ?? [];

describe('per-event webhook paths', () => {
	test('templates are unchanged: <secret>/<event> read from the Webhook Secret parameter', () => {
		expect(descriptions().map((d) => d.path)).toEqual([
			'={{$parameter["webhookSecret"]}}/call-result',
			'={{$parameter["webhookSecret"]}}/conversation-end',
			'={{$parameter["webhookSecret"]}}/extracted-data',
			'={{":token" + $webhookId + "/:event"}}',
			'={{":event" + $webhookId}}',
		]);
	});

	test.each([
		['a hex secret', '7f3a9c0e5b1d4f8a2c6e9b0d3f5a7c1e'],
		['an empty secret', ''],
		['a secret with spaces, slashes and non-ASCII letters', 'a b/c-ü'],
	])('native resolution and the expression engine agree for %s', (_label, secret) => {
		const { workflow, node } = triggerWorkflow({ events: ['callResult'], webhookSecret: secret });
		const events = descriptions().slice(0, 3);
		for (const [i, description] of events.entries()) {
			const native = resolveWebhookDescriptionField(node, description, 'path');
			const engine = workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {});
			expect(native).toEqual({ resolved: true, value: engine });
			expect(engine).toBe(`${secret}/${SLUGS[i]}`);
		}
	});

	test('a Webhook Secret given as an expression is left to the expression engine, with the same result', () => {
		const { workflow, node } = triggerWorkflow({ events: ['callResult'], webhookSecret: '={{ "s3cr3t" + "-" + 42 }}' });
		const [callResult] = descriptions();
		expect(resolveWebhookDescriptionField(node, callResult, 'path')).toEqual({ resolved: false });
		expect(workflow.expression.getSimpleParameterValue(node, callResult.path, 'internal', {})).toBe('s3cr3t-42/call-result');
	});

	test('with Conversation End or Extracted Data (an Assistant locator among the parameters) the engine resolves them, with the same result', () => {
		// n8n-workflow counts a resource locator value as dynamic, so it does not resolve natively then.
		const { workflow, node } = triggerWorkflow({ events: ['callResult', 'conversationEnd'], webhookSecret: 'abcdefgh12345678' });
		expect(JSON.stringify(node.parameters)).toContain('"__rl":true');
		for (const [i, description] of descriptions().slice(0, 3).entries()) {
			expect(resolveWebhookDescriptionField(node, description, 'path')).toEqual({ resolved: false });
			expect(workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {})).toBe(`abcdefgh12345678/${SLUGS[i]}`);
		}
	});

	test('the two catch-all webhooks use $webhookId, so they stay with the expression engine', () => {
		const { node } = triggerWorkflow({ events: ['callResult'], webhookSecret: 'abcdefgh12345678' });
		for (const description of descriptions().slice(3)) {
			expect(resolveWebhookDescriptionField(node, description, 'path')).toEqual({ resolved: false });
		}
	});

	test('a published trigger registers its event paths natively and still takes in a call result', async () => {
		const before = { ...webhookPathStats };
		const trigger = await startTrigger({
			parameters: { events: ['callResult'], webhookSecret: 'b6e1f0c2d4a8b7e9c3f5a1d2e4b6c8f0', registerOnPublish: false },
		});
		try {
			await trigger.publish();
			// 3 event paths natively; the 2 catch-alls through the engine.
			expect(webhookPathStats.native - before.native).toBeGreaterThanOrEqual(3);
			const res = await post(trigger.eventUrl('callResult'), { internal_id: 'abc', dialstatus: 'ANSWER', duration: 3 });
			expect(res.status).toBe(200);
			expect(trigger.starts).toHaveLength(1);
			expect(trigger.starts[0].items[0].json).toMatchObject({ internal_id: 'abc' });
		} finally {
			await trigger.unpublish();
			await trigger.close();
		}
	});
});

describe('an n8n-workflow without webhookDescriptionFields (n8n before 2.41)', () => {
	test('the package still loads and every webhook carries its template alone', () => {
		jest.isolateModules(() => {
			jest.doMock('n8n-workflow', () => ({ ...jest.requireActual('n8n-workflow'), webhookDescriptionFields: undefined }));
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const loaded = require('../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node') as {
				AssistantPlatformTrigger: typeof AssistantPlatformTrigger;
			};
			const webhooks = new loaded.AssistantPlatformTrigger().description.webhooks ?? [];
			expect(webhooks.map((d) => d.path)).toEqual(descriptions().map((d) => d.path));
			for (const description of webhooks) {
				expect(Object.getOwnPropertySymbols(description)).toHaveLength(0);
			}
		});
		jest.dontMock('n8n-workflow');
	});
});
