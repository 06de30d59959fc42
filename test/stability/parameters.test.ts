/**
 * Parameter stability: saved workflows store parameter values by name (and option values, locator modes),
 * and leave parameters at their default out. Renaming or removing a parameter, dropping an option value or
 * changing a default silently breaks them. test/fixtures/parameters.json (written by `npm run
 * snapshot:params`) records every parameter of every node version and credential the package serves; this
 * suite fails when the TypeScript sources break one of its entries, unless the node version was bumped and
 * the old version is still served (and unchanged).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
	buildSnapshot,
	compareSnapshots,
	entriesOf,
	formatSnapshot,
	loadPackageTypes,
	missingFromSnapshot,
	type DescribedCredential,
	type DescribedNode,
	type ParameterSnapshot,
} from './paramSnapshot';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const fixtureFile = path.join(root, 'test', 'fixtures', 'parameters.json');
const fixtureText = readFileSync(fixtureFile, 'utf8');
const committed: ParameterSnapshot = JSON.parse(fixtureText);

/** dist/nodes/X/X.node.js, as package.json lists it -> the TypeScript source (jest compiles it). */
const sourceOf = (listed: string) => path.join(root, listed.replace(/^dist\//, '').replace(/\.js$/, '.ts'));

type Types = { nodes: DescribedNode[]; credentials: DescribedCredential[] };
let types: Types;

beforeAll(async () => {
	types = await loadPackageTypes(pkg.n8n, async (listed) => (await import(sourceOf(listed))) as Record<string, unknown>);
});

/** Deep copy that keeps functions (routing hooks, pagination) by reference. */
function cloneDeep<T>(value: T): T {
	if (Array.isArray(value)) return value.map((v) => cloneDeep(v)) as T;
	if (value !== null && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, cloneDeep(v)])) as T;
	}
	return value;
}

type Prop = Record<string, any>;

/** A mutable copy of the package's real descriptions. */
class Copy {
	nodes: DescribedNode[];
	credentials: DescribedCredential[];

	constructor(source: Types) {
		this.nodes = source.nodes.map((n) => ({ description: cloneDeep(n.description) }));
		this.credentials = source.credentials.map((c) => ({ name: c.name, properties: cloneDeep(c.properties) }));
	}

	node(name: string): DescribedNode {
		const found = this.nodes.find((n) => n.description.name === name);
		if (!found) throw new Error(`no node ${name}`);
		return found;
	}

	/** The top-level parameter `name` of a node, optionally the one shown for a resource/operation. */
	param(nodeName: string, name: string, resource?: string, operation?: string): Prop {
		const props = (this.node(nodeName).description.properties ?? []) as Prop[];
		const found = props.find(
			(p) =>
				p.name === name &&
				(resource === undefined || (p.displayOptions?.show?.resource ?? []).includes(resource)) &&
				(operation === undefined || (p.displayOptions?.show?.operation ?? []).includes(operation)),
		);
		if (!found) throw new Error(`no parameter ${name} (${resource}/${operation}) in ${nodeName}`);
		return found;
	}

	credential(name: string): DescribedCredential {
		const found = this.credentials.find((c) => c.name === name);
		if (!found) throw new Error(`no credential ${name}`);
		return found;
	}

	snapshot(): ParameterSnapshot {
		return buildSnapshot(pkg.name, { nodes: this.nodes, credentials: this.credentials });
	}
}

const child = (collection: Prop, name: string): Prop => {
	const found = (collection.options as Prop[]).find((o) => o.name === name);
	if (!found) throw new Error(`no child ${name} in ${collection.name}`);
	return found;
};

describe('committed parameter snapshot (test/fixtures/parameters.json)', () => {
	it('holds every node of the package with its parameters (not an empty file that would let everything pass)', () => {
		const listed = (pkg.n8n.nodes as string[]).length;
		// Every listed node, and the tool variant n8n derives from the one usable as an AI agent's tool.
		expect(Object.keys(committed.nodes)).toHaveLength(listed + 1);
		expect(committed.nodes.assistantPlatformTool?.['1']?.map((e) => e.path)).toEqual(expect.arrayContaining(['toolDescription', 'dst']));
		expect(Object.keys(committed.credentials)).toHaveLength((pkg.n8n.credentials as string[]).length);
		const main = committed.nodes.assistantPlatform?.['1'] ?? [];
		expect(main.length).toBeGreaterThan(100);
		expect(main.map((e) => e.path)).toEqual(expect.arrayContaining(['resource', 'operation', 'dst', 'callerId', 'options.pageSize']));
		expect(committed.nodes.assistantPlatformTrigger?.['1']?.map((e) => e.path)).toEqual(
			expect.arrayContaining(['events', 'webhookSecret', 'extractionSchema.properties.type']),
		);
	});

	it('every committed parameter, option value and default is still served by the current sources', () => {
		expect(compareSnapshots(committed, buildSnapshot(pkg.name, types))).toEqual([]);
	});

	it('covers every node type, version and credential the package serves (else run npm run snapshot:params)', () => {
		expect(missingFromSnapshot(committed, buildSnapshot(pkg.name, types))).toEqual([]);
	});

	it('is in the format the script writes (one entry per line)', () => {
		expect(formatSnapshot(committed)).toBe(fixtureText);
	});
});

