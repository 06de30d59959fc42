// The example workflows (examples/*.json) and how they are imported into a running n8n, for `npm start` and the
// end-to-end suites. Their placeholders, filled in by prepareExamples() (a user importing a file by hand sets them
// in the editor, as each example's sticky note says):
//   credentials of type <type> with id "__PORTAL_CREDENTIAL_ID__" ...  -> a credential created in n8n
//   "webhookId" of a trigger or Call and Wait node                    -> a fresh UUID per import
//   "__WEBHOOK_SECRET__" (the trigger's Webhook Secret)               -> 64 random hex characters per import
//   "__CALL_RESULT_URL__" (Place Call > Options > Call Result URL)    -> the Production Call Result URL of the
//                                                                        imported example whose trigger receives call results
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const examplesDir = path.join(__dirname, '..', 'examples');
const PORTAL_CREDENTIAL_TYPE = 'assistantPlatformPortalApi';
const OUTBOUND_CREDENTIAL_TYPE = 'assistantPlatformOutboundApi';
const TRIGGER_TYPE = 'n8n-nodes-assistant-platform.assistantPlatformTrigger';

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
 * Sandbox outcomes of the numbers the examples call, so that every branch shows: a busy contact in example 1, an
 * on-call primary who does not answer in example 3 (the backup is called), a contact busy at the first call and
 * answering the second in example 5. They ring first, as phones do: a result arriving before n8n has saved a Call
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
		name: 'Assistant Platform do-not-call list',
		columns: columns('phone note'),
		rows: [{ phone: '+31205550199', note: 'asked not to be called' }],
	},
	{
		name: 'Assistant Platform campaign results',
		columns: columns('contactId name phone timezone attempt:number outcome status nextAttempt:number nextCallAt reason internal_id'),
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
	return tables;
}

/** `token` replaced in every string of a JSON value. */
function replaceInStrings(value, token, replacement) {
	return JSON.parse(JSON.stringify(value), (_, v) => (typeof v === 'string' ? v.split(token).join(replacement) : v));
}

/** `webhook/<webhookId>/<secret>/call-result` of the workflow's trigger that receives call results, if it has one. */
function callResultPathOf(workflow) {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE && (node.parameters.events ?? ['callResult']).includes('callResult'));
	return trigger && `webhook/${trigger.webhookId}/${trigger.parameters.webhookSecret}/call-result`;
}

/**
 * The examples prepared for one n8n at `baseUrl`: credentials, fresh webhook ids and secrets, and the Call Result URL
 * across examples (`callResultPath`: a trigger imported before, which wins). Returns [{ file, name, workflow }] with
 * `callResultUrl` on the array.
 */
function prepareExamples(examples, byType, { baseUrl, callResultPath }) {
	const prepared = examples.map((example) => {
		const workflow = replaceInStrings(prepareExample(example.workflow, byType), '__WEBHOOK_SECRET__', crypto.randomBytes(32).toString('hex'));
		for (const node of workflow.nodes) if ('webhookId' in node) node.webhookId = crypto.randomUUID();
		return { ...example, workflow };
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
	OUTBOUND_CREDENTIAL_TYPE,
	PORTAL_CREDENTIAL_TYPE,
	applyExampleDialOutcomes,
	callResultPathOf,
	ensureExampleDataTables,
	loadExamples,
	prepareExample,
	prepareExamples,
};
