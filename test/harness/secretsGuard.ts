/**
 * Test-wide secrets guard (jest setupFilesAfterEach): records every node output, every error the
 * harness sees (message, description, errorResponse, cause, context and any other own field), every
 * line of n8n's logger (captured here instead of printed: see recordLog) and every line written to the
 * console, stdout or stderr, then fails the test file if any configured secret (portal, outbound and
 * assistant keys, trigger tokens) appears in any of them.
 */

const secrets = new Set<string>();
const secretSources: Array<() => Iterable<string>> = [];
const recorded: string[] = [];
const allowed = new Set<string>();

/** A secret a test deliberately asked a node to output (e.g. Include API Key in Output). */
export function allowSecretInOutput(value: string): void {
	allowed.add(value);
}

/**
 * Stops looking for a value: for a test that leaks a value on purpose to prove the guard catches
 * it. The value is no longer registered and is ignored even if a secret source still yields it.
 */
export function forgetSecret(value: string): void {
	secrets.delete(value);
	allowed.add(value);
}

/** Registers a secret value to look for (values shorter than 8 characters are ignored). */
export function registerSecret(value: unknown): void {
	if (typeof value === 'string' && value.length >= 8) secrets.add(value);
}

/** Registers a function read at the end of the file, e.g. every assistant key a sandbox knows. */
export function registerSecretSource(source: () => Iterable<string>): void {
	secretSources.push(source);
}

/**
 * JSON of a value with errors spelled out: an Error's message, stack and every own field (n8n's
 * NodeApiError keeps the platform's answer in errorResponse, cause and context), at any depth;
 * cycles are cut. A `node` (an error's, a log line's) is reduced to its name: its parameters are the
 * user's own workflow (an assistant key override typed there is not a leak by the node).
 */
export function scannable(value: unknown): string {
	if (typeof value === 'string') return value;
	const seen = new WeakSet<object>();
	try {
		return (
			JSON.stringify(value, function (key, v: unknown) {
				if (typeof v === 'bigint') return String(v);
				if (typeof v !== 'object' || v === null) return v;
				if (key === 'node' && 'parameters' in v && 'typeVersion' in v) return (v as { name?: string }).name;
				if (seen.has(v)) return '[cycle]';
				seen.add(v);
				if (v instanceof Error) {
					const e = v as Error & { cause?: unknown };
					return { name: e.name, message: e.message, stack: e.stack, cause: e.cause, ...Object.fromEntries(Object.entries(e)) };
				}
				return v;
			}) ?? ''
		);
	} catch {
		return String(value);
	}
}

/** Records something a node produced (output items, errors) for the end-of-file scan. */
export function recordProduced(value: unknown): void {
	recorded.push(scannable(value));
}

/** n8n's logger output of the current test file, one line per call, never printed. */
export const logLines: string[] = [];

/**
 * A line of n8n's logger (LoggerProxy and the Logger service, routed here by test/harness/engine.ts):
 * kept for the scan and for tests that read `logLines`, not printed, so that errors a test expects
 * stay quiet (a failing test shows its own assertion).
 */
export function recordLog(level: string, message: unknown, metadata?: unknown): void {
	const line = `${level}: ${scannable(message)}${metadata === undefined ? '' : ' ' + scannable(metadata)}`;
	logLines.push(line);
	recorded.push(line);
}

// Bound once: in jest's vm context every read of a global (Math) goes through the context's
// interceptors, which makes the scan below about 25 times slower.
const imul = Math.imul;
const WINDOW = 8;
/** A bit per hash value modulo 2^24: most windows are ruled out without a map lookup. */
const FILTER_MASK = (1 << 24) - 1;
const BASE = 257;
/** BASE^(WINDOW-1) mod 2^32, to take the oldest character out of a rolling hash. */
const TOP = (() => {
	let power = 1;
	for (let i = 1; i < WINDOW; i++) power = imul(power, BASE);
	return power;
})();

function windowHash(text: string, start: number): number {
	let hash = 0;
	for (let i = start; i < start + WINDOW; i++) hash = (imul(hash, BASE) + text.charCodeAt(i)) | 0;
	return hash;
}

/**
 * Every place a secret occurs in `text`: a rolling hash over 8-character windows finds candidate
 * starts in one pass, then each candidate is compared in full. Suites seed 150,000 assistants (each
 * key is a secret) and output 150,000 items, so a scan per secret would take hours.
 */
function scan(
	text: string,
	byPrefix: Map<number, string[]>,
	filter: Uint32Array,
	found: (secret: string, at: number) => void,
): void {
	if (text.length < WINDOW) return;
	let hash = windowHash(text, 0);
	for (let start = 0; ; start++) {
		const bit = hash & FILTER_MASK;
		const candidates = filter[bit >>> 5] & (1 << (bit & 31)) ? byPrefix.get(hash) : undefined;
		if (candidates) {
			for (const secret of candidates) if (text.startsWith(secret, start)) found(secret, start);
		}
		const next = start + WINDOW;
		if (next >= text.length) return;
		hash = (imul(hash - imul(text.charCodeAt(start), TOP), BASE) + text.charCodeAt(next)) | 0;
	}
}

export function findLeaks(): string[] {
	const all = new Set(secrets);
	for (const source of secretSources) {
		for (const value of source()) if (typeof value === 'string' && value.length >= WINDOW) all.add(value);
	}
	for (const value of allowed) all.delete(value);
	const byPrefix = new Map<number, string[]>();
	const filter = new Uint32Array((FILTER_MASK + 1) >>> 5);
	for (const secret of all) {
		const hash = windowHash(secret, 0);
		const bit = hash & FILTER_MASK;
		filter[bit >>> 5] |= 1 << (bit & 31);
		const list = byPrefix.get(hash);
		if (list) list.push(secret);
		else byPrefix.set(hash, [secret]);
	}
	const leaks: string[] = [];
	for (const text of recorded) {
		const found = new Map<string, number>();
		scan(text, byPrefix, filter, (secret, at) => {
			if (!found.has(secret)) found.set(secret, at);
		});
		for (const [secret, at] of found) {
			// The report shows where, never a secret itself (it ends up in CI logs).
			let context = text.slice(Math.max(0, at - 80), at + secret.length + 80);
			for (const other of found.keys()) context = context.split(other).join('[SECRET]');
			leaks.push(`${secret.slice(0, 3)}… (${secret.length} characters) found in: …${context}…`);
		}
	}
	return leaks;
}

let muted = false;

/** Runs `fn` with console and stdout/stderr recorded for the scan but not printed (a test that writes on purpose). */
export function withoutPrinting<T>(fn: () => T): T {
	muted = true;
	try {
		return fn();
	} finally {
		muted = false;
	}
}

export function installOutputCapture(): void {
	for (const stream of [process.stdout, process.stderr]) {
		const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
		(stream as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
			const chunk = args[0];
			recorded.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
			return muted ? true : original(...args);
		};
	}
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		const original = console[method].bind(console);
		console[method] = (...args: unknown[]) => {
			recordProduced(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack ?? ''}` : a)));
			if (!muted) original(...args);
		};
	}
}