describe('the stability check fails on breaking changes (mutated copies of the real descriptions)', () => {
	const cases: Array<[string, (copy: Copy) => void, RegExp]> = [
		[
			'a renamed parameter',
			(c) => {
				c.param('assistantPlatform', 'dst', 'outboundCall').name = 'destination';
			},
			/^assistantPlatform v1: parameter "dst" \(shown when operation=placeCall, resource=outboundCall\) was removed or renamed$/,
		],
		[
			'a removed option value',
			(c) => {
				const route = c.param('assistantPlatform', 'route', 'outboundCall');
				route.options = (route.options as Prop[]).filter((o) => o.value !== 'pbx');
			},
			/^assistantPlatform v1: parameter "route" .*: option value\(s\) "pbx" removed or renamed$/,
		],
		[
			'a renamed option value',
			(c) => {
				const op = c.param('assistantPlatform', 'operation', 'assistant');
				(op.options as Prop[]).find((o) => o.value === 'getAll')!.value = 'list';
			},
			/^assistantPlatform v1: parameter "operation" \(shown when resource=assistant\): option value\(s\) "getAll" removed or renamed$/,
		],
		[
			'a changed default',
			(c) => {
				c.param('assistantPlatform', 'chunkSize', 'ragCollection', 'uploadDocuments').default = 4000;
			},
			/^assistantPlatform v1: parameter "chunkSize" \(shown when operation=uploadDocuments, resource=ragCollection\): default changed from 5000 to 4000$/,
		],
		[
			'a changed type',
			(c) => {
				c.param('assistantPlatform', 'chunkSize', 'ragCollection', 'uploadDocuments').type = 'string';
			},
			/"chunkSize" .*type changed from number to string/,
		],
		[
			'a renamed collection child (one operation only)',
			(c) => {
				child(c.param('assistantPlatform', 'options', 'assistant', 'getAll'), 'pageSize').name = 'batchSize';
			},
			/^assistantPlatform v1: parameter "options.pageSize" \(shown when operation=getAll, resource=assistant\) was removed, renamed or hidden there/,
		],
		[
			'a changed default of a collection child',
			(c) => {
				child(c.param('assistantPlatform', 'options', 'catalog', 'getTools'), 'pageSize').default = 100;
			},
			/"options.pageSize" \(shown when operation=getTools, resource=catalog\): default changed from 500 to 100/,
		],
		[
			'a renamed fixed-collection group',
			(c) => {
				(c.param('assistantPlatform', 'schemaProperties').options as Prop[])[0].name = 'properties';
			},
			/parameter "schemaProperties.property" .*was removed or renamed/,
		],
		[
			'a renamed fixed-collection field',
			(c) => {
				const group = (c.param('assistantPlatformTrigger', 'extractionSchema').options as Prop[])[0];
				(group.values as Prop[]).find((v) => v.name === 'required')!.name = 'isRequired';
			},
			/^assistantPlatformTrigger v1: parameter "extractionSchema.properties.required" .*was removed or renamed$/,
		],
		[
			'a fixed collection that stops taking multiple values',
			(c) => {
				c.param('assistantPlatform', 'toolsToAdd').typeOptions.multipleValues = false;
			},
			/"toolsToAdd" .*multipleValues changed from true to false/,
		],
		[
			'a parameter shown for fewer operations',
			(c) => {
				const extra = c.param('assistantPlatform', 'additionalFieldsJson', 'runtime');
				extra.displayOptions.show.operation = (extra.displayOptions.show.operation as string[]).filter((o) => o !== 'setProvider');
			},
			/^assistantPlatform v1: parameter "additionalFieldsJson" \(shown when operation=updateTools\|.*setProvider, resource=runtime\) was removed, renamed or hidden there/,
		],
		[
			'a parameter behind a new display condition',
			(c) => {
				const callerId = c.param('assistantPlatform', 'callerId', 'outboundCall');
				callerId.displayOptions.show.route = ['trunk'];
			},
			/parameter "callerId" \(shown when operation=placeCall, resource=outboundCall\) was removed, renamed or hidden there; it remains only .*\(shown when operation=placeCall, resource=outboundCall, route=trunk\)/,
		],
		[
			'a removed resource-locator mode',
			(c) => {
				const locator = c.param('assistantPlatform', 'assistantId', 'assistant', 'delete');
				locator.modes = (locator.modes as Prop[]).filter((m) => m.name !== 'id');
			},
			/"assistantId" \(shown when operation=delete, resource=assistant\): resource locator mode\(s\) id removed/,
		],
		[
			'a trigger event removed',
			(c) => {
				const events = c.param('assistantPlatformTrigger', 'events');
				events.options = (events.options as Prop[]).filter((o) => o.value !== 'extractedData');
			},
			/^assistantPlatformTrigger v1: parameter "events": option value\(s\) "extractedData" removed or renamed$/,
		],
		[
			'a renamed credential field',
			(c) => {
				(c.credential('assistantPlatformPortalApi').properties as Prop[]).find((p) => p.name === 'portalApiKey')!.name = 'apiKey';
			},
			/^credential assistantPlatformPortalApi: parameter "portalApiKey" was removed or renamed$/,
		],
		[
			'a version bump that stops serving the old version',
			(c) => {
				c.node('assistantPlatformCallAndWait').description.version = 2;
			},
			/^node type assistantPlatformCallAndWait version 1 is no longer served \(now: 2\)/,
		],
		[
			'a renamed node type',
			(c) => {
				c.node('assistantPlatformTrigger').description.name = 'assistantPlatformWebhook';
			},
			/^node type assistantPlatformTrigger is no longer in the package/,
		],
	];

	it.each(cases)('%s', (_title, mutate, expected) => {
		const copy = new Copy(types);
		// The unmutated copy passes: the failure below comes from the mutation alone.
		expect(compareSnapshots(committed, copy.snapshot())).toEqual([]);
		mutate(copy);
		const problems = compareSnapshots(committed, copy.snapshot());
		expect(problems.length).toBeGreaterThan(0);
		expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
	});
});

