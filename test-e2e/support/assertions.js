// Assertions shared by the case modules.
'use strict';
const assert = require('node:assert/strict');

/** The records of a sandbox store (an OrderedStore with `list`; a Map, array or record also work). */
function recordsOf(store) {
	if (!store) return [];
	if (Array.isArray(store.list)) return [...store.list];
	if (store instanceof Map) return [...store.values()];
	return Array.isArray(store) ? [...store] : Object.values(store);
}

/** The sandbox's assistant records, in creation order. */
function assistantsOf(sandbox) {
	return recordsOf(sandbox.state.assistants);
}

/** Every secret the sandbox knows: the portal key, the outbound key and every assistant key. */
function secretsOf(sandbox) {
	return [sandbox.portalKey, sandbox.outboundKey, ...assistantsOf(sandbox).map((a) => a.assistantApiKey)].filter(
		(secret) => typeof secret === 'string' && secret.length >= 6,
	);
}

/** Fails when any sandbox secret appears anywhere in `value` (serialized). */
function assertNoSecrets(sandbox, value, what) {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	for (const secret of secretsOf(sandbox)) {
		assert.ok(!text.includes(secret), `${what} contains a secret (${secret.slice(0, 4)}...)`);
	}
}

/** The sandbox's journal entries for a method and path (exact path, without the query). */
function requestsTo(sandbox, method, path) {
	return sandbox.journal.filter((entry) => entry.method === method && entry.path === path);
}

module.exports = { recordsOf, assistantsOf, secretsOf, assertNoSecrets, requestsTo };
