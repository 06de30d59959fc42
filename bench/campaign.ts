/**
 * `npm run bench:campaign`: a 200-contact campaign, run in the real n8n of the e2e suite (2.41.1): 200
 * contacts, an account that allows 5 calls at once and refuses more (429), calls of 50 to 85 s. 140 contacts can
 * be reached within 3 attempts (70 answer the first call, 40 the second after a busy line, 30 the third after no
 * answer and a busy line), 60 never answer. The sandbox clock runs SPEED times faster than wall time; every wait
 * a workflow sets (Batching's interval, the Status Check Interval, retry delays) is scaled the same way.
 *
 * Variants (all with the results trigger of example 2 published, as a user runs examples 1 and 2):
 *   - example 1 without Campaign options: one Place Call per contact, no pacing;
 *   - the same paced by Batching, 10 every 60 s, and 5 every 90 s (tuned by hand);
 *   - example 1 (Campaign > Max Calls in Flight 5);
 *   - example 5 (retries by outcome, calling hours open, at most 5 at once), its retry delays scaled.
 * Reported per variant: contacts dialled, calls, refusals, contacts answered (of the 140 reachable), the share of
 * the 5 allowed calls in flight used while it dialled, and the run's length in sandbox minutes.
 *
 * Writes .build/bench-results/campaign.json (git-ignored) and prints the table (docs/performance.md, "Campaigns",
 * quotes it).
 * Environment: N8N_TOOLS_DIR (scripts/n8n-install.js), BENCH_CAMPAIGN_SPEED (default 20), BENCH_CAMPAIGN_ONLY
 * (comma-separated variant keys).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { RESULTS_DIR } from './paths';

const ROOT = resolve(__dirname, '..', '..');
const SPEED = Number(process.env.BENCH_CAMPAIGN_SPEED ?? 20);
const ONLY = process.env.BENCH_CAMPAIGN_ONLY?.split(',');
/** Campaign > Status Check Interval in sandbox seconds (the default 5), scaled to the faster clock. */
const INTERVAL = Number(process.env.BENCH_CAMPAIGN_INTERVAL ?? 5) / SPEED;
const LIMIT = 5;
const CONTACTS = 200;

// `npm run bench:campaign` compiled the sandbox with the rest (tsc -p tsconfig.dev.json).
process.env.E2E_SKIP_COMPILE ??= '1';

/* eslint-disable @typescript-eslint/no-require-imports */
const { startEnvironment } = require(join(ROOT, 'test-e2e/support/environment.js'));
const { importExamples } = require(join(ROOT, 'test-e2e/support/examples.js'));
const { waitUntilListening } = require(join(ROOT, 'test-e2e/support/workflows.js'));
const { maxInFlight } = require(join(ROOT, '.build/sandbox/index.js'));
/* eslint-enable @typescript-eslint/no-require-imports */

