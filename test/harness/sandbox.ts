import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { SandboxOptions } from '../../sandbox';
import { PlatformSandbox } from '../../sandbox';

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
