import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { AssistantRecord, SandboxOptions } from '../../sandbox';
import { PlatformSandbox } from '../../sandbox';

import { registerSecret, registerSecretSource } from './secretsGuard';

export interface SandboxFixture {
	sandbox: PlatformSandbox;
	/** Credentials for both types, pointing at the sandbox. */
	credentials: Record<string, ICredentialDataDecryptedObject>;
	portal: ICredentialDataDecryptedObject;
	outbound: ICredentialDataDecryptedObject;
}

/** Starts a sandbox on a free port (manual clock unless told otherwise) and credentials that reach it. */
export async function startSandbox(
	options: SandboxOptions = {},
	assistantApiKey?: string,
): Promise<SandboxFixture> {
	const sandbox = await PlatformSandbox.start({ clock: 'manual', ...options });
	registerSecret(sandbox.portalKey);
	registerSecret(sandbox.outboundKey);
	registerSecretSource(() => assistantKeysOf(sandbox));
	const portal = { baseUrl: sandbox.url, portalApiKey: sandbox.portalKey };
	const outbound = {
		outboundUrl: sandbox.url,
		outboundApiKey: sandbox.outboundKey,
		assistantApiKey: assistantApiKey ?? '',
	};
	return {
		sandbox,
		portal,
		outbound,
		credentials: { assistantPlatformPortalApi: portal, assistantPlatformOutboundApi: outbound },
	};
}

/** Every assistant key the sandbox knows (current state, including assistants created by tests). */
export function assistantKeysOf(sandbox: PlatformSandbox): string[] {
	return sandbox.state.assistants.list.map((assistant) => assistant.assistantApiKey);
}

/**
 * The usual fixture of a test file: a sandbox started before the file's tests, stopped after them,
 * and (unless `reset: false`) reset to its seed before each test. The returned object is filled in
 * by `beforeAll`, so read its fields inside hooks and tests only.
 */
export function useSandbox(options: SandboxOptions = {}, { reset = true } = {}): SandboxFixture {
	const fx = {} as SandboxFixture;
	beforeAll(async () => {
		Object.assign(fx, await startSandbox(options));
	});
	afterAll(async () => {
		await fx.sandbox?.stop();
	});
	if (reset) {
		beforeEach(() => {
			fx.sandbox.reset();
		});
	}
	return fx;
}

/**
 * A calling assistant with `number` whose key is the Outbound credential's, the caller of Place Call, and an
 * empty journal (call it after a reset). Returns the assistant (with its key).
 */
export function callerAssistant(fx: SandboxFixture, number: string): AssistantRecord {
	const assistant = fx.sandbox.createAssistant({ name: 'Caller', number });
	registerSecret(assistant.assistantApiKey);
	fx.outbound.assistantApiKey = assistant.assistantApiKey;
	fx.sandbox.clearJournal();
	return assistant;
}

/** Before each test (after useSandbox's reset): callerAssistant(fx, number). */
export function useCallerAssistant(fx: SandboxFixture, number: string): void {
	beforeEach(() => {
		callerAssistant(fx, number);
	});
}

/** Asserts that no key the sandbox knows (nor any extra one given) appears in `value`. */
export function expectNoSecrets(fx: SandboxFixture, value: unknown, extra: string[] = []): void {
	const text = JSON.stringify(value) ?? '';
	for (const key of [fx.sandbox.portalKey, fx.sandbox.outboundKey, ...assistantKeysOf(fx.sandbox), ...extra]) {
		if (key) expect(text).not.toContain(key);
	}
}
