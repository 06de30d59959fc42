/**
 * One list splitter (splitList, nodes/shared/core/text.ts) for every field that takes a list: text cut at
 * commas, or a list from an expression; entries trimmed, empty ones dropped. Lists of words that cannot
 * hold spaces (number prefixes, IP ranges) are also cut at spaces, new lines and semicolons; lists whose
 * entries may hold spaces (enum values, tool names, binary field names, dial statuses, the days of Calling
 * Hours, the addresses of X-Forwarded-For) are cut at commas only. Each field's forms, through the field's
 * own reader, as each field has always read them.
 */
import { randomBytes } from 'node:crypto';

import type { IBinaryData, INode, INodeExecutionData } from 'n8n-workflow';

import { filterStatuses } from '../../../nodes/AssistantPlatformTrigger/callResultContext';
import { parseAllowlist } from '../../../nodes/AssistantPlatformTrigger/security';
import { selectFiles } from '../../../nodes/AssistantPlatform/resources/ragCollection/common';
import { readAllowedDestinations } from '../../../nodes/shared/calls/allowedDestinations';
import { readCallingWindow } from '../../../nodes/shared/guards/callingHours';
import { readRetryPolicy } from '../../../nodes/shared/campaign/retryPolicy';
import { splitList } from '../../../nodes/shared/core/text';
import { readExtractionSchema } from '../../../nodes/shared/descriptions/extractionSchema';
import { registerSecret } from '../../harness/secretsGuard';
import type { TriggerHarness } from '../../harness/webhook';
import { post, startTrigger } from '../../harness/webhook';

const node = { name: 'Node', type: 'test', typeVersion: 1, parameters: {}, id: 'n', position: [0, 0] } as INode;

/** What a reader makes of a value: its list, or the error it refuses it with. */
function outcome(read: () => unknown): unknown {
	try {
		return read();
	} catch (error) {
		return `refused: ${(error as Error).message}`;
	}
}

type Forms = Array<[unknown, unknown]>;

function pin(read: (value: unknown) => unknown, forms: Forms): void {
	const label = (value: unknown) => (value === undefined ? 'undefined' : JSON.stringify(value));
	expect(forms.map(([value]) => [label(value), outcome(() => read(value))])).toEqual(forms.map(([value, want]) => [label(value), want]));
}

describe('lists of words: spaces, new lines and semicolons separate entries too', () => {
	test('Allowed Destinations (calls/allowedDestinations.ts)', () => {
		const notPrefix = (entry: string) =>
			`refused: Invalid "Allowed Destinations": "${entry}" is not a number prefix: write + and the first digits of the numbers to allow, e.g. +39 or +4420`;
		pin((value) => readAllowedDestinations(node, value), [
			['+39, +4420', ['+39', '+4420']],
			['+39\n+4420', ['+39', '+4420']],
			['+39\r\n+4420', ['+39', '+4420']],
			['+39;+4420', ['+39', '+4420']],
			['+39 +4420', ['+39', '+4420']],
			['\t+39 ,, ;+4420 ,', ['+39', '+4420']],
			['', []],
			['  ', []],
			[',', []],
			[['+39', ' +4420 '], ['+39', '+4420']],
			[['+39', ''], ['+39']],
			[[], []],
			[['+39 +44'], notPrefix('+39 +44')],
			[[null], notPrefix('null')],
			[[39], notPrefix('39')],
			[39, notPrefix('39')],
			[true, notPrefix('true')],
			[null, []],
			[undefined, []],
		]);
	});

	test("the trigger's IP Allowlist (AssistantPlatformTrigger/security.ts)", () => {
		pin(
			(value) => {
				const { ranges, invalid } = parseAllowlist(value as string);
				return { ranges: ranges.map((range) => range.text), invalid };
			},
			[
				['10.0.0.0/8, 192.0.2.1', { ranges: ['10.0.0.0/8', '192.0.2.1'], invalid: [] }],
				['10.0.0.0/8\n2001:db8::/32', { ranges: ['10.0.0.0/8', '2001:db8::/32'], invalid: [] }],
				['10.0.0.0/8;192.0.2.1', { ranges: ['10.0.0.0/8', '192.0.2.1'], invalid: [] }],
				['10.0.0.0/8 192.0.2.1', { ranges: ['10.0.0.0/8', '192.0.2.1'], invalid: [] }],
				[' 10.0.0.0/8 ,,\t\n192.0.2.1, ', { ranges: ['10.0.0.0/8', '192.0.2.1'], invalid: [] }],
				['10.0.0.0 / 8', { ranges: ['10.0.0.0'], invalid: ['/', '8'] }],
				['', { ranges: [], invalid: [] }],
				['  ', { ranges: [], invalid: [] }],
			],
		);
	});
});

