/**
 * Hostile-platform suite: every target of test/hostile/targets.ts (every operation of
 * the Assistant Platform node, its list-search and load-options methods, Call and Wait, the
 * trigger's registration) runs against each misbehaviour of test/harness/hostile.ts, with and
 * without Continue On Fail. For every run:
 * - no key (portal, outbound, assistant keys from the credential and the override, the trigger
 *   secret) reaches the foreign origin, an output item, an error (message, description,
 *   errorResponse, cause, context) or a line of n8n's log;
 * - a call is reported as placed only with the platform's internal_id, and the front receives
 *   exactly one POST per call; Call and Wait never waits for a call without an id;
 * - every run ends: with a trickled body and a short Request Options > Timeout, it fails with the
 *   timeout error; an answer larger than Max Response Size (compressed or not, with or without a
 *   Content-Length) fails naming the limit; an endless list, or one whose meta.hasMore is not a
 *   boolean, stops by itself with an error;
 * - an acceptance that names a call and says it was not placed is never a placed call.
 * The same targets run against credentials that would send a key where nobody meant
 * (bad-credentials.test.ts) and against fields of the wrong type (wrong-types.test.ts).
 * All targets of one test run at the same time (each on platform objects of its own); each test
 * collects every violation and reports them together, one line per target.
 */
import { DEFAULT_MAX_PAGES } from '../../nodes/shared/constants';
import type { Behaviour } from '../harness/hostile';
import { useHostile } from '../harness/hostile';
import { logLines, scannable } from '../harness/secretsGuard';
import { apNode, OPERATIONS } from '../hardening/helpers';

import type { Outcome, RunSettings, Target } from './targets';
import { prepare, secretsOf, TARGETS } from './targets';

const fx = useHostile();

/** Request Options > Timeout of the trickle tests; the trickled body ends TRICKLE_TOTAL_MS after the headers. */
const SHORT_TIMEOUT_MS = 1_000;
const TRICKLE_TOTAL_MS = 4_000;
const RELAXED_TIMEOUT_MS = 20_000;
/** Platform text allowed to reach one error (message, description, errorResponse, cause: all of it). */
const ERROR_TEXT_CAP = 64 * 1024;
/**
 * Pages the harness serves before it ends an endless list itself: past the node's own default bound
 * of pages per walk, so that a walk that gets there would never have stopped by itself.
 */
const ENDLESS_PAGES = DEFAULT_MAX_PAGES + 10;

beforeEach(async () => {
	await prepare(fx);
});

interface Verdict {
	target: Target;
	outcome?: Outcome;
	/** Thrown by the harness around the target (not by the node). */
	crashed?: unknown;
}

/** Runs the targets at the same time, after their `before` steps and then `misbehave` (the rule). */
async function runAll(targets: Target[], settings: RunSettings, misbehave: () => void = () => {}): Promise<Verdict[]> {
	const chosen = targets.filter((target) => target.kind === 'node' || !settings.continueOnFail);
	const states = await Promise.all(chosen.map(async (target) => await target.before?.(fx)));
	misbehave();
	return await Promise.all(
		chosen.map(async (target, index) => {
			try {
				return { target, outcome: await target.run(fx, settings, states[index]) };
			} catch (crashed) {
				return { target, crashed };
			}
		}),
	);
}

/** The text of a run's failure: the error, or the error fields of Continue-On-Fail items. */
function failureText(outcome: Outcome): string | undefined {
	if (outcome.error) return `${outcome.error.message} ${outcome.error.description ?? ''}`;
	const failed = outcome.items.filter((item) => typeof item.json.error === 'string');
	if (failed.length === 0) return undefined;
	return failed.map((item) => `${String(item.json.error)} ${String(item.json.description ?? '')}`).join(' | ');
}

function keysIn(text: string): string[] {
	return Object.entries(secretsOf(fx))
		.filter(([, key]) => key && key.length >= 8 && text.includes(key))
		.map(([name]) => name);
}

function postsFor(dst: string): number {
	return fx.hostile.requests.filter((r) => r.method === 'POST' && r.body.includes(dst)).length;
}

