/**
 * Which text is a number: one rule for every number a node reads (nodes/shared/core/numbers.ts). Each reader
 * keeps its own range and its own error, but a form that is a number for one is a number for all: decimal
 * notation only (an optional sign, digits, an optional fraction and exponent), surrounding spaces ignored,
 * finite; hexadecimal, binary and octal text, empty text and anything that is not text or a number are not.
 */
import type { INode } from 'n8n-workflow';

import { readRetryPolicy } from '../../../nodes/shared/campaign/retryPolicy';
import { readNumber } from '../../../nodes/shared/core/numbers';
import { assertIntegerInRange, numberField } from '../../../nodes/shared/core/validation';
import { readSizeBytes } from '../../../nodes/AssistantPlatform/resources/ragCollection/rules';

const node = { name: 'Place Call', type: 'test', typeVersion: 1, parameters: {}, id: 'n', position: [0, 0] } as INode;

/** Each form and the number it stands for (undefined: not a number). */
const FORMS: Array<[unknown, number | undefined]> = [
	['10', 10],
	[' 10 ', 10],
	['\t10\n', 10],
	['00010', 10],
	['1e1', 10],
	['1E1', 10],
	['+3', 3],
	['3.0', 3],
	['1.5', 1.5],
	['.5', 0.5],
	['5.', 5],
	['-1', -1],
	['-.5e-3', -0.0005],
	['0x10', undefined],
	['0X10', undefined],
	['0b1', undefined],
	['0o7', undefined],
	['', undefined],
	['  ', undefined],
	['abc', undefined],
	['10px', undefined],
	['1,5', undefined],
	['1_000', undefined],
	['1e', undefined],
	['.', undefined],
	['Infinity', undefined],
	['1e999', undefined],
	[10, 10],
	[1.5, 1.5],
	[-1, -1],
	[0, 0],
	[NaN, undefined],
	[Infinity, undefined],
	[null, undefined],
	[true, undefined],
	[false, undefined],
	[{}, undefined],
	[[], undefined],
	[['5'], undefined],
];

interface Reader {
	name: string;
	min: number;
	max: number;
	integer: boolean;
	/** Forms the field reads as "not set" (its default), not as a number. */
	notSet?: unknown[];
	/** Only text reaches this reader (a URL's query). */
	textOnly?: boolean;
	/** What the reader makes of the number it read (a delay in ms, ...). */
	scale: (n: number) => number;
	/** The reader's result, or a throw; undefined is a refusal that does not throw. */
	read: (value: unknown) => number | undefined;
}

const FALLBACK = 42;

const READERS: Reader[] = [
	{
		name: 'numberField (core/validation.ts)',
		min: -Infinity,
		max: Infinity,
		integer: false,
		notSet: ['', null],
		scale: (n) => n,
		read: (value) => numberField(node, 'Timeout', value, FALLBACK),
	},
	{
		name: 'assertIntegerInRange (core/validation.ts)',
		min: -1000,
		max: 1000,
		integer: true,
		scale: (n) => n,
		read: (value) => assertIntegerInRange(node, 'Max Pages', value, -1000, 1000),
	},
	{
		name: 'Size in Bytes (ragCollection/rules.ts, Estimate Upload)',
		min: 0,
		max: Number.MAX_SAFE_INTEGER,
		integer: true,
		scale: (n) => n,
		read: (value) => readSizeBytes(node, value, 'a.pdf'),
	},
	{
		name: 'a retry delay (campaign/retryPolicy.ts)',
		min: 0,
		max: 10_080,
		integer: false,
		scale: (n) => Math.round(n * 60_000),
		read: (value) => readRetryPolicy(node, { busy: value }).delays.get('BUSY'),
	},
];

/** What a reader must give for a form: its scaled number, the field's default, or a refusal. */
function expected(reader: Reader, value: unknown, n: number | undefined): number | 'refused' {
	if (reader.notSet?.some((form) => Object.is(form, value))) return FALLBACK;
	if (n === undefined || (reader.integer && !Number.isInteger(n)) || n < reader.min || n > reader.max) return 'refused';
	return reader.scale(n);
}

function outcome(reader: Reader, value: unknown): number | 'refused' {
	try {
		return reader.read(value) ?? 'refused';
	} catch {
		return 'refused';
	}
}

const label = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : String(value));

test('readNumber: the one rule for which text is a number', () => {
	for (const [value, n] of FORMS) expect([label(value), readNumber(value)]).toEqual([label(value), n]);
});

test.each(READERS.map((reader) => [reader.name, reader] as const))('%s agrees on every form', (_name, reader) => {
	const forms = FORMS.filter(([value]) => !reader.textOnly || typeof value === 'string');
	const got = forms.map(([value]) => `${label(value)} -> ${outcome(reader, value)}`);
	const want = forms.map(([value, n]) => `${label(value)} -> ${expected(reader, value, n)}`);
	expect(got).toEqual(want);
});

test('each reader keeps its own words for a form that is not a number', () => {
	expect(() => numberField(node, 'Timeout', '0x10', 0)).toThrow('Invalid "Timeout": must be a number (got "0x10")');
	expect(() => assertIntegerInRange(node, 'Max Pages', '0x10', 1, 10)).toThrow('Invalid "Max Pages": must be a whole number from 1 to 10 (got "0x10")');
	expect(() => readRetryPolicy(node, { busy: '0x10' })).toThrow(
		'Invalid "Retry Policy > Retry BUSY After (Minutes)": must be a number of minutes from 0 to 10080 (got "0x10")',
	);
});
