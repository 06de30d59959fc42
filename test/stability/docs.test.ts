import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// The documentation says only what is true of the tree it ships with: every file, folder and function it names
// exists, every relative link and anchor resolves, the README stays short enough to read, and nothing in the
// repository cites an issue number, a fix letter or the machine it was developed on (CHANGELOG.md excepted: it
// speaks of releases). A doc that names something gone fails here, with the name and the doc.

const ROOT = resolve(__dirname, '../..');

/** Folders that are built, installed or local to one checkout: never part of what the docs describe. */
const GENERATED = new Set(['node_modules', '.git', '.build', 'dist', '.tools', '.n8n-demo', 'coverage']);

function walk(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		if (GENERATED.has(entry.name)) return [];
		const path = join(dir, entry.name);
		return entry.isDirectory() ? [path, ...walk(path)] : [path];
	});
}

const posix = (path: string) => path.split(sep).join('/');

/** Every file and folder of the repository, repository-relative, folders without a trailing slash. */
const TREE = walk(ROOT).map((path) => posix(relative(ROOT, path)));
const FILES = TREE.filter((path) => statSync(join(ROOT, path)).isFile());
const ROOT_ENTRIES = new Set(readdirSync(ROOT).filter((name) => !GENERATED.has(name)));

const DOCS = [
	'README.md',
	'sandbox/README.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// ---------------------------------------------------------------------------------------------------------------
// What a doc names

interface Fence {
	language: string;
	body: string;
}

/** The doc without its fenced code blocks, and the fenced blocks with their language. */
function splitFences(markdown: string): { prose: string; fences: Fence[] } {
	const fences: Fence[] = [];
	const prose = markdown.replace(/^(```|~~~)([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm, (_all, _fence, language: string, body: string) => {
		fences.push({ language: language.trim(), body });
		return '';
	});
	return { prose, fences };
}

/** Paragraphs, list items and table rows as single lines: a name and the file it is cited with stay together. */
function blocks(prose: string): string[] {
	return prose
		.split(/\n(?=\s*(?:[-*] |\d+\. |\||#|$))/)
		.map((block) => block.replace(/\s*\n\s*/g, ' ').trim())
		.filter(Boolean);
}

/** Code spans; one may wrap onto the next line of its paragraph. */
const codeSpans = (text: string) =>
	text.split(/\n\s*\n/).flatMap((paragraph) => [...paragraph.replace(/\s*\n\s*/g, ' ').matchAll(/`([^`]+)`/g)].map((match) => match[1]));

const CODE_EXTENSION = /\.(ts|js|mjs|cjs|json|md|yml|yaml)$/;
/** Roots a doc may name that are not in the tree: built output, installs, n8n's own user folder. */
const OUTSIDE_TREE = /^(\.build|\.tools|dist|\.n8n-demo|\.n8n|node_modules|coverage)(\/|$)/;

/** A code span that names a file or folder of the repository (or claims to), else undefined. */
export function pathName(span: string): string | undefined {
	if (/[\s:#?=@{}$|"'(),…<>]/.test(span) || /^[/~*.]?$/.test(span) || /^[/~*]/.test(span)) return undefined;
	if (OUTSIDE_TREE.test(span.replace(/^\.\//, ''))) return undefined;
	const first = span.split('/')[0];
	const relativeToDoc = span.startsWith('./') || span.startsWith('../');
	if (relativeToDoc || ROOT_ENTRIES.has(first)) return span;
	return CODE_EXTENSION.test(span) ? span : undefined;
}

function globToRegExp(glob: string): RegExp {
	const pattern = glob
		.split(/(\*\*\/?|\*)/)
		.map((part) => (part.startsWith('**') ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
		.join('');
	return new RegExp(`(?:^|/)${pattern}$`);
}

/** The repository paths a name refers to, seen from the doc that names it ([] when none exists). */
export function resolveName(name: string, doc: string, tree: string[] = TREE): string[] {
	const clean = name.replace(/\/+$/, '');
	if (clean.startsWith('./') || clean.startsWith('../')) {
		const target = posix(relative(ROOT, resolve(ROOT, dirname(doc), clean)));
		return !target.startsWith('..') && tree.includes(target) ? [target] : [];
	}
	if (clean.includes('*')) {
		const pattern = globToRegExp(clean);
		return tree.filter((path) => pattern.test(path));
	}
	const fromDoc = posix(join(dirname(doc), clean));
	if (tree.includes(clean)) return [clean];
	if (tree.includes(fromDoc)) return [fromDoc];
	return tree.filter((path) => path.endsWith(`/${clean}`));
}

const FENCED_FILE = /(?<![\w<>./-])\w[\w./-]*\.(?:ts|js)\b/g;

/** Names of files in a fenced block: in code, in commands and in the diagrams of docs/architecture.md. */
function fencedFileNames(fence: Fence): string[] {
	return [...fence.body.matchAll(FENCED_FILE)].map((match) => match[0]).filter((name) => pathName(name));
}

/** Names of functions in a fenced block without a language: a diagram of files and what they hold. */
function diagramIdentifiers(fence: Fence): string[] {
	if (fence.language) return [];
	const withoutPaths = fence.body.replace(FENCED_FILE, ' ').replace(/\S*\/\S*/g, ' ');
	return wordsOf(withoutPaths).flatMap(identifierName);
}

/** A span that names code: `camelCase`, `PascalCase` with two humps, `name()`, `a.b`, or a call `name(args)`. */
export function identifierName(span: string): string[] {
	const call = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(.*\)$/.exec(span);
	const dotted = call ? call[1] : /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(span) ? span : undefined;
	if (!dotted) return [];
	return dotted
		.split('.')
		.filter((part) => !/^[A-Z0-9_]+$/.test(part))
		.filter((part) => call || /[a-z][A-Z]/.test(part) || /^[A-Z][a-z0-9]+[A-Z]/.test(part));
}

// ---------------------------------------------------------------------------------------------------------------
// Where names are looked up

const wordsOf = (text: string) => text.match(/[A-Za-z_$][\w$]*/g) ?? [];

function wordsIn(files: string[]): Set<string> {
	const words = new Set<string>();
	for (const file of files) for (const word of wordsOf(readFileSync(file, 'utf8'))) words.add(word);
	return words;
}

const SOURCE = /\.(ts|js|mjs|cjs|json)$/;
const THIS_FILE = posix(relative(ROOT, __filename));
const PROJECT_WORDS = wordsIn(FILES.filter((path) => SOURCE.test(path) && path !== THIS_FILE).map((path) => join(ROOT, path)));

function jsFilesUnder(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : jsFilesUnder(path);
		return entry.name.endsWith('.js') ? [path] : [];
	});
}

/** n8n's own engine and its HTTP client, as installed for the tests: the docs cite some of their names. */
const N8N_WORDS = wordsIn(
	[
		'node_modules/n8n-core/dist',
		'node_modules/n8n-workflow/dist/cjs',
		'node_modules/n8n-core/node_modules/@n8n/backend-network/dist',
		'node_modules/@n8n/backend-network/dist',
		'node_modules/axios/lib',
	].flatMap((dir) => jsFilesUnder(join(ROOT, dir))),
);

/**
 * Names the docs cite from code that is not installed in this repository: n8n's server (the n8n package the
 * end-to-end suites install, not a dependency), Bull, Node.js and the Web platform. Each is cited as theirs.
 */
const EXTERNAL = new Set([
	'ActiveExecutions', // n8n server, packages/cli
	'WorkflowTriggerActivator', // n8n server, packages/cli
	'webhookPhaseNeedsIsolate', // n8n server, packages/cli (LiveWebhooks)
	'parseRequestBody', // n8n server, packages/cli
	'getNodeWebhooks', // n8n-workflow's NodeHelpers, as n8n's server calls it
	'removeOnComplete', // Bull job option
	'getRandomValues', // Web Crypto
	'globalThis', // JavaScript
	'peerDependencies', // package.json field
]);

const knownIdentifier = (name: string) => PROJECT_WORDS.has(name) || N8N_WORDS.has(name) || EXTERNAL.has(name);

/** The files behind a path name: the file itself, or every source file under a folder. */
function filesBehind(paths: string[]): string[] {
	return paths.flatMap((path) => (FILES.includes(path) ? [path] : FILES.filter((file) => file.startsWith(`${path}/`))));
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

interface Problem {
	doc: string;
	what: string;
}

function missingPaths(doc: string, markdown: string): Problem[] {
	const { prose, fences } = splitFences(markdown);
	const names = [...codeSpans(prose).map(pathName), ...fences.flatMap(fencedFileNames)].filter((name): name is string => !!name);
	return [...new Set(names)].filter((name) => resolveName(name, doc).length === 0).map((name) => ({ doc, what: `\`${name}\`: no such file or folder` }));
}

function unknownIdentifiers(doc: string, markdown: string): Problem[] {
	const { prose, fences } = splitFences(markdown);
	const names = [...codeSpans(prose).flatMap(identifierName), ...fences.flatMap(diagramIdentifiers)];
	return [...new Set(names)].filter((name) => !knownIdentifier(name)).map((name) => ({ doc, what: `\`${name}\`: not found in the source` }));
}

/** `name` in `file`, `name` (`file`…, (`file`, `name`: a name cited with its file must be in that file. */
export function citedWithFile(block: string): Array<{ name: string; path: string }> {
	const span = '`([^`]+)`';
	const pairs: Array<{ name: string; path: string }> = [];
	for (const [, a, b] of block.matchAll(new RegExp(`${span}(?:\\(\\))? (?:in|from) ${span}`, 'g'))) pairs.push({ name: a, path: b });
	for (const [, a, b] of block.matchAll(new RegExp(`${span} \\(${span}`, 'g'))) pairs.push({ name: a, path: b });
	for (const [, a, b] of block.matchAll(new RegExp(`\\(${span}[,:] ${span}`, 'g'))) pairs.push({ name: b, path: a });
	return pairs.filter(({ name, path }) => identifierName(name).length > 0 && pathName(path));
}

function namesNotInTheirFile(doc: string, markdown: string): Problem[] {
	const problems: Problem[] = [];
	for (const block of blocks(splitFences(markdown).prose)) {
		for (const { name, path } of citedWithFile(block)) {
			const files = filesBehind(resolveName(pathName(path)!, doc));
			if (files.length === 0) continue; // reported as a missing path
			const words = wordsIn(files.map((file) => join(ROOT, file)));
			for (const part of identifierName(name).slice(-1)) {
				if (!words.has(part)) problems.push({ doc, what: `\`${part}\` is not in \`${path}\`` });
			}
		}
	}
	return problems;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2, …. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const [, heading] of splitFences(markdown).prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
		const text = heading.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
		const slug = text
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const count = seen.get(slug) ?? 0;
		seen.set(slug, count + 1);
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
	}
	return anchors;
}

function brokenLinks(doc: string, markdown: string): Problem[] {
	const problems: Problem[] = [];
	for (const [, target] of splitFences(markdown).prose.matchAll(/\]\(([^)\s]+)\)/g)) {
		if (/^[a-z]+:/i.test(target)) continue;
		const [file, anchor] = target.split('#');
		const path = file ? posix(relative(ROOT, resolve(ROOT, dirname(doc), file))) : doc;
		if (path.startsWith('..') || !TREE.includes(path)) {
			problems.push({ doc, what: `link (${target}): no such file in the repository` });
		} else if (anchor && path.endsWith('.md') && !anchorsOf(read(path)).has(anchor)) {
			problems.push({ doc, what: `link (${target}): no heading with that anchor` });
		}
	}
	return problems;
}

const asLines = (problems: Problem[]) => problems.map(({ doc, what }) => `${doc}: ${what}`);

// Built from parts so that this file does not match its own patterns.
const HISTORY = [
	{ rule: 'an issue number', pattern: new RegExp(`\\b${'issue'} #?[0-9]`, 'i') },
	{ rule: 'a fix letter', pattern: new RegExp(`\\b[Ff]${'ix'}(?:es)? [A-Z]\\b`) },
	{ rule: 'the development machine', pattern: new RegExp(['this', 'machine'].join('\\s+'), 'i') },
];

const BINARY = /\.(png|jpe?g|gif|ico|tgz|gz|zip|woff2?)$/;

/** Lines anywhere in the repository that cite history a reader cannot follow. */
function historyLines(files: string[]): string[] {
	const lines: string[] = [];
	for (const file of files) {
		if (file === 'CHANGELOG.md' || BINARY.test(file)) continue;
		readFileSync(join(ROOT, file), 'utf8')
			.split('\n')
			.forEach((line, index) => {
				for (const { rule, pattern } of HISTORY) {
					if (pattern.test(line)) lines.push(`${file}:${index + 1}: ${rule}: ${line.trim().slice(0, 120)}`);
				}
			});
	}
	return lines;
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

// ---------------------------------------------------------------------------------------------------------------

describe('docs: every name a doc mentions exists', () => {
	it('reads the docs it must judge', () => {
		expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'sandbox/README.md', 'docs/architecture.md', 'docs/assumptions.md']));
		expect(PROJECT_WORDS.has('platformRequest')).toBe(true);
		expect(N8N_WORDS.has('WorkflowExecute')).toBe(true);
	});

	it.each(DOCS)('%s names only files and folders that exist', (doc) => {
		expect(asLines(missingPaths(doc, read(doc)))).toEqual([]);
	});

	it.each(DOCS)('%s names only functions and types found in the source', (doc) => {
		const markdown = read(doc);
		expect(asLines([...unknownIdentifiers(doc, markdown), ...namesNotInTheirFile(doc, markdown)])).toEqual([]);
	});

	it.each(DOCS)('%s links only to files and headings that exist', (doc) => {
		expect(asLines(brokenLinks(doc, read(doc)))).toEqual([]);
	});

	it('README.md stays under 3,000 words', () => {
		expect(wordCount(read('README.md'))).toBeLessThan(3000);
	});

	it('the repository cites no issue number, fix letter or development machine (CHANGELOG.md aside)', () => {
		expect(historyLines(FILES)).toEqual([]);
	});
});

describe('docs: the checks catch what they must', () => {
	const doc = 'docs/example.md';
	const tree = ['nodes/shared/transport.ts', 'nodes/shared', 'docs/assumptions.md', 'test/node/agentKeys.test.ts'];

	it('tells a path from a URL path, a package, a MIME type and built output', () => {
		expect(['nodes/shared/transport.ts', 'transport.ts', 'docs/', '../shared/spec/platform-api.md', 'test/node/agent*.test.ts'].map(pathName)).toEqual([
			'nodes/shared/transport.ts',
			'transport.ts',
			'docs/',
			'../shared/spec/platform-api.md',
			'test/node/agent*.test.ts',
		]);
		expect(['/api/v1/assistants', '@n8n/node-cli', 'application/json', 'Europe/Rome', '.build/pack/', 'dist/', '{base}/api/v1', 'a b.ts'].map(pathName)).toEqual(
			Array(8).fill(undefined),
		);
	});

	it('resolves a name from the root, from the doc, by its tail, as a glob, and refuses one outside the repository', () => {
		expect(resolveName('nodes/shared/transport.ts', doc, tree)).toEqual(['nodes/shared/transport.ts']);
		expect(resolveName('assumptions.md', doc, tree)).toEqual(['docs/assumptions.md']);
		expect(resolveName('shared/transport.ts', doc, tree)).toEqual(['nodes/shared/transport.ts']);
		expect(resolveName('test/node/agent*.test.ts', doc, tree)).toEqual(['test/node/agentKeys.test.ts']);
		expect(resolveName('nodes/shared/routing.ts', doc, tree)).toEqual([]);
		expect(resolveName('../shared/spec/platform-api.md', 'README.md', tree)).toEqual([]);
	});

	it('finds the names a sentence cites with their file', () => {
		expect(identifierName('walkList')).toEqual(['walkList']);
		expect(identifierName("resolvePath('/assistants/{assistantId}')")).toEqual(['resolvePath']);
		expect(identifierName('internal_id')).toEqual([]);
		expect(citedWithFile('Batching has one rule (`runInBatches` in `nodes/shared/batches.ts`, used by `forEachItem` (`items.ts`)')).toEqual([
			{ name: 'runInBatches', path: 'nodes/shared/batches.ts' },
			{ name: 'forEachItem', path: 'items.ts' },
		]);
		expect(citedWithFile('the page walker (`AssistantPlatform/shared/lists.ts`, `walkList`: every list)')).toEqual([
			{ name: 'walkList', path: 'AssistantPlatform/shared/lists.ts' },
		]);
	});

	it('reports a name missing from the file it is cited with, and an unknown function', () => {
		expect(namesNotInTheirFile(doc, 'The walk is `walkList` in `nodes/shared/transport/request.ts`.')).toEqual([
			{ doc, what: '`walkList` is not in `nodes/shared/transport/request.ts`' },
		]);
		expect(unknownIdentifiers(doc, 'Each page goes through `walkPages` and `platformRequest`.')).toEqual([
			{ doc, what: '`walkPages`: not found in the source' },
		]);
		expect(unknownIdentifiers(doc, '```\nnodes/shared/transport.ts  platformRequest, outboundRequest\n```\n')).toEqual([
			{ doc, what: '`outboundRequest`: not found in the source' },
		]);
	});

	it('checks anchors as GitHub writes them, and flags history', () => {
		expect(anchorsOf('# A\n## AI agents: Place Call places real phone calls\n### Call Status → Get\n## A')).toEqual(
			new Set(['a', 'ai-agents-place-call-places-real-phone-calls', 'call-status--get', 'a-1']),
		);
		const lines = ['see ' + 'iss' + 'ue 12', 'F' + 'ix B applied', 'on this ' + 'machine', 'a fix for a bug', 'Fixes Apply'];
		expect(lines.map((line) => HISTORY.filter(({ pattern }) => pattern.test(line)).length)).toEqual([1, 1, 1, 0, 0]);
	});
});