/** The checks every run must pass, whatever the platform does. */
function common(verdict: Verdict): string[] {
	const { target, outcome } = verdict;
	if (verdict.crashed) return [`the harness crashed: ${scannable(verdict.crashed).slice(0, 300)}`];
	if (!outcome) return [];
	const problems: string[] = [];
	const inItems = keysIn(scannable(outcome.items));
	if (inItems.length) problems.push(`key in output items: ${inItems.join(', ')}`);
	const inError = outcome.error ? keysIn(scannable(outcome.error)) : [];
	if (inError.length) problems.push(`key in the error: ${inError.join(', ')}`);
	if (target.dst) {
		const posts = postsFor(target.dst);
		if (posts !== 1) problems.push(`${posts} POSTs for one call at the front`);
		for (const item of outcome.items) {
			const reportedPlaced = typeof item.json.error !== 'string' && item.json.outcome === undefined;
			const id = item.json.internal_id;
			if (reportedPlaced && (typeof id !== 'string' || id === '')) {
				problems.push(`reported as placed without an internal_id (${JSON.stringify(id)})`);
			}
			if (reportedPlaced && id === 'foreign-1') problems.push('reported the foreign origin\'s answer as a placed call');
		}
		if (target.waits && outcome.waitTill && !outcome.items.some((item) => typeof item.json.internal_id === 'string' && item.json.internal_id !== '')) {
			problems.push('Call and Wait waits for a call without an internal_id');
		}
	}
	return problems;
}

function foreignProblems(): string[] {
	return fx.hostile.foreign.requests.flatMap((request) => {
		const keys = keysIn(scannable(request));
		return keys.length ? [`foreign origin received ${keys.join(', ')} with ${request.method} ${request.path.split('?')[0]}`] : [];
	});
}

function logProblems(from: number): string[] {
	const keys = new Set(logLines.slice(from).flatMap((line) => keysIn(line)));
	return keys.size ? [`key in n8n's log: ${[...keys].join(', ')}`] : [];
}

function report(verdicts: Verdict[], extra: (verdict: Verdict) => string[], logFrom: number): string[] {
	const lines: string[] = [];
	for (const verdict of verdicts) {
		if (!verdict.outcome && !verdict.crashed) continue;
		for (const problem of [...common(verdict), ...(verdict.outcome ? extra(verdict) : [])]) lines.push(`${verdict.target.name}: ${problem}`);
	}
	return [...lines, ...foreignProblems(), ...logProblems(logFrom)];
}

const mustFail =
	(what: string, text?: RegExp) =>
	({ outcome }: Verdict): string[] => {
		const failure = failureText(outcome!);
		if (failure === undefined) return [`succeeded ${what}`];
		if (text && !text.test(failure)) return [`failed ${what} without saying so (${failure.slice(0, 200)})`];
		return [];
	};

const callNotPlaced = ({ target, outcome }: Verdict): string[] => {
	if (!target.dst) return [];
	const failure = failureText(outcome!) ?? '';
	const unknown = outcome!.items.some((item) => item.json.outcome === 'unknown') || /Outcome unknown/.test(failure);
	return unknown ? [] : ['the call is not reported with outcome "unknown"'];
};

const MODES = [
	{ mode: 'stops on error', continueOnFail: false },
	{ mode: 'Continue On Fail', continueOnFail: true },
];

test('the targets cover every operation of both nodes, every method and the trigger', () => {
	const methods = apNode.methods as unknown as Record<'listSearch' | 'loadOptions', Record<string, unknown>>;
	expect([...new Set(TARGETS.filter((t) => t.kind === 'node').map((t) => t.op))].sort()).toEqual([...OPERATIONS].sort());
	expect(TARGETS.filter((t) => t.kind === 'method').map((t) => t.op).sort()).toEqual(
		[...Object.keys(methods.listSearch), ...Object.keys(methods.loadOptions)].sort(),
	);
	expect(TARGETS.filter((t) => t.kind === 'trigger').map((t) => t.op)).toEqual(['trigger.publish', 'trigger.unpublish']);
});

test('baseline: without misbehaviour every target succeeds through the front (the table is valid)', async () => {
	const verdicts = await runAll(TARGETS, { timeoutMs: RELAXED_TIMEOUT_MS, continueOnFail: false });
	const from = logLines.length;
	expect(report(verdicts, ({ outcome }) => (failureText(outcome!) ? [`failed: ${failureText(outcome!)!.slice(0, 300)}`] : []), from)).toEqual([]);
	expect(fx.hostile.foreign.requests).toEqual([]);
});

