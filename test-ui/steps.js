// The browser suite's steps, in order: what a new user does in n8n's editor with this package.
// Each step: { name, run({ editor, page, env, state, shot }) }; it throws (assert) when the editor shows
// something else. Later steps may use what earlier ones left in `state`.
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { prepareExample, PORTAL_CREDENTIAL_TYPE, OUTBOUND_CREDENTIAL_TYPE } = require('../scripts/n8n-examples');
const { textMatching } = require('./editor');
const { campaignSteps } = require('./campaignSteps');
const { progressSteps } = require('./progressSteps');

const APP = 'Assistant Platform';
const CALL_AND_WAIT = 'Assistant Platform Call and Wait';
const PORTAL_CREDENTIAL_TYPE_NAME = 'Assistant Platform Portal API';
const OUTBOUND_CREDENTIAL_TYPE_NAME = 'Assistant Platform Outbound API';

const names = (entries) => entries.map((entry) => entry.name);

function assertFound(entries, expected, query, panel) {
	for (const name of expected) {
		assert.ok(
			names(entries).includes(name),
			`${panel}: searching "${query}" shows ${JSON.stringify(name)}; it showed ${JSON.stringify(names(entries))}`,
		);
	}
}

// Each of the three nodes, by its name and by what a person looks for. The trigger is listed by n8n under
// its app's entry ("Assistant Platform": its events are that entry's trigger actions).
const SEARCHES = [
	{ query: 'Assistant Platform', expect: [APP, CALL_AND_WAIT] },
	{ query: 'Assistant Platform Trigger', expect: [APP] },
	{ query: 'Assistant Platform Call and Wait', expect: [CALL_AND_WAIT] },
	{ query: 'phone', expect: [APP, CALL_AND_WAIT] },
	{ query: 'call', expect: [APP, CALL_AND_WAIT] },
	{ query: 'call result', expect: [APP] },
];

async function addFromNextPanel(editor, action) {
	await editor.openNextPanel();
	await editor.search(APP);
	await editor.clickEntry(APP);
	await editor.clickAction(action);
	await editor.ndvOpen();
}

