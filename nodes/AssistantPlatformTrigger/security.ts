/**
 * Security helpers of the trigger: the webhook secret rules, a constant-time comparison, and an IP
 * allowlist (IPv4 and IPv6 CIDR) parsed and matched without dependencies.
 */

import { splitList } from '../shared/core/text';

/** Characters allowed in the secret: it is a URL path segment, so only the URL-safe base64 alphabet. */
const SECRET_ALPHABET = /^[A-Za-z0-9_-]+$/;
export const SECRET_MIN_LENGTH = 32;
export const SECRET_MAX_LENGTH = 128;
/** A random 32-character secret has far more distinct characters; fewer means it was typed by hand. */
const SECRET_MIN_DISTINCT = 8;

/** Why a secret is not acceptable, or undefined when it is. Never includes the value itself. */
export function secretProblem(secret: unknown): string | undefined {
	if (typeof secret !== 'string' || secret === '') {
		return 'is required';
	}
	if (!SECRET_ALPHABET.test(secret)) {
		return 'may only contain the letters A-Z and a-z, the digits 0-9, "-" and "_" (it becomes part of the URL)';
	}
	if (secret.length < SECRET_MIN_LENGTH) {
		return `must be at least ${SECRET_MIN_LENGTH} characters long (at least 128 bits); generate one with "openssl rand -hex 32"`;
	}
	if (secret.length > SECRET_MAX_LENGTH) {
		return `must be at most ${SECRET_MAX_LENGTH} characters long`;
	}
	if (new Set(secret).size < SECRET_MIN_DISTINCT) {
		return 'looks hand-made (too few distinct characters); generate a random one with "openssl rand -hex 32"';
	}
	return undefined;
}

/**
 * Compares a received value with the expected secret in time that depends only on the expected
 * secret's length: every character is always compared, and a length difference is folded into the
 * result instead of returning early.
 */
export function constantTimeEqual(received: string, expected: string): boolean {
	let diff = received.length ^ expected.length;
	for (let i = 0; i < expected.length; i++) {
		const r = i < received.length ? received.charCodeAt(i) : 0;
		diff |= r ^ expected.charCodeAt(i);
	}
	return diff === 0 && expected.length > 0;
}

// ---------------------------------------------------------------------------------------------
// IP allowlist

export interface IpRange {
	version: 4 | 6;
	/** Network address as a 32-bit (v4) or 128-bit (v6) integer. */
	network: bigint;
	prefix: number;
	text: string;
}

function parseIpv4(text: string): bigint | undefined {
	const parts = text.split('.');
	if (parts.length !== 4) return undefined;
	let value = 0n;
	for (const part of parts) {
		if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
		const n = Number(part);
		if (n > 255) return undefined;
		value = (value << 8n) | BigInt(n);
	}
	return value;
}

function parseIpv6(input: string): bigint | undefined {
	let text = input;
	const zone = text.indexOf('%');
	if (zone >= 0) text = text.slice(0, zone);
	if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
	if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(':')) return undefined;

	// An embedded IPv4 address in the last 32 bits (e.g. ::ffff:192.0.2.1) becomes two hex groups.
	const lastColon = text.lastIndexOf(':');
	const tail = text.slice(lastColon + 1);
	if (tail.includes('.')) {
		const v4 = parseIpv4(tail);
		if (v4 === undefined) return undefined;
		const high = Number(v4 >> 16n).toString(16);
		const low = Number(v4 & 0xffffn).toString(16);
		text = `${text.slice(0, lastColon + 1)}${high}:${low}`;
	}

	const doubleColon = text.indexOf('::');
	if (doubleColon !== text.lastIndexOf('::')) return undefined;
	const parseGroups = (part: string): number[] | undefined => {
		if (part === '') return [];
		const groups = part.split(':');
		const out: number[] = [];
		for (const group of groups) {
			if (!/^[0-9A-Fa-f]{1,4}$/.test(group)) return undefined;
			out.push(parseInt(group, 16));
		}
		return out;
	};

	let groups: number[];
	if (doubleColon >= 0) {
		const head = parseGroups(text.slice(0, doubleColon));
		const rest = parseGroups(text.slice(doubleColon + 2));
		if (!head || !rest) return undefined;
		const missing = 8 - head.length - rest.length;
		if (missing < 1) return undefined;
		groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
	} else {
		const all = parseGroups(text);
		if (!all) return undefined;
		groups = all;
	}
	if (groups.length !== 8) return undefined;
	let value = 0n;
	for (const group of groups) value = (value << 16n) | BigInt(group);
	return value;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/** Parses an IPv4 or IPv6 address; an IPv4-mapped IPv6 address is returned as IPv4. */
export function parseIp(text: string): { version: 4 | 6; value: bigint } | undefined {
	const trimmed = text.trim();
	const v4 = parseIpv4(trimmed);
	if (v4 !== undefined) return { version: 4, value: v4 };
	const v6 = parseIpv6(trimmed);
	if (v6 === undefined) return undefined;
	if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 - V4_MAPPED_PREFIX };
	return { version: 6, value: v6 };
}

function mask(version: 4 | 6, prefix: number): bigint {
	const bits = version === 4 ? 32n : 128n;
	const all = (1n << bits) - 1n;
	return prefix === 0 ? 0n : (all << (bits - BigInt(prefix))) & all;
}

/** Parses one allowlist entry: an address (a single host) or address/prefix. */
export function parseCidr(entry: string): IpRange | undefined {
	const text = entry.trim();
	const slash = text.indexOf('/');
	const address = slash < 0 ? text : text.slice(0, slash);
	const v4 = parseIpv4(address);
	const v6 = v4 === undefined ? parseIpv6(address) : undefined;
	if (v4 === undefined && v6 === undefined) return undefined;
	const ip = v4 !== undefined ? { version: 4 as const, value: v4 } : { version: 6 as const, value: v6! };
	const maxPrefix = ip.version === 4 ? 32 : 128;
	let prefix = maxPrefix;
	if (slash >= 0) {
		const p = text.slice(slash + 1);
		if (!/^\d{1,3}$/.test(p)) return undefined;
		prefix = Number(p);
		if (prefix > maxPrefix) return undefined;
	}
	return { version: ip.version, network: ip.value & mask(ip.version, prefix), prefix, text };
}

/** Splits the allowlist text (commas, spaces or new lines) into ranges and the entries that are invalid. */
export function parseAllowlist(text: string): { ranges: IpRange[]; invalid: string[] } {
	const entries = splitList(text, { words: true });
	const ranges: IpRange[] = [];
	const invalid: string[] = [];
	for (const entry of entries) {
		const range = parseCidr(entry);
		if (range) ranges.push(range);
		else invalid.push(entry);
	}
	return { ranges, invalid };
}

export function ipAllowed(ip: string, ranges: IpRange[]): boolean {
	const parsed = parseIp(ip);
	if (!parsed) return false;
	for (const range of ranges) {
		let candidate = parsed;
		if (range.version === 6 && parsed.version === 4) {
			// An IPv6 range can list IPv4 clients in their mapped form (::ffff:0:0/96).
			candidate = { version: 6, value: parsed.value + V4_MAPPED_PREFIX };
		}
		if (range.version !== candidate.version) continue;
		if ((candidate.value & mask(range.version, range.prefix)) === range.network) return true;
	}
	return false;
}