describe('the stability check accepts additions and proper version bumps', () => {
	it('new parameters, option values, collection children, and wider display conditions', () => {
		const c = new Copy(types);
		const props = c.node('assistantPlatform').description.properties as Prop[];
		props.push({ displayName: 'New', name: 'brandNew', type: 'string', default: '', displayOptions: { show: { resource: ['assistant'] } } });
		(c.param('assistantPlatform', 'route', 'outboundCall').options as Prop[]).push({ name: 'SIP URI', value: 'sip' });
		(c.param('assistantPlatform', 'options', 'assistant', 'getAll').options as Prop[]).push({ displayName: 'X', name: 'x', type: 'boolean', default: false });
		const extra = c.param('assistantPlatform', 'additionalFieldsJson', 'assistant', 'create');
		extra.displayOptions.show.operation = [...extra.displayOptions.show.operation, 'delete'];
		props.reverse(); // order does not matter
		expect(compareSnapshots(committed, c.snapshot())).toEqual([]);
	});

	it('a version bump that keeps serving the old version (VersionedNodeType style) may change the new one', () => {
		const c = new Copy(types);
		const original = c.node('assistantPlatformCallAndWait');
		const v2 = cloneDeep(original.description);
		v2.version = 2;
		(v2.properties as Prop[]).find((p) => p.name === 'dst')!.name = 'destination';
		const versioned: DescribedNode = {
			description: { name: original.description.name, defaultVersion: 2 },
			nodeVersions: { 1: { description: original.description }, 2: { description: v2 } },
		};
		c.nodes = c.nodes.map((n) => (n === original ? versioned : n));
		const current = c.snapshot();
		expect(compareSnapshots(committed, current)).toEqual([]);
		expect(Object.keys(current.nodes.assistantPlatformCallAndWait)).toEqual(['1', '2']);
		expect(missingFromSnapshot(committed, current)).toEqual(['node type assistantPlatformCallAndWait version 2']);

		// Changing the old version inside the versioned node is still caught.
		(versioned.nodeVersions![1].description.properties as Prop[]).find((p) => p.name === 'route')!.default = 'pbx';
		expect(compareSnapshots(committed, c.snapshot())).toEqual([
			'assistantPlatformCallAndWait v1: parameter "route": default changed from "trunk" to "pbx"',
		]);
	});

	it('a version array with @version display options serves the old parameters to the old version', () => {
		const c = new Copy(types);
		const description = c.node('assistantPlatformCallAndWait').description;
		description.version = [1, 2];
		const props = description.properties as Prop[];
		const dst = props.find((p) => p.name === 'dst')!;
		dst.displayOptions = { hide: { '@version': [{ _cnd: { gte: 2 } }] } };
		props.push({ ...cloneDeep(dst), name: 'destination', displayOptions: { show: { '@version': [2] } } });
		const current = c.snapshot();
		expect(compareSnapshots(committed, current)).toEqual([]);
		const v2 = current.nodes.assistantPlatformCallAndWait['2'].map((e) => e.path);
		expect(v2).toContain('destination');
		expect(v2).not.toContain('dst');

		// Hiding the old parameter from version 1 as well is caught.
		dst.displayOptions = { show: { '@version': [2] } };
		expect(compareSnapshots(committed, c.snapshot())).toEqual(
			expect.arrayContaining(['assistantPlatformCallAndWait v1: parameter "dst" was removed or renamed']),
		);
	});

	it('display-only parameters (notices) are not part of the snapshot', () => {
		const entries = entriesOf(
			[
				{ displayName: 'Read me', name: 'readMe', type: 'notice', default: '' },
				{ displayName: 'Value', name: 'value', type: 'string', default: 'a' },
			],
			1,
		);
		expect(entries).toEqual([{ path: 'value', type: 'string', default: 'a' }]);
	});
});
