/**
 * The size of a Result Context (nodes/shared/campaign/resultContext.ts): one measure, contextBytes, the bytes
 * of the query it adds to the Call Result URL once encoded, a dial run's `ctx_attempt` included; at most 1,024
 * (docs/assumptions.md, "Result Context: limits"). Place Call refuses a larger one before anything is sent,
 * and the trigger refuses a larger one it receives: the same contexts on both sides, whatever the characters.
 */
import type { INode } from 'n8n-workflow';

import type { ResultContext } from '../../../nodes/shared/campaign/resultContext';
import { contextBytes, contextQuery, MAX_CONTEXT_BYTES, parseContextQuery, readResultContext } from '../../../nodes/shared/campaign/resultContext';

const node = { name: 'Place Call', type: 'test', typeVersion: 1, parameters: {}, id: 'n', position: [0, 0] } as INode;

/** Fields f0, f1, ... with these values. */
const fields = (...values: string[]): ResultContext => Object.fromEntries(values.map((value, i) => [`f${i}`, value]));
const x = (n: number) => 'x'.repeat(n);

/**
 * Place Call's contexts and their size: each field adds "ctx_fK=" (7) and its value encoded ("é" is %C3%A9, 6
 * bytes; a space is "+", 1; "&" is %26, 3; an emoji 12), and "&" (1) between two fields.
 */
const SIZES: Array<[string, ResultContext, number]> = [
	['no field', {}, 0],
	['plain text, at the limit', fields(x(200), x(200), x(200), x(200), x(185)), 1024],
	['plain text, a byte over', fields(x(200), x(200), x(200), x(200), x(186)), 1025],
	['spaces are one byte each', fields(' '.repeat(200), ' '.repeat(200), ' '.repeat(200), ' '.repeat(200), ' '.repeat(185)), 1024],
	['accents are six bytes each: 200 characters, over', fields('é'.repeat(100), 'é'.repeat(100)), 1215],
	['accents, at the limit', fields('é'.repeat(100), 'é'.repeat(66), 'abcde'), 1024],
	['"&" and "=" are three bytes each', fields('&='.repeat(100), '&='.repeat(69)), 1029],
	['emoji are twelve bytes each', fields('😀'.repeat(85)), 1027],
];

test.each(SIZES)('%s: %#', (_label, context, bytes) => {
	expect(contextBytes(context)).toBe(bytes);
	const accepted = bytes <= MAX_CONTEXT_BYTES;
	const entries = Object.entries(context).map(([name, value]) => ({ name, value }));
	const sent = () => readResultContext(node, { fields: entries }, 0);
	if (accepted) expect(sent()).toEqual(context);
	else expect(sent).toThrow(`Invalid "Result Context": is ${bytes} bytes once encoded for the Call Result URL; at most ${MAX_CONTEXT_BYTES}`);
	// The trigger, given the query Place Call makes: the same decision.
	const present = Object.keys(context).length > 0;
	expect(parseContextQuery(contextQuery(context))).toEqual(
		!accepted ? { ok: false, reason: `context longer than ${MAX_CONTEXT_BYTES} bytes` } : present ? { ok: true, present: true, context } : { ok: true, present: false },
	);
});

test('the trigger measures the context, not how the query happened to be encoded', () => {
	const context = fields(x(200), x(200), x(200), x(200), `${x(183)} a`);
	expect(contextBytes(context)).toBe(1024);
	const asSent = contextQuery(context);
	// The same context with its space as %20 and its letters as %78: longer text, the same context.
	const reEncoded = asSent.replace('+a', '%20a').replace(/x/g, '%78');
	expect(reEncoded.length).toBeGreaterThan(MAX_CONTEXT_BYTES);
	expect(parseContextQuery(reEncoded)).toEqual({ ok: true, present: true, context });
});
