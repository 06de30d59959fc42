/** `npm run bench:campaign` (docs/performance.md, "Campaigns"). */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fromRoot, logger, RESULTS_DIR, runMain, writeJson } from './paths';

const [SPEED, ONLY, LIMIT, CONTACTS] = [
	Number(process.env.BENCH_CAMPAIGN_SPEED ?? 20),
	process.env.BENCH_CAMPAIGN_ONLY?.split(','),
	5,
	200,
];
const INTERVAL = Number(process.env.BENCH_CAMPAIGN_INTERVAL ?? 5) / SPEED;
process.env.E2E_SKIP_COMPILE ??= '1'; // `npm run bench:campaign` compiled the sandbox with the rest
const { startEnvironment } = fromRoot('test-e2e/support/environment.js');
const { importExamples } = fromRoot('test-e2e/support/examples.js');
const { waitUntilListening } = fromRoot('test-e2e/support/workflows.js');
const { maxInFlight } = fromRoot('.build/sandbox/index.js');
const log = logger('bench:campaign');
/** Answered calls last 50 to 85 s in all: 1 to 3 s of ringing, then the conversation. */
const [ANSWER, BUSY, NOANSWER] = [
	{ dialstatus: 'ANSWER', ringMs: [1000, 3000], durationSec: [49, 82] },
	{ dialstatus: 'BUSY', ringMs: [3000, 6000] },
	{ dialstatus: 'NOANSWER', ringMs: [25000, 35000] },
];
/** Of every 20 contacts, 7 answer the first call, 4 the second after a busy line, 3 the third after no answer and a busy line, 6 never. */
const contacts = () =>
	Array.from({ length: CONTACTS }, (_, i) => {
		const k = (i * 7) % 20;
		const steps = k < 7 ? [ANSWER] : k < 11 ? [BUSY, ANSWER] : k < 14 ? [NOANSWER, BUSY, ANSWER] : [NOANSWER];
		return { contactId: `C-${i}`, name: `Contact ${i}`, phone: `+1312555${String(i).padStart(4, '0')}`, timezone: 'UTC', steps };
	});

type Variant = { key: string; label: string; example: string; patch(placeCall: any): void };
/** Example 1 without Campaign options, paced by Batching: `size` calls every `seconds` (sandbox time). */
const batching = (size: number, seconds: number, why: string): Variant => ({
	key: `batching-${size}-${seconds}`,
	label: `The same, Batching ${size} every ${seconds} s (${why})`,
	example: '1-campaign.json',
	patch: (p) => {
		delete p.campaign;
		p.requestOptions = { batching: { batch: { batchSize: size, batchInterval: Math.round((seconds * 1000) / SPEED) } } };
	},
});

const VARIANTS: Variant[] = [
	{
		key: 'no-campaign',
		label: 'Example 1 without Campaign options (one Place Call per contact, no pacing)',
		example: '1-campaign.json',
		patch: (p) => delete p.campaign,
	},
	batching(10, 60, 'one call every 6 s'),
	batching(5, 90, 'hand-tuned'),
	{
		key: 'example-1',
		label: 'Example 1 (Campaign > Max Calls in Flight 5)',
		example: '1-campaign.json',
		patch: (p) => (p.campaign.statusCheckInterval = INTERVAL),
	},
	{
		key: 'example-5',
		label: 'Example 5 (retries by outcome, at most 5 at once)',
		example: '5-campaign-with-retries.json',
		patch: (p) => {
			p.campaign.statusCheckInterval = INTERVAL;
			Object.assign(p.campaign.callingHours.window, {
				days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
				from: '00:00',
				to: '24:00',
			});
			// The example's 10 and 60 minutes, on the faster clock.
			Object.assign(p.retryPolicy, { busy: 10 / SPEED, noAnswer: 60 / SPEED });
		},
	},
];

