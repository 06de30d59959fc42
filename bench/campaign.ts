/** `npm run bench:campaign` (docs/performance.md, "Campaigns"). */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { maxInFlight } from '../sandbox';
import { lineUse } from './n8n';
import { fromRoot, logger, options, RESULTS_DIR, runMain, writeJson } from './paths';
import { round } from './report';

const { SPEED } = options('BENCH_CAMPAIGN_', { SPEED: 20 });
const [ONLY, LIMIT] = [process.env.BENCH_CAMPAIGN_ONLY?.split(','), 5];
process.env.E2E_SKIP_COMPILE ??= '1'; // `npm run bench:campaign` compiled the sandbox with the rest
const { startEnvironment } = fromRoot('test-e2e/support/environment.js');
const { importExamples } = fromRoot('test-e2e/support/examples.js');
const { publishTrigger } = fromRoot('test-e2e/support/workflows.js');
const { applyNetwork } = fromRoot('test-e2e/support/durableCampaign.js');
const log = logger('bench:campaign');
/** Answered calls last 50 to 85 s in all: 1 to 3 s of ringing, then the conversation. */
const [ANSWER, BUSY, NOANSWER] = [
	{ dialstatus: 'ANSWER', ringMs: [1000, 3000], durationSec: [49, 82] },
	{ dialstatus: 'BUSY', ringMs: [3000, 6000] },
	{ dialstatus: 'NOANSWER', ringMs: [25000, 35000] },
];
/** 200 contacts; of every 20, 7 answer the first call, 4 the second after a busy line, 3 the third after no answer and a busy line, 6 never. */
const CONTACTS = Array.from({ length: 200 }, (_, i) => {
	const k = (i * 7) % 20;
	const steps = k < 7 ? [ANSWER] : k < 11 ? [BUSY, ANSWER] : k < 14 ? [NOANSWER, BUSY, ANSWER] : [NOANSWER];
	return { contactId: `C-${i}`, name: `Contact ${i}`, phone: `+1312555${String(i).padStart(4, '0')}`, timezone: 'UTC', steps };
});
/** A variant: its key, its label, what it changes in the Place Call of example 1. */
type Variant = [key: string, label: string, patch: (placeCall: any) => void];
/** Example 1's Place Call paced by Batching: `size` calls every `seconds` (sandbox time). */
const batching = (size: number, seconds: number) => (p: any) => {
	p.requestOptions = { batching: { batch: { batchSize: size, batchInterval: Math.round((seconds * 1000) / SPEED) } } };
};
/** Example 1 as shipped, its Batch Interval on the faster clock. */
function example1(p: any): void {
	const batch = p.requestOptions.batching.batch;
	batch.batchInterval = Math.round(batch.batchInterval / SPEED);
}
const VARIANTS: Variant[] = [
	['no-pacing', 'Example 1 without Batching (one call after another)', (p) => delete p.requestOptions],
	['batching-10-60', 'The same, Batching 10 every 60 s (one call every 6 s)', batching(10, 60)],
	['batching-5-90', 'The same, Batching 5 every 90 s (hand-tuned)', batching(5, 90)],
	['example-1', 'Example 1 (Batching 5 every 120 s)', example1],
];
async function runVariant({ sandbox, n8n }: any, imported: any, [key, label, patch]: Variant): Promise<Record<string, any>> {
	// The previous variant's calls end here: its last calls would hold the account's lines.
	sandbox.reset();
	applyNetwork(sandbox, new Map(CONTACTS.map((c) => [c.phone, c.steps])), SPEED, LIMIT);
	const workflow = structuredClone(imported.byFile['1-campaign.json'].workflow);
	const node = (name: string) => workflow.nodes.find((n: any) => n.name === name).parameters;
	workflow.name = `bench: ${label}`;
	for (const n of workflow.nodes) if ('webhookId' in n) n.webhookId = randomUUID();
	node('Contacts').jsCode = `return ${JSON.stringify(CONTACTS.map(({ steps: _steps, ...c }) => c))}.map((contact) => ({ json: contact }));`;
	patch(node('Place Call'));
	const [created, started] = [await n8n.createWorkflow(workflow), Date.now()];
	const { status } = await n8n.runWorkflow(created.id, { timeoutMs: 60 * 60 * 1000 });
	const { calls, refusals }: { calls: any[]; refusals: unknown[] } = sandbox.callJournal;
	const spans = calls.map((c): [number, number] => [c.startedAt, c.endedAt]);
	const [start, end] = [Math.min(...calls.map((c) => c.startedAt)), Math.max(...calls.map((c) => c.endedAt))];
	// While contacts waited for a line: from the first call to the last first call (every contact is waiting
	// from the start; retries wait for their time instead, so later rounds are not counted).
	const lastFirstStart = Math.max(...calls.filter((c) => c.attempt === 1).map((c) => c.startedAt));
	return {
		key,
		label,
		status,
		contactsDialled: new Set(calls.map((c) => c.dst)).size,
		calls: calls.length,
		refusals: refusals.length,
		answered: new Set(calls.filter((c) => c.dialstatus === 'ANSWER').map((c) => c.dst)).size,
		reachable: 140,
		maxInFlight: maxInFlight(calls),
		lineUseWhileWaiting: calls.length > LIMIT ? round(lineUse(spans, LIMIT, lastFirstStart), 2) : null,
		lineUseWholeRun: calls.length ? round(lineUse(spans, LIMIT, end), 2) : 0,
		sandboxMinutes: calls.length ? round((end - start) / 60_000) : 0,
		wallSeconds: Math.round((Date.now() - started) / 1000),
	};
}
async function main(): Promise<void> {
	const [env, results] = [await startEnvironment(), [] as Array<Record<string, any>>];
	// Ctrl-C or a kill: n8n and the sandbox stop with this process.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void env.stop().finally(() => process.exit(130)));
	try {
		env.sandbox.reset();
		const imported = await importExamples(env);
		const { id, workflow } = imported.byFile['2-call-results.json'];
		const trigger = workflow.nodes.find((n: any) => n.name === 'Call Result');
		await publishTrigger(env.n8n, id, trigger);
		for (const variant of VARIANTS.filter(([key]) => !ONLY || ONLY.includes(key))) {
			log(variant[1]);
			results.push(await runVariant(env, imported, variant));
			log(JSON.stringify(results.at(-1)));
		}
	} finally {
		await env.stop();
	}
	const file = join(RESULTS_DIR, 'campaign.json');
	writeJson(file, { measuredAt: new Date().toISOString(), speed: SPEED, results });
	const columns = 'label contactsDialled calls refusals answered maxInFlight lineUseWhileWaiting lineUseWholeRun sandboxMinutes';
	const cells = (r: Record<string, any>) => columns.split(' ').map((column) => r[column] ?? 'n/a');
	const table = [
		`200 contacts (140 reachable within 3 attempts), an account of ${LIMIT} calls at once, calls of 50 to 85 s; sandbox clock ${SPEED}x, measured ${new Date().toISOString().slice(0, 10)}.\n`,
		'| Variant | Contacts dialled | Calls | Refused (429) | Answered (of 140 reachable) | Most at once | Share of the 5 lines used while contacts waited | The same over the whole run | Run (sandbox minutes) |',
		`|---${'|---:'.repeat(8)}|`,
		...results.map((r) => `| ${cells(r).join(' | ')} |`),
	];
	process.stdout.write(`\n${table.join('\n')}\n`);
}
runMain(main);