describe.each(MODES)('$mode', ({ continueOnFail }) => {
	const settings = { timeoutMs: RELAXED_TIMEOUT_MS, continueOnFail };

	async function check(behave: Behaviour, extra: (verdict: Verdict) => string[], targets = TARGETS, runSettings = settings): Promise<void> {
		const from = logLines.length;
		const verdicts = await runAll(targets, runSettings, () => fx.hostile.rule({ behave }));
		expect(report(verdicts, extra, from)).toEqual([]);
	}

	describe('redirects: a 3xx is an error naming the status; no key leaves for the foreign origin', () => {
		test.each([301, 302, 303, 307, 308] as const)('%i to the foreign origin', async (status) => {
			await check({ kind: 'redirect', status }, (v) => mustFail(`after a ${status}`, new RegExp(String(status)))(v));
		});

		test('307 to the front itself (same origin): still an error, one POST per call', async () => {
			await check({ kind: 'redirect', status: 307, to: 'front' }, mustFail('after a 307', /307/));
		});
	});

	describe('the platform echoes the request (headers, body) nested in its answer', () => {
		test.each([
			[400, 3],
			[401, 1],
			[500, 3],
			[422, 12],
		])('error %i, echoed %i levels deep: no key in errors, items or logs', async (status, depth) => {
			await check({ kind: 'echo', status, depth }, mustFail(`after a ${status}`));
		});

		test.each([3, 12])('an acceptance (200) that echoes %i levels deep: no key in output', async (depth) => {
			await check({ kind: 'echo', status: 200, depth }, () => []);
		});
	});

	describe('a 2xx that is not an acceptance: the call outcome is unknown, never placed', () => {
		test.each(['emptyObject', 'emptyBody', 'noContent', 'html', 'error200'] as const)('%s', async (variant) => {
			await check({ kind: 'nonAccept', variant }, callNotPlaced);
		});
	});

	test('a body that trickles past Timeout: every run fails with the timeout error', async () => {
		await check(
			{ kind: 'trickle', intervalMs: 200, totalMs: TRICKLE_TOTAL_MS },
			(v) => [...mustFail('although the body took longer than Timeout', new RegExp(`within ${SHORT_TIMEOUT_MS} ms|timed? ?out`, 'i'))(v), ...callNotPlaced(v)],
			TARGETS.filter((t) => t.kind !== 'trigger'),
			{ timeoutMs: SHORT_TIMEOUT_MS, continueOnFail },
		);
	});

	describe('an answer larger than Max Response Size (16 MB once decoded): every run fails naming the limit; a call is unknown', () => {
		test.each([
			['gzip', 'chunked'],
			['br', 'chunked'],
			['deflate', 'chunked'],
			['identity', 'chunked'],
			['identity', 'length'],
		] as const)('%s, %s', async (encoding, framing) => {
			await check({ kind: 'oversize', bytes: 17 * 1024 * 1024, encoding, framing }, (v) => [
				...mustFail('although the answer was larger than Max Response Size', /Max Response Size/)(v),
				...callNotPlaced(v),
			]);
		});
	});

	describe('an acceptance that names a call and says it was not placed: outcome unknown, never placed', () => {
		test.each([
			['placed false', { internal_id: '{id}', placed: false, outcome: 'rejected' }],
			['status failed', { internal_id: '{id}', status: 'failed' }],
			['an error', { internal_id: '{id}', error: { code: 'REFUSED', message: 'no' } }],
		])('%s', async (_what, body) => {
			await check({ kind: 'contradictory', body }, callNotPlaced);
		});
	});

	test.each([400, 500])('a %i error of 1 MB: the error carries a capped text', async (status) => {
		await check({ kind: 'hugeError', bytes: 1_000_000, status }, (v) => {
			const size = scannable(v.outcome!.error ?? null).length + scannable(v.outcome!.items.filter((i) => typeof i.json.error === 'string')).length;
			return [...mustFail(`after a ${status}`)(v), ...(size > ERROR_TEXT_CAP ? [`error of ${size} characters (cap ${ERROR_TEXT_CAP})`] : [])];
		});
	});
});

describe('endless lists: a walk stops by itself with an error', () => {
	const lists = TARGETS.filter((t) => t.list);
	test.each([
		['always hasMore, well past meta.totalCount', { kind: 'endlessList', perPage: 50, totalCount: 100 }],
		['9 empty pages before every one-item page (under the empty-page guard), past meta.totalCount', { kind: 'endlessList', perPage: 1, emptyBetween: 9, totalCount: 1 }],
		['meta.hasMore "true" (a string)', { kind: 'endlessList', perPage: 2, hasMore: 'true' }],
		['meta.hasMore 1 (a number)', { kind: 'endlessList', perPage: 2, hasMore: 1 }],
	] as const)('%s', async (_title, behave) => {
		const lines: string[] = [];
		const from = logLines.length;
		// One list at a time: the rule counts the pages it serves.
		for (const target of lists) {
			fx.hostile.clear();
			await prepare(fx);
			const [verdict] = await runAll([target], { timeoutMs: RELAXED_TIMEOUT_MS, continueOnFail: false }, () =>
				fx.hostile.rule({ method: 'GET', behave, times: ENDLESS_PAGES }),
			);
			const pages = fx.hostile.requests.filter((r) => r.method === 'GET').length;
			const problems = [...common(verdict)];
			if (verdict.outcome) {
				problems.push(...mustFail('on an endless list')(verdict));
				if (pages >= ENDLESS_PAGES) problems.push(`did not stop by itself (${pages} pages read, stopped by the harness)`);
			}
			lines.push(...problems.map((p) => `${target.name}: ${p}`));
		}
		expect([...lines, ...logProblems(from)]).toEqual([]);
	});
});
