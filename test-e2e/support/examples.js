// Importing examples/*.json into the suite's n8n, the way the demo does (for the example cases).
'use strict';
const {
	applyExampleDialOutcomes,
	ensureExampleDataTables,
	loadExamples,
	prepareExamples,
} = require('../../scripts/n8n-examples');
const { assistantsOf } = require('./assertions');

/**
 * Creates the examples' data tables, scripts the sandbox outcomes of the example numbers, and imports every
 * example with fresh webhook ids and secrets. Resolves with
 *   { byFile: { [file]: { id, workflow } }, tables: { [name]: table }, callResultUrl }
 * (`workflow` is the prepared JSON that was sent; `callResultUrl` the Production Call Result URL of the
 * results example, already filled into the campaign example).
 */
async function importExamples(env) {
	const tables = await ensureExampleDataTables(env.n8n);
	applyExampleDialOutcomes(env.sandbox);
	const prepared = prepareExamples(loadExamples(), env.byType, { baseUrl: env.n8n.url, assistantId: assistantsOf(env.sandbox)[0]?.assistantId });
	if (env.n8n.majorVersion < 2) pickDataTablesById(prepared, tables);
	const byFile = {};
	for (const example of prepared) {
		const created = await env.n8n.createWorkflow(example.workflow);
		byFile[example.file] = { id: created.id, workflow: example.workflow };
	}
	return { byFile, tables, callResultUrl: prepared.callResultUrl };
}

/**
 * n8n 1.x's Data Table node takes a table chosen "By Name" as its id ("Could not find the data table"): there
 * the examples' tables are picked from the list (by id), as a user of n8n 1.x does in the editor.
 */
function pickDataTablesById(prepared, tables) {
	for (const example of prepared) {
		for (const node of example.workflow.nodes) {
			const table = node.parameters?.dataTableId;
			if (node.type !== 'n8n-nodes-base.dataTable' || table?.mode !== 'name') continue;
			const found = tables[table.value];
			if (!found) throw new Error(`example ${example.file}: no data table named "${table.value}"`);
			node.parameters.dataTableId = { __rl: true, mode: 'list', value: found.id, cachedResultName: table.value };
		}
	}
}

module.exports = { importExamples };
