// A campaign at a glance, after test-ui/campaignSteps.js has a campaign dialling: Get Summary's picture in the output
// panel (light and dark), then example 9's page opened in the browser as a person leaves it open: its Webhook given
// a Basic Auth credential in the editor, the page refused without it, and with it the page's counts and states
// equal to the contacts table's, changing by themselves (the page reloads itself) as calls end. What the picture
// shows is read from its pixels in the browser (the state bar's colours against the counts).
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');

const { loadExamples, prepareExamples, N8N_API_CREDENTIAL_TYPE } = require('../scripts/n8n-examples');
const { waitFor } = require('../test-e2e/support/wait');
const { TABLE } = require('./campaignSteps');

// Where the picture shows what, and its colours: the package's own constants (the suite runs on the built package).
const { PICTURE_COLORS, PICTURE_LAYOUT, PICTURE_WIDTH, PICTURE_HEIGHT } = require(path.join(__dirname, '..', 'dist', 'nodes', 'AssistantPlatform', 'resources', 'campaign', 'summaryPicture.js'));

const PAGE_PATH = 'campaign-progress';
const PAGE_USER = 'campaign-watcher';
const PAGE_PASSWORD = 'a page password 6c1f0b';
/** Contacts added while the page is open: their calls ring 8 s, so the page shows them placed, then answered. */
const LATE_PREFIX = '+1303556';
const LATE_CONTACTS = 4;
/** The page reloads itself this often in the suite (the example's default is a minute). */
const REFRESH_SECONDS = 5;
const STATES = ['pending', 'claimed', 'placed', 'answered', 'finished', 'failed', 'unknown', 'doNotCall', 'new', 'other'];

