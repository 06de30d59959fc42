import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { SandboxOptions } from '../../sandbox';
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

/** Every assistant key the sandbox knows (state.assistants may be a Map or a record). */
export function assistantKeysOf(sandbox: PlatformSandbox): string[] {
	const assistants = sandbox.state.assistants as unknown;
	const values =
		assistants instanceof Map
			? [...assistants.values()]
			: Object.values((assistants ?? {}) as Record<string, unknown>);
	return values
		.map((a) => (a as { assistantApiKey?: unknown }).assistantApiKey)
		.filter((k): k is string => typeof k === 'string');
}
