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
 * The Campaign targets keep their state in n8n's data tables (another host, which behaves): no key
 * reaches a cell of any table, the platform's keys never reach n8n's API and n8n's key never reaches
 * the platform. Campaign → Dial reports each contact in an output item and its row instead of
 * throwing: its failures are the contacts it records failed or unknown (see contactProblems); Record
 * Call Result reports a result it could not verify with recorded false and never records one from
 * anything but the call's status record; Get Summary, Pause, Resume, Stop and Prepare Contacts Table
 * never talk to the platform, so they succeed whatever it does.
 * The same targets run against credentials that would send a key where nobody meant
 * (bad-credentials.test.ts) and against fields of the wrong type (wrong-types.test.ts).
 * All targets of one test run at the same time (each on platform objects of its own); each test
 * collects every violation and reports them together, one line per target.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { DEFAULT_MAX_PAGES } from '../../nodes/shared/core/constants';
import type { Behaviour } from '../harness/hostile';
import { useHostile } from '../harness/hostile';
import { logLines, scannable } from '../harness/secretsGuard';
import { apNode, OPERATIONS } from '../hardening/helpers';

import type { Outcome, RunSettings, Target } from './targets';
import { persistedCall, prepare, secretsOf, TARGETS } from './targets';

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

/** States of a contact Campaign → Dial reports as not placed. */
const NOT_PLACED = new Set(['failed', 'unknown']);

/**
 * The output items that report a failure: Continue-On-Fail items (error), and for targets that report
 * failures in their items, Dial's contacts failed or unknown and Record Call Result's results not recorded.
 */
function failedItems(target: Target, outcome: Outcome): INodeExecutionData[] {
	return outcome.items.filter(
		({ json }) =>
			typeof json.error === 'string' ||
			(target.reports === 'contacts' && NOT_PLACED.has(String(json.campaignState))) ||
			(target.reports === 'records' && json.recorded === false),
	);
}

/** The text of a run's failure: the error, or the failures its items report (failedItems). */
function failureText(target: Target, outcome: Outcome): string | undefined {
	if (outcome.error) return `${outcome.error.message} ${outcome.error.description ?? ''}`;
	const failed = failedItems(target, outcome);
	if (failed.length === 0) return undefined;
	return failed
		.map(({ json }) => (typeof json.error === 'string' ? `${json.error} ${String(json.description ?? '')}` : `${String(json.campaignState ?? 'not recorded')}: ${String(json.reason)}`))
		.join(' | ');
}

function keysIn(text: string): string[] {
	return Object.entries(secretsOf(fx))
		.filter(([, key]) => key && key.length >= 8 && text.includes(key))
		.map(([name]) => name);
}

function postsFor(dst: string): number {
	return fx.hostile.requests.filter((r) => r.method === 'POST' && r.body.includes(dst)).length;
}

/**
 * Campaign → Dial, in place of the checks of a call reported in items: it never throws for a contact;
 * the contact's output item and row say what happened. After its one POST the row is placed (with the
 * platform's internal_id, the same in the item), failed (refused) or unknown: never pending or claimed
 * again (a contact that is due again would be dialled twice), and the item says the same as the row. One exception:
 * the platform refused the account itself (401, 403), nothing was placed, and the run ends with that error; the
 * contact is due again, its attempt not spent.
 */
