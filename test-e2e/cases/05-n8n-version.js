// The n8n version the suite runs on (2.x by `npm run test:e2e`, 1.x by `npm run test:e2e:1x`): the trigger's
// 2.x-only feature (native webhook path resolvers, n8n-workflow's webhookDescriptionFields) is used where this
// n8n has it and falls back to the path template where it does not, and the trigger answers on its Production
// URL either way; an n8n-workflow that lacks what the nodes need stops them from loading with a clear message.
//
// The package's compiled node files are loaded here, in the test process, against the n8n-workflow of the n8n
// under test (the copy n8n itself resolves), as n8n loads them.
'use strict';
const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');
const { describe, test } = require('node:test');

const { definition, paths: toolPaths } = require('../../scripts/n8n-install');
const { chain, noOpNode, publishTrigger, triggerNode, triggerUrl, unpublishTrigger } = require('../support/workflows');

const NODE_FILES = [
	'dist/nodes/AssistantPlatform/AssistantPlatform.node.js',
	'dist/nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node.js',
	'dist/nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node.js',
];
const TRIGGER_FILE = NODE_FILES[2];
const EVENT_SLUGS = ['call-result', 'conversation-end', 'extracted-data'];
// Where n8n-workflow 2.41 keeps a description's native resolvers (its WEBHOOK_RESOLVERS).
const RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** n8n-workflow as the n8n under test resolves it (from its own package). */
function n8nWorkflowOfN8n() {
	const n8nPackage = path.join(toolPaths.nodeModules, 'n8n', 'package.json');
	return require(require.resolve('n8n-workflow', { paths: [path.dirname(n8nPackage)] }));
}

/**
 * Loads one of the installed package's node files with `require('n8n-workflow')` answered by `n8nWorkflow`
 * (fresh: the package's modules are dropped from the require cache before and after).
 */
function loadNodeFile(packageDir, file, n8nWorkflow) {
	const dropPackageModules = () => {
		for (const key of Object.keys(require.cache)) if (key.startsWith(packageDir + path.sep)) delete require.cache[key];
	};
	const originalLoad = Module._load;
	dropPackageModules();
	Module._load = function load(request, parent, ...rest) {
		if (request === 'n8n-workflow' && parent?.filename?.startsWith(packageDir + path.sep)) return n8nWorkflow;
		return originalLoad.call(this, request, parent, ...rest);
	};
	try {
		return require(path.join(packageDir, file));
	} finally {
		Module._load = originalLoad;
		dropPackageModules();
	}
}

function register(env) {
	describe(`n8n version (${definition.name})`, () => {
		test('the suite runs on the n8n of its definition, and its n8n-workflow has webhookDescriptionFields from 2.x on only', () => {
			const major = env.n8n.majorVersion;
			assert.equal(major, definition.name === 'n8n-1x' ? 1 : 2, `n8n ${env.n8n.version} for definition ${definition.name}`);
			const n8nWorkflow = n8nWorkflowOfN8n();
			assert.equal(typeof n8nWorkflow.webhookDescriptionFields, major >= 2 ? 'function' : 'undefined');
		});

		test("the trigger's event paths declare native resolvers only where n8n-workflow has them, else the template alone", () => {
			const n8nWorkflow = n8nWorkflowOfN8n();
			const { AssistantPlatformTrigger } = loadNodeFile(env.n8n.installed.packageDir, TRIGGER_FILE, n8nWorkflow);
			const webhooks = new AssistantPlatformTrigger().description.webhooks;
			const native = typeof n8nWorkflow.webhookDescriptionFields === 'function';
			EVENT_SLUGS.forEach((slug, i) => {
				const webhook = webhooks[i];
				assert.equal(webhook.path, `={{$parameter["webhookSecret"]}}/${slug}`, `path template of ${slug}`);
				if (native) {
					// n8n 2.x resolves the path without its expression engine for a trigger with static parameters.
					const resolved = n8nWorkflow.resolveWebhookDescriptionField({ parameters: { webhookSecret: 'abc' } }, webhook, 'path');
					assert.deepEqual(resolved, { resolved: true, value: `abc/${slug}` }, `native path of ${slug}`);
					assert.equal(typeof webhook[RESOLVERS]?.path?.resolve, 'function', `resolver of ${slug}`);
				} else {
					// n8n 1.x: nothing but the template, which n8n evaluates.
					assert.equal(webhook[RESOLVERS], undefined, `resolver on ${slug}`);
					assert.deepEqual(Object.getOwnPropertySymbols(webhook), [], `symbol keys on ${slug}`);
				}
			});
		});

		test('a published trigger answers on its Production Call Result URL and starts one execution with the posted result', async () => {
			const trigger = triggerNode('Version Check Trigger', { events: ['callResult'], registerOnPublish: false });
			const workflow = await env.n8n.createWorkflow(chain('e2e: trigger on this n8n version', [trigger, noOpNode('Received')]));
			try {
				await publishTrigger(env.n8n, workflow.id, trigger);
				const response = await env.n8n.callWebhook(triggerUrl(env.n8n, trigger, 'call-result'), {
					body: { internal_id: 'version-check-1', dialstatus: 'ANSWER', duration: 7 },
				});
				assert.equal(response.status, 200, JSON.stringify(response.body));
				const [execution] = await env.n8n.waitForExecutions(workflow.id, { count: 1 });
				assert.equal(execution.status, 'success');
				const full = await env.n8n.waitForExecution(execution.id);
				const received = full.data.resultData.runData.Received[0].data.main[0].map((item) => item.json);
				assert.equal(received.length, 1);
				assert.equal(received[0].internal_id, 'version-check-1');
				assert.equal(received[0].dialStatus, 'ANSWER');
				assert.equal(received[0].duration, 7);
			} finally {
				await unpublishTrigger(env.n8n, workflow.id, trigger);
			}
		});

		test('on an n8n-workflow without what the nodes use (as before NodeConnectionTypes), each node refuses to load, naming it', () => {
			const n8nWorkflow = n8nWorkflowOfN8n();
			const older = { ...n8nWorkflow, NodeConnectionTypes: undefined, webhookDescriptionFields: undefined };
			for (const file of NODE_FILES) {
				assert.throws(
					() => loadNodeFile(env.n8n.installed.packageDir, file, older),
					(error) =>
						error instanceof Error &&
						/^n8n-nodes-assistant-platform needs n8n \d+\.\d+\.\d+ or newer: the n8n-workflow of this n8n has no NodeConnectionTypes\. Update n8n\.$/.test(
							error.message,
						),
					file,
				);
				// The same files load with the n8n-workflow of the n8n under test.
				assert.ok(Object.keys(loadNodeFile(env.n8n.installed.packageDir, file, n8nWorkflow)).length > 0, file);
			}
		});
	});
}

module.exports = { register };
