// The Assistant Platform Call and Wait node in real n8n: placing the call puts the execution in `waiting`; the
// sandbox's call result, POSTed to the execution's resume URL, resumes it with the result enriched with the call
// status; when Max Wait passes without a result, n8n's wait tracker resumes it with the timeout item.
'use strict';
const assert = require('node:assert/strict');
const { after, describe, test } = require('node:test');

const { assertNoSecrets, assistantsOf, requestsTo } = require('../support/assertions');
const { waitForCallbacks } = require('../support/wait');
const { callAndWaitNode, chain, errorOf, manualTrigger, noOpNode, outputOf } = require('../support/workflows');

const CALLER_ID = '+390200001001'; // demo number of the first seeded assistant (its key is in the outbound credential)
const ANSWER_DST = '+14155550188';
const TIMEOUT_DST = '+14155550189';
const NODE = 'Place Call and Wait';
// The smallest Max Wait the parameter allows (typeOptions.minValue 0.1 minutes): 6 s.
const MIN_MAX_WAIT_MINUTES = 0.1;

/** Manual Trigger -> Call and Wait (to `dst`) -> No Operation "After Result". */
async function callAndWaitWorkflow(env, name, dst, maxWaitMinutes) {
	return env.n8n.createWorkflow(
		chain(name, [
			manualTrigger(),
			callAndWaitNode(NODE, { route: 'trunk', dst, callerId: CALLER_ID, maxWaitMinutes, options: {} }, env.credentials.outbound),
			noOpNode('After Result'),
		]),
	);
}

/** The run whose Max Wait passes: started by prepare(), checked by the timeout test. */
const timeoutRun = {};

/**
 * Max Wait passing is noticed by n8n's wait tracker, which looks for due executions once a minute (60 s,
 * hard-coded in n8n 2.41; a shorter Max Wait still waits for the next look). So the timeout run starts right
 * after the environment, before the first case (e2e.test.js calls prepare() then): that minute passes while the
 * other cases run, and the timeout test below only collects the result.
 */
async function prepare(env) {
	// The call rings for ten minutes: no call result can arrive within Max Wait.
	env.sandbox.setDialOutcome({ dst: TIMEOUT_DST, dialstatus: 'NOANSWER', ringMs: 10 * 60 * 1000 });
	const workflow = await callAndWaitWorkflow(env, 'e2e: call and wait, Max Wait passes', TIMEOUT_DST, MIN_MAX_WAIT_MINUTES);
	timeoutRun.startedAt = Date.now();
	timeoutRun.waiting = await env.n8n.runWorkflow(workflow.id, { until: 'waiting' });
	timeoutRun.placements = requestsTo(env.sandbox, 'POST', '/webhook/outbound_call').filter((e) => e.body?.dst === TIMEOUT_DST);
}

/**
 * Whether `url` is the resume URL of the execution whose base is `base` (<n8n>/webhook-waiting/<id>): n8n 2.x
 * appends its resume token (`?signature=…`), n8n 1.x has none.
 */
function isResumeUrlOf(url, base) {
	return url === base || url.startsWith(`${base}?`);
}

