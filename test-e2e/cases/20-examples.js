// Every example workflow (examples/*.json) imports into n8n and runs against the sandbox, and its output is
// asserted: the campaign places one call per contact with the results trigger's URL and the contact's id as Call
// Result URL; the
// results workflow (published) records each call result in its data table; the escalation waits for the
// sandbox's callback and calls the backup when the primary does not answer; the knowledge base ends with a
// processed document in a collection attached to an assistant.
'use strict';
const assert = require('node:assert/strict');
const { after, before, describe, test } = require('node:test');

const { EXAMPLE_DIAL_OUTCOMES, loadExamples } = require('../../scripts/n8n-examples');
const { assertNoSecrets, assistantsOf, requestsTo } = require('../support/assertions');
const { importExamples } = require('../support/examples');
const { waitForCallbacks } = require('../support/wait');
const { TRIGGER_TYPE, assistantPlatformNode, chain, errorOf, manualTrigger, outputOf, publishTrigger, triggerUrl, unpublishTrigger, waitUntilListening } = require('../support/workflows');

const CAMPAIGN = '1-campaign.json';
const RESULTS = '2-call-results.json';
const ESCALATION = '3-escalation.json';
const KNOWLEDGE = '4-knowledge.json';
const DURABLE_CAMPAIGN = '6-durable-campaign.json';
const AGENT_WITH_REVIEW = '7-agent-with-human-review.json';
const OPT_OUTS = '8-opt-outs.json';
// Example 9's page is opened in a browser by the browser suite (test-ui/progressSteps.js).
const PROGRESS_PAGE = '9-campaign-progress-page.json';
const CONTACTS = 'Assistant Platform campaign contacts';
const DO_NOT_CALL = 'Assistant Platform Do-Not-Call List';
const CALL_LOG = 'Assistant Platform call log';

/** The example's node called `name`, as imported. */
function nodeOf(example, name) {
	const node = example.workflow.nodes.find((n) => n.name === name);
	assert.ok(node, `node "${name}" not in ${example.workflow.name}`);
	return node;
}

/** The dial status the sandbox was told to give `dst` (ANSWER when no rule names it). */
function plannedOutcome(dst) {
	return EXAMPLE_DIAL_OUTCOMES[dst]?.dialstatus ?? 'ANSWER';
}

