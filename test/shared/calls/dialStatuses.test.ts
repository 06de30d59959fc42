/**
 * One dial-status normaliser (normalizeDialStatus, nodes/shared/calls/dialStatuses.ts): a status compares
 * trimmed and in upper case wherever it is read. The same forms through every reader: the trigger's Dial
 * Status filter (a call-result post, end to end), the words a model reads after Call Status → Get, the
 * Retry Policy's decision and the statuses a user types under Other Dial Statuses.
 */
import { randomBytes } from 'node:crypto';

import { callStatusInWords } from '../../../nodes/AssistantPlatform/helpers/toolOutput';
import { filterStatuses } from '../../../nodes/AssistantPlatformTrigger/callResultContext';
import { dialStatusInWords, normalizeDialStatus } from '../../../nodes/shared/calls/dialStatuses';
import { decideNextCall } from '../../../nodes/shared/campaign/retryPolicy';
import { registerSecret } from '../../harness/secretsGuard';
import type { TriggerHarness } from '../../harness/webhook';
import { post, startTrigger } from '../../harness/webhook';

/** Each form and the status it compares as ('' : no status). */
const FORMS: Array<[unknown, string]> = [
	['ANSWER', 'ANSWER'],
	[' answer', 'ANSWER'],
	['Busy ', 'BUSY'],
	['\tnoanswer\n', 'NOANSWER'],
	['NO-ANSWER', 'NO-ANSWER'],
	['no answer', 'NO ANSWER'],
	[' my_status ', 'MY_STATUS'],
	['', ''],
	['  ', ''],
	[1, ''],
	[null, ''],
	[undefined, ''],
	[{ status: 'ANSWER' }, ''],
	[['ANSWER'], ''],
];

const label = (value: unknown) => (value === undefined ? 'undefined' : JSON.stringify(value));

/** Runs `read` over every form and compares with what `want` derives from the normalised status. */
function agree(read: (value: unknown) => unknown, want: (status: string, value: unknown) => unknown) {
	expect(FORMS.map(([value]) => [label(value), read(value)])).toEqual(FORMS.map(([value, status]) => [label(value), want(status, value)]));
}

test('normalizeDialStatus: trimmed, upper case; anything but text is no status', () => {
	agree(normalizeDialStatus, (status) => status);
});

test('Call Status → Get, for the model (helpers/toolOutput.ts): the status in words, whatever spaces it came with', () => {
	agree(
		(value) => callStatusInWords({ dialStatus: value as string, billSec: 12 }),
		(status, value) =>
			typeof value !== 'string'
				? expect.stringMatching(/^Still in progress/)
				: (dialStatusInWords(status, status === 'ANSWER' ? ' and lasted 12 s (billed)' : '') ??
					`Ended: the platform reports the call as ${value}.`),
	);
});

test('Call Status → Get, for the model: a record that contradicts itself is an ended call whose outcome is not known, whatever its status says', () => {
	expect(callStatusInWords({ dialStatus: null, outcomeUnknown: true, contradiction: 'success: false' })).toMatch(/^Ended, but the platform's record of the call contradicts itself/);
});

test('the Retry Policy decision (campaign/retryPolicy.ts)', () => {
	const policy = { maxAttempts: 3, delays: new Map([['BUSY', 60_000], ['NO-ANSWER', 60_000]]) };
	agree(
		(value) => decideNextCall(policy, value, 1, 0).reason,
		(status) =>
			status === ''
				? 'outcome unknown: never called again automatically (read the call status first)'
				: status === 'ANSWER'
					? 'answered: never called again'
					: policy.delays.has(status)
						? `${status}: call again after 1 min (attempt 2 of 3)`
						: `${status}: the Retry Policy does not call ${status} again`,
	);
});

test("the statuses typed under the trigger's Other Dial Statuses (AssistantPlatformTrigger/callResultContext.ts)", () => {
	agree(
		(value) => [...filterStatuses({ dialStatuses: [value as string] })],
		(status) => (status === '' ? [] : [status]),
	);
});

describe("the trigger's Dial Status filter, end to end: a call-result post with the status as the platform sent it", () => {
	const secret = randomBytes(24).toString('hex');
	registerSecret(secret);
	let trigger: TriggerHarness;

	beforeAll(async () => {
		trigger = await startTrigger({
			parameters: { webhookSecret: secret, events: ['callResult'], filters: { dialStatuses: ['ANSWER', 'BUSY'], otherDialStatuses: 'no-answer, No Answer' } },
		});
		await trigger.publish();
	});

	afterAll(async () => {
		await trigger.unpublish();
		await trigger.close();
	});

	test('started for a status the filter lists, whatever its spaces and case; filtered out otherwise', async () => {
		const chosen = new Set(['ANSWER', 'BUSY', 'NO-ANSWER', 'NO ANSWER']);
		const got: unknown[][] = [];
		const want: unknown[][] = [];
		// The post refuses a status that is not text or is empty: only the rest reaches the filter.
		for (const [value, status] of FORMS.filter(([value]) => typeof value === 'string' && value.trim() !== '')) {
			trigger.clear();
			const res = await post(`${trigger.url}/webhook/${trigger.webhookId}/${secret}/call-result`, {
				internal_id: 'x1',
				dialstatus: value,
				duration: 1,
			});
			got.push([label(value), res.status, trigger.starts.length === 1 ? 'started' : res.body]);
			want.push([label(value), 200, chosen.has(status) ? 'started' : { received: true, started: false, reason: 'filtered out' }]);
		}
		expect(got).toEqual(want);
	});
});
