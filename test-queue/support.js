// Helpers for the queue-mode cases: workflow nodes beside test-e2e/support/workflows.js, paged execution lists,
// a small promise pool, and journal counts.
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const { assistantPlatformNode, chain } = require('../test-e2e/support/workflows');
const { delay, httpJson } = require('../scripts/n8n-runtime');

/** A production Webhook node (POST <webhook processor>/webhook/<path>), answering as soon as it is received. */
function webhookNode(name, webhookPath) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
	};
}

/** Split Out: one item per element of `field` (e.g. body.calls). */
function splitOutNode(name, field) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [0, 0],
		parameters: { fieldToSplitOut: field, include: 'noOtherFields', options: {} },
	};
}

/**
 * A published campaign: Webhook (POST body {calls: [{dst}]}) -> Split Out -> Place Call with Request Options >
 * Batching `batch`. Returns the workflow and the webhook processor URL that starts it.
 */
async function campaignWorkflow(cluster, name, { callerId, batch }) {
	const webhookPath = `q-campaign-${crypto.randomUUID()}`;
	const workflow = await cluster.main.createWorkflow(
		chain(name, [
			webhookNode('Campaign Start', webhookPath),
			splitOutNode('One Item per Number', 'body.calls'),
			assistantPlatformNode(
				'Place Call',
				{
					resource: 'outboundCall',
					operation: 'placeCall',
					route: 'trunk',
					dst: '={{ $json.dst }}',
					callerId,
					options: {},
					requestOptions: { batching: { batch } },
				},
				cluster.credentials.outbound,
			),
		]),
	);
	await cluster.main.api('POST', `/workflows/${workflow.id}/publish`);
	return { workflow, url: `${cluster.webhookUrl}/webhook/${webhookPath}` };
}

/** `count` distinct E.164 numbers starting at `+<prefix><0000000>`. */
function numbers(prefix, count, from = 0) {
	return Array.from({ length: count }, (_, i) => `+${prefix}${String(from + i).padStart(7, '0')}`);
}

/** Runs `fn` over `items` with at most `limit` promises in flight; resolves with the results in order. */
async function pool(items, limit, fn) {
	const results = new Array(items.length);
	let next = 0;
	const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
		while (next < items.length) {
			const i = next++;
			results[i] = await fn(items[i], i);
		}
	});
	await Promise.all(workers);
	return results;
}

/** POST a JSON body to a URL; resolves with { status, body }. Never throws for an HTTP status. */
function post(url, body, headers = {}) {
	return httpJson('POST', url, { body, headers, expect: 'any', timeoutMs: 60000 });
}

/** Every execution of a workflow (public API, pages of 250), newest first. */
async function allExecutions(n8n, workflowId, { includeData = false, status } = {}) {
	const out = [];
	let cursor;
	for (;;) {
		const qs = new URLSearchParams({ workflowId: String(workflowId), includeData: String(includeData), limit: '250' });
		if (status) qs.set('status', status);
		if (cursor) qs.set('cursor', cursor);
		const page = await n8n.api('GET', `/executions?${qs}`);
		out.push(...page.data);
		if (!page.nextCursor) return out;
		cursor = page.nextCursor;
	}
}

/** Waits until the workflow has `count` executions in a final state; returns them with their data. */
async function waitForFinished(n8n, workflowId, count, { timeoutMs = 120000, what = `workflow ${workflowId}` } = {}) {
	const started = Date.now();
	for (;;) {
		const list = await allExecutions(n8n, workflowId);
		const done = list.filter((e) => !['new', 'running', 'waiting'].includes(e.status));
		if (done.length >= count) return { list: await allExecutions(n8n, workflowId, { includeData: true }), ms: Date.now() - started };
		if (Date.now() - started > timeoutMs) {
			const byStatus = {};
			for (const e of list) byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
			throw new Error(`${what}: ${done.length} of ${count} executions finished after ${timeoutMs / 1000} s (${JSON.stringify(byStatus)})`);
		}
		await delay(500);
	}
}

/** The items a node output in an execution (all runs, first output). */
function itemsOf(execution, nodeName) {
	const runs = execution?.data?.resultData?.runData?.[nodeName] ?? [];
	return runs.flatMap((run) => (run?.data?.main?.[0] ?? []).map((item) => item.json));
}

/** The sandbox journal's placement POSTs (both routes), as { dst, status } per request. */
function placements(sandbox) {
	return sandbox.journal
		.filter((e) => e.method === 'POST' && (e.path === '/webhook/outbound_call' || e.path === '/webhook/outbound_call_pbx'))
		.map((e) => ({ dst: e.body?.dst, status: e.status, seq: e.seq }));
}

/** Counts POSTs per destination among `dsts`: { posts, accepted, perDst: Map, twice: [dst...], missing: [dst...] }. */
function countPlacements(sandbox, dsts) {
	const wanted = new Set(dsts);
	const perDst = new Map();
	let posts = 0;
	let accepted = 0;
	for (const p of placements(sandbox)) {
		if (!wanted.has(p.dst)) continue;
		posts++;
		if (p.status === 200) accepted++;
		perDst.set(p.dst, (perDst.get(p.dst) ?? 0) + 1);
	}
	const twice = [...perDst].filter(([, n]) => n > 1).map(([dst]) => dst);
	const missing = dsts.filter((dst) => !perDst.has(dst));
	return { posts, accepted, perDst, twice, missing };
}

/** Resolves once a published workflow's production webhook answers something else than 404 at the processor. */
async function waitForWebhook(url, body = {}, { timeoutMs = 30000, headers } = {}) {
	const started = Date.now();
	for (;;) {
		const r = await post(url, body, headers);
		if (r.status !== 404) return r;
		if (Date.now() - started > timeoutMs) throw new Error(`POST ${url} still 404 after ${timeoutMs / 1000} s`);
		await delay(250);
	}
}

const rate = (count, ms) => (ms > 0 ? (count / (ms / 1000)).toFixed(1) : 'n/a');

module.exports = {
	assert,
	webhookNode,
	splitOutNode,
	campaignWorkflow,
	numbers,
	pool,
	post,
	allExecutions,
	waitForFinished,
	itemsOf,
	placements,
	countPlacements,
	waitForWebhook,
	rate,
};
