// The Assistant Platform Data Tables API credential holds an n8n API key, which on most plans opens all of n8n's
// public API (workflows, users, credentials, executions) with its owner's rights. In the real n8n: only this
// package's nodes may use it (the credential type's restrictToSupportedNodes), and its key goes only to
// {n8n API URL}/data-tables, whoever sends it; the package's own use of it works with a key limited to the data-table
// scopes the README names. HTTP Request may use the Portal and Outbound credentials, on their own host only.
//
// Measured per n8n version: n8n 2.x refuses to save a workflow whose HTTP Request node (or its tool variant) has the
// credential, and refuses it at run time to an HTTP Request node that reached a run unsaved (a sub-workflow defined in
// an Execute Workflow node's JSON); n8n 1.x ignores the flag (saved and run), and the credential's own authenticate
// then sends the key to /data-tables only. Where n8n 1.x has no data tables in its public API, the package's own use
// is skipped. The credential's n8n API URL goes through a recorder (support/recorder.js): what reached n8n's API.
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { after, before, describe, test } = require('node:test');

const { assertNoSecrets } = require('../support/assertions');
const { startRecorder } = require('../support/recorder');
const { CALL_AND_WAIT_TYPE, NODE_TYPE, chain, errorOf, manualTrigger, outputOf } = require('../support/workflows');

const N8N_API = 'assistantPlatformN8nApi';
const CALLER_ID = '+390200001001'; // demo number of the first seeded assistant (its key is in the outbound credential)
/** The scopes the README tells to give the key, where the plan offers API key scopes. */
const DATA_TABLE_SCOPES = [
	'dataTable:list',
	'dataTable:create',
	'dataTable:read',
	'dataTableColumn:create',
	'dataTableRow:read',
	'dataTableRow:create',
	'dataTableRow:update',
];
const NOT_ON_1X = 'n8n 1.x has no data tables in its public API: the package cannot use them there';
/** What n8n 2.41 answers when a workflow with the credential on a node that does not name it is saved. */
const refusedToSave = (node, type) =>
	`Cannot save workflow: Node "${node}" (${type}) cannot use credential type "${N8N_API}" — it is restricted to: ` +
	`${NODE_TYPE}, ${CALL_AND_WAIT_TYPE}, ${NODE_TYPE}Tool.`;
/** What n8n 2.41 answers at run time when a node that does not name the credential asks for it. */
const REFUSED_AT_RUN = `Credential type "${N8N_API}" is restricted to specific nodes`;

const ref = (credential) => ({ [credential.type]: { id: String(credential.id), name: credential.name } });

/** An HTTP Request node (version 4.2, on both n8n versions) that GETs `url` with the predefined credential `credential`. */
function httpRequestNode(name, url, credential, type = 'n8n-nodes-base.httpRequest') {
	return {
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion: 4.2,
		position: [220, 0],
		parameters: { method: 'GET', url, authentication: 'predefinedCredentialType', nodeCredentialType: credential.type, options: {} },
		credentials: ref(credential),
	};
}

/**
 * Manual Trigger -> Execute Workflow running `nodes` as a sub-workflow defined in its JSON ("Define below"): nothing of
 * it is saved, so n8n's save check never sees its nodes, only the run does.
 */
function inlineSubWorkflow(name, node) {
	const start = { id: crypto.randomUUID(), name: 'Start', type: 'n8n-nodes-base.executeWorkflowTrigger', typeVersion: 1.1, position: [0, 0], parameters: { inputSource: 'passthrough' } };
	const sub = { nodes: [start, node], connections: { Start: { main: [[{ node: node.name, type: 'main', index: 0 }]] } }, settings: { executionOrder: 'v1' } };
	const execute = {
		id: crypto.randomUUID(),
		name: 'Execute Workflow',
		type: 'n8n-nodes-base.executeWorkflow',
		typeVersion: 1.2,
		position: [220, 0],
		parameters: { source: 'parameter', workflowJson: JSON.stringify(sub), mode: 'once', options: {} },
	};
	return chain(name, [manualTrigger(), execute]);
}

/** The message of the node error an execution ended with. */
const nodeError = (execution) => execution?.data?.resultData?.error?.message ?? '';

