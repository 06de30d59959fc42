// Read once: a global looked up on every character is ~100x slower where the code runs in a vm context
// (jest's test environment; any sandbox that loads the node), and list walks hash every item they read.
const imul = Math.imul;

/** 53 bits of cyrb53 over `text` (a well-mixed string hash; node code loads no crypto module). */
function cyrb53(text: string, seed: number): string {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = imul(h1 ^ ch, 2654435761);
		h2 = imul(h2 ^ ch, 1597334677);
	}
	h1 = imul(h1 ^ (h1 >>> 16), 2246822507) ^ imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = imul(h2 ^ (h2 >>> 16), 2246822507) ^ imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * A short digest that tells texts apart: their length and two 53-bit cyrb53 hashes. Not a
 * cryptographic hash: where it is used (repeated deliveries, repeated list items), a forged
 * collision can only cause a refusal that its sender could cause anyway.
 */
export function textDigest(text: string): string {
	return `${text.length}:${cyrb53(text, 1)}${cyrb53(text, 2)}`;
}
