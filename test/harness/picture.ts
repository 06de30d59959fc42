import { inflateSync } from 'node:zlib';

import { Canvas } from '../../nodes/shared/picture/canvas';

/*
 * Reading a picture the package drew: a PNG decoded with Node's own zlib (not the package's code), its pixels as
 * colours, and its text found by drawing the text again with the package's font and looking for that exact pattern
 * (the font is a bitmap one, drawn at whole-number scales: what it draws is what a person reads).
 */

export interface DecodedPng {
	width: number;
	height: number;
	/** Colour of each palette index, six hexadecimal digits. */
	palette: string[];
	/** Palette index of each pixel, row by row. */
	pixels: Uint8Array;
	/** The chunk types in order. */
	chunks: string[];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc(bytes: Buffer): number {
	let c = 0xffffffff;
	for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

/** A PNG of 8-bit palette indices (what the package writes), checked chunk by chunk; throws on anything else. */
export function decodePng(png: Buffer): DecodedPng {
	if (!png.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))) throw new Error('not a PNG signature');
	const chunks: string[] = [];
	const idat: Buffer[] = [];
	let width = 0;
	let height = 0;
	let palette: string[] = [];
	for (let at = 8; at < png.length; ) {
		const length = png.readUInt32BE(at);
		const type = png.toString('latin1', at + 4, at + 8);
		const data = png.subarray(at + 8, at + 8 + length);
		if (crc(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) throw new Error(`${type}: wrong CRC`);
		chunks.push(type);
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			if (data[8] !== 8 || data[9] !== 3) throw new Error(`IHDR: bit depth ${data[8]}, colour type ${data[9]} (8-bit palette expected)`);
		}
		if (type === 'PLTE') palette = Array.from({ length: length / 3 }, (_, i) => data.toString('hex', i * 3, i * 3 + 3));
		if (type === 'IDAT') idat.push(data);
		at += length + 12;
	}
	const raw = inflateSync(Buffer.concat(idat));
	if (raw.length !== (width + 1) * height) throw new Error(`IDAT: ${raw.length} bytes for ${width}x${height}`);
	const pixels = new Uint8Array(width * height);
	for (let y = 0; y < height; y++) {
		if (raw[y * (width + 1)] !== 0) throw new Error(`row ${y}: filter ${raw[y * (width + 1)]}`);
		pixels.set(raw.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)), y * width);
	}
	return { width, height, palette, pixels, chunks };
}

export function colorAt(image: DecodedPng, x: number, y: number): string {
	return image.palette[image.pixels[y * image.width + x]];
}

/** How many pixels of `color` there are in the rectangle (the whole picture by default). */
export function pixelsOf(image: DecodedPng, color: string, box = { x: 0, y: 0, width: image.width, height: image.height }): number {
	let n = 0;
	for (let y = box.y; y < box.y + box.height; y++) for (let x = box.x; x < box.x + box.width; x++) if (colorAt(image, x, y) === color) n++;
	return n;
}

export interface FoundText {
	x: number;
	y: number;
	color: string;
}

/**
 * Where `text` is drawn in the picture (its top-left corner and colour), plain or bold, at `scale`, within `box`:
 * every pixel of its glyphs in one colour and every other pixel of its box in another. Undefined when it is not
 * there.
 */
export function findText(image: DecodedPng, text: string, scale = 2, box = { x: 0, y: 0, width: image.width, height: image.height }): FoundText | undefined {
	for (const bold of [false, true]) {
		const width = Canvas.textWidth(text, scale) + (bold ? 1 : 0);
		const height = 9 * scale;
		const stamp = new Canvas(width, height, 0);
		stamp.text(0, 7 * scale, text, 1, { scale, bold });
		const ink: number[] = [];
		const blank: number[] = [];
		stamp.pixels.forEach((value, i) => (value === 1 ? ink : blank).push(i));
		if (ink.length === 0) continue;
		for (let y = box.y; y + height <= box.y + box.height; y++) {
			for (let x = box.x; x + width <= box.x + box.width; x++) {
				const at = (i: number) => image.pixels[(y + Math.floor(i / width)) * image.width + x + (i % width)];
				const color = at(ink[0]);
				// A blank pixel of the ink's colour rules the place out at once (a plain area, most of the picture).
				if (blank.length > 0 && (at(blank[0]) === color || at(blank[blank.length - 1]) === color)) continue;
				if (!ink.every((i) => at(i) === color) || blank.some((i) => at(i) === color)) continue;
				return { x, y, color: image.palette[color] };
			}
		}
	}
	return undefined;
}
