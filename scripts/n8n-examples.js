// The example workflows (examples/*.json) and how they are imported into a running n8n: shared by the demo
// (scripts/demo.js) and the end-to-end suite (test-e2e/).
//
// Placeholders in the examples, filled in by prepareExamples():
//   "credentials": { "<credential type>": { "id": "__PORTAL_CREDENTIAL_ID__", ... } }  -> a credential created in n8n
//   "webhookId" of a trigger or Call and Wait node                                   -> a fresh UUID per import
//   "__WEBHOOK_SECRET__" (the trigger's Webhook Secret)                             -> 64 random hex characters per import
//   "__CALL_RESULT_URL__" (Place Call > Options > Call Result URL)                  -> the Production Call Result URL of
//       the imported example whose Assistant Platform Trigger listens for call results
// A user importing a file by hand replaces them in the editor (each example has a sticky note saying how).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const examplesDir = path.join(root, 'examples');

const PORTAL_CREDENTIAL_TYPE = 'assistantPlatformPortalApi';
const OUTBOUND_CREDENTIAL_TYPE = 'assistantPlatformOutboundApi';

/** [{ file, name, workflow }] for every examples/*.json, sorted by file name. */
function loadExamples(dir = examplesDir) {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
			return { file, name: workflow.name, workflow };
		});
}

/**
 * A copy of the workflow whose credential references point at the given credentials
 * (`byType`: { [credentialType]: { id, name } }). Fails when a node needs a type that is not given.
 * `rename` (optional) changes the workflow name, e.g. to keep imports apart.
 */
function prepareExample(workflow, byType, { rename } = {}) {
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes ?? []) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const credential = byType[type];
			if (!credential) throw new Error(`example "${copy.name}", node "${node.name}": no credential of type ${type} to use`);
			node.credentials[type] = { id: String(credential.id), name: credential.name };
		}
	}
	if (rename) copy.name = rename;
	copy.settings = { executionOrder: 'v1', ...(copy.settings ?? {}) };
	return copy;
}

const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';

/**
 * Sandbox outcomes for the numbers the examples call, so that every branch shows up: in example 1 one
 * contact is busy; in example 3 the primary on-call number does not answer (the backup is called).
 * They ring for a moment first, as real phones do: a call result that arrived within the sandbox's default
 * 300 ms could reach n8n before it has saved the Call and Wait execution as waiting, and n8n answers such
 * a resume with 409 (the platform never retries a callback).
 */
const EXAMPLE_DIAL_OUTCOMES = {
	'+390612345678': { dialstatus: 'BUSY', ringMs: 1000 },
	'+14155550100': { dialstatus: 'NOANSWER', ringMs: 2000 },
	// Example 5: busy at the first call, answered at the second (after the Retry Policy's 10 minutes).
	'+447700900124': { attempts: [{ dialstatus: 'BUSY', ringMs: 3000 }, { dialstatus: 'ANSWER', ringMs: 5000, durationSec: [50, 85] }] },
};

function applyExampleDialOutcomes(sandbox) {
	for (const [dst, rule] of Object.entries(EXAMPLE_DIAL_OUTCOMES)) sandbox.setDialOutcome({ dst, ...rule });
}

/**
 * Data tables the examples use (by name): created in n8n before the examples are imported, with their `rows`
 * when they are created.
 */
const EXAMPLE_DATA_TABLES = [
	{
		name: 'Assistant Platform call log',
		columns: [
			{ name: 'internal_id', type: 'string' },
			{ name: 'outcome', type: 'string' },
			{ name: 'reached', type: 'boolean' },
			{ name: 'durationSec', type: 'number' },
			{ name: 'receivedAt', type: 'string' },
		],
	},
	{
		name: 'Assistant Platform do-not-call list',
		columns: [
			{ name: 'phone', type: 'string' },
			{ name: 'note', type: 'string' },
		],
		rows: [{ phone: '+31205550199', note: 'asked not to be called' }],
	},
	{
		name: 'Assistant Platform campaign results',
		columns: [
			{ name: 'contactId', type: 'string' },
			{ name: 'name', type: 'string' },
			{ name: 'phone', type: 'string' },
			{ name: 'timezone', type: 'string' },
			{ name: 'attempt', type: 'number' },
			{ name: 'outcome', type: 'string' },
			{ name: 'status', type: 'string' },
			{ name: 'nextAttempt', type: 'number' },
			{ name: 'nextCallAt', type: 'string' },
			{ name: 'reason', type: 'string' },
			{ name: 'internal_id', type: 'string' },
		],
	},
];

