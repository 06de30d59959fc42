import type { ClockMode } from './types';

interface ScheduledEvent {
	seq: number;
	at: number;
	run: () => Promise<void> | void;
	done: boolean;
	timer: NodeJS.Timeout | null;
}

/** The fastest a real clock may run: beyond it timers of a few ms stand for whole seconds of a call. */
export const MAX_CLOCK_SPEED = 10_000;

export function assertClockSpeed(speed: unknown): number {
	if (typeof speed !== 'number' || !Number.isFinite(speed) || speed <= 0 || speed > MAX_CLOCK_SPEED) {
		throw new RangeError(`speed must be a number above 0 and at most ${MAX_CLOCK_SPEED}`);
	}
	return speed;
}

/**
 * The sandbox clock. Calls and uploads move on it.
 * - 'manual': time only moves with `advance(ms)`, which runs every due event in time order and
 *   awaits each one (including the callbacks it POSTs).
 * - 'real': wall-clock time, optionally `speed` times faster (a call of 60 s lasts 0.1 s of wall time
 *   at speed 600); events fire by themselves on unref'd timers. `advance(ms)` still works: it shifts
 *   the clock forward and runs what became due.
 */
export class SandboxClock {
	private events: ScheduledEvent[] = [];
	private nextSeq = 1;
	private manualNow: number;
	private offset = 0;
	/** Real mode: the clock read `anchorClock` at wall time `anchorWall`, and runs `speed` times faster since. */
	private anchorWall: number;
	private anchorClock: number;
	private speedValue: number;
	private readonly running = new Set<Promise<void>>();
	private stopped = false;

	constructor(
		readonly mode: ClockMode,
		private readonly onError: (error: unknown) => void,
		start = Date.now(),
		speed = 1,
	) {
		this.manualNow = start;
		this.anchorWall = Date.now();
		this.anchorClock = this.anchorWall;
		this.speedValue = assertClockSpeed(speed);
	}

	now(): number {
		if (this.mode === 'manual') return this.manualNow;
		return this.anchorClock + (Date.now() - this.anchorWall) * this.speedValue + this.offset;
	}

	/** How many times faster than wall time the real clock runs (1 = wall time; manual: 1). */
	get speed(): number {
		return this.speedValue;
	}

	/**
	 * Real mode: from now on the clock runs `speed` times faster than wall time (time already passed is
	 * kept). Pending events are re-armed for the new pace.
	 */
	setSpeed(speed: number): void {
		assertClockSpeed(speed);
		if (this.mode === 'manual') throw new RangeError('a manual clock has no speed: it moves with advance(ms)');
		const now = this.now();
		this.anchorWall = Date.now();
		this.anchorClock = now - this.offset;
		this.speedValue = speed;
		for (const event of this.events) this.arm(event);
	}

	/** Wall-clock milliseconds until the clock reads `at` (0 when it has passed). */
	wallDelay(at: number): number {
		const remaining = Math.max(0, at - this.now());
		return this.mode === 'manual' ? remaining : remaining / this.speedValue;
	}

	/** Number of events not yet run. */
	get pending(): number {
		return this.events.length;
	}

	schedule(at: number, run: () => Promise<void> | void): void {
		if (this.stopped) return;
		const event: ScheduledEvent = { seq: this.nextSeq++, at, run, done: false, timer: null };
		// Keep events sorted by (at, seq); new events usually go at the end.
		let i = this.events.length;
		while (i > 0 && this.events[i - 1].at > at) i--;
		this.events.splice(i, 0, event);
		if (this.mode === 'real') this.arm(event);
	}

	private arm(event: ScheduledEvent): void {
		if (event.timer) clearTimeout(event.timer);
		const delay = this.wallDelay(event.at);
		event.timer = setTimeout(() => {
			event.timer = null;
			void this.fire(event);
		}, delay);
		event.timer.unref();
	}

	private take(event: ScheduledEvent): boolean {
		if (event.done) return false;
		event.done = true;
		if (event.timer) {
			clearTimeout(event.timer);
			event.timer = null;
		}
		const i = this.events.indexOf(event);
		if (i >= 0) this.events.splice(i, 1);
		return true;
	}

	private async fire(event: ScheduledEvent): Promise<void> {
		if (!this.take(event)) return;
		const p = (async () => {
			try {
				await event.run();
			} catch (error) {
				this.onError(error);
			}
		})();
		this.running.add(p);
		try {
			await p;
		} finally {
			this.running.delete(p);
		}
	}

	/** Moves time forward by `ms`, running (and awaiting) every event that becomes due, in order. */
	async advance(ms: number): Promise<void> {
		if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance(ms) needs a finite ms >= 0');
		const target = this.now() + ms;
		for (;;) {
			const next = this.events[0];
			if (!next || next.at > target) break;
			if (this.mode === 'manual' && next.at > this.manualNow) this.manualNow = next.at;
			await this.fire(next);
		}
		if (this.mode === 'manual') {
			this.manualNow = Math.max(this.manualNow, target);
		} else {
			this.offset += Math.max(0, target - this.now());
			for (const event of this.events) this.arm(event);
		}
	}

	/** Drops every pending event (in-flight ones finish). */
	cancelAll(): void {
		for (const event of this.events) {
			event.done = true;
			if (event.timer) clearTimeout(event.timer);
		}
		this.events = [];
	}

	/** Resolves when the events running right now have finished. */
	async idle(): Promise<void> {
		while (this.running.size > 0) await Promise.allSettled([...this.running]);
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.cancelAll();
		await this.idle();
	}
}