describe('lists whose entries may hold spaces: commas only', () => {
	test('Enum Values of an extraction schema (descriptions/extractionSchema.ts)', () => {
		pin(
			(value) => readExtractionSchema(node, [{ name: 'state', type: 'enum', enumValues: value }], 'Schema', 'add one')[0].values,
			[
				['sales, support ,billing,', ['sales', 'support', 'billing']],
				['in progress, on hold', ['in progress', 'on hold']],
				['a;b', ['a;b']],
				['a\nb', ['a\nb']],
				[' a ,, b ', ['a', 'b']],
				[['in progress', ' done '], ['in progress', 'done']],
				[['a,b'], ['a,b']],
				[[1, 'a'], ['1', 'a']],
				[[null, 'a', ''], ['a']],
				['', undefined],
				['  ', undefined],
				[[], undefined],
				[null, undefined],
				[undefined, undefined],
			],
		);
	});

	test('MCP Tools (Runtime → Configure Post-Call MCP) and other comma lists: splitList as such', () => {
		pin(splitList, [
			['lookup_order, create ticket', ['lookup_order', 'create ticket']],
			['a;b', ['a;b']],
			['a\nb', ['a\nb']],
			[',a,,b,', ['a', 'b']],
			[['a b', ' c '], ['a b', 'c']],
			[[2, true, null, {}], ['2']],
			['', []],
			[null, []],
			[undefined, []],
			[7, []],
		]);
	});

	test("the trigger's Other Dial Statuses (AssistantPlatformTrigger/callResultContext.ts)", () => {
		pin((value) => [...filterStatuses({ otherDialStatuses: value as string })], [
			['mystatus, SOMETHING_ELSE', ['MYSTATUS', 'SOMETHING_ELSE']],
			['no answer yet', ['NO ANSWER YET']],
			['a;b', ['A;B']],
			[' x ,, y ,', ['X', 'Y']],
			[['busy ', 'x'], ['BUSY', 'X']],
			['', []],
			[null, []],
			[undefined, []],
		]);
	});

	test('Retry Policy > Retry Other Dial Statuses (campaign/retryPolicy.ts)', () => {
		const field = 'Invalid "Retry Policy > Retry Other Dial Statuses';
		pin((value) => [...readRetryPolicy(node, { other: value }).delays], [
			['TORTURE=60, INVALIDARGS=1440', [['TORTURE', 3_600_000], ['INVALIDARGS', 86_400_000]]],
			[' torture = 1 ,, ', [['TORTURE', 60_000]]],
			['TORTURE=60;INVALIDARGS=1', `refused: ${field} (TORTURE)": must be a number of minutes from 0 to 10080 (got "60;INVALIDARGS=1")`],
			['TORTURE=60 INVALIDARGS=1', `refused: ${field} (TORTURE)": must be a number of minutes from 0 to 10080 (got "60 INVALIDARGS=1")`],
			['', []],
			[undefined, []],
			[['TORTURE=60'], `refused: ${field}": must be text such as "TORTURE=60, INVALIDARGS=1440"`],
		]);
	});

	test('Input Binary Fields of an upload (AssistantPlatform/resources/ragCollection/common.ts)', async () => {
		const item: INodeExecutionData = { json: {}, binary: {} };
		const access = {
			item,
			assertBinaryData: (property: string) => ({ fileName: `${property}.pdf`, bytes: 1, mimeType: 'application/pdf' }) as IBinaryData,
			getBuffer: async () => Buffer.alloc(1),
		};
		const read = async (value: unknown) => {
			try {
				return (await selectFiles(node, access, 'named', value, 0)).map((file) => file.property);
			} catch (error) {
				return `refused: ${(error as Error).message}`;
			}
		};
		const none = 'refused: Invalid "Input Binary Fields": must name at least one binary field, e.g. "data" (several separated by commas)';
		const forms: Forms = [
			['data', ['data']],
			['data, file 2 ,', ['data', 'file 2']],
			['a;b', ['a;b']],
			['a\nb', ['a\nb']],
			[' a ,, b ', ['a', 'b']],
			[['data', 'more'], ['data', 'more']],
			[['a,b'], ['a', 'b']],
			[5, ['5']],
			['data, data', 'refused: Invalid "Input Binary Fields": names the field "data" twice'],
			['', none],
			[' , ', none],
			[null, none],
			[undefined, none],
		];
		const got: unknown[] = [];
		for (const [value] of forms) got.push(await read(value));
		expect(got).toEqual(forms.map(([, want]) => want));
	});

	test('Calling Hours > Days (guards/callingHours.ts): an empty entry is refused, quoted as typed', () => {
		const notDays = (got: string) => `refused: Invalid "Calling Hours > Days": must be days of the week, e.g. monday (got "${got}")`;
		const noDay = 'refused: Invalid "Calling Hours > Days": must name at least one day of the week';
		pin(
			(value) => [...readCallingWindow(node, { days: value, from: '09:00', to: '17:00', timeZone: 'UTC' }, 'UTC', 0).days].sort(),
			[
				[['monday', 'friday'], [1, 5]],
				['monday,friday', [1, 5]],
				[' Monday , FRIDAY ', [1, 5]],
				[[' sunday '], [0]],
				['monday,', notDays('')],
				['monday,,friday', notDays('')],
				['monday, ,friday', notDays(' ')],
				['monday, funday', notDays(' funday')],
				['monday friday', notDays('monday friday')],
				['monday;friday', notDays('monday;friday')],
				['monday\nfriday', notDays('monday\nfriday')],
				['', notDays('')],
				[['monday', ''], notDays('')],
				[['monday', null], notDays('null')],
				[[], noDay],
				[null, noDay],
				[undefined, noDay],
				[5, noDay],
			],
		);
	});
});