const steps = [
	{
		name: 'sign in as the owner',
		async run({ editor }) {
			await editor.signIn();
		},
	},
	{
		name: 'trigger panel: search finds the three nodes',
		async run({ editor }) {
			await editor.newWorkflow();
			await editor.openTriggerPanel();
			for (const { query, expect } of SEARCHES) assertFound(await editor.search(query), expect, query, 'trigger panel');
		},
	},
	{
		name: 'trigger panel: the app entry offers the trigger events',
		async run({ editor }) {
			await editor.search('call result');
			await editor.clickEntry(APP);
			const actions = (await editor.actions()).join(' | ');
			for (const event of ['call result', 'conversation end', 'extracted data']) {
				assert.match(actions, new RegExp(`On ${event}`, 'i'), `the trigger actions list "On ${event}": ${actions}`);
			}
			await editor.closePanel();
		},
	},
	{
		name: 'what happens next: search finds the three nodes',
		async run({ editor }) {
			await editor.newWorkflow();
			await editor.addManualTrigger();
			await editor.openNextPanel();
			for (const { query, expect } of SEARCHES) assertFound(await editor.search(query), expect, query, '"What happens next?" panel');
		},
	},
	{
		name: "the app entry's description describes the app in both panels",
		async run({ editor, page }) {
			const inNext = (await editor.search(APP)).find((entry) => entry.name === APP);
			assert.ok(inNext, 'the app entry is listed');
			assert.doesNotMatch(inNext.description, /^Starts the workflow/i, `"What happens next?" describes the app, not its trigger: "${inNext.description}"`);
			assert.match(inNext.description, /assistant/i);
			assert.match(inNext.description, /call/i);
			await editor.closePanel();
			await editor.newWorkflow();
			await editor.openTriggerPanel();
			const inTrigger = (await editor.search(APP)).find((entry) => entry.name === APP);
			assert.equal(inTrigger?.description, inNext.description, 'one app entry, one description');
			await editor.closePanel();
		},
	},
	{
		name: 'Portal resource: only the Portal credential is offered, preselected, and the step runs',
		async run({ editor, env, state }) {
			await editor.newWorkflow();
			await editor.addManualTrigger();
			await addFromNextPanel(editor, 'Get many assistants');
			const picker = await editor.credentialPicker();
			assert.equal(picker.selected, env.credentials.portal.name, `the only Portal credential is preselected (picker shows "${picker.selected}")`);
			assert.deepEqual(
				[...new Set(picker.options.map((o) => o.type).filter(Boolean))],
				[PORTAL_CREDENTIAL_TYPE_NAME],
				`only Portal credentials are offered: ${JSON.stringify(picker.options)}`,
			);
			await editor.executeStep();
			const output = await editor.outputText();
			assert.doesNotMatch(output, /does not have any credentials|error/i, output.slice(0, 400));
			assert.match(output, /\d+ items?/i, `the output panel shows the assistants: ${output.slice(0, 300)}`);
			state.portalWorkflowUrl = editor.page.url();
			await editor.closeNdv();
		},
	},
	{
		name: 'Outbound resource: only the Outbound credential is offered and preselected',
		async run({ editor, env }) {
			await editor.closeNdv();
			await addFromNextPanel(editor, 'Get the status of a call');
			const picker = await editor.credentialPicker();
			assert.equal(picker.selected, env.credentials.outbound.name, `the only Outbound credential is preselected (picker shows "${picker.selected}")`);
			assert.deepEqual(
				[...new Set(picker.options.map((o) => o.type).filter(Boolean))],
				[OUTBOUND_CREDENTIAL_TYPE_NAME],
				`only Outbound credentials are offered: ${JSON.stringify(picker.options)}`,
			);
			await editor.closeNdv();
		},
	},
	{
		name: 'node subtitles on the canvas read as words, not internal values (examples 1, 2, 3)',
		async run({ editor, page, env, state }) {
			// n8n hides the subtitle of a node named after its action ("Place Call", "Get many assistants"):
			// the examples, plus action nodes with the default name as older workflows have them
			const seen = {};
			const defaults = await env.n8n.createWorkflow({
				name: 'UI: default node names',
				nodes: [
					['assistant', 'getAll'],
					['callStatus', 'get'],
					['outboundCall', 'placeCall'],
				].map(([resource, operation], i) => ({
					id: `node-${i}`,
					name: i === 0 ? APP : `${APP}${i}`,
					type: 'n8n-nodes-assistant-platform.assistantPlatform',
					typeVersion: 1,
					position: [i * 300, 0],
					parameters: { resource, operation },
				})),
				connections: {},
				settings: { executionOrder: 'v1' },
			});
			await editor.openWorkflow(defaults.id);
			await page.click('[data-test-id="zoom-to-fit"]');
			seen.defaults = await editor.canvasNodes();
			for (const file of ['1-campaign.json', '2-call-results.json', '3-escalation.json']) {
				const id = await importExample(env, file);
				await editor.openWorkflow(id);
				await page.click('[data-test-id="zoom-to-fit"]');
				seen[file] = await editor.canvasNodes();
				if (file === '3-escalation.json') state.escalationWorkflowId = id;
			}
			const text = JSON.stringify(seen);
			assert.doesNotMatch(text, /placeCall|outboundCall|callResult|\(trunk\)|getAll/, `subtitles: ${text}`);
			assert.match(text, /Get Many: Assistant/, `Get many assistants reads "Get Many: Assistant": ${text}`);
			assert.match(text, /Get: Call Status/, `the call status node reads "Get: Call Status": ${text}`);
			assert.match(text, /Place Call: Outbound Call/, `Place Call reads "Place Call: Outbound Call": ${text}`);
			assert.match(text, /"Call Result","Call Result"/, `the trigger reads "Call Result": ${text}`);
			assert.match(text, /Place call and wait \(Platform Trunk\)/, `Call and Wait names its route: ${text}`);
		},
	},
	{
		name: 'example 3: Max Wait reads 5 (minutes), not 5.0',
		async run({ editor, page, state }) {
			await editor.openWorkflow(state.escalationWorkflowId);
			await page.locator('[data-test-id="canvas-node"]', { hasText: 'Call Primary' }).dblclick();
			await editor.ndvOpen();
			const maxWait = await page.locator('[data-test-id="parameter-input-maxWaitMinutes"] input').inputValue();
			assert.equal(maxWait, '5', `Max Wait shows "${maxWait}"`);
			await editor.closeNdv();
		},
	},
	{
		name: 'Call and Wait: one name in the panel and on the canvas, Max Wait shows 15, a short notice',
		async run({ editor, page }) {
			await editor.openNextPanel();
			await editor.search(CALL_AND_WAIT);
			await editor.clickEntry(CALL_AND_WAIT);
			// a node without actions: n8n shows its details with "Add to workflow"
			await editor.clickAction('Add to workflow');
			await editor.ndvOpen();
			const title = await page.locator('[data-test-id="ndv"] [data-test-id="node-title-container"]').innerText();
			assert.equal(title.trim(), CALL_AND_WAIT, 'the node is named as in the panel');
			const maxWait = await page.locator('[data-test-id="parameter-input-maxWaitMinutes"] input').inputValue();
			assert.equal(maxWait, '15', `Max Wait shows its default as "15" (minutes), it shows "${maxWait}"`);
			await assertNoticeFits(page);
			await editor.closeNdv();
		},
	},
	{
		name: 'Call and Wait is not offered to AI agents as a tool',
		async run({ page }) {
			// the node types the editor loaded: a usableAsTool node has a "…Tool" twin for AI agents
			const types = await page.evaluate(async () => {
				const response = await fetch('/types/nodes.json', { credentials: 'include' });
				return (await response.json()).map((type) => type.name).filter((name) => name.includes('assistantPlatform'));
			});
			assert.ok(types.includes('n8n-nodes-assistant-platform.assistantPlatformCallAndWait'), JSON.stringify(types));
			// the mechanism is on for this package: the action node, a tool on purpose, has its twin
			assert.ok(types.includes('n8n-nodes-assistant-platform.assistantPlatformTool'), `the action node is offered as a tool: ${JSON.stringify(types)}`);
			assert.ok(!types.includes('n8n-nodes-assistant-platform.assistantPlatformCallAndWaitTool'), `Call and Wait is not offered as an AI tool: ${JSON.stringify(types)}`);
		},
	},
	{
		name: 'Place Call: the notice leaves the form above the fold',
		async run({ editor, page }) {
			await addFromNextPanel(editor, 'Place a real phone call');
			await assertNoticeFits(page);
			await editor.closeNdv();
		},
	},
	...['portal', 'outbound'].flatMap((which) => [
		{
			name: `credential dialog: ${which} credential with a good key, Test says it works`,
			async run({ editor, env }) {
				const message = await testCredentialInDialog(editor, env, which, true);
				assert.match(message, /Connection tested successfully/i, message);
			},
		},
		{
			name: `credential dialog: ${which} credential with a bad key, Test says it does not`,
			async run({ editor, env }) {
				const message = await testCredentialInDialog(editor, env, which, false);
				assert.match(message, /Couldn.t connect/i, message);
				assert.doesNotMatch(message, /Connection tested successfully/i);
			},
		},
	]),
	{
		name: 'a new trigger: URLs shown with a secret, the test URL receives a sandbox callback in the documented shape',
		async run({ editor, page, env, state }) {
			await editor.newWorkflow();
			await editor.openTriggerPanel();
			await editor.search(`${APP} Trigger`);
			await editor.clickEntry(APP);
			await editor.clickAction('On call result');
			await editor.ndvOpen();
			const ndv = page.locator('[data-test-id="ndv"]');
			// n8n shows the webhook URLs in a collapsible section, with a Test URL / Production URL switch
			await ndv.getByText('Webhook URLs').first().click();
			await ndv.getByText('Test URL', { exact: true }).first().click();
			const testUrl = await webhookUrlShown(page, 'test');
			assert.match(testUrl, /\/webhook-test\/[0-9a-f-]{36}\/[A-Za-z0-9_-]{32,}\/call-result$/, `the test URL carries a secret: ${testUrl}`);
			await ndv.getByText('Production URL', { exact: true }).first().click();
			const productionUrl = await webhookUrlShown(page, 'production');
			assert.match(productionUrl, /\/webhook\/[0-9a-f-]{36}\/[A-Za-z0-9_-]{32,}\/call-result$/, `the production URL carries a secret: ${productionUrl}`);
			state.triggerUrls = { testUrl, productionUrl };
			await page.click('[data-test-id="ndv"] [data-test-id="node-execute-button"]');
			await page.getByText(/Listening for test event|Listening/i).first().waitFor();
			// a real call whose result the sandbox posts to the test URL
			const call = await placeSandboxCall(env, testUrl);
			const output = await editor.outputText({ timeout: 30000, until: new RegExp(`${call.internal_id}|error`, 'i') });
			assert.match(output, new RegExp(call.internal_id), `the output shows the call result of ${call.internal_id}: ${output.slice(0, 400)}`);
			// One documented shape for a call result (docs/assumptions.md, "Output of a call result"): the fields every node outputs.
			for (const field of ['dialStatus', 'duration', 'billSec', 'trafficCostNumber', 'pending']) {
				assert.match(output, new RegExp(field), `the output shows ${field}: ${output.slice(0, 400)}`);
			}
			await editor.closeNdv();
		},
	},
	{
		name: 'the new trigger published: its production URL receives a sandbox callback and starts an execution',
		async run({ editor, page, env, state }) {
			assert.ok(state.triggerUrls, 'the previous step showed the URLs');
			await page.click('[data-test-id="workflow-open-publish-modal-button"]');
			await page.click('[data-test-id="workflow-publish-button"]');
			const published = page.locator('[data-test-id="activation-modal"]');
			await published.getByText('Got it').click();
			const call = await placeSandboxCall(env, state.triggerUrls.productionUrl);
			await page.click('[data-test-id="radio-button-executions"]');
			const list = page.locator('[data-test-id="current-executions-list"]');
			await list.getByText(/Succeeded/).first().waitFor({ timeout: 30000 });
			const text = await page.locator('[data-test-id="execution-preview-details-1"], [data-test-id="executions-sidebar"]').first().innerText();
			assert.match(text, /Succeeded/, `the execution list shows the started execution of call ${call.internal_id}: ${text.slice(0, 300)}`);
			await page.click('[data-test-id="radio-button-workflow"]');
		},
	},
	{
		name: 'example "Knowledge" executed from the editor: output panel of the last node',
		async run({ editor, page, env }) {
			const file = path.join(__dirname, '..', 'examples', '4-knowledge.json');
			const workflow = prepareExample(JSON.parse(fs.readFileSync(file, 'utf8')), env.byType, { rename: 'UI: knowledge example' });
			const created = await env.n8n.createWorkflow(workflow);
			await editor.openWorkflow(created.id);
			await page.click('[data-test-id="execute-workflow-button"]');
			const last = workflow.nodes.find((node) => node.name === 'Attach to Assistant');
			await page.waitForFunction(
				() => !document.querySelector('[data-test-id="execute-workflow-button"]')?.textContent?.match(/Executing|Stop/),
				undefined,
				{ timeout: 60000 },
			);
			const lastNode = page.locator('[data-test-id="canvas-node"]', { hasText: last.name });
			await lastNode.locator('[data-test-id="canvas-node-status-success"]').waitFor({ timeout: 30000 });
			await lastNode.dblclick();
			await editor.ndvOpen();
			const output = await editor.outputText();
			assert.match(output, /1 item/i, `the last node output one item: ${output.slice(0, 400)}`);
			assert.doesNotMatch(output, /error/i, output.slice(0, 400));
			await editor.closeNdv();
		},
	},
	...campaignSteps,
	...progressSteps,
	// Last: it leaves the editor on a workflow whose only node is a tool (no main output to add a node after).
	{
		name: 'Place Call as an AI agent tool: the panel shows what the model is told, the destination the model fills, and the guardrails',
		async run({ editor, page, env }) {
			const name = 'Place a real phone call in Assistant Platform';
			const workflow = await env.n8n.createWorkflow({
				name: 'UI: Place Call as a tool',
				nodes: [
					{
						id: crypto.randomUUID(),
						name,
						type: 'n8n-nodes-assistant-platform.assistantPlatformTool',
						typeVersion: 1,
						position: [0, 0],
						parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: '+390200001001' },
						credentials: { [OUTBOUND_CREDENTIAL_TYPE]: { id: String(env.credentials.outbound.id), name: env.credentials.outbound.name } },
					},
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			});
			await editor.openWorkflow(workflow.id);
			await page.locator('[data-test-id="canvas-node"]', { hasText: 'Place a real phone call' }).dblclick();
			await editor.ndvOpen();
			const description = await page.locator('[data-test-id="parameter-input-toolDescription"] textarea').inputValue();
			assert.match(description, /^Places a real phone call now/, description);
			// Destination Number is n8n's own "defined automatically by the model" field
			const destination = page.locator('[data-test-id="parameter-input-dst"], [data-test-id="fromAI-override-field"]').filter({ hasText: /model/i });
			assert.ok((await destination.count()) > 0, 'Destination Number is defined by the model');
			assert.equal(await page.locator('[data-test-id="parameter-input-maxCallsPerRun"] input').inputValue(), '1');
			assert.ok(await page.locator('[data-test-id="parameter-input-allowedDestinations"]').isVisible(), 'Allowed Destinations is shown');
			await editor.closeNdv();
		},
	},
];