function register(env) {
	describe('Assistant Platform Call and Wait', () => {
		after(() => env.sandbox.setAnswers('spec'));
		// 'spec': the platform answers exactly as its interface document shows ({internal_id} on acceptance, the record
		// {dialStatus, billSec, trafficCost}); 'rich': a platform that adds status "queued" and the record's internal_id.
		for (const answers of ['spec', 'rich'])
		test(`placing the call puts the execution in waiting; the sandbox call result resumes it, enriched with the call status (${answers} answers)`, async () => {
			env.sandbox.reset();
			env.sandbox.setAnswers(answers);
			const assistant = assistantsOf(env.sandbox)[0];
			// Rings 1.5 s, talks 3 s; the call record is written 0.5 s after the end.
			env.sandbox.setDialOutcome({ dst: ANSWER_DST, dialstatus: 'ANSWER', ringMs: 1500, durationSec: 3 });
			const workflow = await callAndWaitWorkflow(env, 'e2e: call and wait', ANSWER_DST, 5);

			const waiting = await env.n8n.runWorkflow(workflow.id, { until: 'waiting' });

			assert.equal(waiting.status, 'waiting', errorOf(waiting));
			assert.equal(waiting.finished, false);
			assert.equal(waiting.data.resultData.lastNodeExecuted, NODE);
			const waitTill = Date.parse(waiting.waitTill);
			assert.ok(waitTill > Date.now() + 4 * 60 * 1000 && waitTill <= Date.now() + 5 * 60 * 1000, `waitTill ${waiting.waitTill}`);
			const [shown] = outputOf(waiting, NODE);
			assert.equal(shown.resultSource, 'waiting');
			assert.equal(shown.pending, true);
			assert.equal(env.sandbox.callbacks.length, 0, 'the call result arrived before the execution was waiting');

			// One call, whose Call Result URL is this execution's resume URL (with n8n's resume token).
			const resumeUrl = `${env.n8n.url}/webhook-waiting/${waiting.id}`;
			const posts = requestsTo(env.sandbox, 'POST', '/webhook/outbound_call');
			assert.equal(posts.length, 1);
			const [post] = posts;
			assert.equal(post.auth, 'ok');
			assert.equal(post.status, 200);
			assert.deepEqual(
				{ dst: post.body.dst, callerId: post.body.callerId, assistantApiKey: post.body.assistantApiKey },
				{ dst: ANSWER_DST, callerId: CALLER_ID, assistantApiKey: `[masked:${assistant.assistantId}]` },
			);
			assert.ok(isResumeUrlOf(post.body.callResultUrl, resumeUrl), post.body.callResultUrl);
			const internalId = String(shown.internal_id);
			assert.equal(internalId, env.sandbox.state.calls.values().next().value.internalId);

			// The sandbox posts the result to the resume URL; n8n runs the node's resume webhook and goes on.
			const [callback] = await waitForCallbacks(env.sandbox, { kind: 'callResult', internal_id: internalId });
			assert.equal(callback.url, post.body.callResultUrl);
			assert.equal(callback.status, 200, callback.error ?? '');
			const execution = await env.n8n.waitForExecution(waiting.id, { timeoutMs: 30000 });

			assert.equal(execution.status, 'success', errorOf(execution));
			assert.equal(execution.finished, true);
			const items = outputOf(execution, NODE);
			assert.equal(items.length, 1);
			const [result] = items;
			assert.equal(result.resultSource, 'callback');
			assert.equal(result.pending, false);
			assert.equal(String(result.internal_id), internalId);
			assert.equal(result.dialstatus, 'ANSWER');
			assert.equal(result.duration, 3);
			assert.equal(result.dst, ANSWER_DST);
			assert.equal(result.callerId, CALLER_ID);
			assert.equal(result.route, 'trunk');
			assert.ok(!('callResultUrl' in result), 'the resume URL (with its token) is in the output');
			assert.equal(shown.status, answers === 'rich' ? 'queued' : null);
			assert.ok(!('status' in result), 'the placement\'s status is in the result of an ended call');
			// Enriched with the status query (GET /getDialstatus/{internal_id}) once the record was written.
			assert.equal(result.statusRecord, 'found');
			assert.equal(result.dialStatus, 'ANSWER');
			assert.equal(result.billSec, 3);
			assert.equal(result.trafficCost, '0.037500');
			assert.equal(result.trafficCostNumber, 0.0375);
			const reads = requestsTo(env.sandbox, 'GET', `/getDialstatus/${internalId}`);
			assert.ok(reads.length >= 1, 'the call status was not read');
			assert.equal(reads.at(-1).status, 200);
			assert.ok(reads.every((read) => read.auth === 'ok'));
			assert.deepEqual(outputOf(execution, 'After Result'), [result]);
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');
			assert.doesNotMatch(JSON.stringify(execution.data.resultData.runData), /webhook-waiting|signature=/, 'the resume URL is in the output');
		});

		test(`Max Wait (its minimum, ${MIN_MAX_WAIT_MINUTES} min) passes without a call result: n8n's wait tracker resumes it with the timeout item`, async () => {
			const { waiting, placements } = timeoutRun;
			assert.ok(waiting, 'the timeout run did not start');
			assert.equal(waiting.status, 'waiting', errorOf(waiting));
			const waitTill = Date.parse(waiting.waitTill);
			const expected = timeoutRun.startedAt + MIN_MAX_WAIT_MINUTES * 60 * 1000;
			assert.ok(Math.abs(waitTill - expected) < 10000, `waitTill ${waiting.waitTill}, expected about ${new Date(expected).toISOString()}`);
			const [shown] = outputOf(waiting, NODE);
			assert.equal(shown.resultSource, 'waiting');
			assert.equal(placements.length, 1, 'one call placed');
			assert.ok(isResumeUrlOf(placements[0].body.callResultUrl, `${env.n8n.url}/webhook-waiting/${waiting.id}`), placements[0].body.callResultUrl);

			// The wait tracker looks once a minute: allow for one full minute after Max Wait.
			const execution = await env.n8n.waitForExecution(waiting.id, { timeoutMs: 100000 });

			assert.equal(execution.status, 'success', errorOf(execution));
			assert.ok(Date.parse(execution.stoppedAt) >= waitTill, `stopped ${execution.stoppedAt} before Max Wait ${waiting.waitTill}`);
			const items = outputOf(execution, NODE);
			assert.equal(items.length, 1);
			const [item] = items;
			assert.equal(item.resultSource, 'timeout');
			assert.equal(item.pending, true);
			assert.equal(String(item.internal_id), String(shown.internal_id));
			assert.equal(item.dst, TIMEOUT_DST);
			for (const field of ['dialstatus', 'duration', 'dialStatus', 'billSec', 'trafficCost', 'trafficCostNumber']) {
				assert.equal(item[field], null, field);
			}
			assert.equal(Date.parse(item.waitTill), waitTill);
			assert.match(item.message, /No call result arrived within Max Wait/);
			assert.match(item.message, /Call Status/);
			assert.deepEqual(outputOf(execution, 'After Result'), [item]);
			assertNoSecrets(env.sandbox, execution.data, 'the execution data');
		});
	});
}

module.exports = { prepare, register };
