import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../harness/engine';
import type { RunOptions } from '../harness/engine';
import { assistantKeysOf, callerAssistant, useSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

/*
 * Outbound Call → Place Call, one call per input item, through n8n-core's WorkflowExecute against the sandbox:
 * Options > Result Context travels in the Call Result URL and comes back in the output under `context`; bad
 * input is refused before anything is dialled. No item says anything about calling again (no `attempt`, no
 * `nextCall`): a list is called until each contact is reached by the Campaign resource. A 429 is a refusal as
 * any other 4xx: nothing was placed, nothing is retried.
 */

const CALLER = '+390212345678';
const RESULT_URL = 'https://n8n.example.com/webhook/3f1c/0123456789abcdef0123456789abcdef/call-result';

function place(fx: SandboxFixture, parameters: IDataObject, options: Partial<Omit<RunOptions, 'parameters' | 'credentials'>> = {}) {
	return runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', callerId: CALLER, ...parameters },
		credentials: fx.credentials,
		...options,
	}).then((result) => {
		const text = JSON.stringify([result.items, result.error?.message, result.error?.description]);
		for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox)]) expect(text).not.toContain(key);
		return result;
	});
}

const json = (items: INodeExecutionData[]) => items.map((item) => item.json);
const posts = (fx: SandboxFixture) => fx.sandbox.journal.filter((e) => e.method === 'POST');
const items = (...rows: IDataObject[]) => rows.map((row) => ({ json: row }));
const context = (...fields: Array<[string, unknown]>) => ({ resultContext: { fields: fields.map(([name, value]) => ({ name, value })) } });

/** No item about a call carries a decision about calling again. */
function expectNoCampaignFields(out: INodeExecutionData[]): void {
	for (const item of out) {
		expect(item.json).not.toHaveProperty('attempt');
		expect(item.json).not.toHaveProperty('nextCall');
	}
}

describe('Place Call: Options > Result Context', () => {
	const fx = useSandbox();
	beforeEach(() => callerAssistant(fx, CALLER));

	describe('the context travels in the Call Result URL and comes back in the output', () => {
		test('the query gets one ctx_<name> per field; the output carries them; the URL is shown without its query', async () => {
			const { items: out, error } = await place(
				fx,
				{
					dst: '={{ $json.phone }}',
					options: {
						callResultUrl: RESULT_URL,
						...context(['customer', '={{ $json.customer }}'], ['name', '={{ $json.name }}'], ['score', '={{ $json.score }}']),
					},
				},
				{ items: items({ phone: '+14155550123', customer: 'C-1042', name: 'Ada Löwe & co', score: 7 }) },
			);
			expect(error).toBeUndefined();
			const [post] = posts(fx);
			expect(post.body).toMatchObject({ callResultUrl: `${RESULT_URL}?ctx_customer=C-1042&ctx_name=Ada+L%C3%B6we+%26+co&ctx_score=7` });
			expect(json(out)).toEqual([
				expect.objectContaining({
					internal_id: expect.any(String),
					pending: true,
					callResultUrl: 'https://n8n.example.com/webhook/3f1c/***/call-result?***',
					context: { customer: 'C-1042', name: 'Ada Löwe & co', score: '7' },
				}),
			]);
			expectNoCampaignFields(out);
		});

		test('a query the URL has already is kept; the context is added after it', async () => {
			await place(fx, { dst: '+14155550123', options: { callResultUrl: `${RESULT_URL}?source=crm#top`, ...context(['customer', 'C-1']) } });
			expect(posts(fx)[0].body).toMatchObject({ callResultUrl: `${RESULT_URL}?source=crm&ctx_customer=C-1#top` });
		});

		test('legacy field names: the context goes into url_esito_chiamata', async () => {
			await place(fx, { dst: '+14155550123', options: { callResultUrl: RESULT_URL, legacyFieldNames: true, ...context(['customer', 'C-3']) } });
			expect(posts(fx)[0].body).toMatchObject({ url_esito_chiamata: `${RESULT_URL}?ctx_customer=C-3` });
		});

		test('without a Call Result URL nothing is added to the request; the output still carries the context', async () => {
			const { items: out } = await place(fx, { dst: '+14155550123', options: context(['customer', 'C-9']) });
			expect(posts(fx)[0].body).not.toHaveProperty('callResultUrl');
			expect(out[0].json).toMatchObject({ context: { customer: 'C-9' } });
		});

		test('without a Result Context the URL is sent as it is and the output has no context', async () => {
			const { items: out } = await place(fx, { dst: '+14155550123', options: { callResultUrl: RESULT_URL } });
			expect(posts(fx)[0].body).toMatchObject({ callResultUrl: RESULT_URL });
			expect(out[0].json).not.toHaveProperty('context');
			expectNoCampaignFields(out);
		});

		test('with Continue On Fail a call refused by the platform still names its context', async () => {
			const { items: out } = await place(
				fx,
				{ dst: '={{ $json.phone }}', callerId: '={{ $json.callerNumber }}', options: context(['contactId', '={{ $json.id }}']) },
				{ items: items({ id: 'C-1', phone: '+14155550123', callerNumber: '+390299999999' }, { id: 'C-2', phone: '+14155550124', callerNumber: CALLER }), continueOnFail: true },
			);
			expect(json(out)).toEqual([
				expect.objectContaining({ code: 'CALLER_ID_NOT_ASSIGNED', outcome: 'rejected', placed: false, context: { contactId: 'C-1' } }),
				expect.objectContaining({ internal_id: expect.any(String), context: { contactId: 'C-2' } }),
			]);
			expectNoCampaignFields(out);
		});
	});

	describe('bad input: a clear error naming the field, nothing dialled', () => {
		const cases: Array<[string, IDataObject, string]> = [
			[
				'more fields than allowed',
				context(...Array.from({ length: 11 }, (_, i): [string, string] => [`f${i}`, 'x'])),
				'Invalid "Result Context": has 11 fields; at most 10 are carried to the result',
			],
			['a value that is too long', context(['note', 'x'.repeat(201)]), 'Invalid "Result Context": "note" has 201 characters; at most 200 are carried'],
			[
				'a context too large once encoded',
				context(...Array.from({ length: 10 }, (_, i): [string, string] => [`f${i}`, 'é'.repeat(30)])),
				'Invalid "Result Context": is 1879 bytes once encoded for the Call Result URL; at most 1024',
			],
			['a line break in a value', context(['note', 'first\nsecond']), 'Invalid "Result Context": "note" contains a control character'],
			[
				'a broken character (an unpaired surrogate) in a value',
				context(['note', 'a\ud800b']),
				'Invalid "Result Context": "note" contains a control character (line break, tab, ...) or a broken character',
			],
			['a name with a character a query name should not have', context(['first-name', 'Ada']), 'Invalid "Result Context": field name "first-name" is not allowed'],
			['a name twice', context(['a', '1'], ['a', '2']), 'Invalid "Result Context": names "a" twice'],
			['an object as a value', context(['a', '={{ { x: 1 } }}']), 'Invalid "Result Context": "a" must be text or a number, not an object'],
		];

		test.each(cases)('%s', async (_label, options, message) => {
			const { error } = await place(fx, { dst: '={{ $json.phone }}', options: { callResultUrl: RESULT_URL, ...options } }, {
				items: items({ phone: '+14155550123' }, { phone: '+14155550124' }),
			});
			expect(error?.message).toContain(message);
			expect(error?.description).toContain('rejected before anything was sent');
			expect(fx.sandbox.journal).toHaveLength(0);
		});

		test('a Call Result URL that has context parameters already', async () => {
			const { error } = await place(fx, { dst: '+14155550123', options: { callResultUrl: `${RESULT_URL}?ctx_attempt=9`, ...context(['customer', 'C-1']) } });
			expect(error?.message).toBe(
				'Invalid "Call Result URL": must not have a query parameter starting with "ctx_" (ctx_attempt): the Result Context is carried in them. No call was placed.',
			);
			expect(fx.sandbox.journal).toHaveLength(0);
		});

		test('with Continue On Fail the bad item says why and the others are dialled', async () => {
			const { items: out, error } = await place(
				fx,
				{ dst: '={{ $json.phone }}', options: context(['note', '={{ $json.note }}']) },
				{ items: items({ phone: '+14155550123', note: 'fine' }, { phone: '+14155550124', note: 'a\nb' }), continueOnFail: true },
			);
			expect(error).toBeUndefined();
			expect(out[1].json).toMatchObject({ outcome: 'invalid', placed: false, error: expect.stringContaining('Result Context') });
			expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123']);
		});
	});
});