const log = (line: string) => process.stdout.write(`[bench:campaign ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Answered calls last 50 to 85 s in all: 1 to 3 s of ringing, then the conversation. */
const ANSWER = { dialstatus: 'ANSWER', ringMs: [1000, 3000], durationSec: [49, 82] };
const BUSY = { dialstatus: 'BUSY', ringMs: [3000, 6000] };
const NOANSWER = { dialstatus: 'NOANSWER', ringMs: [25000, 35000] };

interface Contact {
	contactId: string;
	name: string;
	phone: string;
	timezone: string;
	steps: Array<Record<string, unknown>>;
}

/** In every 20 contacts, spread over the list: 7 answer the first call, 4 the second, 3 the third, 6 never. */
function contacts(): Contact[] {
	return Array.from({ length: CONTACTS }, (_, i) => {
		const k = (i * 7) % 20;
		const steps = k < 7 ? [ANSWER] : k < 11 ? [BUSY, ANSWER] : k < 14 ? [NOANSWER, BUSY, ANSWER] : [NOANSWER];
		return { contactId: `C-${i}`, name: `Contact ${i}`, phone: `+1312555${String(i).padStart(4, '0')}`, timezone: 'UTC', steps };
	});
}

interface Variant {
	key: string;
	label: string;
	example: string;
	patch(workflow: any): void;
}

const placeCallOf = (workflow: any) => workflow.nodes.find((n: any) => n.name === 'Place Call').parameters;

/** Example 1 without Campaign options, paced by Batching: `size` calls every `seconds` (sandbox time). */
function batchingVariant(size: number, seconds: number, why: string): Variant {
	return {
		key: `batching-${size}-${seconds}`,
		label: `The same, Batching ${size} every ${seconds} s (${why})`,
		example: '1-campaign.json',
		patch: (w) => {
			delete placeCallOf(w).campaign;
			placeCallOf(w).requestOptions = { batching: { batch: { batchSize: size, batchInterval: Math.round((seconds * 1000) / SPEED) } } };
		},
	};
}

const VARIANTS: Variant[] = [
	{
		key: 'no-campaign',
		label: 'Example 1 without Campaign options (one Place Call per contact, no pacing)',
		example: '1-campaign.json',
		patch: (w) => delete placeCallOf(w).campaign,
	},
	batchingVariant(10, 60, 'one call every 6 s'),
	batchingVariant(5, 90, 'hand-tuned'),
	{
		key: 'example-1',
		label: 'Example 1 (Campaign > Max Calls in Flight 5)',
		example: '1-campaign.json',
		patch: (w) => {
			placeCallOf(w).campaign.statusCheckInterval = INTERVAL;
		},
	},
	{
		key: 'example-5',
		label: 'Example 5 (retries by outcome, at most 5 at once)',
		example: '5-campaign-with-retries.json',
		patch: (w) => {
			const p = placeCallOf(w);
			p.campaign.statusCheckInterval = INTERVAL;
			p.campaign.callingHours.window.days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
			p.campaign.callingHours.window.from = '00:00';
			p.campaign.callingHours.window.to = '24:00';
			// The example's 10 and 60 minutes, on the faster clock.
			for (const [field, minutes] of Object.entries({ busy: 10, noAnswer: 60 })) p.retryPolicy[field] = minutes / SPEED;
		},
	},
];

function contactsCode(list: Contact[]): string {
	return `return ${JSON.stringify(list.map(({ steps: _steps, ...c }) => c))}.map((contact) => ({ json: contact }));`;
}

async function runVariant(env: any, imported: any, variant: Variant): Promise<Record<string, unknown>> {
	const { sandbox, n8n } = env;
	const list = contacts();
	// The previous variant's calls end here: its last calls would hold the account's lines.
	sandbox.reset();
	for (const c of list) sandbox.setDialOutcome({ dst: c.phone, attempts: c.steps, persistDelayMs: 0 });
	sandbox.setAccountLimit(LIMIT);
	sandbox.clock.setSpeed(SPEED);

	const workflow = JSON.parse(JSON.stringify(imported.byFile[variant.example].workflow));
	workflow.name = `bench: ${variant.label}`;
	for (const node of workflow.nodes) if ('webhookId' in node) node.webhookId = randomUUID();
	workflow.nodes.find((n: any) => n.name === 'Contacts').parameters.jsCode = contactsCode(list);
	variant.patch(workflow);
	const created = await n8n.createWorkflow(workflow);
	const started = Date.now();
	const execution = await n8n.runWorkflow(created.id, { timeoutMs: 60 * 60 * 1000 });
	const wallMs = Date.now() - started;

	const { calls, refusals } = sandbox.callJournal;
	const dialled = new Set(calls.map((c: any) => c.dst));
	const answered = new Set(calls.filter((c: any) => c.dialstatus === 'ANSWER').map((c: any) => c.dst));
	const start = Math.min(...calls.map((c: any) => c.startedAt));
	const end = Math.max(...calls.map((c: any) => c.endedAt));
	// While contacts waited for a line: from the first call to the last first call (every contact is waiting
	// from the start; retries wait for their time instead, so later rounds are not counted).
	const firstCalls = calls.filter((c: any) => c.attempt === 1);
	const lastFirstStart = Math.max(...firstCalls.map((c: any) => c.startedAt));
	const busyWithin = (from: number, to: number) =>
		calls.reduce((sum: number, c: any) => sum + Math.max(0, Math.min(c.endedAt, to) - Math.max(c.startedAt, from)), 0);
	const result = {
		key: variant.key,
		label: variant.label,
		status: execution.status,
		contactsDialled: dialled.size,
		calls: calls.length,
		refusals: refusals.length,
		answered: answered.size,
		reachable: 140,
		maxInFlight: maxInFlight(calls),
		lineUseWhileWaiting: calls.length > LIMIT ? Number((busyWithin(start, lastFirstStart) / (LIMIT * (lastFirstStart - start))).toFixed(2)) : null,
		lineUseWholeRun: calls.length ? Number((busyWithin(start, end) / (LIMIT * (end - start))).toFixed(2)) : 0,
		statusReadsPerCall: calls.length ? Number((sandbox.journal.filter((e: any) => e.method === 'GET').length / calls.length).toFixed(1)) : 0,
		sandboxMinutes: calls.length ? Number(((end - start) / 60_000).toFixed(1)) : 0,
		wallSeconds: Math.round(wallMs / 1000),
	};
	log(JSON.stringify(result));
	return result;
}

async function main(): Promise<void> {
	const env = await startEnvironment();
	// Ctrl-C or a kill: n8n and the sandbox stop with this process.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => {
			void env.stop().finally(() => process.exit(130));
		});
	}
	const results: Array<Record<string, unknown>> = [];
	try {
		env.sandbox.reset();
		const imported = await importExamples(env);
		const resultsWorkflow = imported.byFile['2-call-results.json'];
		await env.n8n.publishWorkflow(resultsWorkflow.id);
		await waitUntilListening(env.n8n, resultsWorkflow.workflow.nodes.find((n: any) => n.name === 'Call Result'));
		for (const variant of VARIANTS) {
			if (ONLY && !ONLY.includes(variant.key)) continue;
			log(variant.label);
			results.push(await runVariant(env, imported, variant));
		}
	} finally {
		await env.stop();
	}
	const table = [
		`200 contacts (140 reachable within 3 attempts), an account of ${LIMIT} calls at once, calls of 50 to 85 s; Status Check Interval ${INTERVAL * SPEED} s; sandbox clock ${SPEED}x, measured ${new Date().toISOString().slice(0, 10)}.`,
		'',
		'| Variant | Contacts dialled | Calls | Refused (429) | Answered (of 140 reachable) | Most at once | Share of the 5 lines used while contacts waited | The same over the whole run | Status reads per call | Run (sandbox minutes) |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
		...results.map(
			(r) =>
				`| ${r.label} | ${r.contactsDialled} | ${r.calls} | ${r.refusals} | ${r.answered} | ${r.maxInFlight} | ${r.lineUseWhileWaiting ?? 'n/a'} | ${r.lineUseWholeRun} | ${r.statusReadsPerCall} | ${r.sandboxMinutes} |`,
		),
	].join('\n');
	mkdirSync(RESULTS_DIR, { recursive: true });
	writeFileSync(join(RESULTS_DIR, 'campaign.json'), `${JSON.stringify({ measuredAt: new Date().toISOString(), speed: SPEED, intervalSeconds: INTERVAL * SPEED, results }, null, '\t')}\n`);
	process.stdout.write(`\n${table}\n`);
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 1;
});
