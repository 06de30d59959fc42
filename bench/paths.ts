/** Where things are: the project root (this file runs from .build/bench/), the raw results of the last runs (git-ignored), n8n-nodes-base. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
export const PROJECT_ROOT = resolve(__dirname, '..', '..');
export const RESULTS_DIR = resolve(PROJECT_ROOT, '.build', 'bench-results');
/** Writes a value as tab-indented JSON, creating the folder. */
export function writeJson(file: string, value: unknown): void {
	mkdirSync(resolve(file, '..'), { recursive: true });
	writeFileSync(file, JSON.stringify(value, null, '\t') + '\n');
}
/** n8n-nodes-base of the pinned n8n (scripts/n8n-install.js, `npm run n8n:install`), if installed. */
export function nodesBaseDir(): string | undefined {
	const dir = join(fromRoot('scripts/n8n-install.js').paths.nodeModules, 'n8n-nodes-base');
	return existsSync(join(dir, 'dist', 'nodes', 'HttpRequest', 'HttpRequest.node.js')) ? dir : undefined;
}
/** A module of the project's JavaScript tooling (scripts/, test-e2e/support/), loaded from the project root. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const fromRoot = (path: string): any => require(join(PROJECT_ROOT, path));
/** Numeric options from the environment: `<prefix><NAME>`, else (unset or empty) the default. */
export function options<K extends string>(prefix: string, defaults: Record<K, number>): Record<K, number> {
	const entries = Object.entries<number>(defaults).map(([name, value]) => [name, Number(process.env[prefix + name] || value)]);
	return Object.fromEntries(entries) as Record<K, number>;
}
/** A log line's prefix: the script's tag and the time of day. */
export function logger(tag: string): (...args: unknown[]) => void {
	return (...args) => console.log(`[${tag} ${new Date().toISOString().slice(11, 19)}]`, ...args);
}
/** Runs a script's main; an error is printed and sets the exit code. */
export function runMain(main: () => Promise<void>): void {
	main().catch((error) => {
		console.error(error);
		process.exitCode = 1;
	});
}
