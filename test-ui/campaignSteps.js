// The durable campaign set up in the editor as README's "Campaigns" tells a user to: the contacts imported as a CSV
// into a data table, an n8n API key and the Data Tables API credential, example 6 prepared and published, the counts
// watched, the campaign paused from a second small workflow and resumed. What each step shows is asserted from the
// page (the output panel's items, the data table's rows) and, for "dialling stops", from the sandbox's call journal.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const { loadExamples, prepareExamples, N8N_API_CREDENTIAL_TYPE } = require('../scripts/n8n-examples');
const { waitFor } = require('../test-e2e/support/wait');

const TABLE = 'Assistant Platform campaign contacts';
const CSV = path.join(__dirname, 'fixtures', 'campaign-contacts.csv');
const CONTACTS = 6;
const PREFIX = '+1303555';
/** Max Calls per Run set in the editor: each run places at most this many, so pausing between runs shows. */
const PER_RUN = 2;
const DATA_TABLES_API = 'Assistant Platform Data Tables API';

const placements = (env) => env.sandbox.callJournal.calls.filter((call) => call.dst.startsWith(PREFIX)).length;

async function openContactsTable(editor) {
	const { page } = editor;
	await page.goto(`${editor.url}/home/datatables`);
	await page.locator('[data-test-id="data-table-card"]', { hasText: TABLE }).first().click();
	await page.locator('[data-test-id="data-table-grid"]').waitFor();
}

/** The grid's text once `pattern` matches it, reloading the page as a person would (up to `timeoutMs`). */
async function watchTable(editor, pattern, timeoutMs) {
	const { page } = editor;
	let seen = '';
	await waitFor(
		`the contacts table to show ${pattern}`,
		async () => {
			await openContactsTable(editor);
			await page.locator('[data-test-id="data-table-grid"]').getByText(/Total \d+/).first().waitFor();
			seen = await page.locator('[data-test-id="data-table-grid"]').innerText();
			return pattern.test(seen);
		},
		{ timeoutMs, intervalMs: 2000, describe: () => seen.replace(/\s+/g, ' ').slice(0, 600) },
	);
	return seen;
}

/** Runs Dial Due Contacts from the editor (Execute step: Every Minute, then the node); returns its summary item. */
async function dialOnce(editor, state) {
	await editor.openWorkflow(state.campaign.id);
	await editor.openNode('Dial Due Contacts');
	await editor.executeStep();
	const [summary] = await editor.outputItems();
	return summary;
}

async function summaryNow(editor, state) {
	await editor.openWorkflow(state.campaign.id);
	await editor.openNode('Get Summary');
	await editor.executeStep();
	const [summary] = await editor.outputItems();
	return summary;
}

/** Until no execution of the campaign's workflow runs (a scheduled dial run that started before a pause). */
async function noRunInProgress(env, workflowId) {
	await waitFor(
		'the campaign workflow to have no running execution',
		async () => (await env.n8n.api('GET', `/executions?workflowId=${workflowId}&status=running`)).data.length === 0,
		{ timeoutMs: 90000, intervalMs: 1000 },
	);
}

