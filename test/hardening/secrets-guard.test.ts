/**
 * The test-wide secrets guard (test/setup.ts + test/harness/secretsGuard.ts) really catches leaks:
 * each test leaks a value on purpose through one channel (node output, an error, console, stdout, a
 * trigger start), checks that findLeaks() reports it without repeating the secret, then forgets
 * the value so that this file passes the guard's own end-of-file check.
 */
import { randomBytes } from 'node:crypto';

import { Container } from '@n8n/di';
import type { INode } from 'n8n-workflow';
import { LoggerProxy, NodeApiError } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import { findLeaks, forgetSecret, logLines, recordProduced, registerSecret, withoutPrinting } from '../harness/secretsGuard';
import { useSandbox } from '../harness/sandbox';
import { post, startTrigger } from '../harness/webhook';

import { AP_TYPE } from './helpers';

const fx = useSandbox();

// The Logger service n8n-core resolves (from its own copy of @n8n/backend-common).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [require.resolve('n8n-core')] })) as {
	Logger: new (...args: never[]) => unknown;
};

const fresh = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

function expectReported(secret: string): void {
	const leaks = findLeaks().filter((leak) => leak.startsWith(secret.slice(0, 3)));
	expect(leaks.length).toBeGreaterThan(0);
	// The report locates the leak but never repeats the secret.
	for (const leak of findLeaks()) expect(leak).not.toContain(secret);
	expect(leaks).toContainEqual(expect.stringContaining('[SECRET]'));
}

afterEach(() => {
	// Every deliberate leak was forgotten: nothing else leaked in this file so far.
	expect(findLeaks()).toEqual([]);
});

test('a registered key in recorded node output is reported, and no longer once forgotten', () => {
	const key = fresh('zk_');
	registerSecret(key);
	expect(findLeaks()).toEqual([]);
	recordProduced([{ json: { note: `the key is ${key}` } }]);
	expectReported(key);
	forgetSecret(key);
	expect(findLeaks()).toEqual([]);
});

test('a key in an error message or description is reported', () => {
	const key = fresh('ze_');
	registerSecret(key);
	recordProduced({ message: 'Request failed', description: `Authorization: Bearer ${key}` });
	expectReported(key);
	forgetSecret(key);
});

test('a key anywhere in an error is reported: errorResponse, cause, context, deep inside', () => {
	const inResponse = fresh('zr_');
	const inCause = fresh('zu_');
	const inContext = fresh('zx_');
	for (const key of [inResponse, inCause, inContext]) registerSecret(key);
	const error = Object.assign(new Error('Bad request', { cause: new Error(`upstream said ${inCause}`) }), {
		errorResponse: { error: { details: { nested: { nested: { echoed: `Bearer ${inResponse}` } } } } },
		context: { data: [inContext] },
	});
	recordProduced(error);
	expectReported(inResponse);
	expectReported(inCause);
	expectReported(inContext);
	for (const key of [inResponse, inCause, inContext]) forgetSecret(key);
});

test("n8n's logger output is captured, not printed, and scanned: a key in a log line is reported", () => {
	const key = fresh('zl_');
	registerSecret(key);
	const written: string[] = [];
	const write = process.stdout.write;
	process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write;
	try {
		LoggerProxy.error('Request failed', { error: new NodeApiError({ id: 'n', name: 'n' } as INode, { message: `echo ${key}` }) });
		(Container.get(Logger) as { warn: (m: string) => void }).warn(`echo ${key}`);
	} finally {
		process.stdout.write = write;
	}
	expect(written).toEqual([]);
	expect(logLines.filter((line) => line.includes(key))).toHaveLength(2);
	expectReported(key);
	forgetSecret(key);
});

test('a key written to the console or to stdout is reported (recorded, not printed)', () => {
	const logged = fresh('zc_');
	const written = fresh('zs_');
	registerSecret(logged);
	registerSecret(written);
	withoutPrinting(() => {
		console.log(`debug: ${logged}`);
		process.stdout.write(`raw: ${written}\n`);
	});
	expectReported(logged);
	expectReported(written);
	forgetSecret(logged);
	forgetSecret(written);
});

test('an assistant key the sandbox knows is a secret without registering it: a real node run that outputs it is caught', async () => {
	// Include API Key in Output puts the new assistant's key in the output on purpose.
	const { items, error } = await runNode({
		nodeType: AP_TYPE,
		parameters: { resource: 'assistant', operation: 'create', name: 'Leaky', mode: 'text', options: { includeApiKey: true } },
		credentials: fx.credentials,
	});
	expect(error).toBeUndefined();
	const key = fx.sandbox.state.assistants.list.find((a) => a.name === 'Leaky')!.assistantApiKey;
	expect(items[0].json.assistantApiKey).toBe(key);
	expectReported(key);
	forgetSecret(key);
});

test('the trigger harness registers the Webhook Secret and the Auth Header Value by itself', async () => {
	const secret = randomBytes(24).toString('hex');
	const headerValue = fresh('zh_');
	const trigger = await startTrigger({
		parameters: {
			events: ['callResult'],
			webhookSecret: secret,
			registerOnPublish: false,
			options: { authHeaderName: 'X-Hook-Auth', authHeaderValue: headerValue },
		},
	});
	try {
		await trigger.publish();
		const res = await post(trigger.eventUrl('callResult'), { internal_id: 'abc', dialstatus: 'ANSWER', duration: 1 });
		expect(res.status).toBe(200);
		expect(findLeaks()).toEqual([]);
		// Nothing registered by this test: the harness did it.
		recordProduced({ url: trigger.eventUrl('callResult') });
		recordProduced(`header ${headerValue}`);
		expectReported(secret);
		expectReported(headerValue);
	} finally {
		forgetSecret(secret);
		forgetSecret(headerValue);
		await trigger.unpublish();
		await trigger.close();
	}
});

test('keys at the very start or end of a text, keys sharing a prefix, and one key among 100,000 are all found', () => {
	const first = fresh('za_');
	const last = fresh('zz_');
	const shared = fresh('zp_');
	const longer = `${shared}tail0001`;
	registerSecret(first);
	registerSecret(last);
	registerSecret(shared);
	registerSecret(longer);
	const crowd = Array.from({ length: 100_000 }, () => fresh('zq_'));
	for (const key of crowd) registerSecret(key);
	try {
		recordProduced(`${first} … ${longer.slice(0, -1)} … ${last}`);
		expectReported(first);
		expectReported(last);
		expectReported(shared);
		expect(findLeaks().filter((leak) => leak.startsWith('zp_'))).toHaveLength(1);
		recordProduced(`x${crowd[77_777]}`);
		expectReported(crowd[77_777]);
	} finally {
		for (const key of [first, last, shared, longer, ...crowd]) forgetSecret(key);
	}
});