/** Creates the examples' data tables that do not exist yet. Resolves with { [name]: table }. */
async function ensureExampleDataTables(n8n) {
	const existing = await n8n.listDataTables();
	const tables = {};
	for (const { rows, ...definition } of EXAMPLE_DATA_TABLES) {
		const found = existing.find((t) => t.name === definition.name);
		tables[definition.name] = found ?? (await n8n.createDataTable(definition));
		if (!found && rows) await n8n.insertDataTableRows(tables[definition.name].id, rows);
	}
	return tables;
}

/** Replaces `token` in every string of a JSON value. */
function replaceInStrings(value, token, replacement) {
	if (typeof value === 'string') return value.split(token).join(replacement);
	if (Array.isArray(value)) return value.map((v) => replaceInStrings(v, token, replacement));
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceInStrings(v, token, replacement)]));
	}
	return value;
}

/** `webhook/<webhookId>/<secret>/call-result` of the workflow's call-result trigger, if it has one. */
function callResultPathOf(workflow) {
	const trigger = workflow.nodes.find(
		(node) => node.type === TRIGGER_TYPE && (node.parameters.events ?? ['callResult']).includes('callResult'),
	);
	return trigger ? `webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}/call-result` : undefined;
}

/**
 * Prepares a set of examples for one n8n (`baseUrl`, e.g. http://127.0.0.1:5678): credentials, fresh webhook
 * ids and secrets, and the call-result URL across examples. Returns [{ file, name, workflow }] and, when an
 * example has a call-result trigger, `callResultUrl` on the result array. `callResultPath` (optional) is the
 * path of a call-result trigger imported before, used instead of the one prepared now.
 */
function prepareExamples(examples, byType, { baseUrl, callResultPath }) {
	const prepared = examples.map((example) => {
		let workflow = prepareExample(example.workflow, byType);
		workflow = replaceInStrings(workflow, '__WEBHOOK_SECRET__', crypto.randomBytes(32).toString('hex'));
		for (const node of workflow.nodes) {
			if ('webhookId' in node) node.webhookId = crypto.randomUUID();
		}
		return { ...example, workflow };
	});
	const base = baseUrl.replace(/\/+$/, '');
	// A trigger imported earlier (the demo keeps its workflows) wins over the one prepared now.
	let callResultUrl = callResultPath ? `${base}/${callResultPath.replace(/^\/+/, '')}` : undefined;
	for (const { workflow } of prepared) {
		if (callResultPathOf(workflow) && !callResultUrl) {
			callResultUrl = `${base}/${callResultPathOf(workflow)}`;
		}
	}
	const result = prepared.map((example) =>
		callResultUrl ? { ...example, workflow: replaceInStrings(example.workflow, '__CALL_RESULT_URL__', callResultUrl) } : example,
	);
	result.callResultUrl = callResultUrl;
	return result;
}

/** Credential types the example's nodes reference. */
function credentialTypesOf(workflow) {
	return [...new Set((workflow.nodes ?? []).flatMap((node) => Object.keys(node.credentials ?? {})))];
}

module.exports = {
	examplesDir,
	loadExamples,
	prepareExample,
	prepareExamples,
	callResultPathOf,
	ensureExampleDataTables,
	applyExampleDialOutcomes,
	EXAMPLE_DATA_TABLES,
	EXAMPLE_DIAL_OUTCOMES,
	replaceInStrings,
	credentialTypesOf,
	PORTAL_CREDENTIAL_TYPE,
	OUTBOUND_CREDENTIAL_TYPE,
};
