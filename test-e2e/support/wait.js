// Polling helpers for things that happen asynchronously (sandbox callbacks, n8n executions).
'use strict';
const { connectionReset, delay } = require('../../scripts/n8n-runtime');

/**
 * Calls `check` until it returns a truthy value (which is returned), or fails after `timeoutMs` naming `what`
 * (and, if given, `describe()`: the state last seen). A check whose connection to n8n was reset is tried again.
 */
async function waitFor(what, check, { timeoutMs = 20000, intervalMs = 200, describe } = {}) {
	const started = Date.now();
	for (;;) {
		let value;
		try {
			value = await check();
		} catch (error) {
			if (!connectionReset(error)) throw error;
		}
		if (value) return value;
		if (Date.now() - started > timeoutMs) {
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${describe ? `; last seen: ${describe()}` : ''}`);
		}
		await delay(intervalMs);
	}
}

/**
 * The callbacks the sandbox delivered (`sandbox.callbacks`) that match `filter` ({ kind?, url?, internal_id? }),
 * once there are at least `count` of them.
 */
async function waitForCallbacks(sandbox, filter, { count = 1, timeoutMs = 20000 } = {}) {
	const matching = () =>
		sandbox.callbacks.filter((c) => Object.entries(filter).every(([key, value]) => c[key] === value));
	return waitFor(`${count} sandbox callback(s) ${JSON.stringify(filter)}`, () => (matching().length >= count ? matching() : null), {
		timeoutMs,
		describe: () => JSON.stringify(sandbox.callbacks.map(({ kind, url, status, error }) => ({ kind, url, status, error }))),
	});
}

module.exports = { waitFor, waitForCallbacks };
