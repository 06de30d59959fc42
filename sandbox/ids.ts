import { createCipheriv, createHash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ALPHANUM_CODES = Buffer.from(ALPHANUM, 'latin1');
const CHUNK = 64 * 1024;

/**
 * A buffered stream of bytes: either crypto-random, or an AES-256-CTR keystream of a secret
 * (the same secret always yields the same ids, which makes seeding reproducible and fast).
 */
export class IdSource {
	private buffer: Buffer = Buffer.alloc(0);
	private offset = 0;
	private readonly cipher: ReturnType<typeof createCipheriv> | null;

	private constructor(secret: Buffer | null) {
		this.cipher = secret ? createCipheriv('aes-256-ctr', createHash('sha256').update(secret).digest(), Buffer.alloc(16)) : null;
	}

	static random(): IdSource {
		return new IdSource(null);
	}

	static fromSecret(secret: Buffer | string): IdSource {
		return new IdSource(Buffer.isBuffer(secret) ? secret : Buffer.from(secret, 'utf8'));
	}

	private refill(): void {
		this.buffer = this.cipher ? this.cipher.update(Buffer.alloc(CHUNK)) : randomFillSync(Buffer.allocUnsafe(CHUNK));
		this.offset = 0;
	}

	private byte(): number {
		if (this.offset >= this.buffer.length) this.refill();
		return this.buffer[this.offset++];
	}

	/** `length` characters from [A-Za-z0-9], unbiased (rejection sampling). */
	alphanumeric(length: number): string {
		const out = Buffer.allocUnsafe(length);
		let n = 0;
		while (n < length) {
			if (this.offset >= this.buffer.length) this.refill();
			const b = this.buffer[this.offset++];
			if (b < 248) out[n++] = ALPHANUM_CODES[b % 62];
		}
		return out.toString('latin1');
	}

	hex(bytes: number): string {
		if (this.offset + bytes > this.buffer.length) this.refill();
		const text = this.buffer.toString('hex', this.offset, this.offset + bytes);
		this.offset += bytes;
		return text;
	}

	/** A uniform integer in [0, n). */
	int(n: number): number {
		const v = (this.byte() << 16) | (this.byte() << 8) | this.byte();
		return v % n;
	}
}

export function randomSecret(bytes = 32): Buffer {
	return randomBytes(bytes);
}

export function randomKey(prefix: string, length = 32): string {
	return prefix + IdSource.random().alphanumeric(length);
}

/** Constant-time comparison of two strings of any lengths: both are hashed to 32 bytes first. */
export function safeEqual(a: string, b: string): boolean {
	const ha = createHash('sha256').update(a, 'utf8').digest();
	const hb = createHash('sha256').update(b, 'utf8').digest();
	return timingSafeEqual(ha, hb);
}