const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The picture the output panel shows now: its size on screen and in pixels, and the colours of the state bar's middle row. */
async function pictureShown(page) {
	const image = page.locator('img[src*="binary-data"]').first();
	await image.waitFor({ timeout: 15000 });
	return await image.evaluate(async (img, bar) => {
		await img.decode();
		const canvas = document.createElement('canvas');
		canvas.width = img.naturalWidth;
		canvas.height = img.naturalHeight;
		const context = canvas.getContext('2d');
		context.drawImage(img, 0, 0);
		const row = context.getImageData(bar.x, bar.y + Math.floor(bar.height / 2), bar.width, 1).data;
		const colours = {};
		for (let i = 0; i < row.length; i += 4) {
			const hex = [row[i], row[i + 1], row[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
			colours[hex] = (colours[hex] ?? 0) + 1;
		}
		const box = img.getBoundingClientRect();
		const panel = img.closest('[data-test-id="output-panel"]')?.getBoundingClientRect();
		return { width: img.naturalWidth, height: img.naturalHeight, shown: { width: box.width, height: box.height }, panel: panel && { width: panel.width }, colours };
	}, PICTURE_LAYOUT.stateBar);
}

/** The state bar's share of each state, in pixels, against the counts of Get Summary's item. */
function assertBarMatches(shown, summary, theme) {
	const light = theme === 'dark' ? 1 : 0;
	const width = PICTURE_LAYOUT.stateBar.width;
	for (const [role, n] of [['answered', summary.answered], ['pending', summary.pending], ['new', summary.new], ['inFlight', summary.inFlight]]) {
		const pixels = shown.colours[PICTURE_COLORS[role][light]] ?? 0;
		const expected = summary.contacts > 0 ? (n * width) / summary.contacts : 0;
		// A state of a few contacts gets two pixels at least, taken from the state after it.
		assert.ok(Math.abs(pixels - expected) <= 6 || (n > 0 && pixels >= 2 && expected < 2), `${theme}: ${role} ${n} of ${summary.contacts} is ${pixels} px of the bar, not about ${Math.round(expected)}`);
	}
}

/** The contacts table now: each contact's state counted, and when n8n last wrote it. */
async function tableNow(env, tableId) {
	const before = (await env.n8n.dataTables('GET', '?take=250')).data.find((t) => t.id === tableId);
	const rows = await env.n8n.allDataTableRows(tableId);
	const after = (await env.n8n.dataTables('GET', '?take=250')).data.find((t) => t.id === tableId);
	const counts = Object.fromEntries(STATES.map((state) => [state, 0]));
	for (const row of rows) {
		const state = row.campaignState === null || row.campaignState === '' ? 'new' : STATES.includes(row.campaignState) ? row.campaignState : 'other';
		counts[state] += 1;
	}
	return { contacts: rows.length, counts, updatedAt: Date.parse(before.updatedAt), unchanged: before.updatedAt === after.updatedAt };
}

/** What the page shows now: its counts (as written, thousands separators removed), status and last change. */
async function pageNow(page) {
	for (;;) {
		try {
			await page.waitForLoadState('load');
			return await shownBy(page);
		} catch (error) {
			// The page reloaded itself while it was being read: read the new one.
			if (!/Execution context was destroyed|navigat/i.test(String(error?.message))) throw error;
		}
	}
}

async function shownBy(page) {
	return await page.evaluate(() => ({
		counts: Object.fromEntries([...document.querySelectorAll('td[data-count]')].map((td) => [td.dataset.count, Number(td.textContent.replace(/,/g, ''))])),
		status: document.querySelector('[data-field="status"]')?.textContent,
		lastChangeAt: Date.parse(document.querySelector('time[data-field="lastChangeAt"]')?.getAttribute('datetime') ?? ''),
		picture: (() => {
			const img = document.querySelector('picture img');
			return img && { complete: img.complete, width: img.naturalWidth, height: img.naturalHeight, src: img.currentSrc.slice(0, 22) };
		})(),
	}));
}

/**
 * Waits, while the page reloads itself, for a moment when what it shows is the table as it is (its last change is the
 * table's, no write since) and `until` holds; then the page's counts must be the table's. Returns both.
 */
async function pageMatchingTable(env, progress, tableId, until, describe) {
	let seen;
	await waitFor(
		describe,
		async () => {
			const shown = await pageNow(progress);
			const table = await tableNow(env, tableId);
			seen = { shown, table };
			return table.unchanged && shown.lastChangeAt === table.updatedAt && until(shown, table);
		},
		{ timeoutMs: 240000, intervalMs: 1000, describe: () => JSON.stringify(seen) },
	);
	const { shown, table } = seen;
	const counts = shown.counts;
	assert.equal(counts.contacts, table.contacts, 'the page counts every row of the table');
	for (const state of STATES) assert.equal(counts[state], table.counts[state], `the page shows ${counts[state]} ${state}, the table has ${table.counts[state]}`);
	assert.equal(counts.inFlight, table.counts.claimed + table.counts.placed);
	assert.equal(counts.done, table.counts.answered + table.counts.finished + table.counts.failed + table.counts.doNotCall);
	assert.deepEqual(shown.picture, { complete: true, width: PICTURE_WIDTH, height: PICTURE_HEIGHT, src: 'data:image/png;base64,' });
	return seen;
}

async function createBasicAuthCredential(editor) {
	const { page } = editor;
	const ndv = page.locator('[data-test-id="ndv"]');
	const setUp = ndv.getByText(/Connect to Basic Auth|Set up credential|Create new credential/i).first();
	if (await setUp.isVisible().catch(() => false)) await setUp.click();
	else {
		await ndv.locator('[data-test-id="node-credentials-select"]').click();
		await page.locator('[data-test-id="node-credentials-select-item-new"]').click();
	}
	const modal = page.locator('[data-test-id="editCredential-modal"]');
	await modal.waitFor();
	await modal.locator('[data-test-id="parameter-input-user"] input').fill(PAGE_USER);
	await modal.locator('[data-test-id="parameter-input-password"] input').fill(PAGE_PASSWORD);
	await page.click('[data-test-id="credential-save-button"]');
	await modal.waitFor({ state: 'detached', timeout: 15000 }).catch(async () => page.keyboard.press('Escape'));
}

const progressSteps = [
	{
		name: "campaign progress: Get Summary's output panel shows the campaign's picture (Binary, View), light and dark",
		async run({ editor, page, state, shot }) {
			assert.ok(state.campaign, 'the campaign steps imported example 6');
			for (const theme of ['light', 'dark']) {
				await page.goto(`${editor.url}/workflow/${state.campaign.id}?theme=${theme}`);
				await page.waitForSelector('[data-test-id="canvas-node"]');
				await editor.openNode('Get Summary');
				await editor.executeStep();
				const [summary] = await editor.outputItems();
				assert.equal(summary.contacts, summary.answered + summary.inFlight + summary.pending + summary.new + summary.finished + summary.failed + summary.unknown + summary.doNotCall + summary.other);
				const panel = page.locator('[data-test-id="output-panel"]');
				await panel.getByText('Binary', { exact: true }).first().click();
				const card = panel.locator('[data-test-id="ndv-binary-data_0"]');
				await card.waitFor();
				assert.match(await card.innerText(), /picture[\s\S]*image\/png/, 'the Binary view lists the picture, a PNG');
				await panel.locator('[data-test-id="ndv-view-binary-data"]').first().click();
				const shown = await pictureShown(page);
				assert.equal(shown.width, PICTURE_WIDTH);
				assert.equal(shown.height, PICTURE_HEIGHT);
				assert.ok(shown.shown.width > 300, `the picture is shown (${JSON.stringify(shown.shown)})`);
				// The panel shows the light picture in both themes (a node is not told the editor's theme): an opaque card.
				assertBarMatches(shown, summary, 'light');
				state.pictureOnScreen = shown.shown;
				await shot(theme);
				await editor.closeNdv();
			}
		},
	},
	{
		name: 'campaign progress: example 9 imported, its Webhook given a Basic Auth credential in the editor, published',
		async run({ editor, page, env, state }) {
			assert.ok(state.campaign, 'the campaign steps imported example 6');
			const credential = (await env.n8n.rest('GET', '/credentials')).find((c) => c.type === N8N_API_CREDENTIAL_TYPE);
			const example = loadExamples().find((e) => e.file === '9-campaign-progress-page.json');
			const [{ workflow }] = prepareExamples([example], { ...env.byType, [N8N_API_CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } }, { baseUrl: env.n8n.url });
			workflow.name = 'UI: example 9, campaign progress page';
			workflow.nodes.find((node) => node.name === 'Get Summary').parameters.pageRefreshSeconds = REFRESH_SECONDS;
			state.progress = await env.n8n.createWorkflow(workflow);
			state.pageUrl = `${env.n8n.url}/webhook/${PAGE_PATH}`;

			// Without a credential n8n refuses to publish it: the page is never open to all.
			await assert.rejects(env.n8n.api('POST', `/workflows/${state.progress.id}/publish`), /Missing required credential: httpBasicAuth/);
			await editor.openWorkflow(state.progress.id);
			await editor.openNode('Progress Page');
			const ndv = page.locator('[data-test-id="ndv"]');
			assert.match(await ndv.innerText(), /Basic Auth/, 'the Webhook asks for Basic Auth');
			await createBasicAuthCredential(editor);
			await waitFor('the Basic Auth credential chosen in the Webhook', async () => (await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue().catch(() => '')) !== '');
			await editor.closeNdv();
			await page.keyboard.press('Control+s');
			await waitFor('the workflow saved with the credential', async () => {
				const saved = await env.n8n.rest('GET', `/workflows/${state.progress.id}`);
				return Boolean(saved.nodes.find((node) => node.name === 'Progress Page').credentials?.httpBasicAuth?.id);
			});
			await page.click('[data-test-id="workflow-open-publish-modal-button"]');
			await page.click('[data-test-id="workflow-publish-button"]');
			await page.locator('[data-test-id="activation-modal"]').getByText('Got it').click().catch(() => {});
			// Published workflows start listening a moment after.
			await waitFor('the page to answer', async () => (await fetch(state.pageUrl)).status !== 404, { timeoutMs: 30000, intervalMs: 500 });
		},
	},
	{
		name: "campaign progress: the page refused without the password; with it, the table's counts and states, changing by themselves as calls end",
		async run({ page, env, state, shot }) {
			assert.ok(state.pageUrl, 'the previous step published example 9');
			// n8n's Webhook answers 401 with a Basic challenge (a browser asks for the password), without the page.
			for (const [what, headers] of [['no password', {}], ['a wrong password', { authorization: basic(PAGE_USER, 'not the password') }]]) {
				const refused = await fetch(state.pageUrl, { headers });
				assert.equal(refused.status, 401, `${what}: refused`);
				assert.match(refused.headers.get('www-authenticate') ?? '', /^Basic /, `${what}: a Basic challenge`);
				assert.doesNotMatch(await refused.text(), new RegExp(TABLE), `${what}: nothing of the campaign`);
			}

			const table = (await env.n8n.dataTables('GET', '?take=250')).data.find((t) => t.name === TABLE);
			// Contacts added while the page is open (the campaign takes them at its next run); their calls ring 8 s.
			env.sandbox.setDialOutcome({ prefix: LATE_PREFIX, dialstatus: 'ANSWER', ringMs: 8000, durationSec: 3, persistDelayMs: 0 });
			const late = Array.from({ length: LATE_CONTACTS }, (_, i) => ({ phone: `${LATE_PREFIX}${String(i).padStart(4, '0')}`, name: `Late ${i}`, timezone: 'America/Denver' }));
			await env.n8n.dataTables('POST', `/${table.id}/insert`, { data: late, returnType: 'count' });

			const progress = await page.context().newPage();
			await progress.setExtraHTTPHeaders({ authorization: basic(PAGE_USER, PAGE_PASSWORD) });
			let loads = 0;
			progress.on('load', () => (loads += 1));
			const answer = await progress.goto(state.pageUrl);
			assert.equal(answer.status(), 200);
			assert.match(answer.headers()['content-type'], /^text\/html/);
			// n8n serves a webhook's HTML in a sandbox (scripts allowed): the page needs no script, and its <meta> refresh runs.
			assert.match(answer.headers()['content-security-policy'] ?? '', /sandbox/);
			assert.equal(await progress.locator('[data-field="campaign"]').innerText(), TABLE);

			// Every contact of the suite answers: the page first shows some still to call, then all of them answered.
			const first = await pageMatchingTable(env, progress, table.id, (shown, now) => shown.counts.answered < now.contacts, 'the page to show the table while contacts are still to be called');
			await shot('page-light', progress, { fullPage: true });
			const later = await pageMatchingTable(env, progress, table.id, (shown, now) => shown.counts.answered === now.contacts, 'the page to show every contact answered');
			assert.ok(later.shown.counts.answered > first.shown.counts.answered, 'the page changed as calls ended');
			assert.ok(later.shown.lastChangeAt > first.shown.lastChangeAt, 'the time of the last change moved on');
			assert.ok(loads >= 3, `the page reloaded itself (${loads} loads; the suite loaded it once)`);
			await progress.emulateMedia({ colorScheme: 'dark' });
			await shot('page-dark', progress, { fullPage: true });
			await progress.close();
		},
	},
];

module.exports = { progressSteps };
