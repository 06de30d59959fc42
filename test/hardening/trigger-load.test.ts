/**
 * Trigger under load: a published Assistant Platform Trigger, served over real HTTP by
 * the webhook harness (test/harness/webhook.ts, n8n's routing and body parsing), receives 1,000
 * valid call results at once (64 concurrent connections, undici) with 500 invalid requests
 * interleaved: no token, a wrong token, a body that is not a call result, a body that is not JSON.
 * Every valid one starts the workflow exactly once (none lost, none duplicated, compared by
 * internal_id); every invalid one is refused with its status and starts nothing.
 */
import { randomBytes } from 'node:crypto';

import { Agent, request } from 'undici';

import { registerSecret } from '../harness/secretsGuard';
import type { TriggerHarness } from '../harness/webhook';
import { startTrigger } from '../harness/webhook';

const VALID = 1_000;
const INVALID_PER_KIND = 125;
const CONCURRENCY = 64;

const secret = randomBytes(32).toString('hex');
const wrongSecret = randomBytes(32).toString('hex');

let trigger: TriggerHarness;
let agent: Agent;

beforeAll(async () => {
	// The harness registers the trigger's secret with the secrets guard; the wrong one is only ever
	// sent, and must not appear in any output either.
	registerSecret(wrongSecret);
	trigger = await startTrigger({ parameters: { events: ['callResult'], webhookSecret: secret } });
	await trigger.publish();
	agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
});

afterAll(async () => {
	await agent.close();
	await trigger.unpublish();
	await trigger.close();
});

interface Job {
	kind: 'valid' | 'no-token' | 'wrong-token' | 'not-a-call-result' | 'not-json';
	id: string;
	url: string;
	body: string;
	expected: number;
}

/** A deterministic shuffle (so a failure can be replayed). */
function shuffle<T>(values: T[], seed = 7): T[] {
	const out = values.slice();
	let state = seed;
	for (let i = out.length - 1; i > 0; i--) {
		state = (state * 1103515245 + 12345) % 2 ** 31;
		const j = state % (i + 1);
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

function jobs(): Job[] {
	const base = `${trigger.url}/webhook/${trigger.webhookId}`;
	const good = `${base}/${secret}/call-result`;
	const list: Job[] = [];
	for (let i = 0; i < VALID; i++) {
		const id = `ok-${String(i).padStart(4, '0')}-${randomBytes(4).toString('hex')}`;
		list.push({ kind: 'valid', id, url: good, body: JSON.stringify({ internal_id: id, dialstatus: 'ANSWER', duration: i % 90 }), expected: 200 });
	}
	for (let i = 0; i < INVALID_PER_KIND; i++) {
		const id = `bad-${String(i).padStart(4, '0')}`;
		const result = JSON.stringify({ internal_id: id, dialstatus: 'BUSY', duration: 0 });
		list.push({ kind: 'no-token', id, url: `${base}/call-result`, body: result, expected: 401 });
		list.push({ kind: 'wrong-token', id, url: `${base}/${wrongSecret}/call-result`, body: result, expected: 401 });
		list.push({ kind: 'not-a-call-result', id, url: good, body: JSON.stringify({ internal_id: id, dialstatus: 'ANSWER', duration: 'long' }), expected: 400 });
		list.push({ kind: 'not-json', id, url: good, body: `{"internal_id": "${id}", `, expected: 422 });
	}
	return shuffle(list);
}

async function send(job: Job): Promise<number> {
	const response = await request(job.url, {
		method: 'POST',
		dispatcher: agent,
		headers: { 'content-type': 'application/json' },
		body: job.body,
	});
	await response.body.text();
	return response.statusCode;
}

/** Sends every job with at most CONCURRENCY in flight; returns the status of each, in job order. */
async function sendAll(list: Job[]): Promise<number[]> {
	const statuses = new Array<number>(list.length);
	let next = 0;
	const worker = async () => {
		while (next < list.length) {
			const index = next++;
			statuses[index] = await send(list[index]);
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
	return statuses;
}

test(`${VALID} concurrent valid call results start ${VALID} workflows; ${4 * INVALID_PER_KIND} invalid ones start none`, async () => {
	trigger.clear();
	const list = jobs();
	const statuses = await sendAll(list);

	// Every request got the answer its kind calls for.
	const wrong = list
		.map((job, index) => ({ kind: job.kind, expected: job.expected, got: statuses[index] }))
		.filter((r) => r.expected !== r.got);
	expect(wrong).toEqual([]);

	// Exactly one workflow start per valid call result: none lost, none duplicated.
	expect(trigger.starts).toHaveLength(VALID);
	const started = trigger.starts.flatMap((start) => start.items.map((item) => String(item.json.internal_id)));
	expect(started).toHaveLength(VALID);
	expect(new Set(started).size).toBe(VALID);
	const sent = list.filter((job) => job.kind === 'valid').map((job) => job.id);
	expect([...started].sort()).toEqual([...sent].sort());
	// Each start carries its own result, normalised.
	for (const start of trigger.starts) {
		expect(start.mode).toBe('production');
		expect(start.items).toHaveLength(1);
		expect(start.items[0].json).toMatchObject({ event: 'callResult', dialStatus: 'ANSWER' });
	}

	// The harness saw every request once; the refused ones started nothing.
	expect(trigger.requests).toHaveLength(list.length);
	expect(trigger.requests.filter((r) => r.started)).toHaveLength(VALID);
	expect(started.filter((id) => id.startsWith('bad-'))).toEqual([]);
	const counts = (status: number) => trigger.requests.filter((r) => r.status === status && !r.started).length;
	expect(counts(401)).toBe(2 * INVALID_PER_KIND);
	expect(counts(400)).toBe(INVALID_PER_KIND);
	expect(counts(422)).toBe(INVALID_PER_KIND);

	// Neither token ever reaches a workflow's items.
	const output = JSON.stringify(trigger.starts.map((start) => start.items));
	expect(output.includes(secret)).toBe(false);
	expect(output.includes(wrongSecret)).toBe(false);
});
