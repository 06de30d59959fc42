/*
 * A PNG file from an image of palette indices, written here: n8n's output panel shows a PNG (it refuses to show an
 * SVG), and a community node may load no library but n8n-workflow. The image data is deflated (RFC 1951) with the
 * fixed Huffman codes and LZ77 matches found through a hash of three bytes: a picture of flat areas and text shrinks
 * to a few percent of its pixels. The pixels are compressed once; each palette (a light and a dark one) only changes
 * the PLTE chunk.
 */

/** Lengths 3..258 as deflate codes them: the base of each code from 257 on, and its extra bits. */
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/** Distances 1..32768: the base of each code 0..29, and its extra bits. */
const DISTANCE_BASE = [
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

const WINDOW = 32_768;
const MIN_MATCH = 3;
const MAX_MATCH = 258;
/** Earlier places with the same three bytes tried for each match: enough for pictures, bounded for any input. */
const MAX_CHAIN = 32;
const HASH_BITS = 15;

/** `code` of `length` bits, last bit first (deflate sends Huffman codes from their first bit, into the low bits). */
function reversed(code: number, length: number): number {
	let out = 0;
	for (let i = 0; i < length; i++) out = (out << 1) | ((code >> i) & 1);
	return out;
}

/** The fixed literal/length code of each symbol 0..287 (RFC 1951, 3.2.6), ready to write: [bits, length]. */
const FIXED: Array<[number, number]> = Array.from({ length: 288 }, (_, symbol): [number, number] => {
	if (symbol < 144) return [reversed(0x30 + symbol, 8), 8];
	if (symbol < 256) return [reversed(0x190 + symbol - 144, 9), 9];
	if (symbol < 280) return [reversed(symbol - 256, 7), 7];
	return [reversed(0xc0 + symbol - 280, 8), 8];
});

class BitWriter {
	private bytes = new Uint8Array(1024);
	private size = 0;
	private bits = 0;
	private count = 0;

	write(value: number, length: number): void {
		this.bits |= value << this.count;
		this.count += length;
		while (this.count >= 8) {
			this.push(this.bits & 0xff);
			this.bits >>>= 8;
			this.count -= 8;
		}
	}

	private push(byte: number): void {
		if (this.size === this.bytes.length) {
			const grown = new Uint8Array(this.bytes.length * 2);
			grown.set(this.bytes);
			this.bytes = grown;
		}
		this.bytes[this.size++] = byte;
	}

	end(): Uint8Array {
		if (this.count > 0) this.push(this.bits & 0xff);
		this.bits = 0;
		this.count = 0;
		return this.bytes.subarray(0, this.size);
	}
}

/** The last index of `bases` whose base is at most `value`. */
function codeOf(bases: number[], value: number): number {
	let i = bases.length - 1;
	while (bases[i] > value) i--;
	return i;
}

function writeMatch(out: BitWriter, length: number, distance: number): void {
	const l = codeOf(LENGTH_BASE, length);
	const [bits, size] = FIXED[257 + l];
	out.write(bits, size);
	if (LENGTH_EXTRA[l] > 0) out.write(length - LENGTH_BASE[l], LENGTH_EXTRA[l]);
	const d = codeOf(DISTANCE_BASE, distance);
	out.write(reversed(d, 5), 5);
	if (DISTANCE_EXTRA[d] > 0) out.write(distance - DISTANCE_BASE[d], DISTANCE_EXTRA[d]);
}

/** `data` as one deflate block with the fixed codes (RFC 1951). */
export function deflate(data: Uint8Array): Uint8Array {
	const out = new BitWriter();
	out.write(1, 1); // the last block
	out.write(1, 2); // fixed Huffman codes
	const head = new Int32Array(1 << HASH_BITS).fill(-1);
	const previous = new Int32Array(data.length);
	const hashAt = (i: number) => ((data[i] << 10) ^ (data[i + 1] << 5) ^ data[i + 2]) & ((1 << HASH_BITS) - 1);
	const insert = (i: number) => {
		if (i + MIN_MATCH > data.length) return;
		const hash = hashAt(i);
		previous[i] = head[hash];
		head[hash] = i;
	};
	let i = 0;
	while (i < data.length) {
		let best = 0;
		let distance = 0;
		if (i + MIN_MATCH <= data.length) {
			const limit = Math.min(MAX_MATCH, data.length - i);
			let candidate = head[hashAt(i)];
			for (let tries = 0; candidate >= 0 && i - candidate <= WINDOW && tries < MAX_CHAIN; tries++) {
				let length = 0;
				while (length < limit && data[candidate + length] === data[i + length]) length++;
				if (length > best) {
					best = length;
					distance = i - candidate;
					if (length === limit) break;
				}
				candidate = previous[candidate];
			}
		}
		if (best >= MIN_MATCH) {
			writeMatch(out, best, distance);
			for (let k = 0; k < best; k++) insert(i + k);
			i += best;
		} else {
			const [bits, size] = FIXED[data[i]];
			out.write(bits, size);
			insert(i);
			i++;
		}
	}
	const [end, size] = FIXED[256];
	out.write(end, size);
	return out.end();
}

function adler32(data: Uint8Array): number {
	let a = 1;
	let b = 0;
	for (let i = 0; i < data.length; ) {
		// 5552 bytes is the most that can be summed before a and b must be reduced (zlib's NMAX).
		const stop = Math.min(data.length, i + 5552);
		for (; i < stop; i++) {
			a += data[i];
			b += a;
		}
		a %= 65521;
		b %= 65521;
	}
	return ((b << 16) | a) >>> 0;
}

/** `data` as a zlib stream (RFC 1950): a header, the deflated data, its Adler-32. */
export function zlibStream(data: Uint8Array): Uint8Array {
	const body = deflate(data);
	const out = new Uint8Array(body.length + 6);
	out[0] = 0x78;
	out[1] = 0x01;
	out.set(body, 2);
	new DataView(out.buffer).setUint32(body.length + 2, adler32(data));
	return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
	let c = 0xffffffff;
	for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
	const out = Buffer.alloc(data.length + 12);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'latin1');
	out.set(data, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
	return out;
}

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

/** An image of palette indices, one byte per pixel, row by row. */
export interface IndexedImage {
	width: number;
	height: number;
	pixels: Uint8Array;
}

/** A colour as six hexadecimal digits (`1d2939`). */
export type Rgb = string;

/**
 * The PNG files of `image` (8-bit palette, no interlace): its pixels compressed once, then one file per palette
 * asked for. Every index in the image must be below the palette's length.
 */
export function indexedPng(image: IndexedImage): (palette: Rgb[]) => Buffer {
	const { width, height, pixels } = image;
	const scanlines = new Uint8Array((width + 1) * height);
	// Each row starts with its filter type, 0 (none): a palette image's rows repeat, which LZ77 finds as they are.
	for (let y = 0; y < height; y++) scanlines.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
	const idat = chunk('IDAT', zlibStream(scanlines));
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header.set([8, 3, 0, 0, 0], 8);
	const ihdr = chunk('IHDR', header);
	const iend = chunk('IEND', new Uint8Array(0));
	return (palette) => {
		const plte = Buffer.from(palette.join(''), 'hex');
		return Buffer.concat([SIGNATURE, ihdr, chunk('PLTE', plte), idat, iend]);
	};
}
