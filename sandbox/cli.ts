/* Standalone sandbox: `npm run sandbox`. Real clock; Ctrl+C stops it. */
import { API_PREFIX, CONTROL_PREFIX, SAVED_AUTH_HEADER, SAVED_AUTH_NAME } from './constants';
import { CONTROL_ENDPOINTS } from './control';
import { PlatformSandbox } from './sandbox';

function portFromEnv(): number {
	const text = process.env.SANDBOX_PORT;
	if (text === undefined || text === '') return 4010;
	const port = Number(text);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		throw new Error(`SANDBOX_PORT must be an integer 0..65535 (got "${text}")`);
	}
	return port;
}

function numberFromEnv(name: string): number | undefined {
	const text = process.env[name];
	if (text === undefined || text === '') return undefined;
	const value = Number(text);
	if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number above 0 (got "${text}")`);
	return value;
}

async function main(): Promise<void> {
	const sandbox = await PlatformSandbox.start({
		clockSpeed: numberFromEnv('SANDBOX_CLOCK_SPEED'),
		maxConcurrentCalls: numberFromEnv('SANDBOX_MAX_CONCURRENT_CALLS'),
		port: portFromEnv(),
		host: process.env.SANDBOX_HOST || '127.0.0.1',
		portalKey: process.env.SANDBOX_PORTAL_KEY || undefined,
		outboundKey: process.env.SANDBOX_OUTBOUND_KEY || undefined,
		savedAuthValue: process.env.SANDBOX_SAVED_AUTH_VALUE || undefined,
		clock: 'real',
		answers: process.env.SANDBOX_ANSWERS === 'rich' ? 'rich' : 'spec',
		seed: { deterministic: process.env.SANDBOX_DETERMINISTIC === '1' || process.env.SANDBOX_DETERMINISTIC === 'true' },
	});
	const lines: string[] = [
		'Assistant platform sandbox (in-memory, for tests and demos: not the real platform)',
		'',
		`  Management API   ${sandbox.url}${API_PREFIX}   header  Authorization: Bearer <portal key>`,
		`  Outbound API     ${sandbox.url}          header  X-APIKEY-SECRET-SERVICE: <outbound key>`,
		`  Control surface  ${sandbox.url}${CONTROL_PREFIX}/   (no auth; never part of the real platform)`,
		'',
		`  Portal key       ${sandbox.portalKey}${process.env.SANDBOX_PORTAL_KEY ? '' : '   (random; set SANDBOX_PORTAL_KEY to fix it)'}`,
		`  Outbound key     ${sandbox.outboundKey}${process.env.SANDBOX_OUTBOUND_KEY ? '' : '   (random; set SANDBOX_OUTBOUND_KEY to fix it)'}`,
		`  Saved auth       ${SAVED_AUTH_NAME}: ${SAVED_AUTH_HEADER}: ${sandbox.savedAuthValue}`,
		'',
		'  Seeded assistants:',
	];
	for (const a of sandbox.state.assistants) {
		lines.push(`    ${a.name.padEnd(22)} ${a.assistantId}  numbers ${a.numbers.join(', ').padEnd(28)} key ${a.assistantApiKey}`);
	}
	const free = [...sandbox.state.numbers].filter((n) => n.assistantId === null).map((n) => `${n.number} (${n.kind})`);
	lines.push('', `  Free numbers     ${free.join(', ')}`);
	lines.push(`  Authorized PBX   ${[...sandbox.state.authorizedPbx].join(', ')}`);
	lines.push(`  Clock speed      ${sandbox.clock.speed}x wall time; calls at once: ${sandbox.accountLimit ?? 'no limit'}`);
	lines.push('', '  Control endpoints:');
	for (const e of CONTROL_ENDPOINTS) lines.push(`    ${e}`);
	lines.push('', 'Press Ctrl+C to stop.');
	process.stdout.write(lines.join('\n') + '\n');

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write(`\n${signal}: stopping the sandbox...\n`);
		sandbox.stop().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`Error while stopping: ${String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	process.stderr.write(`The sandbox could not start: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
