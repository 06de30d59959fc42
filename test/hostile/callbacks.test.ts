/**
 * What reaches n8n from the network, the Call and Wait resume webhook and the trigger, holds against
 * the attacks the platform's answers are held against: a body over 1 MiB is refused with 413 whether
 * it comes with a Content-Length, chunked without one, or gzip-compressed (n8n decodes it before the
 * node sees it), and a call result whose fields have the wrong type is refused with 400. The
 * execution keeps waiting through every refusal; the genuine result still resumes it.
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';

import { FREE_DEMO_NUMBER as CALLER } from '../../sandbox';
import { WAIT_TYPE } from '../hardening/helpers';
import { useHostile } from '../harness/hostile';
import type { ResumeServer, WaitingExecution } from '../harness/resume';
import { resumeUrlOf, runUntilWait, startResumeServer } from '../harness/resume';
import { post, startTrigger } from '../harness/webhook';

import { prepare, TRIGGER_SECRET } from './targets';

const fx = useHostile();
let server: ResumeServer;
let run = 0;

beforeAll(async () => {
	server = await startResumeServer();
});

afterAll(async () => {
	await server.stop();
});

beforeEach(async () => {
	await prepare(fx);
	run++;
});

const MIB = 1024 * 1024;

interface Sent {
	status: number;
	text: string;
}

/** POSTs bytes as they are: with a Content-Length, or chunked without one; gzip-encoded when asked. */
async function send(url: string, body: Buffer, options: { chunked?: boolean; gzip?: boolean } = {}): Promise<Sent> {
	const payload = options.gzip ? gzipSync(body) : body;
	const target = new URL(url);
	return await new Promise((resolve, reject) => {
		const req = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				path: `${target.pathname}${target.search}`,
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
					...(options.chunked ? {} : { 'content-length': String(payload.length) }),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		if (options.chunked) {
			// Several writes: the body arrives in chunks, without a length announced.
			for (let at = 0; at < payload.length; at += 256 * 1024) req.write(payload.subarray(at, at + 256 * 1024));
			req.end();
		} else {
			req.end(payload);
		}
	});
}

/** A call result padded to `bytes` with a field the platform does not send. */
function padded(result: Record<string, unknown>, bytes: number): Buffer {
	const head = JSON.stringify({ ...result, padding: '' });
	return Buffer.from(`${head.slice(0, -2)}${'x'.repeat(Math.max(0, bytes - head.length))}"}`);
}

const OVERSIZE: Array<[string, { chunked?: boolean; gzip?: boolean }]> = [
	['with a Content-Length', {}],
	['chunked, without a Content-Length', { chunked: true }],
	['gzip-compressed (a few KB on the wire)', { gzip: true }],
];

const WRONG_RESULTS: Array<[string, (id: string) => unknown]> = [
	['internal_id an object', () => ({ internal_id: { $ne: null }, dialstatus: 'ANSWER', duration: 3 })],
	['internal_id a list', (id) => ({ internal_id: [id], dialstatus: 'ANSWER', duration: 3 })],
	['internal_id a boolean', () => ({ internal_id: true, dialstatus: 'ANSWER', duration: 3 })],
	['internal_id a fraction', () => ({ internal_id: 1.5, dialstatus: 'ANSWER', duration: 3 })],
	['dialstatus a number', (id) => ({ internal_id: id, dialstatus: 17, duration: 3 })],
	['dialstatus an object', (id) => ({ internal_id: id, dialstatus: { value: 'ANSWER' }, duration: 3 })],
	['duration "1e3"', (id) => ({ internal_id: id, dialstatus: 'ANSWER', duration: '1e3' })],
	['duration negative', (id) => ({ internal_id: id, dialstatus: 'ANSWER', duration: -1 })],
	['duration past 2^53', (id) => ({ internal_id: id, dialstatus: 'ANSWER', duration: 2 ** 53 })],
	['a list', (id) => [{ internal_id: id, dialstatus: 'ANSWER', duration: 3 }]],
	['a string', () => 'ANSWER'],
];

