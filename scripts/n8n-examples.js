// The example workflows (examples/*.json) and how they are imported into a running n8n, for `npm start` and the
// end-to-end suites. Their placeholders, filled in by prepareExamples() (a user importing a file by hand sets them
// in the editor, as each example's sticky note says):
//   credentials of type <type> with id "__PORTAL_CREDENTIAL_ID__" ...  -> a credential created in n8n
//   "webhookId" of a trigger or Call and Wait node                    -> a fresh UUID per import
//   "__WEBHOOK_SECRET__" (the trigger's Webhook Secret)               -> 64 random hex characters per import
//   "__CALL_RESULT_URL__" (Place Call > Options > Call Result URL)    -> the Production Call Result URL of the
//                                                                        imported example whose trigger receives call results
//   "__OWN_CALL_RESULT_URL__" (Dial Due Contacts > Options)          -> the Production Call Result URL of the trigger in
//                                                                        the same workflow (example 6 records its own results)
//   "__ASSISTANT_ID__" (example 8's trigger: its Assistant)         -> the assistant whose key the Outbound credential
//                                                                        holds; none known: left to pick, not configured
//   credentials of type assistantPlatformN8nApi                     -> one made for this n8n (its /api/v1 and API key) by
//                                                                        ensureExampleDataTables(), when none is given
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const examplesDir = path.join(__dirname, '..', 'examples');
const PORTAL_CREDENTIAL_TYPE = 'assistantPlatformPortalApi';
const OUTBOUND_CREDENTIAL_TYPE = 'assistantPlatformOutboundApi';
const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';
const N8N_API_CREDENTIAL_TYPE = 'assistantPlatformN8nApi';
/** Example 6's Call Result URL: the Production URL of the trigger in its own workflow. */
const OWN_CALL_RESULT_URL = '__OWN_CALL_RESULT_URL__';
const ASSISTANT_ID = '__ASSISTANT_ID__';
/** Credentials the examples need that the caller does not pass in (`byType`), made by ensureExampleDataTables(). */
const exampleCredentials = {};

/** [{ file, name, workflow }] for every examples/*.json, by file name. */
function loadExamples() {
	return fs
		.readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const workflow = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8'));
			return { file, name: workflow.name, workflow };
		});
}

/**
 * A copy of the workflow whose credentials are the given ones (`byType`: { [credential type]: { id, name } });
 * fails when a node needs a type that is not given. `rename` names the copy.
 */
function prepareExample(workflow, byType, { rename } = {}) {
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes) {
		for (const type of Object.keys(node.credentials ?? {})) {
			if (!byType[type]) throw new Error(`example "${copy.name}", node "${node.name}": no credential of type ${type} to use`);
			node.credentials[type] = { id: String(byType[type].id), name: byType[type].name };
		}
	}
	if (rename) copy.name = rename;
	copy.settings = { executionOrder: 'v1', ...copy.settings };
	return copy;
}

/**
 * Sandbox outcomes of the numbers the examples call, so that every branch shows: a busy contact in examples 1 and 6,
 * an on-call primary who does not answer in example 3 (the backup is called), a contact busy at the first call and
 * answering the second in example 6. They ring first, as phones do: a result arriving before n8n has saved a Call
 * and Wait execution as waiting is answered 409, and the platform never sends a callback twice.
 */
const EXAMPLE_DIAL_OUTCOMES = {
	'+390612345678': { dialstatus: 'BUSY', ringMs: 1000 },
	'+14155550100': { dialstatus: 'NOANSWER', ringMs: 2000 },
	'+447700900124': { attempts: [{ dialstatus: 'BUSY', ringMs: 3000 }, { dialstatus: 'ANSWER', ringMs: 5000, durationSec: [50, 85] }] },
};

function applyExampleDialOutcomes(sandbox) {
	for (const [dst, rule] of Object.entries(EXAMPLE_DIAL_OUTCOMES)) sandbox.setDialOutcome({ dst, ...rule });
}

/** Columns from "name" (a string) and "name:type" words. */
const columns = (words) => words.split(' ').map((word) => ({ name: word.split(':')[0], type: word.split(':')[1] ?? 'string' }));

/** The data tables the examples use, by name (`rows`: what a new one starts with). */
const EXAMPLE_DATA_TABLES = [
	{ name: 'Assistant Platform call log', columns: columns('internal_id outcome reached:boolean durationSec:number receivedAt') },
	{
		// Example 6's contacts, as a CSV import makes them; Prepare Contacts Table adds the campaign's columns.
		name: 'Assistant Platform campaign contacts',
		columns: columns('phone name timezone'),
		rows: [
			{ phone: '+14155550123', name: 'Ada Lovelace', timezone: 'America/Los_Angeles' },
			{ phone: '+447700900124', name: 'Alan Turing', timezone: 'Europe/London' },
			{ phone: '+390612345678', name: 'Grace Hopper', timezone: 'Europe/Rome' },
		],
	},
];

/** Creates the examples' data tables that do not exist yet; resolves with { [name]: table }. */
async function ensureExampleDataTables(n8n) {
	const existing = (await n8n.dataTables('GET', '?take=250')).data;
	const tables = {};
	for (const { rows, ...table } of EXAMPLE_DATA_TABLES) {
		const found = existing.find((t) => t.name === table.name);
		tables[table.name] = found ?? (await n8n.dataTables('POST', '', table));
		if (!found && rows) await n8n.dataTables('POST', `/${tables[table.name].id}/insert`, { data: rows, returnType: 'count' });
	}
	await ensureExampleN8nApiCredential(n8n);
	return tables;
}