/** Imports examples/<file> as the demo does (credentials, a fresh webhook ID and secret); returns its id. */
async function importExample(env, file) {
	const raw = fs.readFileSync(path.join(__dirname, '..', 'examples', file), 'utf8')
		.replace(/__WEBHOOK_SECRET__/g, crypto.randomBytes(32).toString('hex'))
		.replace(/__CALL_RESULT_URL__/g, 'http://127.0.0.1:9/call-result');
	const workflow = prepareExample(JSON.parse(raw), env.byType, { rename: `UI: ${file}` });
	for (const node of workflow.nodes) if (node.webhookId) node.webhookId = crypto.randomUUID();
	return (await env.n8n.createWorkflow(workflow)).id;
}

/** The notice of the open node is short: the first input below it is on screen without scrolling. */
async function assertNoticeFits(page) {
	const notice = page.locator('[data-test-id="ndv"] .notice, [data-test-id="ndv"] [class*="notice"]').first();
	await notice.waitFor();
	const box = await notice.boundingBox();
	assert.ok(box, 'the notice is visible');
	assert.ok(box.height <= 110, `the notice is ${Math.round(box.height)} px tall (at most about four lines)`);
}

/** The webhook URL the open node panel shows now (Test URL or Production URL, whichever is chosen). */
async function webhookUrlShown(page, kind) {
	const pattern = kind === 'test' ? /https?:\/\/\S+\/webhook-test\/\S+/ : /https?:\/\/\S+\/webhook\/\S+/;
	const shown = await textMatching(page, '[data-test-id="ndv"]', pattern, 5000);
	const match = pattern.exec(shown);
	if (!match) throw new Error(`no ${kind} webhook URL shown in the node panel: ${shown.slice(0, 600)}`);
	return match[0];
}

