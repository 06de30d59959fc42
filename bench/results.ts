/** What `npm run bench` and `npm run bench:e2e` write (.build/bench-results/*.json), read by report.ts. */
/** One client in one scenario: wall and CPU time (user + system) of its process, median and every measured run. */
export interface ClientStats {
	medianMs: number;
	runsMs: number[];
	medianCpuMs: number;
	runsCpuMs: number[];
	warmupMs: number;
	/** Items produced per run; output items of the workflow's last node (first run); per-run facts read from the sandbox. */
	items: number[];
	outputItems: number;
	checks: Record<string, number[]>;
	/** RSS after loading, before the first run; maximum RSS over the warm-up and every run (getrusage maxrss). */
	baselineRssMB: number;
	peakRssMB: number;
	detail: Record<string, unknown>;
}
/** One scenario; case 7 adds Max Calls in Flight, the sandbox clock's speed and the Status Check Interval (wall s). */
export interface ScenarioResult {
	case: 'list' | 'fanout' | 'status' | 'create' | 'dial';
	n: number;
	latencyMs: number;
	clients: Record<string, ClientStats>;
	expectedRequests?: number;
	batchSize?: number;
	maxPersistDelayMs?: number;
	cap?: number;
	speed?: number;
	intervalSeconds?: number;
}
/** Intake (first POST sent until the last answer), processed (until the run's last execution finished), n8n's CPU per POST. */
export interface TriggerStats {
	medianMs: number;
	runsMs: number[];
	processedMedianMs: number;
	cpuPerPostMedianMs?: number;
	executions: number[];
	non200: number[];
	lost: number[];
}
/** Case 4 (`npm run bench:e2e`); floor: the minimal community trigger (bench/fixtures/floor-trigger). */
export interface TriggerResult {
	measuredAt: string;
	posts: number;
	concurrency: number;
	ours: TriggerStats;
	floor?: TriggerStats;
	webhook: TriggerStats;
	notes?: string[];
}
/** Everything `npm run bench` measured; cases 6 and 7 (create, dial), 5 (package) and 4 (trigger) may be absent. */
export interface BenchResults {
	generatedAt: string;
	durationSec: number;
	settings: Record<string, unknown>;
	versions: Record<string, string>;
	nodesBaseDir: string;
	machine: {
		nproc: number;
		cpu: string;
		memoryGB: number;
		node: string;
		platform: string;
		loadAverageAtStart: number[];
		loadAverageAtEnd?: number[];
	};
	list: ScenarioResult[];
	fanout: ScenarioResult[];
	status: ScenarioResult[];
	create?: ScenarioResult[];
	dial?: ScenarioResult[];
	trigger?: TriggerResult;
	package?: {
		tarballBytes: number;
		unpackedBytes: number;
		files: number;
		requireFiles: number;
		requireOursMedianMs: number;
		requireN8nWorkflowMedianMs: number;
		processMedianMs: number;
		runs: Array<Record<string, number>>;
	};
}