async function runVariant({ sandbox, n8n }: any, imported: any, variant: Variant): Promise<Record<string, unknown>> {
	const list = contacts();
	// The previous variant's calls end here: its last calls would hold the account's lines.
	sandbox.reset();
	for (const c of list) sandbox.setDialOutcome({ dst: c.phone, attempts: c.steps, persistDelayMs: 0 });
	sandbox.setAccountLimit(LIMIT);
	sandbox.clock.setSpeed(SPEED);
	const workflow = JSON.parse(JSON.stringify(imported.byFile[variant.example].workflow));
	const node = (name: string) => workflow.nodes.find((n: any) => n.name === name).parameters;
	workflow.name = `bench: ${variant.label}`;
	for (const n of workflow.nodes) if ('webhookId' in n) n.webhookId = randomUUID();
	node('Contacts').jsCode = `return ${JSON.stringify(list.map(({ steps: _steps, ...c }) => c))}.map((contact) => ({ json: contact }));`;
	variant.patch(node('Place Call'));
	const [created, started] = [await n8n.createWorkflow(workflow), Date.now()];
	const execution = await n8n.runWorkflow(created.id, { timeoutMs: 60 * 60 * 1000 });
	const wallMs = Date.now() - started;
	const { calls, refusals } = sandbox.callJournal;
	const [start, end] = [Math.min(...calls.map((c: any) => c.startedAt)), Math.max(...calls.map((c: any) => c.endedAt))];
	// While contacts waited for a line: from the first call to the last first call (every contact is waiting
	// from the start; retries wait for their time instead, so later rounds are not counted).
	const lastFirstStart = Math.max(...calls.filter((c: any) => c.attempt === 1).map((c: any) => c.startedAt));
	const lineUse = (to: number) =>
		Number(
			(
				calls.reduce((sum: number, c: any) => sum + Math.max(0, Math.min(c.endedAt, to) - Math.max(c.startedAt, start)), 0) /
				(LIMIT * (to - start))
			).toFixed(2),
		);
	const result = {
		key: variant.key,
		label: variant.label,
		status: execution.status,
		contactsDialled: new Set(calls.map((c: any) => c.dst)).size,
		calls: calls.length,
		refusals: refusals.length,
		answered: new Set(calls.filter((c: any) => c.dialstatus === 'ANSWER').map((c: any) => c.dst)).size,
		reachable: 140,
		maxInFlight: maxInFlight(calls),
		lineUseWhileWaiting: calls.length > LIMIT ? lineUse(lastFirstStart) : null,
		lineUseWholeRun: calls.length ? lineUse(end) : 0,
		statusReadsPerCall: calls.length
			? Number((sandbox.journal.filter((e: any) => e.method === 'GET').length / calls.length).toFixed(1))
			: 0,
		sandboxMinutes: calls.length ? Number(((end - start) / 60_000).toFixed(1)) : 0,
		wallSeconds: Math.round(wallMs / 1000),
	};
	log(JSON.stringify(result));
	return result;
}

async function main(): Promise<void> {
	const env = await startEnvironment();
	// Ctrl-C or a kill: n8n and the sandbox stop with this process.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void env.stop().finally(() => process.exit(130)));
	const results: any[] = [];
	try {
		env.sandbox.reset();
		const imported = await importExamples(env);
		const resultsWorkflow = imported.byFile['2-call-results.json'];
		await env.n8n.api('POST', `/workflows/${resultsWorkflow.id}/publish`);
		await waitUntilListening(
			env.n8n,
			resultsWorkflow.workflow.nodes.find((n: any) => n.name === 'Call Result'),
		);
		for (const variant of VARIANTS.filter((v) => !ONLY || ONLY.includes(v.key))) {
			log(variant.label);
			results.push(await runVariant(env, imported, variant));
		}
	} finally {
		await env.stop();
	}
	const row = (r: any) => [
		r.label,
		r.contactsDialled,
		r.calls,
		r.refusals,
		r.answered,
		r.maxInFlight,
		r.lineUseWhileWaiting ?? 'n/a',
		r.lineUseWholeRun,
		r.statusReadsPerCall,
		r.sandboxMinutes,
	];
	const table = [
		`200 contacts (140 reachable within 3 attempts), an account of ${LIMIT} calls at once, calls of 50 to 85 s; Status Check Interval ${INTERVAL * SPEED} s; sandbox clock ${SPEED}x, measured ${new Date().toISOString().slice(0, 10)}.\n`,
		'| Variant | Contacts dialled | Calls | Refused (429) | Answered (of 140 reachable) | Most at once | Share of the 5 lines used while contacts waited | The same over the whole run | Status reads per call | Run (sandbox minutes) |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		...results.map((r) => `| ${row(r).join(' | ')} |`),
	].join('\n');
	writeJson(join(RESULTS_DIR, 'campaign.json'), {
		measuredAt: new Date().toISOString(),
		speed: SPEED,
		intervalSeconds: INTERVAL * SPEED,
		results,
	});
	process.stdout.write(`\n${table}\n`);
}

runMain(main);