/** Places a call on the sandbox (outbound API, trunk route) whose call result goes to `callResultUrl`. */
async function placeSandboxCall(env, callResultUrl) {
	const { sandbox } = env;
	const assistant = sandbox.state.assistants.list[0];
	const callerId = assistant.numbers[0];
	const response = await fetch(`${sandbox.url}/webhook/outbound_call`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-apikey-secret-service': sandbox.outboundKey },
		body: JSON.stringify({ dst: '+15551230000', callerId, assistantApiKey: assistant.assistantApiKey, callResultUrl }),
	});
	const body = await response.json().catch(() => ({}));
	assert.ok(response.ok, `the sandbox placed the call: HTTP ${response.status} ${JSON.stringify(body)}`);
	return body;
}

const CREDENTIAL_FORMS = {
	portal: {
		typeName: PORTAL_CREDENTIAL_TYPE_NAME,
		type: PORTAL_CREDENTIAL_TYPE,
		fields: (sandbox, good) => ({ baseUrl: sandbox.url, portalApiKey: good ? sandbox.portalKey : 'not-the-portal-key-0000000000' }),
	},
	outbound: {
		typeName: OUTBOUND_CREDENTIAL_TYPE_NAME,
		type: OUTBOUND_CREDENTIAL_TYPE,
		fields: (sandbox, good) => ({
			outboundUrl: sandbox.url,
			outboundApiKey: good ? sandbox.outboundKey : 'not-the-outbound-key-000000000',
			assistantApiKey: sandbox.state.assistants.list[0]?.assistantApiKey ?? '',
		}),
	},
};