describe('Place Call: one call per input item, as it comes', () => {
	const fx = useSandbox();
	beforeEach(() => callerAssistant(fx, CALLER));

	test('values of removed Campaign options and a Retry Policy change nothing: every item is dialled once, at once', async () => {
		const closed = { days: ['monday'], from: '09:00', to: '09:00', timeZone: 'Nowhere/City' };
		const { items: out, error } = await place(
			fx,
			{
				dst: '={{ $json.phone }}',
				options: { callResultUrl: RESULT_URL },
				campaign: { attempt: 0, maxCallsInFlight: 1, notBefore: new Date(Date.now() + 3600_000).toISOString(), callingHours: { window: closed } },
				retryPolicy: { maxAttempts: 0 },
			},
			{ items: items({ phone: '+14155550123' }, { phone: '+14155550123' }, { phone: '+14155550124' }) },
		);
		expect(error).toBeUndefined();
		expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123', '+14155550123', '+14155550124']);
		expect(posts(fx).map((p) => (p.body as IDataObject).callResultUrl)).toEqual([RESULT_URL, RESULT_URL, RESULT_URL]);
		expect(out.map((item) => item.json.pending)).toEqual([true, true, true]);
		expectNoCampaignFields(out);
	});

	test("a 429 (the account's calls at once) is a refusal as any other 4xx: nothing placed, never placed again", async () => {
		fx.sandbox.setAccountLimit(1);
		const { items: out, error } = await place(
			fx,
			{ dst: '={{ $json.phone }}' },
			{ items: items({ phone: '+14155550123' }, { phone: '+14155550124' }), continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(out[1].json).toMatchObject({
			outcome: 'rejected',
			placed: false,
			httpCode: '429',
			code: 'CALL_LIMIT_REACHED',
			error: expect.stringContaining('No call was placed'),
		});
		expect(posts(fx).map((p) => (p.body as IDataObject).dst)).toEqual(['+14155550123', '+14155550124']);
		expect(fx.sandbox.callJournal.calls.map((c) => c.dst)).toEqual(['+14155550123']);
		expectNoCampaignFields(out);

		fx.sandbox.clearJournal();
		const stopped = await place(fx, { dst: '={{ $json.phone }}' }, { items: items({ phone: '+14155550125' }, { phone: '+14155550126' }) });
		expect(stopped.error?.message).toContain('No call was placed');
		expect(posts(fx)).toHaveLength(1);
	});
});