function contactProblems(dst: string, outcome: Outcome): string[] {
	const rows = (outcome.rows ?? []).filter((row) => row.phone === dst);
	if (rows.length !== 1) return [`${rows.length} rows of the contact in its table`];
	const [row] = rows;
	const state = String(row.campaignState);
	const problems: string[] = [];
	const accountRefused = state === 'pending' && /^not placed: .*\((401|403)/.test(String(row.reason)) && /No call was placed/.test(String(outcome.error?.message));
	if (state !== 'placed' && !NOT_PLACED.has(state) && !accountRefused) problems.push(`the contact's row is ${state} after its POST (reason: ${String(row.reason).slice(0, 200)})`);
	if (state === 'placed') {
		if (typeof row.internalId !== 'string' || row.internalId === '') problems.push(`the row says placed without an internal_id (${JSON.stringify(row.internalId)})`);
		if (row.internalId === 'foreign-1') problems.push("the row holds the foreign origin's answer as a placed call");
	}
	if (outcome.error) return problems;
	const items = outcome.items.filter((item) => item.json.phone === dst);
	if (items.length !== 1) return [...problems, `${items.length} output items for the contact`];
	const { json } = items[0];
	if (json.campaignState !== state) problems.push(`the output says ${String(json.campaignState)}, the row ${state}`);
	if (json.campaignState === 'placed' && (json.internal_id !== row.internalId || json.internalId !== row.internalId)) {
		problems.push(`the output's internal_id (${JSON.stringify(json.internal_id)}) is not the row's (${JSON.stringify(row.internalId)})`);
	}
	return problems;
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
	const inRows = outcome.rows ? keysIn(scannable(outcome.rows)) : [];
	if (inRows.length) problems.push(`key in the contacts table: ${inRows.join(', ')}`);
	if (target.dst && target.reports === 'contacts') {
		const posts = postsFor(target.dst);
		if (posts !== 1) problems.push(`${posts} POSTs for one call at the front`);
		problems.push(...contactProblems(target.dst, outcome));
	} else if (target.dst) {
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

/**
 * n8n's data tables and API: no key in any cell of any table (the contacts tables, the control table);
 * no platform key in what n8n's API received; n8n's key never at the platform's front.
 */
function n8nProblems(): string[] {
	const problems: string[] = [];
	for (const table of fx.n8n.tables) {
		const keys = keysIn(scannable(table.rows));
		if (keys.length) problems.push(`data table "${table.name}" holds ${keys.join(', ')}`);
	}
	const n8nKey = String(fx.n8n.credentials.apiKey);
	const atN8n = keysIn(scannable(fx.n8n.requests.map((r) => ({ ...r, headers: { ...r.headers, 'x-n8n-api-key': undefined } }))));
	if (atN8n.length) problems.push(`n8n's API received ${atN8n.join(', ')}`);
	if (fx.hostile.requests.some((r) => scannable(r).includes(n8nKey))) problems.push("the platform's front received the n8n API key");
	return problems;
}

/**
 * Targets that never talk to the platform (offPlatform): whatever the platform does, they succeed with
 * their usual output, with and without Continue On Fail.
 */
function offPlatformProblems({ target, outcome }: Verdict): string[] {
	const failure = failureText(target, outcome!);
	if (failure !== undefined) return [`failed although it never talks to the platform: ${failure.slice(0, 300)}`];
	const json = outcome!.items[0]?.json ?? {};
	const wrong = Object.entries(target.expects ?? {}).filter(([key, value]) => json[key] !== value);
	return wrong.length ? [`its output is not what it says (${wrong.map(([key]) => `${key}: ${JSON.stringify(json[key])}`).join(', ')})`] : [];
}

/**
 * A call's result read from a misbehaving platform (Record Call Result; Dial, which reads the status of
 * placed calls before it dials): whatever the status read got was not the call's status record (a
 * redirect, an error, an echo, a non-acceptance, a contradictory or oversize answer, a timeout), so no
 * result is recorded (Record Call Result says recorded false) and the contact stays placed, unchanged.
 */
function recordProblems({ target, outcome }: Verdict): string[] {
	if (!target.settledByRecord || !outcome) return [];
	const problems: string[] = [];
	if (target.reports === 'records') {
		const recorded = outcome.items.filter((item) => item.json.recorded !== false && typeof item.json.error !== 'string');
		if (recorded.length) problems.push(`recorded a result from a non-record: ${JSON.stringify(recorded[0].json).slice(0, 300)}`);
	}
	const settled = (outcome.rows ?? []).filter((row) => target.settledByRecord!.includes(String(row.phone)));
	if (settled.length !== target.settledByRecord.length) problems.push(`${settled.length} rows of the placed contacts in the table`);
	for (const row of settled.filter((r) => r.campaignState !== 'placed' || r.version !== 2)) {
		problems.push(`the placed contact ${String(row.phone)} changed to ${String(row.campaignState)} (version ${String(row.version)}): ${String(row.reason).slice(0, 200)}`);
	}
	return problems;
}

/** Every problem of the runs: `extra` (the test's own checks) for targets that talk to the platform. */
function report(verdicts: Verdict[], extra: (verdict: Verdict) => string[], logFrom: number, misbehaving = true): string[] {
	const lines: string[] = [];
	for (const verdict of verdicts) {
		if (!verdict.outcome && !verdict.crashed) continue;
		const own = !verdict.outcome ? [] : verdict.target.offPlatform ? offPlatformProblems(verdict) : [...extra(verdict), ...(misbehaving ? recordProblems(verdict) : [])];
		for (const problem of [...common(verdict), ...own]) lines.push(`${verdict.target.name}: ${problem}`);
	}
	return [...lines, ...foreignProblems(), ...logProblems(logFrom), ...n8nProblems()];
}

const mustFail =
	(what: string, text?: RegExp) =>
	({ target, outcome }: Verdict): string[] => {
		const failure = failureText(target, outcome!);
		if (failure === undefined) return [`succeeded ${what}`];
		if (text && !text.test(failure)) return [`failed ${what} without saying so (${failure.slice(0, 200)})`];
		return [];
	};

const callNotPlaced = ({ target, outcome }: Verdict): string[] => {
	if (!target.dst) return [];
	if (target.reports === 'contacts') {
		// Dial: the contact is recorded unknown, in its row and its output item (contactProblems: they agree).
		const row = (outcome!.rows ?? []).find((r) => r.phone === target.dst);
		return row?.campaignState === 'unknown' ? [] : [`the contact is ${String(row?.campaignState)}, not unknown`];
	}
	const failure = failureText(target, outcome!) ?? '';
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
	const failed = ({ target, outcome }: Verdict) => {
		const failure = failureText(target, outcome!);
		return failure ? [`failed: ${failure.slice(0, 300)}`] : [];
	};
	expect(report(verdicts, failed, from, false)).toEqual([]);
	expect(fx.hostile.foreign.requests).toEqual([]);
	// What the Campaign targets did: the due contact is placed, the ended call's result recorded from its record.
	const stateOf = (target: Target, phone: string) => verdicts.find((v) => v.target === target)?.outcome?.rows?.find((row) => row.phone === phone)?.campaignState;
	for (const target of TARGETS.filter((t) => t.dst && t.reports === 'contacts')) expect([target.name, stateOf(target, target.dst!)]).toEqual([target.name, 'placed']);
	for (const target of TARGETS.filter((t) => t.settledByRecord)) {
		for (const phone of target.settledByRecord!) expect([target.name, stateOf(target, phone)]).toEqual([target.name, 'answered']);
	}
});

test('the operations that never talk to the platform send it nothing, and succeed, whatever it does', async () => {
	const offPlatform = TARGETS.filter((t) => t.offPlatform);
	expect(offPlatform.map((t) => t.op).sort()).toEqual(['campaign.contacts', 'campaign.pause', 'campaign.prepare', 'campaign.resume', 'campaign.stop', 'campaign.summary', 'doNotCallList.add', 'doNotCallList.check']);
	const from = logLines.length;
	const verdicts = await runAll(offPlatform, { timeoutMs: RELAXED_TIMEOUT_MS, continueOnFail: false }, () =>
		fx.hostile.rule({ behave: { kind: 'echo', status: 500 } }),
	);
	expect(report(verdicts, () => [], from)).toEqual([]);
	expect(fx.hostile.requests.map((r) => `${r.method} ${r.path}`)).toEqual([]);
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
				// A status record is read up to 1 MB where many are read at once: that bound is named instead.
				...mustFail('although the answer was larger than Max Response Size', /Max Response Size|reads a status record up to 1 MB/)(v),
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
			// Dial keeps the text in its contacts table too: the row's reason counts.
			const reasons = (v.outcome!.rows ?? []).map((row) => row.reason);
			const size = scannable(v.outcome!.error ?? null).length + scannable(failedItems(v.target, v.outcome!)).length + scannable(reasons).length;
			return [...mustFail(`after a ${status}`)(v), ...(size > ERROR_TEXT_CAP ? [`error of ${size} characters (cap ${ERROR_TEXT_CAP})`] : [])];
		});
	});
});

