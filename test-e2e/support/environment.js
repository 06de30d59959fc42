// One end-to-end environment per suite run: the platform sandbox (in this process, real clock, deterministic
// seed), a real n8n (own temp user folder, the packed package installed as a community package), and one
// credential of each type pointing at the sandbox.
//
// Inputs (all optional; scripts/e2e.js sets the first two after building once):
//   E2E_TARBALL        the packed package (default: build and pack now)
//   E2E_SKIP_COMPILE=1 .build/sandbox is fresh already (default: compile it now)
//   E2E_KEEP=1         keep the n8n user folder (its n8n.log, database) after the run and print where it is
//   E2E_N8N_ECHO=1     also print n8n's own output
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { buildAndPack, startN8n, makeLogger } = require('../../scripts/n8n-runtime');
const { compileSandbox, loadSandbox } = require('../../scripts/n8n-sandbox');
const { PORTAL_CREDENTIAL_TYPE, OUTBOUND_CREDENTIAL_TYPE } = require('../../scripts/n8n-examples');

const log = makeLogger('e2e', process.stderr);

/**
 * The portal and outbound credentials of the sandbox, created in a running n8n. The outbound one carries the
 * key of the first seeded assistant (as in the demo), so that Place Call works with that assistant's demo
 * number as Caller ID. Returns the references workflows use ({id, name, type}).
 */
async function createSandboxCredentials(n8n, sandbox) {
	const portal = await n8n.api('POST', '/credentials', {
		name: 'Assistant Platform Portal (sandbox)',
		type: PORTAL_CREDENTIAL_TYPE,
		data: { baseUrl: sandbox.url, portalApiKey: sandbox.portalKey },
	});
	const firstAssistant = sandbox.state.assistants.list?.[0];
	const outbound = await n8n.api('POST', '/credentials', {
		name: 'Assistant Platform Outbound (sandbox)',
		type: OUTBOUND_CREDENTIAL_TYPE,
		data: {
			outboundUrl: sandbox.url,
			outboundApiKey: sandbox.outboundKey,
			assistantApiKey: firstAssistant?.assistantApiKey ?? '',
		},
	});
	return {
		portal: { id: portal.id, name: portal.name, type: PORTAL_CREDENTIAL_TYPE },
		outbound: { id: outbound.id, name: outbound.name, type: OUTBOUND_CREDENTIAL_TYPE },
	};
}

/**
 * Starts everything. Resolves with
 *   { sandbox, n8n, credentials: { portal, outbound }, byType, tarball, userFolder, timings, stop() }
 * The outbound credential holds the first seeded assistant's key.
 * where credentials.* are the n8n credentials ({ id, name, type }) and byType maps a credential type to one.
 */
async function startEnvironment() {
	const timings = {};
	const t0 = Date.now();
	const tarball = process.env.E2E_TARBALL || buildAndPack({ log });
	if (!process.env.E2E_SKIP_COMPILE) compileSandbox({ log });
	const { PlatformSandbox } = loadSandbox();
	timings.prepareMs = Date.now() - t0;

	const sandbox = await PlatformSandbox.start({ clock: 'real', seed: { deterministic: true } });
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
	let n8n;
	try {
		const t1 = Date.now();
		n8n = await startN8n({ userFolder, tarball, install: true, log, echo: Boolean(process.env.E2E_N8N_ECHO) });
		timings.n8nBootMs = Date.now() - t1;
		timings.n8nReadyMs = n8n.timings.readyMs;

		const credentials = await createSandboxCredentials(n8n, sandbox);
		log(`environment ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: sandbox ${sandbox.url}, n8n ${n8n.url}`);

		let stopped = false;
		const stop = async () => {
			if (stopped) return;
			stopped = true;
			await n8n.stop();
			await sandbox.stop();
			if (process.env.E2E_KEEP) log(`kept the n8n user folder: ${userFolder} (n8n.log inside)`);
			else fs.rmSync(userFolder, { recursive: true, force: true });
		};
		// Last resort if the test process dies without running `after`: never leave n8n running.
		process.once('exit', () => {
			if (!n8n.exitInfo) n8n.killNow();
		});
		return {
			sandbox,
			n8n,
			credentials,
			byType: { [PORTAL_CREDENTIAL_TYPE]: credentials.portal, [OUTBOUND_CREDENTIAL_TYPE]: credentials.outbound },
			tarball,
			userFolder,
			timings,
			stop,
		};
	} catch (error) {
		if (n8n) await n8n.stop();
		await sandbox.stop();
		log(`startup failed; n8n user folder kept for inspection: ${userFolder}`);
		throw error;
	}
}

module.exports = { startEnvironment, createSandboxCredentials };
