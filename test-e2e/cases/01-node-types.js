// n8n loaded the packed package as a community package: our node and credential types are listed.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { describe, test } = require('node:test');

const { NODE_TYPE, TRIGGER_TYPE } = require('../support/workflows');

const TRIGGER_FILE = 'dist/nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node.js';

function register(env) {
	describe('n8n lists our types', () => {
		test('the Assistant Platform node is a loaded node type, with its resources', async () => {
			const types = await env.n8n.types('nodes');
			const node = types.find((t) => t.name === NODE_TYPE);
			assert.ok(node, `${NODE_TYPE} not in /types/nodes.json`);
			assert.equal(node.displayName, 'Assistant Platform');
			const resource = node.properties.find((p) => p.name === 'resource');
			assert.ok(resource.options.some((o) => o.value === 'assistant'), 'resource "assistant" missing');
			assert.deepEqual(
				node.credentials.map((c) => c.name).sort(),
				['assistantPlatformN8nApi', 'assistantPlatformOutboundApi', 'assistantPlatformPortalApi'],
			);
		});

		test('the Assistant Platform Trigger is a loaded trigger node type when the package contains it', async () => {
			const packaged = fs.existsSync(path.join(env.n8n.installed.packageDir, TRIGGER_FILE));
			const types = await env.n8n.types('nodes');
			const trigger = types.find((t) => t.name === TRIGGER_TYPE);
			if (!packaged) {
				// Phase 1: the trigger was not written yet; the installer loaded the package without it.
				assert.ok(env.n8n.installed.missing.includes(TRIGGER_FILE), `${TRIGGER_FILE} neither packaged nor reported missing`);
				assert.equal(trigger, undefined);
				return;
			}
			assert.ok(trigger, `${TRIGGER_TYPE} not in /types/nodes.json although ${TRIGGER_FILE} is packaged`);
			assert.ok(trigger.group.includes('trigger'), 'the trigger is not in the "trigger" group');
			assert.deepEqual(trigger.inputs, []);
			assert.ok(Array.isArray(trigger.webhooks) && trigger.webhooks.length > 0, 'the trigger declares no webhooks');
		});

		test('both credential types are loaded, with their fields and a test request', async () => {
			const types = await env.n8n.types('credentials');
			const portal = types.find((t) => t.name === 'assistantPlatformPortalApi');
			const outbound = types.find((t) => t.name === 'assistantPlatformOutboundApi');
			assert.ok(portal, 'assistantPlatformPortalApi not in /types/credentials.json');
			assert.ok(outbound, 'assistantPlatformOutboundApi not in /types/credentials.json');
			// n8n appends its own fields (allowedHttpRequestDomains, allowedDomains) after ours.
			assert.deepEqual(portal.properties.slice(0, 2).map((p) => p.name), ['baseUrl', 'portalApiKey']);
			assert.deepEqual(
				outbound.properties.slice(0, 3).map((p) => p.name),
				['outboundUrl', 'outboundApiKey', 'assistantApiKey'],
			);
			const passwords = (type) => type.properties.filter((p) => p.typeOptions?.password).map((p) => p.name);
			assert.deepEqual(passwords(portal), ['portalApiKey']);
			assert.deepEqual(passwords(outbound), ['outboundApiKey', 'assistantApiKey']);
			for (const type of [portal, outbound]) {
				assert.ok(type.test?.request, `${type.name} has no test request`);
				assert.ok(type.supportedNodes.includes(NODE_TYPE), `${type.name} is not linked to ${NODE_TYPE}`);
			}
		});

		test('every node the package lists is packaged and loaded by n8n', async () => {
			assert.deepEqual(env.n8n.installed.missing.filter((f) => f !== TRIGGER_FILE), [], 'listed but not packaged');
			const loaded = new Set((await env.n8n.types('nodes')).map((t) => t.name));
			// dist/nodes/<Name>/<Name>.node.js holds the node type "<name>" (first letter lower-case).
			const expected = env.n8n.installed.nodes;
			assert.ok(expected.includes(NODE_TYPE));
			assert.deepEqual(expected.filter((type) => !loaded.has(type)), [], 'listed and packaged but not loaded');
		});
	});
}

module.exports = { register };
