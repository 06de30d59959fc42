/** What `npm run bench` and `npm run bench:e2e` write (.build/bench-results/*.json), read by report.ts. */

/** One client in one scenario: wall and CPU time (user + system) of its process, median and every run; items per run, output items of the
 * last node (first run), per-run checks read from the sandbox; RSS before the first run (baseline), its maximum over every run (peak). */
export type ClientStats = Record<'medianMs' | 'medianCpuMs' | 'warmupMs' | 'outputItems' | 'baselineRssMB' | 'peakRssMB', number> &
	Record<'runsMs' | 'runsCpuMs' | 'items', number[]> & { checks: Record<string, number[]>; detail: Record<string, unknown> };
/** One scenario. */
export type ScenarioResult = Record<'n' | 'latencyMs', number> & { case: 'list' | 'fanout' | 'status' | 'create' } & {
	clients: Record<string, ClientStats>;
} & Partial<Record<'expectedRequests' | 'batchSize' | 'maxPersistDelayMs', number>>;
/** Intake (first POST sent until the last answer), processed (until the run's last execution finished), n8n's CPU per POST. */
export type TriggerStats = Record<'medianMs' | 'processedMedianMs', number> &
	Record<'runsMs' | 'executions' | 'non200' | 'lost', number[]> & { cpuPerPostMedianMs?: number };
/** Case 4 (`npm run bench:e2e`); floor: the minimal community trigger (bench/fixtures/floor-trigger). */
export type TriggerResult = Record<'ours' | 'webhook', TriggerStats> &
	Record<'posts' | 'concurrency', number> & { floor?: TriggerStats; measuredAt: string; notes?: string[] };
/** Everything `npm run bench` measured; cases 6 (create), 5 (package) and 4 (trigger) may be absent. */
export type BenchResults = Record<'list' | 'fanout' | 'status', ScenarioResult[]> &
	Partial<Record<'create', ScenarioResult[]>> & {
		generatedAt: string;
		durationSec: number;
		settings: Record<string, unknown>;
		versions: Record<string, string>;
		nodesBaseDir: string;
		machine: Record<'nproc' | 'memoryGB', number> &
			Record<'cpu' | 'node' | 'platform', string> & { loadAverageAtStart: number[]; loadAverageAtEnd?: number[] };
		trigger?: TriggerResult;
		/** Case 5: the package's size and require time (context.ts). */
		package?: Record<'tarballBytes' | 'unpackedBytes' | 'files' | 'requireFiles', number> &
			Record<'requireOursMedianMs' | 'requireN8nWorkflowMedianMs' | 'processMedianMs', number> & { runs: Array<Record<string, number>> };
	};
