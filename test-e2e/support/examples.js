// Importing examples/*.json into the suite's n8n, the way the demo does (for the example cases).
'use strict';
const {
	applyExampleDialOutcomes,
	ensureExampleDataTables,
	loadExamples,
	prepareExamples,
} = require('../../scripts/n8n-examples');

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
	const prepared = prepareExamples(loadExamples(), env.byType, { baseUrl: env.n8n.url });
	const byFile = {};
	for (const example of prepared) {
		const created = await env.n8n.createWorkflow(example.workflow);
		byFile[example.file] = { id: created.id, workflow: example.workflow };
	}
	return { byFile, tables, callResultUrl: prepared.callResultUrl };
}

module.exports = { importExamples };