/** Credentials → Create credential → type → fill in → Save (n8n tests on save); returns the dialog's banner text. */
async function testCredentialInDialog(editor, env, which, good) {
	const { page } = editor;
	const form = CREDENTIAL_FORMS[which];
	await page.goto(`${editor.url}/home/credentials`);
	await page.click('[data-test-id="add-resource-credential"]');
	await page.click('[data-test-id="new-credential-type-select"]');
	await page.keyboard.type(form.typeName);
	await page.locator('[data-test-id="new-credential-type-select-option"]', { hasText: form.typeName }).first().click();
	await page.click('[data-test-id="new-credential-type-button"]');
	const modal = page.locator('[data-test-id="editCredential-modal"]');
	await modal.waitFor();
	for (const [name, value] of Object.entries(form.fields(env.sandbox, good))) {
		const input = modal.locator(`[data-test-id="parameter-input-${name}"] input`);
		if (await input.count()) await input.fill(value);
	}
	await page.click('[data-test-id="credential-save-button"]');
	const banner = modal.getByText(/Connection tested successfully|Couldn.t connect/i).first();
	await banner.waitFor({ timeout: 30000 });
	let text = await modal.innerText();
	if (!good) {
		// the Retry button is the dialog's Test button: it tests again and says the same
		const tested = page.waitForResponse((r) => r.url().includes('/rest/credentials') && r.request().method() !== 'GET', { timeout: 30000 });
		await modal.getByText('Retry', { exact: true }).first().click();
		await tested;
		await modal.getByText(/Couldn.t connect/i).first().waitFor();
		text = await modal.innerText();
	}
	await page.keyboard.press('Escape');
	return text;
}

module.exports = { steps };