describe('the Call and Wait resume webhook', () => {
	async function waiting(): Promise<{ execution: WaitingExecution; url: string; id: string }> {
		const execution = await runUntilWait({
			nodeType: WAIT_TYPE,
			// No status read after the result: the sandbox's clock is stopped, its record never comes.
			parameters: { route: 'trunk', dst: '+14155550123', callerId: CALLER, options: { resultRecordWait: 0 } },
			credentials: fx.credentials,
			webhookBaseUrl: server.baseUrl,
			executionId: `hostile-callback-${run}`,
		});
		expect(execution.waitTill).toBeInstanceOf(Date);
		server.register(execution);
		return { execution, url: resumeUrlOf(server.baseUrl, execution), id: String(execution.nodeItems[0].json.internal_id) };
	}

	async function resumesWithTheGenuineResult(execution: WaitingExecution, url: string, id: string): Promise<void> {
		const genuine = await send(url, Buffer.from(JSON.stringify({ internal_id: id, dialstatus: 'ANSWER', duration: 7 })));
		expect(genuine.status).toBe(200);
		const resumed = await server.resumed(execution.executionId);
		expect(resumed.afterItems[0].json).toMatchObject({ internal_id: id, dialStatus: 'ANSWER', duration: 7, resultSource: 'callback' });
	}

	test.each(OVERSIZE)('a result over 1 MiB %s is refused with 413', async (_how, options) => {
		const { execution, url, id } = await waiting();
		const answer = await send(url, padded({ internal_id: id, dialstatus: 'ANSWER', duration: 3 }, MIB + 1024), options);
		expect(answer.status).toBe(413);
		await resumesWithTheGenuineResult(execution, url, id);
	});

	test('a gzip body beyond n8n\'s own 16 MB limit is refused by n8n (413)', async () => {
		const { execution, url, id } = await waiting();
		const answer = await send(url, padded({ internal_id: id, dialstatus: 'ANSWER', duration: 3 }, 17 * MIB), { gzip: true });
		expect(answer.status).toBe(413);
		await resumesWithTheGenuineResult(execution, url, id);
	});

	test('every call result with a field of the wrong type is refused with 400', async () => {
		const { execution, url, id } = await waiting();
		const answers: string[] = [];
		for (const [what, body] of WRONG_RESULTS) {
			const answer = await send(url, Buffer.from(JSON.stringify(body(id))));
			if (answer.status !== 400) answers.push(`${what}: ${answer.status} ${answer.text.slice(0, 120)}`);
		}
		expect(answers).toEqual([]);
		await resumesWithTheGenuineResult(execution, url, id);
	});
});

describe('the trigger', () => {
	async function listening() {
		const harness = await startTrigger({
			parameters: { webhookSecret: TRIGGER_SECRET, events: ['callResult'] },
			credentials: fx.credentials,
		});
		await harness.publish();
		return harness;
	}

	test.each(OVERSIZE)('a call result over 1 MiB %s is refused with 413, nothing starts', async (_how, options) => {
		const harness = await listening();
		try {
			const url = harness.eventUrl('callResult');
			const answer = await send(url, padded({ internal_id: 'abc', dialstatus: 'ANSWER', duration: 3 }, MIB + 1024), options);
			expect(answer.status).toBe(413);
			expect(harness.starts).toEqual([]);
			expect((await post(url, { internal_id: 'abc', dialstatus: 'ANSWER', duration: 3 })).status).toBe(200);
			expect(harness.starts).toHaveLength(1);
		} finally {
			await harness.close();
		}
	});

	test('every call result with a field of the wrong type is refused with 400, nothing starts', async () => {
		const harness = await listening();
		try {
			const url = harness.eventUrl('callResult');
			const answers: string[] = [];
			for (const [what, body] of WRONG_RESULTS) {
				const answer = await send(url, Buffer.from(JSON.stringify(body('abc'))));
				if (answer.status !== 400) answers.push(`${what}: ${answer.status} ${answer.text.slice(0, 120)}`);
			}
			expect(answers).toEqual([]);
			expect(harness.starts).toEqual([]);
		} finally {
			await harness.close();
		}
	});
});