/**
 * The Assistant Platform Data Tables API credential example 6 reaches the tables with: this n8n's public API and the
 * API key the runtime made for itself, created once and kept up to date by name. prepareExamples() uses it for nodes
 * that need one when the caller passes none.
 */
async function ensureExampleN8nApiCredential(n8n) {
	const name = 'Assistant Platform Data Tables API (this n8n)';
	const credential = { name, type: N8N_API_CREDENTIAL_TYPE, data: { baseUrl: `${n8n.url}/api/v1`, apiKey: n8n.apiKey } };
	const listed = await n8n.rest('GET', '/credentials');
	const found = (Array.isArray(listed) ? listed : []).find((c) => c.name === name && c.type === N8N_API_CREDENTIAL_TYPE);
	if (found) await n8n.api('PATCH', `/credentials/${found.id}`, credential);
	const id = found?.id ?? (await n8n.api('POST', '/credentials', credential)).id;
	exampleCredentials[N8N_API_CREDENTIAL_TYPE] = { id: String(id), name };
	return exampleCredentials[N8N_API_CREDENTIAL_TYPE];
}

/** `token` replaced in every string of a JSON value. */
function replaceInStrings(value, token, replacement) {
	return JSON.parse(JSON.stringify(value), (_, v) => (typeof v === 'string' ? v.split(token).join(replacement) : v));
}

/** `webhook/<webhookId>/<secret>/call-result` of the workflow's trigger that receives call results, if it has one. */
function callResultPathOf(workflow) {
	if (receivesOwnCallResults(workflow)) return undefined;
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE && (node.parameters.events ?? ['callResult']).includes('callResult'));
	return trigger && `webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}/call-result`;
}

/** Whether the workflow's call results go to its own trigger (example 6): it is no Call Result URL for the others. */
function receivesOwnCallResults(workflow) {
	const others = JSON.stringify(workflow.nodes.filter((node) => node.type !== TRIGGER_TYPE));
	if (others.includes(OWN_CALL_RESULT_URL)) return true;
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE);
	return Boolean(trigger?.webhookId && others.includes(`/${trigger.webhookId}/`));
}

/** The workflow with `__OWN_CALL_RESULT_URL__` set to the Production Call Result URL of its own trigger (at `baseUrl`). */
function withOwnCallResultUrl(workflow, baseUrl) {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE && (node.parameters.events ?? ['callResult']).includes('callResult'));
	if (!trigger || !baseUrl || !JSON.stringify(workflow).includes(OWN_CALL_RESULT_URL)) return workflow;
	const url = `${baseUrl.replace(/\/+$/, '')}/webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}/call-result`;
	return replaceInStrings(workflow, OWN_CALL_RESULT_URL, url);
}

/**
 * The workflow with `__ASSISTANT_ID__` (a trigger's Assistant, example 8) set to `assistantId`; without one (a real
 * platform whose assistant is not named) the Assistant is left to pick and the trigger configures nothing on publish.
 */
function withAssistant(workflow, assistantId) {
	if (!JSON.stringify(workflow).includes(ASSISTANT_ID)) return workflow;
	if (assistantId) return replaceInStrings(workflow, ASSISTANT_ID, assistantId);
	const copy = JSON.parse(JSON.stringify(workflow));
	for (const node of copy.nodes) {
		if (node.parameters?.assistantId?.value !== ASSISTANT_ID) continue;
		node.parameters.assistantId = { __rl: true, mode: 'list', value: '' };
		node.parameters.registerOnPublish = false;
	}
	return copy;
}

/**
 * The examples prepared for one n8n at `baseUrl`: credentials, fresh webhook ids and secrets, and the Call Result URL
 * across examples (`callResultPath`: a trigger imported before, which wins). Returns [{ file, name, workflow }] with
 * `callResultUrl` on the array.
 */
function prepareExamples(examples, byType, { baseUrl, callResultPath, assistantId }) {
	byType = { ...exampleCredentials, ...byType };
	const prepared = examples.map((example) => {
		const workflow = withAssistant(replaceInStrings(prepareExample(example.workflow, byType), '__WEBHOOK_SECRET__', crypto.randomBytes(32).toString('hex')), assistantId);
		for (const node of workflow.nodes) if ('webhookId' in node) node.webhookId = crypto.randomUUID();
		return { ...example, workflow: withOwnCallResultUrl(workflow, baseUrl) };
	});
	const found = callResultPath ?? prepared.map(({ workflow }) => callResultPathOf(workflow)).find(Boolean);
	const callResultUrl = found && `${baseUrl.replace(/\/+$/, '')}/${found.replace(/^\/+/, '')}`;
	const result = prepared.map((e) => (callResultUrl ? { ...e, workflow: replaceInStrings(e.workflow, '__CALL_RESULT_URL__', callResultUrl) } : e));
	result.callResultUrl = callResultUrl;
	return result;
}

module.exports = {
	EXAMPLE_DATA_TABLES,
	EXAMPLE_DIAL_OUTCOMES,
	N8N_API_CREDENTIAL_TYPE,
	OUTBOUND_CREDENTIAL_TYPE,
	PORTAL_CREDENTIAL_TYPE,
	applyExampleDialOutcomes,
	callResultPathOf,
	ensureExampleDataTables,
	ensureExampleN8nApiCredential,
	loadExamples,
	prepareExample,
	prepareExamples,
	receivesOwnCallResults,
};
