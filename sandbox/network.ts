import { createHash } from 'node:crypto';

import { invalid } from './errors';
import type { CallJournalEntry, CallRefusal, DialOutcomeRule, DialStatus, DialStep, Span } from './types';
import { DIAL_STATUSES } from './types';
import { E164 } from './validate';

/*
 * The telephone network behind the outbound API: what each number does on each attempt (rules), the
 * account's limit of calls in flight, and the call journal (when each call started and ended).
 */

/** What a call will do, decided at placement. */
export interface PlannedCall {
	attempt: number;
	dialstatus: DialStatus;
	ringMs: number;
	durationSec: number;
	persistDelayMs: number;
	resultQuery: string | null;
}

export interface NetworkDefaults {
	ringMs: number;
	durationSec: number;
	persistDelayMs: number;
}

const PREFIX = /^\+\d{1,15}$/;

function assertSpan(value: unknown, field: string): void {
	if (value === undefined) return;
	const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
	if (ok(value)) return;
	if (Array.isArray(value) && value.length === 2 && ok(value[0]) && ok(value[1]) && value[0] <= value[1]) return;
	throw invalid(field, 'must be a number >= 0 or a range [min, max]');
}

function assertStatus(value: unknown, field: string): void {
	if (typeof value !== 'string' || !DIAL_STATUSES.includes(value as DialStatus)) {
		throw invalid(field, `must be one of ${DIAL_STATUSES.join(', ')}`);
	}
}