describe("the trigger's X-Forwarded-For: addresses at commas only, the last one is the client", () => {
	const secret = randomBytes(24).toString('hex');
	registerSecret(secret);
	let trigger: TriggerHarness;

	beforeAll(async () => {
		trigger = await startTrigger({
			parameters: { webhookSecret: secret, events: ['callResult'], options: { ipAllowlist: '198.51.100.7', useForwardedFor: true } },
		});
		await trigger.publish();
	});

	afterAll(async () => {
		await trigger.unpublish();
		await trigger.close();
	});

	test.each([
		['203.0.113.9, 198.51.100.7', 200],
		['198.51.100.7', 200],
		[' 203.0.113.9 ,, 198.51.100.7 , ', 200],
		['198.51.100.7, 203.0.113.9', 403],
		['203.0.113.9 198.51.100.7', 403],
		['203.0.113.9;198.51.100.7', 403],
		['', 403],
	])('%j -> %d', async (forwarded, status) => {
		const res = await post(
			`${trigger.url}/webhook/${trigger.webhookId}/${secret}/call-result`,
			{ internal_id: 'x1', dialstatus: 'ANSWER', duration: 1 },
			{ headers: { 'x-forwarded-for': forwarded } },
		);
		expect(res.status).toBe(status);
	});
});
