/** Where things are: the project, the pinned n8n install of the e2e tooling, and n8n-nodes-base. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The project root (this file runs from .build/bench/). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');
/** The pinned n8n of the e2e tooling (scripts/n8n-install.js), which brings n8n-nodes-base 2.41.1. */
export const N8N_TOOLS_DIR = resolve(PROJECT_ROOT, process.env.N8N_TOOLS_DIR ?? '.tools/n8n');
/**
 * Fallback when n8n is not installed: only the nodes (git-ignored), installed by hand with
 * `npm install --prefix .tools/bench-nodes-base --ignore-scripts --no-audit --no-fund n8n-nodes-base@2.41.1`.
 */
export const FALLBACK_NODES_BASE_DIR = resolve(PROJECT_ROOT, '.tools/bench-nodes-base');

/**
 * Raw results of the last runs (git-ignored): results.json (`npm run bench`), results-e2e.json (`npm run
 * bench:e2e`) and performance.md (the generated block). docs/performance.md carries the committed summary.
 */
export const RESULTS_DIR = resolve(PROJECT_ROOT, '.build', 'bench-results');

/** The n8n-nodes-base directory to load the HTTP Request node from, if any. */
export function nodesBaseDir(): string | undefined {
	for (const base of [N8N_TOOLS_DIR, FALLBACK_NODES_BASE_DIR]) {
		const dir = join(base, 'node_modules', 'n8n-nodes-base');
		if (existsSync(join(dir, 'dist', 'nodes', 'HttpRequest', 'HttpRequest.node.js'))) return dir;
	}
	return undefined;
}
