/**
 * One client of one benchmark scenario, in its own process (forked by run.ts, IPC channel):
 *   parent -> {type: 'prepare', client}        child -> {type: 'ready', rssMB, detail}
 *   parent -> {type: 'run', spec}               child -> {type: 'done', ms, startedAt, output, rssMB}
 *   parent -> {type: 'exit'}                    child -> {type: 'bye', maxRssMB} and exits
 * The run is timed here, with process.hrtime.bigint(), around the client's work only; the CPU time the
 * process used meanwhile (process.cpuUsage, user + system) is reported too: on a shared machine it is far
 * less noisy than wall time.
 * Peak memory is the process's maximum resident set size (getrusage, what /usr/bin/time -v reports).
 */
import type { ClientName, RunSpec } from './clients';
import { prepare, runClient } from './clients';

type Message = { type: 'prepare'; client: ClientName } | { type: 'run'; spec: RunSpec } | { type: 'exit' };

let client: ClientName | undefined;

const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
const maxRssMB = (): number => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;

function send(message: Record<string, unknown>): void {
	process.send!(message);
}

process.on('message', (message: Message) => {
	void (async () => {
		try {
			if (message.type === 'prepare') {
				client = message.client;
				const detail = await prepare(client);
				send({ type: 'ready', rssMB: mb(process.memoryUsage.rss()), maxRssMB: maxRssMB(), detail });
			} else if (message.type === 'run') {
				const startedAt = Date.now();
				const cpu0 = process.cpuUsage();
				const t0 = process.hrtime.bigint();
				const output = await runClient(client!, message.spec);
				const ms = Number(process.hrtime.bigint() - t0) / 1e6;
				const cpu = process.cpuUsage(cpu0);
				send({ type: 'done', ms, cpuMs: (cpu.user + cpu.system) / 1000, startedAt, endedAt: Date.now(), output, rssMB: mb(process.memoryUsage.rss()), maxRssMB: maxRssMB() });
			} else if (message.type === 'exit') {
				send({ type: 'bye', maxRssMB: maxRssMB() });
				process.disconnect();
				process.exit(0);
			}
		} catch (error) {
			send({ type: 'error', message: (error as Error)?.stack ?? String(error) });
		}
	})();
});
