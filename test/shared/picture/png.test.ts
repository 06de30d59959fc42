import { randomBytes } from 'node:crypto';
import { inflateRawSync, inflateSync } from 'node:zlib';

import { Canvas } from '../../../nodes/shared/picture/canvas';
import { drawable, GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows } from '../../../nodes/shared/picture/font';
import { deflate, indexedPng, zlibStream } from '../../../nodes/shared/picture/png';
import { colorAt, decodePng, findText, pixelsOf } from '../../harness/picture';

// The picture room: what it deflates, Node's zlib inflates to the same bytes; its PNG files are read back by a
// decoder of the tests' own, chunk by chunk; its font draws every printable ASCII character; its canvas clips.

describe('deflate and zlib: Node inflates what the package compresses', () => {
	const block = randomBytes(16_384);
	const cases: Array<[string, Uint8Array]> = [
		['nothing', new Uint8Array(0)],
		['one byte', new Uint8Array([7])],
		['random bytes (nothing to match)', new Uint8Array(randomBytes(70_000))],
		['one byte repeated (matches of 258)', new Uint8Array(100_000).fill(3)],
		['a block repeated 32,768 bytes later (the window) and 40,000 later (beyond it)', new Uint8Array(Buffer.concat([block, randomBytes(16_384), block, randomBytes(23_616), block]))],
		['a text', new TextEncoder().encode('the quick brown fox jumps over the lazy dog, '.repeat(500))],
	];

	it.each(cases)('%s', (_name, data) => {
		expect(Buffer.compare(inflateRawSync(deflate(data)), Buffer.from(data))).toBe(0);
		expect(Buffer.compare(inflateSync(zlibStream(data)), Buffer.from(data))).toBe(0);
	});

	it('compresses a flat picture to a few percent of its pixels', () => {
		const canvas = new Canvas(800, 568, 0);
		canvas.rect(24, 170, 752, 22, 1);
		canvas.text(24, 44, 'Spring contacts', 2, { bold: true });
		expect(zlibStream(canvas.pixels).length).toBeLessThan(800 * 568 * 0.02);
	});
});

describe('indexedPng: one drawing, one file per palette', () => {
	const canvas = new Canvas(40, 20, 0);
	canvas.rect(5, 5, 10, 4, 1);
	canvas.text(20, 16, 'Ok', 2, { scale: 1 });
	const files = indexedPng(canvas);

	it('is a PNG of 8-bit palette indices, the same pixels with each palette', () => {
		const light = decodePng(files(['ffffff', '12b76a', '1d2939']));
		const dark = decodePng(files(['161b26', '32d583', 'f2f4f7']));
		expect(light.chunks).toEqual(['IHDR', 'PLTE', 'IDAT', 'IEND']);
		expect([light.width, light.height]).toEqual([40, 20]);
		expect(Buffer.compare(Buffer.from(light.pixels), Buffer.from(canvas.pixels))).toBe(0);
		expect(Buffer.compare(Buffer.from(dark.pixels), Buffer.from(canvas.pixels))).toBe(0);
		expect([colorAt(light, 0, 0), colorAt(light, 6, 6), colorAt(dark, 0, 0), colorAt(dark, 6, 6)]).toEqual(['ffffff', '12b76a', '161b26', '32d583']);
		expect(pixelsOf(light, '12b76a')).toBe(40);
		expect(findText(light, 'Ok', 1)).toEqual({ x: 20, y: 9, color: '1d2939' });
	});
});

describe('the font', () => {
	const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));

	it('draws every printable ASCII character, each with a glyph of its own', () => {
		const shapes = printable.map((char) => glyphRows(char));
		for (const rows of shapes) {
			expect(rows.length).toBeGreaterThanOrEqual(7);
			expect(rows.length).toBeLessThanOrEqual(GLYPH_HEIGHT);
			for (const row of rows) expect(row).toBeLessThan(1 << GLYPH_WIDTH);
		}
		const seen = new Set(shapes.map((rows) => rows.join(',')));
		expect(seen.size).toBe(printable.length);
		expect(drawable(printable.join(''))).toBe(printable.join(''));
	});

	it('writes accents, quotes and dashes plainly, and anything else as ?', () => {
		expect(drawable('Crème brûlée – “Zoë”… 東京')).toBe('Creme brulee - "Zoe"... ??');
	});
});

describe('the canvas', () => {
	it('clips what falls outside it', () => {
		const canvas = new Canvas(10, 10, 0);
		canvas.rect(-5, -5, 100, 100, 1);
		canvas.line(-20, 5, 30, 5, 2);
		canvas.text(8, 9, 'Wide text', 1);
		expect(canvas.pixels.length).toBe(100);
		expect(canvas.pixels.every((p) => p === 1 || p === 2)).toBe(true);
	});

	it('cuts text to a width with "..."', () => {
		expect(Canvas.textWidth('abc')).toBe(34);
		expect(Canvas.fit('Spring contacts', 1000)).toBe('Spring contacts');
		const cut = Canvas.fit('Assistant Platform campaign contacts', 200);
		expect(cut).toBe('Assistant Pla...');
		expect(Canvas.textWidth(cut)).toBeLessThanOrEqual(200);
	});
});
