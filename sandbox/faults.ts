import { invalid } from './errors';
import type { FaultKind, FaultSpec, PageOverride } from './types';

export const FAULT_KINDS: readonly FaultKind[] = ['latency', 'status', 'reset', 'malformed', 'slow', 'page', 'answer'];

/** Default waits: `latency` a noticeable delay, `slow` longer than a typical 30 s client timeout. */
export const DEFAULT_LATENCY_MS = 200;
export const DEFAULT_SLOW_MS = 35_000;

export interface ActiveFault extends FaultSpec {
	id: number;
	/** How often it was applied. */
	applied: number;
	/** Matching requests seen after `skip` (for `every`). */
	seen: number;
}

/** Injected faults on the platform surfaces (never on /__sandbox). First match in insertion order wins. */
export class FaultRegistry {
	private faults: ActiveFault[] = [];
	private nextId = 1;

	add(spec: FaultSpec): ActiveFault {
		if (!spec || typeof spec !== 'object') throw invalid('fault', 'must be an object');
		if (typeof spec.path !== 'string' || !spec.path.startsWith('/')) throw invalid('path', "must start with '/' (exact, or a prefix ending in '*')");
		if (spec.path.startsWith('/__sandbox')) throw invalid('path', 'faults never apply to /__sandbox');
		if (!FAULT_KINDS.includes(spec.kind)) throw invalid('kind', `must be one of ${FAULT_KINDS.join(', ')}`);
		if (spec.method !== undefined && (typeof spec.method !== 'string' || spec.method === '')) throw invalid('method', 'must be an HTTP method');
		if (spec.kind === 'status') {
			if (typeof spec.status !== 'number' || !Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599) {
				throw invalid('status', 'must be an integer 400..599 for a status fault');
			}
		}
		if (spec.kind === 'answer') {
			if (spec.body === undefined) throw invalid('body', "is required for kind 'answer' (any JSON value)");
			if (spec.status !== undefined && (typeof spec.status !== 'number' || !Number.isInteger(spec.status) || spec.status < 200 || spec.status > 599)) {
				throw invalid('status', 'must be an integer 200..599 for an answer fault');
			}
			if (spec.pathIdField !== undefined) {
				if (typeof spec.pathIdField !== 'string' || spec.pathIdField === '') throw invalid('pathIdField', 'must be a non-empty string');
				if (typeof spec.body !== 'object' || spec.body === null || Array.isArray(spec.body)) throw invalid('body', 'must be an object with pathIdField');
			}
		} else {
			if (spec.body !== undefined) throw invalid('body', "only applies to kind 'answer'");
			if (spec.pathIdField !== undefined) throw invalid('pathIdField', "only applies to kind 'answer'");
		}
		for (const key of ['retryAfter', 'delayMs'] as const) {
			const v = spec[key];
			if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) throw invalid(key, 'must be a number >= 0');
		}
		if (spec.times !== undefined && (typeof spec.times !== 'number' || !Number.isInteger(spec.times) || spec.times < 1)) {
			throw invalid('times', 'must be an integer >= 1');
		}
		if (spec.code !== undefined && (typeof spec.code !== 'string' || spec.code === '')) throw invalid('code', 'must be a non-empty string');
		if (spec.skip !== undefined && (typeof spec.skip !== 'number' || !Number.isInteger(spec.skip) || spec.skip < 0)) {
			throw invalid('skip', 'must be an integer >= 0');
		}
		if (spec.every !== undefined && (typeof spec.every !== 'number' || !Number.isInteger(spec.every) || spec.every < 1)) {
			throw invalid('every', 'must be an integer >= 1');
		}
		if (spec.kind === 'page') validatePageOverride(spec.page);
		else if (spec.page !== undefined) throw invalid('page', "only applies to kind 'page'");
		const fault: ActiveFault = { ...spec, method: spec.method?.toUpperCase(), id: this.nextId++, applied: 0, seen: 0 };
		this.faults.push(fault);
		return fault;
	}

	/** The fault to apply to this request, if any (counts one application). */
	take(method: string, path: string): ActiveFault | undefined {
		for (let i = 0; i < this.faults.length; i++) {
			const f = this.faults[i];
			if (f.method && f.method !== method) continue;
			const hit = f.path.endsWith('*') ? path.startsWith(f.path.slice(0, -1)) : path === f.path;
			if (!hit) continue;
			if (f.skip !== undefined && f.skip > 0) {
				// Let this request through untouched; later faults may still match it.
				f.skip--;
				continue;
			}
			// Only every n-th matching request; the others go on as if this fault were not there.
			if (f.every !== undefined && ++f.seen % f.every !== 0) continue;
			f.applied++;
			if (f.times !== undefined) {
				f.times--;
				if (f.times <= 0) this.faults.splice(i, 1);
			}
			return { ...f };
		}
		return undefined;
	}

	list(): ActiveFault[] {
		return this.faults.map((f) => ({ ...f }));
	}

	clear(): void {
		this.faults = [];
	}
}

function validatePageOverride(page: PageOverride | undefined): void {
	if (!page || typeof page !== 'object' || Array.isArray(page)) throw invalid('page', "must be an object for kind 'page'");
	if (page.data !== undefined && !Array.isArray(page.data)) throw invalid('page.data', 'must be an array');
	if (page.keep !== undefined && (typeof page.keep !== 'number' || !Number.isInteger(page.keep) || page.keep < 0)) {
		throw invalid('page.keep', 'must be an integer >= 0');
	}
	if (page.repeatCursor !== undefined && typeof page.repeatCursor !== 'boolean') throw invalid('page.repeatCursor', 'must be a boolean');
	if (page.meta !== undefined && (typeof page.meta !== 'object' || page.meta === null || Array.isArray(page.meta))) {
		throw invalid('page.meta', 'must be an object');
	}
}
