/**
 * Test-wide secrets guard (jest setupFilesAfterEach): records every node output, error message and
 * description the harness sees, and every line written to the console, stdout or stderr, then fails
 * the test file if any configured secret (portal, outbound and assistant keys, trigger tokens)
 * appears in any of them.
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

/** Records something a node produced (output items, errors) for the end-of-file scan. */
export function recordProduced(value: unknown): void {
	try {
		recorded.push(typeof value === 'string' ? value : JSON.stringify(value) ?? '');
	} catch {
		recorded.push(String(value));
	}
}

export function findLeaks(): string[] {
	const all = new Set(secrets);
	for (const source of secretSources) {
		for (const value of source()) if (typeof value === 'string' && value.length >= 8) all.add(value);
	}
	for (const value of allowed) all.delete(value);
	const leaks: string[] = [];
	for (const text of recorded) {
		for (const secret of all) {
			const at = text.indexOf(secret);
			if (at >= 0) {
				// The report shows where, never the secret itself (it ends up in CI logs).
				const context = text.slice(Math.max(0, at - 80), at + secret.length + 80).split(secret).join('[SECRET]');
				leaks.push(`${secret.slice(0, 3)}… (${secret.length} characters) found in: …${context}…`);
			}
		}
	}
	return leaks;
}

export function installOutputCapture(): void {
	for (const stream of [process.stdout, process.stderr]) {
		const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
		(stream as unknown as { write: (...args: unknown[]) => boolean }).write = (...args: unknown[]) => {
			const chunk = args[0];
			recorded.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
			return original(...args);
		};
	}
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		const original = console[method].bind(console);
		console[method] = (...args: unknown[]) => {
			recordProduced(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack ?? ''}` : a)));
			original(...args);
		};
	}
}