/*
 * A 2xx status answer that names the call and a dial status but also carries an error is the record of a call that
 * has ended (the platform writes a record only then) with an outcome nobody can trust: the contact becomes unknown,
 * its line freed, never dialled again automatically (a BUSY believed here would be dialled again by a Retry Policy
 * that calls BUSY again; one ignored would hold a line until Max Call Length). Place Call trusts no acceptance that
 * contradicts itself either.
 */
describe('a status answer that names the call and a dial status but carries an error: the call ended, its outcome unknown', () => {
	const targets = TARGETS.filter((t) => t.settledByRecord);
	/** The placed contact is unknown, the contradiction named, its line freed; nothing retried. */
	function endedUnknown({ target, outcome }: Verdict): string[] {
		const problems: string[] = [];
		const settled = (outcome?.rows ?? []).filter((row) => target.settledByRecord!.includes(String(row.phone)));
		if (settled.length !== target.settledByRecord!.length) problems.push(`${settled.length} rows of the placed contacts in the table`);
		for (const row of settled) {
			if (row.campaignState !== 'unknown' || !/contradicts itself \(error: /.test(String(row.reason)) || row.lineUntil !== 0) {
				problems.push(`the placed contact ${String(row.phone)} is ${String(row.campaignState)} (line until ${String(row.lineUntil)}): ${String(row.reason).slice(0, 200)}`);
			}
		}
		return problems;
	}
	test.each([
		['an error object', { error: { code: 'INTERNAL', message: 'record unavailable' } }],
		['an error text', { error: 'record unavailable' }],
	])('%s: the contact becomes unknown, never retried', async (_what, error) => {
		const from = logLines.length;
		const verdicts = await runAll(targets, { timeoutMs: RELAXED_TIMEOUT_MS, continueOnFail: false }, () =>
			fx.hostile.rule({
				method: 'GET',
				path: /^\/getDialstatus\//,
				behave: { kind: 'contradictory', body: { internal_id: persistedCall(), dialStatus: 'BUSY', ...error } },
			}),
		);
		expect(report(verdicts, endedUnknown, from, false)).toEqual([]);
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
