// What a person does in n8n's editor, as page actions (n8n 2.41's data-test-id attributes).
'use strict';
const assert = require('node:assert/strict');

const NODE_ITEM = '[data-test-id="node-creator"] [data-test-id="item-iterator-item"]';

class Editor {
	constructor(page, env) {
		this.page = page;
		this.env = env;
		this.url = env.n8n.url;
	}

	async signIn() {
		const { page } = this;
		await page.goto(`${this.url}/signin`);
		await page.fill('[data-test-id="emailOrLdapLoginId"] input, input[name="emailOrLdapLoginId"]', this.env.n8n.owner.email);
		await page.fill('input[type="password"]', this.env.n8n.owner.password);
		await page.click('[data-test-id="form-submit-button"]');
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30000 });
	}

	/** Leaves whatever is open (dialogs, panels) after a failed step. */
	async reset() {
		for (let i = 0; i < 3; i++) await this.page.keyboard.press('Escape');
	}

	async newWorkflow() {
		await this.page.goto(`${this.url}/workflow/new`);
		await this.page.waitForSelector('[data-test-id="canvas-add-button"]');
	}

	async openWorkflow(id) {
		await this.page.goto(`${this.url}/workflow/${id}`);
		await this.page.waitForSelector('[data-test-id="canvas-node"]');
	}

	/** The trigger panel of an empty workflow ("Add first step"). */
	async openTriggerPanel() {
		await this.page.click('[data-test-id="canvas-add-button"]');
		await this.page.waitForSelector('[data-test-id="node-creator-search-bar"]');
	}

	/** The "What happens next?" panel, from the + after the last node. */
	async openNextPanel() {
		await this.page.click('[data-test-id="zoom-to-fit"]');
		// A click waits until its target stops moving, so the zoom's animation is over when it lands.
		await this.page.locator('[data-test-id="canvas-handle-plus"]').last().click();
		await this.page.waitForSelector('[data-test-id="node-creator-search-bar"]');
		const title = await this.page.locator('[data-test-id="node-creator"]').innerText();
		assert.match(title, /What happens next/, 'the + after a node opens the "What happens next?" panel');
	}

	async closePanel() {
		await this.page.keyboard.press('Escape');
		await this.page.waitForSelector('[data-test-id="node-creator"]', { state: 'detached' }).catch(() => {});
	}

	/**
	 * Types into the node panel's search; returns the entries shown: [{ name, description }]. n8n applies a search
	 * 300 ms after the last keystroke, or at once on an arrow key (its search bar flushes the debounce then): the
	 * ArrowDown makes the list the query's before it is read.
	 */
	async search(query) {
		const bar = this.page.locator('[data-test-id="node-creator-search-bar"]');
		await bar.fill(query);
		await bar.press('ArrowDown');
		return await this.entries();
	}

	async entries() {
		return await this.page.$$eval(NODE_ITEM, (elements) =>
			elements.map((element) => ({
				name: element.querySelector('[data-test-id="node-creator-item-name"]')?.textContent?.trim() ?? element.innerText.split('\n')[0].trim(),
				description: element.querySelector('[data-test-id="node-creator-item-description"]')?.textContent?.trim() ?? '',
				text: element.innerText.replace(/\s+/g, ' ').trim(),
			})),
		);
	}

	async clickEntry(name) {
		await this.page.locator(NODE_ITEM).filter({ has: this.page.locator(`[data-test-id="node-creator-item-name"]`, { hasText: new RegExp(`^${escape(name)}$`) }) }).first().click();
	}

	/** The text of the panel after opening an app entry (n8n lists a community app's actions in its details). */
	async actions() {
		const panel = this.page.locator('[data-test-id="node-creator"]');
		await panel.getByText(/Actions|Triggers/).first().waitFor();
		return [await panel.innerText()];
	}

	async clickAction(text) {
		await this.page.locator('[data-test-id="node-creator"]').getByText(text, { exact: true }).first().click();
	}

	async addManualTrigger() {
		await this.openTriggerPanel();
		await this.search('Manual');
		await this.clickEntry('Manual Trigger');
		await this.page.waitForSelector('[data-test-id="canvas-node"]');
		await this.closeNdv();
	}

	async ndvOpen() {
		await this.page.waitForSelector('[data-test-id="ndv"] [data-test-id="node-parameters"]');
	}

	async closeNdv() {
		const close = this.page.locator('[data-test-id="ndv-close-button"]');
		if (await close.isVisible().catch(() => false)) await close.click();
	}

	/** The credential picker of the open node: { selected, options: [{ name, type }] }. */
	async credentialPicker() {
		const { page } = this;
		const select = page.locator('[data-test-id="ndv"] [data-test-id="node-credentials-select"]');
		await select.waitFor();
		// The usable credentials are fetched when the panel opens, then one is preselected: wait for it (up to 10 s;
		// none after that is what the caller's assertion reports).
		const input = select.locator('input');
		await page.waitForFunction((element) => element.value !== '', await input.elementHandle(), { timeout: 10000 }).catch(() => {});
		const selected = await input.inputValue();
		await select.click();
		const dropdown = page.locator('.el-select-dropdown:visible, .el-popper:visible').last();
		await dropdown.waitFor();
		await page.locator('.el-select-dropdown__item:visible, [role="option"]:visible').first().waitFor();
		const options = await page.$$eval('.el-select-dropdown__item, [role="option"]', (elements) =>
			elements
				.filter((element) => element.offsetParent !== null)
				.map((element) => {
					const [name, type = ''] = element.innerText.split('\n').map((s) => s.trim()).filter(Boolean);
					return { name, type };
				}),
		);
		await page.keyboard.press('Escape');
		return { selected, options };
	}

	async executeStep() {
		await this.page.click('[data-test-id="ndv"] [data-test-id="node-execute-button"]');
	}

	/** The output panel's text once it shows items or an error (it fills in when the run ends). */
	async outputText({ timeout = 30000, until = /\b\d+ items?\b|error|problem/i } = {}) {
		const shown = await textMatching(this.page, '[data-test-id="output-panel"]', until, timeout);
		if (!until.test(shown)) throw new Error(`the output panel shows no items after ${timeout / 1000} s: ${shown.slice(0, 300)}`);
		return shown;
	}

	/** Opens the node named `name` on the canvas (its panel). */
	async openNode(name) {
		await this.page.locator('[data-test-id="canvas-node"]', { hasText: name }).first().dblclick();
		await this.ndvOpen();
	}

	/** Chooses `text` in the open dropdown (an option's name, not its description). */
	async chooseOption(text) {
		await this.page.locator('.el-select-dropdown:visible, .el-popper:visible').last().getByText(text, { exact: true }).first().click();
	}

	/** The items of the output panel, read from its JSON view once the run has ended. */
	async outputItems({ timeout = 60000 } = {}) {
		const shown = await this.outputText({ timeout });
		if (!/\b\d+ items?\b/i.test(shown)) throw new Error(`the output panel shows no items: ${shown.slice(0, 400)}`);
		const panel = this.page.locator('[data-test-id="output-panel"]');
		await panel.getByText('JSON', { exact: true }).first().click();
		const text = await textMatching(this.page, '[data-test-id="output-panel"]', /\]\s*$/, 10000);
		// the JSON view puts every token on a line of its own: joined again, it is the items' JSON
		const joined = text.replace(/\n\s*/g, '');
		const start = joined.indexOf('[');
		try {
			return JSON.parse(joined.slice(start));
		} catch {
			throw new Error(`the output panel's JSON view shows no items: ${joined.slice(0, 400)}`);
		}
	}

	async canvasNodes() {
		return await this.page.$$eval('[data-test-id="canvas-node"]', (elements) =>
			elements.map((element) => element.innerText.split('\n').map((s) => s.trim()).filter(Boolean)),
		);
	}
}

/** The text of `selector` once it matches `pattern`, or as it is after `timeout` ms. */
async function textMatching(page, selector, pattern, timeout) {
	const read = (sel) => document.querySelector(sel)?.innerText ?? '';
	const matches = ([sel, source, flags]) => new RegExp(source, flags).test(document.querySelector(sel)?.innerText ?? '');
	await page.waitForFunction(matches, [selector, pattern.source, pattern.flags], { timeout }).catch(() => {});
	return await page.evaluate(read, selector);
}

function escape(text) {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

module.exports = { Editor, textMatching };