function register(env) {
	describe('example workflows (examples/*.json)', () => {
		let imported;
		let firstAssistant;
		let campaignCalls;

		before(async () => {
			env.sandbox.reset();
			firstAssistant = assistantsOf(env.sandbox)[0];
			imported = await importExamples(env);
			// The results workflow must listen before the campaign's call results arrive (sent once, never retried).
			await env.n8n.api('POST', `/workflows/${imported.byFile[RESULTS].id}/publish`);
			await waitUntilListening(env.n8n, nodeOf(imported.byFile[RESULTS], 'Call Result'));
		});

		after(async () => {
			if (imported?.byFile[RESULTS]) await env.n8n.api('POST', `/workflows/${imported.byFile[RESULTS].id}/unpublish`);
		});

		test('every example is imported as it is written (nodes, connections, no placeholder left)', async () => {
			const files = loadExamples().map((e) => e.file);
			assert.deepEqual(files, [CAMPAIGN, RESULTS, ESCALATION, KNOWLEDGE, DURABLE_CAMPAIGN, AGENT_WITH_REVIEW, OPT_OUTS, PROGRESS_PAGE]);
			for (const file of files) {
				const { id, workflow } = imported.byFile[file];
				const stored = await env.n8n.api('GET', `/workflows/${id}`);
				assert.equal(stored.name, workflow.name);
				assert.deepEqual(
					stored.nodes.map((n) => [n.name, n.type]).sort(),
					workflow.nodes.map((n) => [n.name, n.type]).sort(),
					file,
				);
				assert.deepEqual(stored.connections, workflow.connections, file);
				assert.doesNotMatch(JSON.stringify(stored.nodes), /__[A-Z_]+__/, `${file}: a placeholder was not filled in`);
			}
			// The campaign's Call Result URL is the Production URL of the results trigger.
			const trigger = nodeOf(imported.byFile[RESULTS], 'Call Result');
			assert.equal(trigger.type, TRIGGER_TYPE);
			assert.equal(imported.callResultUrl, triggerUrl(env.n8n, trigger, 'call-result'));
			assert.equal(nodeOf(imported.byFile[CAMPAIGN], 'Place Call').parameters.options.callResultUrl, imported.callResultUrl);
		});

		test('1 campaign: one call per contact, in one batch of 5, each with the results trigger URL and the contact as Call Result URL', async () => {
			const campaign = imported.byFile[CAMPAIGN];
			env.sandbox.clearJournal();
			env.sandbox.clearCallbacks();

			const execution = await env.n8n.runWorkflow(campaign.id);

			assert.equal(execution.status, 'success', errorOf(execution));
			const contacts = outputOf(execution, 'Contacts');
			assert.equal(contacts.length, 3);
			const items = outputOf(execution, 'Place Call');
			assert.equal(items.length, 3);
			items.forEach((item, i) => {
				assert.match(String(item.internal_id), /^[0-9a-f]{16,}$/, `item ${i}: internal_id`);
				// Placed, its outcome not known yet: the result goes to the trigger.
				assert.equal(item.dialStatus, null);
				assert.equal(item.pending, true);
				assert.equal(item.route, 'trunk');
				assert.equal(item.dst, contacts[i].phone);
				assert.equal(item.callerId, '+390200001001');
				assert.deepEqual(item.context, { contactId: contacts[i].contactId });
				assert.ok(!('attempt' in item) && !('nextCall' in item) && !('resultSource' in item), JSON.stringify(item));
				// Where the result goes is shown, without the trigger's secret or the query.
				assert.equal(item.callResultUrl, `${env.n8n.url}/webhook/***/***/call-result?***`);
			});
			const secret = nodeOf(imported.byFile[RESULTS], 'Call Result').parameters.webhookSecret;
			assert.ok(!JSON.stringify(execution.data).includes(secret), 'the webhook secret is in the execution data');
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');

			// The sandbox saw exactly one authenticated POST per contact, and nothing else.
			const posts = requestsTo(env.sandbox, 'POST', '/webhook/outbound_call');
			assert.equal(posts.length, 3);
			assert.deepEqual(posts.map((p) => p.body.dst).sort(), contacts.map((c) => c.phone).sort());
			assert.equal(env.sandbox.journal.length, posts.length);
			for (const post of posts) {
				assert.equal(post.auth, 'ok');
				assert.equal(post.status, 200);
				const contact = contacts.find((c) => c.phone === post.body.dst);
				assert.equal(post.body.callResultUrl, `${imported.callResultUrl}?${new URLSearchParams({ ctx_contactId: contact.contactId })}`);
				assert.equal(post.body.callerId, '+390200001001');
				assert.equal(post.body.assistantApiKey, `[masked:${firstAssistant.assistantId}]`);
			}
			campaignCalls = items.map((item, i) => ({ internalId: String(item.internal_id), dst: item.dst, contactId: contacts[i].contactId }));
		});

		test('2 call results: the published trigger starts once per call result and upserts one row per call', async () => {
			assert.ok(campaignCalls, 'the campaign did not run');
			const results = imported.byFile[RESULTS];

			// The sandbox posted the three results to the trigger's Production URL; n8n accepted each one.
			const delivered = (await waitForCallbacks(env.sandbox, { kind: 'callResult' }, { count: 3 })).filter((c) => c.url.startsWith(`${imported.callResultUrl}?`));
			assert.equal(delivered.length, 3);
			for (const callback of delivered) assert.equal(callback.status, 200, `${callback.url}: ${callback.error}`);
			assert.deepEqual(
				delivered.map((c) => c.internal_id).sort(),
				campaignCalls.map((c) => c.internalId).sort(),
			);

			const executions = await env.n8n.waitForExecutions(results.id, { count: 3 });
			assert.equal(executions.length, 3);
			const received = new Map();
			for (const execution of executions) {
				assert.equal(execution.status, 'success', errorOf(execution));
				assert.equal(execution.mode, 'webhook');
				const [event] = outputOf(execution, 'Call Result');
				assert.equal(event.event, 'callResult');
				received.set(String(event.internal_id), event);
			}
			for (const call of campaignCalls) {
				const event = received.get(call.internalId);
				assert.ok(event, `no execution for call ${call.internalId}`);
				const outcome = plannedOutcome(call.dst);
				assert.equal(event.dialStatus, outcome, call.dst);
				assert.equal(event.duration, outcome === 'ANSWER' ? 2 : 0, call.dst);
				assert.deepEqual(event.body, { internal_id: call.internalId, dialstatus: outcome, duration: event.duration });
				// The contact came back from the Call Result URL; the trigger decides nothing about calling again.
				assert.deepEqual(event.context, { contactId: call.contactId });
				assert.ok(!('attempt' in event) && !('nextCall' in event), JSON.stringify(event));
			}

			const rows = (await env.n8n.dataTables('GET', `/${imported.tables[CALL_LOG].id}/rows?take=250`)).data;
			assert.equal(rows.length, 3, JSON.stringify(rows));
			const byId = new Map(rows.map((row) => [row.internal_id, row]));
			for (const call of campaignCalls) {
				const row = byId.get(call.internalId);
				assert.ok(row, `no row for call ${call.internalId}`);
				const outcome = plannedOutcome(call.dst);
				assert.equal(row.outcome, outcome);
				assert.equal(row.reached, outcome === 'ANSWER');
				assert.equal(row.durationSec, outcome === 'ANSWER' ? 2 : 0);
				assert.ok(!Number.isNaN(Date.parse(row.receivedAt)), `receivedAt ${row.receivedAt}`);
			}
			assert.deepEqual(rows.map((row) => row.outcome).sort(), ['ANSWER', 'ANSWER', 'BUSY']);
		});

		test('3 escalation: waits, resumes from the call result, and calls the backup when the primary does not answer', async () => {
			const escalation = imported.byFile[ESCALATION];
			const numbers = Object.fromEntries(
				nodeOf(escalation, 'On-Call Numbers').parameters.assignments.assignments.map((a) => [a.name, a.value]),
			);
			assert.equal(plannedOutcome(numbers.primary), 'NOANSWER');
			assert.equal(plannedOutcome(numbers.backup), 'ANSWER');
			env.sandbox.clearJournal();
			env.sandbox.clearCallbacks();

			// The primary rings (2 s) while the execution waits.
			const waiting = await env.n8n.runWorkflow(escalation.id, { until: 'waiting' });
			assert.equal(waiting.status, 'waiting', errorOf(waiting));
			assert.equal(waiting.data.resultData.lastNodeExecuted, 'Call Primary');
			assert.ok(Date.parse(waiting.waitTill) > Date.now() + 4 * 60 * 1000, `waitTill ${waiting.waitTill}`);

			const execution = await env.n8n.waitForExecution(waiting.id, { timeoutMs: 40000 });
			assert.equal(execution.status, 'success', errorOf(execution));

			const resumeUrl = `${env.n8n.url}/webhook-waiting/${execution.id}`;
			const posts = requestsTo(env.sandbox, 'POST', '/webhook/outbound_call');
			assert.deepEqual(posts.map((p) => p.body.dst), [numbers.primary, numbers.backup]);
			for (const post of posts) {
				assert.equal(post.auth, 'ok');
				assert.ok(post.body.callResultUrl.startsWith(resumeUrl), post.body.callResultUrl);
			}
			// Each wait ended with the sandbox's call result, accepted by n8n's resume URL.
			const callbacks = env.sandbox.callbacks.filter((c) => c.kind === 'callResult');
			assert.equal(callbacks.length, 2);
			for (const callback of callbacks) {
				assert.ok(callback.url.startsWith(resumeUrl), callback.url);
				assert.equal(callback.status, 200, callback.error ?? '');
			}

			const [primary] = outputOf(execution, 'Call Primary');
			assert.equal(primary.resultSource, 'callback');
			assert.equal(primary.dialstatus, 'NOANSWER');
			assert.equal(primary.dst, numbers.primary);
			assert.equal(String(primary.internal_id), callbacks[0].internal_id);
			assert.deepEqual(outputOf(execution, 'Answered?', { output: 0 }), []);
			assert.equal(outputOf(execution, 'Answered?', { output: 1 }).length, 1);
			assert.equal(execution.data.resultData.runData['Primary Reached'], undefined, 'the true branch ran');

			const [backup] = outputOf(execution, 'Call Backup');
			assert.equal(backup.resultSource, 'callback');
			assert.equal(backup.dialstatus, 'ANSWER');
			assert.equal(backup.dst, numbers.backup);
			assert.equal(String(backup.internal_id), callbacks[1].internal_id);
			assert.deepEqual(outputOf(execution, 'Backup Result'), [{ reached: numbers.backup, internal_id: callbacks[1].internal_id }]);
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');
			assert.doesNotMatch(JSON.stringify(execution.data.resultData.runData), /webhook-waiting/, 'a resume URL is in the output');
		});

		test('4 knowledge base: collection created, document uploaded and processed, collection attached', async () => {
			const knowledge = imported.byFile[KNOWLEDGE];
			env.sandbox.clearJournal();

			const execution = await env.n8n.runWorkflow(knowledge.id, { timeoutMs: 60000 });

			assert.equal(execution.status, 'success', errorOf(execution));
			const [assistant] = outputOf(execution, 'Pick Assistant');
			assert.equal(assistant.assistantId, firstAssistant.assistantId);
			const [collection] = outputOf(execution, 'Create Collection');
			assert.match(collection.ragId, /^rag_/);
			assert.match(collection.name, /^Product FAQ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
			const [upload] = outputOf(execution, 'Upload Document');
			assert.equal(upload.status, 'completed');
			assert.equal(upload.timedOut, false);
			assert.equal(upload.ragId, collection.ragId);
			const [attached] = outputOf(execution, 'Attach to Assistant');
			assert.equal(attached.assistantId, firstAssistant.assistantId);
			assert.equal(attached.ragId, collection.ragId);

			// The sandbox's state: the collection with one processed document, attached to the assistant.
			const state = env.sandbox.state;
			const stored = state.collections.get(collection.ragId);
			assert.ok(stored, 'the collection is not in the sandbox');
			assert.equal(stored.name, collection.name);
			assert.equal(stored.description, 'Answers to the questions customers ask most');
			const faq = nodeOf(knowledge, 'FAQ Text').parameters.assignments.assignments[0].value;
			assert.deepEqual(
				stored.documents.map((d) => ({ fileName: d.fileName, sizeBytes: d.sizeBytes, chunkSize: d.chunkSize, status: d.status })),
				[{ fileName: 'faq.txt', sizeBytes: Buffer.byteLength(faq), chunkSize: 1000, status: 'completed' }],
			);
			assert.equal(state.uploads.get(upload.uploadId)?.status, 'completed');
			assert.equal(state.ragAttachments.get(firstAssistant.assistantId), collection.ragId);

			const uploads = requestsTo(env.sandbox, 'POST', `/api/v1/rag/collections/${collection.ragId}/documents`);
			assert.equal(uploads.length, 1);
			assert.deepEqual(uploads[0].body.fields, { chunkSize: '1000' });
			assert.deepEqual(
				uploads[0].body.files.map((f) => [f.fieldName, f.fileName, f.size]),
				[['files', 'faq.txt', Buffer.byteLength(faq)]],
			);
			assert.ok(requestsTo(env.sandbox, 'GET', `/api/v1/rag/uploads/${upload.uploadId}`).length >= 1, 'no progress poll');
			const attach = requestsTo(env.sandbox, 'PATCH', `/api/v1/assistants/${firstAssistant.assistantId}/runtime/rag`);
			assert.equal(attach.length, 1);
			assert.deepEqual(attach[0].body, { ragId: collection.ragId });
			assert.ok(env.sandbox.journal.every((e) => e.auth === 'ok'));
		});

		test('8 opt-outs: published, it sets the assistant\'s data extraction; a person who opts out during a campaign\'s call goes on the do-not-call list', async (t) => {
			if (env.n8n.majorVersion < 2) return t.skip("n8n 1.x: its public API has no data tables, which the campaign and the list live in");
			const optOuts = imported.byFile[OPT_OUTS];
			const trigger = nodeOf(optOuts, 'Opt-Outs');
			// Example 6's Set Up Once prepares the contacts table the opt-out is looked up in.
			const setUp = await env.n8n.runWorkflow(imported.byFile[DURABLE_CAMPAIGN].id, { trigger: 'Set Up Once' });
			assert.equal(setUp.status, 'success', errorOf(setUp));
			await publishTrigger(env.n8n, optOuts.id, trigger);
			try {
				const extraction = env.sandbox.state.extractionConfigs.get(firstAssistant.assistantId);
				assert.equal(extraction?.hangupUrl, triggerUrl(env.n8n, trigger, 'extracted-data'));
				assert.deepEqual(extraction.schema.map((p) => [p.name, p.type]), [['optOut', 'boolean']]);

				// A call of the campaign: placed, and its contact's row holding its internal_id, before the call ends.
				const number = '+14155550188';
				env.sandbox.setDialOutcome({ dst: number, dialstatus: 'ANSWER', ringMs: 3000, durationSec: 2 });
				const caller = await env.n8n.createWorkflow(
					chain('e2e: a campaign call', [manualTrigger(), assistantPlatformNode('Place Call', { resource: 'outboundCall', operation: 'placeCall', dst: number, callerId: '+390200001001' }, env.credentials.outbound)]),
				);
				const placed = await env.n8n.runWorkflow(caller.id);
				assert.equal(placed.status, 'success', errorOf(placed));
				const internalId = String(outputOf(placed, 'Place Call')[0].internal_id);
				const contacts = imported.tables[CONTACTS];
				await env.n8n.dataTables('POST', `/${contacts.id}/insert`, { data: [{ phone: number, name: 'Opted Out', timezone: 'UTC', campaignState: 'placed', attempt: 1, internalId }], returnType: 'count' });

				// The sandbox posts the extracted data (optOut true) after the call: one execution adds the number.
				const [execution] = await env.n8n.waitForExecutions(optOuts.id, { count: 1, timeoutMs: 30000 });
				assert.equal(execution.status, 'success', errorOf(execution));
				const [added] = outputOf(execution, 'Add to Do-Not-Call List');
				assert.equal(added.phone, number);
				assert.equal(added.internal_id, internalId);
				assert.equal(added.source, `said during call ${internalId}`);
				const tables = (await env.n8n.dataTables('GET', '?take=250')).data;
				const list = tables.find((table) => table.name === DO_NOT_CALL);
				const rows = (await env.n8n.dataTables('GET', `/${list.id}/rows?take=250`)).data;
				assert.deepEqual(rows.map((row) => [row.phone, row.source]), [[number, `said during call ${internalId}`]]);
			} finally {
				await unpublishTrigger(env.n8n, optOuts.id, trigger);
			}
		});
	});
}

module.exports = { register };