function register(env) {
	describe('Data Tables API credential: only the nodes of the package, only n8n\'s data tables', () => {
		let recorder;
		let credential;
		let scopedKey;
		/** Where the credential's key may go: the recorder's /api/v1/data-tables (in front of this n8n). */
		let dataTablesUrl;

		before(async () => {
			recorder = await startRecorder(env.n8n.url);
			dataTablesUrl = `${recorder.url}/api/v1/data-tables`;
			// A key limited to the data-table scopes where n8n has them (2.x; n8n takes the scopes from the editor's REST
			// call without a licence), else the suite's key with every scope.
			scopedKey =
				env.n8n.majorVersion >= 2
					? (await env.n8n.rest('POST', '/api-keys', { label: 'e2e data tables only', scopes: DATA_TABLE_SCOPES, expiresAt: null })).rawApiKey
					: env.n8n.apiKey;
			const created = await env.n8n.api('POST', '/credentials', {
				name: 'Data Tables API (e2e, through the recorder)',
				type: N8N_API,
				data: { baseUrl: `${recorder.url}/api/v1`, apiKey: scopedKey },
			});
			credential = { id: created.id, name: created.name, type: N8N_API };
		});

		after(async () => {
			await recorder?.close();
		});

		test("Data Tables API credential: the package's own use works with a key limited to the README's data-table scopes", async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip(NOT_ON_1X);
			// The key is what the scopes say: the data tables, nothing else of n8n's API.
			for (const [path, status] of [['/data-tables', 200], ['/workflows', 403], ['/credentials', 403], ['/users', 403], ['/executions', 403]]) {
				const answer = await fetch(`${env.n8n.url}/api/v1${path}`, { headers: { 'x-n8n-api-key': scopedKey } });
				assert.equal(answer.status, status, `GET /api/v1${path} with the scoped key`);
			}
			const table = await env.n8n.dataTables('POST', '', { name: `e2e contacts ${Date.now()}`, columns: [{ name: 'phone', type: 'string' }] });
			await env.n8n.dataTables('POST', `/${table.id}/insert`, { data: [{ phone: '+14155550301' }], returnType: 'count' });
			const placeCall = {
				id: crypto.randomUUID(),
				name: 'Place Call',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					resource: 'outboundCall',
					operation: 'placeCall',
					route: 'trunk',
					dst: '+14155550300',
					callerId: CALLER_ID,
					guardrails: { callLimit: { limit: { max: 10, minutes: 60 } } },
					options: {},
				},
				credentials: { ...ref(env.credentials.outbound), ...ref(credential) },
			};
			const campaign = (name, operation) => ({
				id: crypto.randomUUID(),
				name,
				type: NODE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { resource: 'campaign', operation, contactsTable: table.name },
				credentials: ref(credential),
			});
			const workflow = await env.n8n.createWorkflow(
				chain('e2e: the package uses the Data Tables API credential', [
					manualTrigger(),
					placeCall,
					campaign('Prepare Contacts Table', 'prepare'),
					campaign('Get Summary', 'summary'),
				]),
			);
			env.sandbox.clearJournal();
			recorder.clear();

			const execution = await env.n8n.runWorkflow(workflow.id);

			assert.equal(execution.status, 'success', errorOf(execution));
			assert.ok(outputOf(execution, 'Place Call')[0].internal_id, 'Place Call placed its call');
			assert.equal(env.sandbox.journal.filter((e) => e.method === 'POST' && e.path === '/webhook/outbound_call').length, 1);
			assert.equal(outputOf(execution, 'Get Summary').length, 1);
			// Every request with the key went to n8n's data tables, and n8n let the scoped key do each.
			assert.ok(recorder.requests.length > 0);
			const elsewhere = recorder.requests.filter((r) => !(r.path === '/api/v1/data-tables' || r.path.startsWith('/api/v1/data-tables/')));
			assert.deepEqual(elsewhere, [], 'sent somewhere else than /api/v1/data-tables');
			assert.ok(recorder.requests.every((r) => r.apiKey), 'a request without the key');
			assert.deepEqual(recorder.requests.filter((r) => r.status === 401 || r.status === 403), [], 'refused by n8n for the scopes');
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');
			assert.ok(!JSON.stringify(execution.data).includes(scopedKey), 'the n8n API key is in the execution data');
		});

		test('Data Tables API credential: an HTTP Request node (or its tool variant) with it is refused when the workflow is saved (n8n 2.x); n8n 1.x saves it', async () => {
			const http = httpRequestNode('HTTP Request', `${recorder.url}/api/v1/workflows`, credential);
			const workflow = chain('e2e: HTTP Request with the Data Tables API credential', [manualTrigger(), http]);
			const tool = httpRequestNode('HTTP Request Tool', `${recorder.url}/api/v1/users`, credential, 'n8n-nodes-base.httpRequestTool');
			const toolWorkflow = { name: 'e2e: HTTP Request Tool with it', nodes: [tool], connections: {}, settings: { executionOrder: 'v1' } };
			recorder.clear();
			if (env.n8n.majorVersion < 2) {
				// n8n 1.x does not know the flag: it saves both (the run is the next test's).
				assert.ok((await env.n8n.createWorkflow(workflow)).id);
				assert.ok((await env.n8n.createWorkflow(toolWorkflow)).id);
				return;
			}
			// The public API and the editor's save, and the save of a stored workflow that gains the node.
			const byApi = await env.n8n.api('POST', '/workflows', workflow, { expect: [400] });
			assert.deepEqual(byApi, { message: refusedToSave('HTTP Request', 'n8n-nodes-base.httpRequest') });
			const byEditor = await env.n8n.rest('POST', '/workflows', workflow, { expect: [400] });
			assert.equal(byEditor.message, refusedToSave('HTTP Request', 'n8n-nodes-base.httpRequest'));
			const stored = await env.n8n.createWorkflow(chain('e2e: a workflow that gains the HTTP Request', [manualTrigger()]));
			const updated = await env.n8n.api('PUT', `/workflows/${stored.id}`, workflow, { expect: [400] });
			assert.equal(updated.message, refusedToSave('HTTP Request', 'n8n-nodes-base.httpRequest'));
			const byTool = await env.n8n.api('POST', '/workflows', toolWorkflow, { expect: [400] });
			assert.equal(byTool.message, refusedToSave('HTTP Request Tool', 'n8n-nodes-base.httpRequestTool'));
			assert.deepEqual(recorder.requests, [], 'nothing reached n8n\'s API');
		});

		test("Data Tables API credential: the package's nodes with it save, its tool variant and Call and Wait included", async () => {
			const tool = { id: crypto.randomUUID(), name: 'Place Call', type: `${NODE_TYPE}Tool`, typeVersion: 1, position: [0, 220], parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER_ID, guardrails: { callLimit: { limit: { max: 1, minutes: 60 } } } }, credentials: { ...ref(env.credentials.outbound), ...ref(credential) } };
			const wait = { id: crypto.randomUUID(), name: 'Call and Wait', type: CALL_AND_WAIT_TYPE, typeVersion: 1, position: [220, 0], webhookId: crypto.randomUUID(), parameters: { route: 'trunk', dst: '+14155550302', callerId: CALLER_ID, guardrails: { callLimit: { limit: { max: 1, minutes: 60 } } }, options: {} }, credentials: { ...ref(env.credentials.outbound), ...ref(credential) } };
			const saved = await env.n8n.createWorkflow({ name: 'e2e: the package nodes with the Data Tables API credential', nodes: [manualTrigger(), tool, wait], connections: {}, settings: { executionOrder: 'v1' } });
			const stored = await env.n8n.api('GET', `/workflows/${saved.id}`);
			assert.deepEqual(
				stored.nodes.filter((n) => n.credentials?.[N8N_API]).map((n) => n.type).sort(),
				[CALL_AND_WAIT_TYPE, `${NODE_TYPE}Tool`],
			);
		});

		test("Data Tables API credential: an HTTP Request node that reaches a run with it never sends the key beyond /data-tables (2.x: refused by n8n; 1.x: by the credential)", async () => {
			for (const url of [`${recorder.url}/api/v1/workflows`, `${recorder.url}/api/v1/data-tables/../credentials`, dataTablesUrl]) {
				recorder.clear();
				const workflow = await env.n8n.createWorkflow(inlineSubWorkflow(`e2e: HTTP Request with it in a sub-workflow (${url})`, httpRequestNode('HTTP Request', url, credential)));

				const execution = await env.n8n.runWorkflow(workflow.id);

				assert.equal(execution.status, 'error');
				if (env.n8n.majorVersion >= 2) {
					// n8n refuses the credential to the node, whatever the URL: nothing is sent.
					assert.equal(nodeError(execution), REFUSED_AT_RUN);
					assert.deepEqual(recorder.requests, [], `${url}: something reached n8n's API`);
				} else if (url !== dataTablesUrl) {
					// n8n 1.x hands the node the credential; its authenticate refuses the request: nothing is sent.
					assert.match(nodeError(execution), /^The Assistant Platform Data Tables API credential sends its key only to /);
					assert.ok(nodeError(execution).endsWith(`only to ${dataTablesUrl} and below, not to ${new URL(url).href}. Nothing was sent.`), nodeError(execution));
					assert.deepEqual(recorder.requests, [], `${url}: something reached n8n's API`);
				} else {
					// n8n 1.x: the flag has no effect, and /data-tables is where the key may go: sent (n8n 1.x answers 404).
					assert.deepEqual(recorder.requests.map((r) => [r.method, r.path, r.apiKey, r.status]), [['GET', '/api/v1/data-tables', true, 404]]);
				}
			}
		});

		test('Data Tables API credential: n8n 1.x runs a saved HTTP Request node with it, and the key still goes nowhere but /data-tables', async (t) => {
			if (env.n8n.majorVersion >= 2) return t.skip('n8n 2.x refuses to save it (tested above)');
			recorder.clear();
			const workflow = await env.n8n.createWorkflow(chain('e2e: saved HTTP Request with it', [manualTrigger(), httpRequestNode('HTTP Request', `${recorder.url}/api/v1/users`, credential)]));
			const execution = await env.n8n.runWorkflow(workflow.id);
			assert.equal(execution.status, 'error');
			assert.ok(nodeError(execution).endsWith(`only to ${dataTablesUrl} and below, not to ${recorder.url}/api/v1/users. Nothing was sent.`), nodeError(execution));
			assert.deepEqual(recorder.requests, []);
		});

		test('Portal and Outbound credentials: HTTP Request may use them, on their own host only', async () => {
			const other = await startRecorder(env.sandbox.url);
			try {
				env.sandbox.clearJournal();
				const allowed = await env.n8n.createWorkflow(
					chain('e2e: HTTP Request with the Portal API credential', [manualTrigger(), httpRequestNode('HTTP Request', `${env.sandbox.url}/api/v1/assistants?limit=1`, env.credentials.portal)]),
				);
				const execution = await env.n8n.runWorkflow(allowed.id);
				assert.equal(execution.status, 'success', errorOf(execution));
				assert.deepEqual(env.sandbox.journal.map((e) => [e.method, e.path, e.auth]), [['GET', '/api/v1/assistants', 'ok']]);
				assertNoSecrets(env.sandbox, execution.data, 'the execution data');

				for (const [credential, displayName, base] of [
					[env.credentials.portal, 'Assistant Platform Portal API', env.sandbox.url],
					[env.credentials.outbound, 'Assistant Platform Outbound API', env.sandbox.url],
				]) {
					env.sandbox.clearJournal();
					const elsewhere = await env.n8n.createWorkflow(
						chain(`e2e: HTTP Request with the ${displayName} credential to another host`, [manualTrigger(), httpRequestNode('HTTP Request', `${other.url}/api/v1/assistants`, credential)]),
					);
					const refused = await env.n8n.runWorkflow(elsewhere.id);
					assert.equal(refused.status, 'error');
					assert.equal(nodeError(refused), `The ${displayName} credential sends its key only to ${base}, not to ${other.url}. Nothing was sent.`);
					assert.deepEqual(other.requests, [], 'the other host received a request');
					assert.deepEqual(env.sandbox.journal, []);
					assertNoSecrets(env.sandbox, refused.data, 'the execution data');
				}
			} finally {
				await other.close();
			}
		});
	});
}

module.exports = { register };