const campaignSteps = [
	{
		name: 'campaign: the contacts imported as a CSV into a new data table (Overview, Data tables)',
		async run({ editor, page }) {
			await page.goto(`${editor.url}/home/datatables`);
			await page.click('[data-test-id="add-resource-dataTable"]');
			const modal = page.locator('[data-test-id="addDataTableModal-modal"]');
			await modal.locator('[data-test-id="data-table-name-input-select"]').fill(TABLE);
			await modal.locator('[data-test-id="import-csv-option"]').click();
			await modal.locator('input[type="file"]').setInputFiles(CSV);
			await modal.locator('[data-test-id="proceed-from-select-button"]').click();
			// n8n proposes a type per column from the values: `+1303…` reads as a number, which would drop the `+`
			const types = modal.locator('[data-test-id^="column-type-"] input');
			await modal.locator('[data-test-id="column-name-0"]').waitFor();
			const names = await modal.locator('[data-test-id^="column-name-"]').evaluateAll((els) => els.map((e) => e.value ?? e.querySelector('input')?.value));
			assert.deepEqual(names, ['phone', 'name', 'timezone'], 'the CSV header row names the columns');
			if ((await types.first().inputValue()) !== 'String') {
				await modal.locator('[data-test-id="column-type-0"]').click();
				await editor.chooseOption('String');
			}
			assert.deepEqual(await types.evaluateAll((els) => els.map((e) => e.value)), ['String', 'String', 'String'], 'every column is text');
			await modal.locator('[data-test-id="confirm-add-data-table-button"]').click();
			await page.waitForURL(/\/datatables\/[^/]+$/, { timeout: 30000 });
			const shown = await watchTable(editor, new RegExp(`Total ${CONTACTS}\\b`), 30000);
			assert.match(shown, /\+13035550001/, `the phone numbers keep their +: ${shown.slice(0, 300)}`);
			assert.doesNotMatch(shown, /campaignState/, 'a new table has only the CSV\'s columns');
		},
	},
	{
		name: 'campaign: an n8n API key (Settings, n8n API) and the Data Tables API credential, tested on save',
		async run({ editor, page, state }) {
			await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: editor.url });
			await page.goto(`${editor.url}/settings/api`);
			await page.click('[data-test-id="api-key-create-button"]');
			const keyModal = page.locator('[data-test-id="createOrEditApiKey-modal"]');
			await keyModal.locator('[data-test-id="api-key-label"]').locator('input').or(keyModal.locator('input[data-test-id="api-key-label"]')).first().fill('Assistant Platform campaigns');
			const created = page.waitForResponse((r) => r.url().endsWith('/rest/api-keys') && r.request().method() === 'POST', { timeout: 30000 });
			await keyModal.getByRole('button', { name: 'Save' }).click();
			const shownOnce = (await (await created).json()).data?.rawApiKey ?? '';
			// the key is shown once, shortened; its copy button copies it whole
			await page.evaluate(() => navigator.clipboard.writeText(''));
			await keyModal.locator('[data-test-id="copy-input-button"]').click();
			// the copy lands in the clipboard a moment after the click
			const copied = await waitFor('the API key in the clipboard', () => page.evaluate(() => navigator.clipboard.readText()), { timeoutMs: 10000, intervalMs: 200 }).catch(() => '');
			// headless Chromium's clipboard does not always take the copy: then the key is the one n8n answered the Save
			// with, which the dialog shows (shortened)
			const apiKey = copied || shownOnce;
			assert.ok(apiKey.length > 40, `the API key was copied or answered (${apiKey.length} characters)`);
			assert.match(await keyModal.locator('[data-test-id="copy-input"]').innerText().catch(() => '') + (await keyModal.locator('input').first().inputValue().catch(() => '')), new RegExp(apiKey.slice(0, 12)), 'the dialog shows that key');
			await keyModal.getByRole('button', { name: 'Done' }).click();

			await page.goto(`${editor.url}/home/credentials`);
			await page.click('[data-test-id="add-resource-credential"]');
			await page.click('[data-test-id="new-credential-type-select"]');
			await page.keyboard.type(DATA_TABLES_API);
			await page.locator('[data-test-id="new-credential-type-select-option"]', { hasText: DATA_TABLES_API }).first().click();
			await page.click('[data-test-id="new-credential-type-button"]');
			const modal = page.locator('[data-test-id="editCredential-modal"]');
			await modal.waitFor();
			await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(`${editor.url}/api/v1`);
			await modal.locator('[data-test-id="parameter-input-apiKey"] input').fill(apiKey);
			await page.click('[data-test-id="credential-save-button"]');
			await modal.getByText(/Connection tested successfully|Couldn.t connect/i).first().waitFor({ timeout: 30000 });
			const text = await modal.innerText();
			assert.match(text, /Connection tested successfully/i, text.slice(0, 400));
			state.dataTablesApiSaved = true;
		},
	},
	{
		name: 'campaign: example 6 opened, Caller ID and Max Calls per Run set, Set Up Once counts the contacts',
		async run({ editor, page, env, state }) {
			assert.ok(state.dataTablesApiSaved, 'the previous step saved the Data Tables API credential');
			const credential = (await env.n8n.rest('GET', '/credentials')).find((c) => c.type === N8N_API_CREDENTIAL_TYPE);
			assert.ok(credential, 'the Data Tables API credential made in the editor is listed');
			// Imported as `npm start` does (credentials, the Call Result URL of its own trigger); Calling Hours every day,
			// all day: the suite runs on any day at any hour, and hours are not what this shows
			const example = loadExamples().find((e) => e.file === '6-durable-campaign.json');
			const [{ workflow }] = prepareExamples([example], { ...env.byType, [N8N_API_CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } }, { baseUrl: env.n8n.url });
			const dial = workflow.nodes.find((node) => node.name === 'Dial Due Contacts').parameters;
			const allWeek = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
			dial.callingHours.window = [{ days: allWeek, from: '00:00', to: '24:00' }];
			workflow.name = 'UI: example 6, durable campaign';
			// the sandbox's network: every contact answers after a short ring
			env.sandbox.setDialOutcome({ prefix: PREFIX, dialstatus: 'ANSWER', ringMs: 1000, durationSec: 2, persistDelayMs: 0 });
			state.campaign = await env.n8n.createWorkflow(workflow);

			await editor.openWorkflow(state.campaign.id);
			await editor.openNode('Dial Due Contacts');
			const ndv = page.locator('[data-test-id="ndv"]');
			assert.equal(await ndv.locator('[data-test-id="parameter-input-contactsTable"] input').inputValue(), TABLE);
			const callerId = env.sandbox.state.assistants.list[0].numbers[0];
			await ndv.locator('[data-test-id="parameter-input-callerId"] input').fill(callerId);
			await ndv.locator('[data-test-id="parameter-input-maxCallsPerRun"] input').fill(String(PER_RUN));
			await ndv.locator('[data-test-id="parameter-input-maxCallsPerRun"] input').blur();
			await editor.closeNdv();
			await page.keyboard.press('Control+s');
			await waitFor('the workflow to be saved with the values typed', async () => {
				const saved = await env.n8n.rest('GET', `/workflows/${state.campaign.id}`);
				const parameters = saved.nodes.find((node) => node.name === 'Dial Due Contacts').parameters;
				return parameters.maxCallsPerRun === PER_RUN && parameters.callerId === callerId;
			});

			// Set Up Once: Prepare Contacts Table, then Get Summary (Execute step runs the nodes before it)
			await editor.openNode('Get Summary');
			await editor.executeStep();
			const [summary] = await editor.outputItems();
			assert.equal(summary.campaign, TABLE, JSON.stringify(summary));
			assert.equal(summary.status, 'running', JSON.stringify(summary));
			assert.equal(summary.contacts, CONTACTS, JSON.stringify(summary));
			assert.equal(summary.new, CONTACTS, `every contact is new: ${JSON.stringify(summary)}`);
			assert.equal(summary.dueNow, CONTACTS, JSON.stringify(summary));
		},
	},
	{
		name: 'campaign: published; Dial Due Contacts places calls and the table shows them answered',
		async run({ editor, page, env, state }) {
			assert.ok(state.campaign, 'the previous step imported the example');
			await editor.openWorkflow(state.campaign.id);
			await page.click('[data-test-id="workflow-open-publish-modal-button"]');
			await page.click('[data-test-id="workflow-publish-button"]');
			await page.locator('[data-test-id="activation-modal"]').getByText('Got it').click();
			// Every Minute now dials too; a run started from the editor meanwhile may find it dialling and place none
			const summary = await dialOnce(editor, state);
			assert.match(String(summary.placed ?? ''), /^\d+$/, JSON.stringify(summary));
			assert.ok(summary.placed <= PER_RUN, `at most Max Calls per Run: ${JSON.stringify(summary)}`);
			await waitFor('the first calls in the sandbox', () => placements(env) >= PER_RUN, { timeoutMs: 90000, intervalMs: 500 });
			const shown = await watchTable(editor, /answered/, 60000);
			assert.match(shown, /campaignState/, 'Prepare Contacts Table added the campaign\'s columns');
		},
	},
	{
		name: 'campaign: Get Summary counts the answered contacts',
		async run({ editor, state }) {
			const summary = await summaryNow(editor, state);
			assert.equal(summary.contacts, CONTACTS, JSON.stringify(summary));
			assert.ok(summary.answered >= 1, `answered contacts are counted: ${JSON.stringify(summary)}`);
			assert.equal(summary.answered + summary.inFlight + summary.pending + summary.new, CONTACTS, `each contact counted once: ${JSON.stringify(summary)}`);
			state.answeredBeforePause = summary.answered;
		},
	},
	{
		name: 'campaign: paused from a second workflow (Manual Trigger, Campaign, Pause)',
		async run({ editor, page, state }) {
			await editor.newWorkflow();
			await editor.addManualTrigger();
			await editor.openNextPanel();
			await editor.search('Assistant Platform');
			await editor.clickEntry('Assistant Platform');
			await editor.clickAction('Pause a campaign');
			await editor.ndvOpen();
			await page.locator('[data-test-id="ndv"] [data-test-id="parameter-input-contactsTable"] input').fill(TABLE);
			await editor.executeStep();
			const [result] = await editor.outputItems();
			const { claimsSettled, waitedMs, ...status } = result;
			assert.deepEqual(status, { campaign: TABLE, status: 'paused', previousStatus: 'running' });
			// Pause returns once no run is placing a call.
			assert.equal(claimsSettled, true, JSON.stringify(result));
			assert.equal(typeof waitedMs, 'number', JSON.stringify(result));
			await page.keyboard.press('Control+s');
			await page.waitForURL(/\/workflow\/[^/]+/);
			// the workflow's own address (the editor adds the open node's id to it)
			state.controlUrl = page.url().replace(/(\/workflow\/[^/?#]+).*$/, '$1');
		},
	},
	{
		name: 'campaign: while paused, Dial Due Contacts places nothing and the call journal stays still',
		async run({ editor, env, state }) {
			assert.ok(state.controlUrl, 'the previous step paused the campaign');
			await noRunInProgress(env, state.campaign.id);
			const before = placements(env);
			const summary = await dialOnce(editor, state);
			assert.equal(summary.status, 'paused', JSON.stringify(summary));
			assert.equal(summary.placed, 0, JSON.stringify(summary));
			assert.match(summary.message, /paused: nothing was dialled/, JSON.stringify(summary));
			assert.equal(placements(env), before, 'no call was placed while the campaign is paused');
			state.placedWhilePaused = before;
		},
	},
	{
		name: 'campaign: resumed (the same node, Operation Resume); the next dial run places calls again',
		async run({ editor, page, env, state }) {
			assert.ok(state.controlUrl, 'a previous step paused the campaign');
			await page.goto(state.controlUrl);
			await page.waitForSelector('[data-test-id="canvas-node"]');
			await editor.openNode('Pause a campaign');
			await page.locator('[data-test-id="ndv"] [data-test-id="parameter-input-operation"]').click();
			await editor.chooseOption('Resume');
			await editor.executeStep();
			const [result] = await editor.outputItems();
			assert.deepEqual(result, { campaign: TABLE, status: 'running', previousStatus: 'paused' });
			await page.keyboard.press('Control+s');
			assert.equal(placements(env), state.placedWhilePaused, 'still no call before the next dial run');
			const summary = await dialOnce(editor, state);
			assert.equal(summary.status, 'running', JSON.stringify(summary));
			await waitFor('calls placed after Resume', () => placements(env) > state.placedWhilePaused, { timeoutMs: 90000, intervalMs: 500 });
			await editor.closeNdv();
			const after = await summaryNow(editor, state);
			assert.equal(after.status, 'running', JSON.stringify(after));
			assert.ok(after.answered + after.inFlight > state.answeredBeforePause, `more contacts called since the pause: ${JSON.stringify(after)}`);
		},
	},
];

module.exports = { campaignSteps, TABLE };