/** Checks a rule; returns a copy. */
export function validateRule(rule: DialOutcomeRule): DialOutcomeRule {
	if (!rule || typeof rule !== 'object') throw invalid('body', 'must be a dial-outcome rule object');
	if (rule.dst !== undefined && (typeof rule.dst !== 'string' || !E164.test(rule.dst))) {
		throw invalid('dst', 'must be + then 2..15 digits, the first not 0');
	}
	if (rule.prefix !== undefined && (typeof rule.prefix !== 'string' || !PREFIX.test(rule.prefix))) {
		throw invalid('prefix', 'must be + then 1..15 digits');
	}
	if (rule.dst !== undefined && rule.prefix !== undefined) throw invalid('prefix', 'give dst or prefix, not both');
	if (rule.attempts !== undefined) {
		if (!Array.isArray(rule.attempts) || rule.attempts.length === 0) throw invalid('attempts', 'must be a non-empty list of steps');
		rule.attempts.forEach((step: DialStep, i) => {
			if (!step || typeof step !== 'object') throw invalid(`attempts[${i}]`, 'must be an object');
			assertStatus(step.dialstatus, `attempts[${i}].dialstatus`);
			assertSpan(step.ringMs, `attempts[${i}].ringMs`);
			assertSpan(step.durationSec, `attempts[${i}].durationSec`);
		});
		if (rule.dialstatus !== undefined) assertStatus(rule.dialstatus, 'dialstatus');
	} else {
		assertStatus(rule.dialstatus, 'dialstatus');
	}
	assertSpan(rule.ringMs, 'ringMs');
	assertSpan(rule.durationSec, 'durationSec');
	const persist = rule.persistDelayMs;
	if (persist !== undefined && (typeof persist !== 'number' || !Number.isFinite(persist) || persist < 0)) {
		throw invalid('persistDelayMs', 'must be a number >= 0');
	}
	const query = rule.resultQuery;
	if (query !== undefined && (typeof query !== 'string' || query === '' || query.length > 1000 || /[#\s]/.test(query))) {
		throw invalid('resultQuery', 'must be query text of 1 to 1000 characters without "#" or spaces');
	}
	return JSON.parse(JSON.stringify(rule)) as DialOutcomeRule;
}

/** A value of a span: fixed, or drawn from [min, max] by a hash of the number and attempt (the same every time). */
export function pick(span: Span | undefined, fallback: number, seed: string): number {
	if (span === undefined) return fallback;
	if (typeof span === 'number') return span;
	const [min, max] = span;
	const fraction = createHash('sha256').update(seed).digest().readUInt32BE(0) / 0x1_0000_0000;
	return min + (max - min) * fraction;
}

export class TelephoneNetwork {
	private byDst = new Map<string, DialOutcomeRule>();
	private byPrefix: DialOutcomeRule[] = [];
	private fallback: DialOutcomeRule | null = null;
	/** Calls accepted per number since the last reset: the attempt of the next call is one more. */
	private readonly attempts = new Map<string, number>();
	/** Calls accepted and not yet hung up, by internal_id, with the sandbox time they end. */
	private readonly inFlight = new Map<string, number>();
	maxConcurrentCalls: number | null = null;
	readonly calls: CallJournalEntry[] = [];
	readonly refusals: CallRefusal[] = [];
	private seq = 0;

	constructor(private readonly journalLimit: number) {}

	setRule(rule: DialOutcomeRule): DialOutcomeRule {
		const copy = validateRule(rule);
		if (copy.dst !== undefined) this.byDst.set(copy.dst, copy);
		else if (copy.prefix !== undefined) {
			this.byPrefix = [...this.byPrefix.filter((r) => r.prefix !== copy.prefix), copy].sort(
				(a, b) => b.prefix!.length - a.prefix!.length,
			);
		} else this.fallback = copy;
		return copy;
	}

	rules(): DialOutcomeRule[] {
		return [...this.byDst.values(), ...this.byPrefix, ...(this.fallback ? [this.fallback] : [])];
	}

	/** Forgets the rules and the attempt counts. */
	clearRules(): void {
		this.byDst.clear();
		this.byPrefix = [];
		this.fallback = null;
		this.attempts.clear();
	}

	/** Back to an empty network: no rules, no limit, nothing in flight, empty journal. */
	reset(): void {
		this.clearRules();
		this.inFlight.clear();
		this.maxConcurrentCalls = null;
		this.clearJournal();
	}

	clearJournal(): void {
		this.calls.length = 0;
		this.refusals.length = 0;
	}

	setLimit(limit: number | null): void {
		if (limit !== null && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
			throw invalid('maxConcurrentCalls', 'must be a whole number >= 1, or null for no limit');
		}
		this.maxConcurrentCalls = limit;
	}

	get callsInFlight(): number {
		return this.inFlight.size;
	}

	/** The sandbox time the first call in flight ends (undefined when none is). */
	firstEnd(): number | undefined {
		let first: number | undefined;
		for (const end of this.inFlight.values()) if (first === undefined || end < first) first = end;
		return first;
	}

	/** Whether one more call would pass the account's limit. */
	full(): boolean {
		return this.maxConcurrentCalls !== null && this.inFlight.size >= this.maxConcurrentCalls;
	}

	/** What the next call to `dst` does (its attempt counted only when `accept` records it). */
	plan(dst: string, defaults: NetworkDefaults): PlannedCall {
		const attempt = (this.attempts.get(dst) ?? 0) + 1;
		const rule =
			this.byDst.get(dst) ?? this.byPrefix.find((r) => dst.startsWith(r.prefix!)) ?? this.fallback ?? { dialstatus: 'ANSWER' as const };
		const step: DialStep = rule.attempts
			? rule.attempts[Math.min(attempt, rule.attempts.length) - 1]
			: { dialstatus: rule.dialstatus ?? 'ANSWER' };
		const seed = `${dst}#${attempt}`;
		const ringMs = Math.round(pick(step.ringMs ?? rule.ringMs, defaults.ringMs, `${seed}#ring`));
		const answered = step.dialstatus === 'ANSWER';
		const durationSec = answered ? Math.round(pick(step.durationSec ?? rule.durationSec, defaults.durationSec, `${seed}#talk`)) : 0;
		return {
			attempt,
			dialstatus: step.dialstatus,
			ringMs,
			durationSec,
			persistDelayMs: rule.persistDelayMs ?? defaults.persistDelayMs,
			resultQuery: rule.resultQuery ?? null,
		};
	}

	accept(entry: Omit<CallJournalEntry, 'seq' | 'endedWallAt'>): CallJournalEntry {
		this.attempts.set(entry.dst, entry.attempt);
		this.inFlight.set(entry.internal_id, entry.endedAt);
		const full: CallJournalEntry = { seq: ++this.seq, ...entry, endedWallAt: null };
		this.push(this.calls, full);
		return full;
	}

	/** The call hung up. */
	hangUp(entry: CallJournalEntry): void {
		this.inFlight.delete(entry.internal_id);
		entry.endedWallAt = Date.now();
	}

	refuse(refusal: Omit<CallRefusal, 'seq'>): CallRefusal {
		const full = { seq: ++this.seq, ...refusal };
		this.push(this.refusals, full);
		return full;
	}

	private push<T>(list: T[], entry: T): void {
		list.push(entry);
		if (list.length > this.journalLimit) list.splice(0, Math.max(1, Math.floor(this.journalLimit / 10)));
	}
}

export interface Interval {
	start: number;
	end: number;
}

/**
 * The most calls in flight at once among `calls` (each from its start to its end, the end excluded),
 * by sandbox time ('sandbox') or wall time ('wall'; calls not yet ended count as still in flight).
 */
export function maxInFlight(calls: readonly CallJournalEntry[], clock: 'sandbox' | 'wall' = 'sandbox'): number {
	const points: Array<[number, number]> = [];
	for (const call of calls) {
		const start = clock === 'wall' ? call.startedWallAt : call.startedAt;
		const end = clock === 'wall' ? (call.endedWallAt ?? Number.POSITIVE_INFINITY) : call.endedAt;
		points.push([start, 1], [end, -1]);
	}
	// Ends before starts at the same instant: a line freed at t can be taken at t.
	points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let current = 0;
	let max = 0;
	for (const [, delta] of points) {
		current += delta;
		if (current > max) max = current;
	}
	return max;
}
