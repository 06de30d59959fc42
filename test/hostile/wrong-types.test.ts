/**
 * A field whose expression gives a value of the wrong type (an object, a list, a boolean where text or
 * a number is expected) is refused with an error naming the field, before anything is sent: never
 * read as empty (which made Place Call fall back to the credential's assistant key, placing the call
 * from an assistant the user did not choose), never sent as "[object Object]" or as JSON where text
 * belongs. The table below changes one field at a time of every operation of both nodes, of the
 * editor's list methods and of the trigger's registration, starting from the valid parameters the
 * hostile-platform suite uses (test/hostile/targets.ts). A Campaign operation refused so also leaves its
 * contacts as they were (state and attempt).
 */
import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';
import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { apNode, WAIT_TYPE } from '../hardening/helpers';
import { runNode } from '../harness/engine';
import { useHostile } from '../harness/hostile';
import type { HostileFixture } from '../harness/hostile';
import { startTrigger } from '../harness/webhook';
import { loadOptionsContext } from '../node/runtime-helpers';

import type { Target } from './targets';
import { OVERRIDE_CALLER, prepare, prepared, TARGETS } from './targets';

const fx = useHostile();

beforeEach(async () => {
	await prepare(fx);
});

const WRONG: Array<[string, unknown]> = [
	['an object', { wrong: 'type' }],
	['a list', ['wrong', 'type']],
	['a boolean', true],
];

describe('Assistant API Key Override of the wrong type is refused: the call is never placed with the credential key', () => {
	const cases: Array<[string, unknown]> = [...WRONG, ['a number', 12345678]];
	// The number of the override's assistant (test/hostile/targets.ts): the platform refuses another.
	const parameters = (override: unknown): IDataObject => ({
		route: 'trunk',
		dst: '+14155550123',
		callerId: OVERRIDE_CALLER,
		options: { assistantApiKeyOverride: override },
	});

	test.each(cases)('Place Call, override %s', async (_kind, override) => {
		const { error, items } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', ...parameters(override) },
			credentials: fx.credentials,
		});
		expect(items).toHaveLength(0);
		expect(error?.message).toMatch(/^Invalid "Assistant API Key Override": must be text/);
		expect(fx.hostile.requests).toEqual([]);
	});

	test.each(cases)('Call and Wait, override %s', async (_kind, override) => {
		const { error, waitTill } = await runNode({
			nodeType: WAIT_TYPE,
			parameters: parameters(override),
			credentials: fx.credentials,
			webhookBaseUrl: 'http://127.0.0.1:1',
		});
		expect(waitTill).toBeUndefined();
		expect(error?.message).toMatch(/^Invalid "Assistant API Key Override": must be text/);
		expect(fx.hostile.requests).toEqual([]);
	});

	test('an override given as text still wins over the credential key', async () => {
		const { error } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', ...parameters(prepared.overrideKey) },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(JSON.parse(fx.hostile.requests[0].body)).toMatchObject({ assistantApiKey: prepared.overrideKey });
	});
});

// ------------------------------------------------------------------------------------------------
// Every field of every operation

/** A field the table changes: a path into the parameters, the name the error must give, its type. */
interface Field {
	path: Array<string | number>;
	label: string;
	type: string;
	/** An entry of a fixed collection: errors name it by its place ("Schema › Property 1 › Name"). */
	inEntry?: boolean;
}

/**
 * Fields that do nothing in a target's configuration: Record Call Result applies the Retry Policy its contact
 * carries (Dial Due Contacts'), never its own.
 */
const INERT: Record<string, RegExp> = {
	'campaign.recordResult': /^retryPolicy\./,
	// The Campaign control operations and the Do-Not-Call List talk only to n8n's API, whose requests have their own
	// timeout and size limit: Settings > Request Options (the platform's) are not read there.
	...Object.fromEntries(['summary', 'contacts', 'pause', 'resume', 'stop', 'prepare'].map((op) => [`campaign.${op}`, /^requestOptions\./])),
	'doNotCallList.add': /^requestOptions\./,
	'doNotCallList.check': /^requestOptions\./,
};

/** Fields that take a list by design (comma-separated text or a list from an expression). */
const TAKES_A_LIST = new Set(['mcpOptions.tools']);

/** The wrong values for a field: a JSON field takes an object (a Body also a list), a multi-choice a list. */
function wrongFor(field: Field): Array<[string, unknown]> {
	if (field.type === 'json') return WRONG.filter(([kind]) => kind === 'a boolean');
	if (field.type === 'multiOptions' || TAKES_A_LIST.has(field.path.join('.'))) return WRONG.filter(([kind]) => kind !== 'a list');
	return WRONG;
}

/**
 * Whether the error names the field: its label (without a "(JSON)"-like suffix), alone or after its
 * collection ("Retry Policy > Max Attempts"), or its place in a fixed collection.
 */
function namesField(message: string, field: Field): boolean {
	const label = field.label.replace(/ \([^)]*\)$/, '');
	if ([field.label, label].some((name) => message.includes(`"${name}"`) || message.includes(` > ${name}"`))) return true;
	if (field.inEntry && /^Invalid "[^"]+ › [^"]+"/.test(message)) return true;
	// n8n's own check of a resource locator's pattern, before the node runs: nothing is sent.
	return /^The '[^']+' node has issues/.test(message);
}

/** Fields that choose what runs (not sent): a wrong value there is a wrong operation, not a wrong type. */
const NOT_FIELDS = new Set(['resource', 'operation', 'authentication']);
const VALUE_TYPES = new Set(['string', 'number', 'json', 'options', 'multiOptions', 'resourceLocator', 'dateTime']);

function descriptionOf(target: Target): INodeTypeDescription {
	if (target.kind === 'trigger') return new AssistantPlatformTrigger().description;
	if (target.nodeType === WAIT_TYPE) return new AssistantPlatformCallAndWait().description;
	return apNode.description;
}

function setAt(parameters: IDataObject, path: Array<string | number>, value: unknown): IDataObject {
	const copy = structuredClone(parameters);
	let at: Record<string | number, unknown> = copy;
	for (const key of path.slice(0, -1)) {
		at[key] ??= typeof key === 'number' ? [] : {};
		at = at[key] as Record<string | number, unknown>;
	}
	at[path[path.length - 1]] = value;
	return copy;
}

/**
 * The fields shown for these parameters: top-level fields with a value, every option of a shown
 * collection, the value fields of the entries given in a fixed collection, and the value of a resource
 * locator.
 */
function fieldsOf(description: INodeTypeDescription, parameters: IDataObject): Field[] {
	const resolved = NodeHelpers.getNodeParameters(description.properties, parameters as never, true, false, null, description) as IDataObject;
	const shown = (property: INodeProperties, values: IDataObject) =>
		NodeHelpers.displayParameter(values as never, property, { typeVersion: description.defaultVersion ?? (description.version as number) }, description, resolved as never);
	const fields: Field[] = [];
	for (const property of description.properties) {
		if (NOT_FIELDS.has(property.name) || !(property.name in resolved) || !shown(property, resolved)) continue;
		if (property.type === 'resourceLocator') {
			fields.push({ path: [property.name, 'value'], label: property.displayName, type: 'string' });
		} else if (VALUE_TYPES.has(property.type)) {
			fields.push({ path: [property.name], label: property.displayName, type: property.type });
		} else if (property.type === 'collection') {
			for (const option of (property.options ?? []) as INodeProperties[]) {
				if (VALUE_TYPES.has(option.type) && shown(option, {})) {
					fields.push({ path: [property.name, option.name], label: option.displayName, type: option.type });
				}
			}
		} else if (property.type === 'fixedCollection') {
			const given = (parameters[property.name] ?? {}) as IDataObject;
			for (const group of (property.options ?? []) as Array<{ name: string; values: INodeProperties[] }>) {
				const entries = given[group.name];
				const first = Array.isArray(entries) ? entries[0] : entries;
				if (!first || typeof first !== 'object') continue;
				for (const value of group.values) {
					if (!VALUE_TYPES.has(value.type) || !(value.name in (first as IDataObject))) continue;
					const path = Array.isArray(entries) ? [property.name, group.name, 0, value.name] : [property.name, group.name, value.name];
					fields.push({ path, label: value.displayName, type: value.type, inEntry: true });
				}
			}
		}
	}
	return fields;
}

interface Attempt {
	error?: Error;
	sent: string[];
	/** Campaign targets: the due contacts whose state or attempt the run changed ("row 3: new (attempt 0) → failed (attempt 1)"). */
	changed: string[];
}

/**
 * The state and attempt of every due contact (new or pending) in the contacts table the parameters name
 * (Campaign targets): a refused run leaves them to the next run. (A placed call's result read from its
 * status record before the refusal is no change of the run's own.)
 */
function contactStates(fixture: HostileFixture, parameters: IDataObject): Map<number, string> {
	const name = parameters.contactsTable;
	const table = typeof name === 'string' ? fixture.n8n.tables.find((t) => t.name === name) : undefined;
	return new Map((table?.rows ?? []).map((row) => [row.id, `${String(row.campaignState ?? 'new')} (attempt ${String(row.attempt ?? 0)})`]));
}

const isDue = (state: string) => state.startsWith('new ') || state.startsWith('pending ');

async function attempt(target: Target, parameters: IDataObject, fixture: HostileFixture): Promise<Attempt> {
	fixture.hostile.requests.length = 0;
	const before = contactStates(fixture, parameters);
	let error: Error | undefined;
	if (target.kind === 'node') {
		const result = await runNode({
			nodeType: target.nodeType,
			parameters: { ...parameters, requestOptions: { timeout: 20_000, ...((parameters.requestOptions as IDataObject) ?? {}) } },
			items: target.items,
			credentials: fixture.credentials,
			webhookBaseUrl: 'http://127.0.0.1:1',
		});
		error = result.error;
	} else if (target.kind === 'method') {
		const methods = apNode.methods as unknown as Record<'listSearch' | 'loadOptions', Record<string, (this: unknown) => Promise<unknown>>>;
		const fn = methods.listSearch[target.op] ?? methods.loadOptions[target.op];
		try {
			await fn.call(loadOptionsContext(fixture, parameters));
		} catch (thrown) {
			error = thrown as Error;
		}
	} else {
		const harness = await startTrigger({ parameters, credentials: fixture.credentials });
		try {
			await harness.publish();
		} catch (thrown) {
			error = thrown as Error;
		} finally {
			await harness.close();
		}
	}
	const after = contactStates(fixture, parameters);
	// A contact new before the run is made pending, due now, by any dial run: that is no change of its own.
	const changed = [...before].filter(
		([id, state]) => isDue(state) && after.get(id) !== state && !(state.startsWith('new ') && after.get(id) === 'pending (attempt 0)'),
	);
	return {
		error,
		sent: fixture.hostile.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`),
		changed: changed.map(([id, state]) => `row ${id}: ${state} → ${String(after.get(id))}`),
	};
}

/** What the run did wrong with `value` in `field`, or nothing. */
function verdict(field: Field, kind: string, outcome: Attempt, target: Target): string[] {
	const where = `${target.name}, "${field.label}" (${field.path.join('.')}) = ${kind}`;
	const problems: string[] = [];
	if (!outcome.error) problems.push(`${where}: no error`);
	else if (!namesField(outcome.error.message, field)) problems.push(`${where}: the error does not name the field: ${outcome.error.message.slice(0, 160)}`);
	const writes = outcome.sent.filter((line) => !line.startsWith('GET '));
	if (writes.length > 0) problems.push(`${where}: sent ${writes.join(', ')}`);
	if (outcome.changed.length > 0) problems.push(`${where}: changed the contacts ${outcome.changed.join(', ')}`);
	return problems;
}

const TABLE = TARGETS.filter((target) => target.parameters && target.op !== 'trigger.unpublish' && target.reads?.length !== 0);

test('the table covers every operation of both nodes, every list method and the trigger registration', () => {
	expect(TABLE.filter((t) => t.kind === 'node').length).toBeGreaterThanOrEqual(29);
	expect(TABLE.map((t) => t.kind)).toEqual(expect.arrayContaining(['method', 'trigger']));
});

/** The fields of a target the table changes. */
async function fieldsFor(target: Target): Promise<{ base: IDataObject; fields: Field[] }> {
	const base = await target.parameters!(fx);
	// A list method reads only some fields of the operation it serves.
	const fields = fieldsOf(descriptionOf(target), base).filter(
		(field) => (!target.reads || target.reads.includes(String(field.path[0]))) && !INERT[target.op]?.test(field.path.join('.')),
	);
	return { base, fields };
}

/** Every wrong value in every field given: what went wrong. */
async function problemsOf(target: Target, base: IDataObject, fields: Field[]): Promise<string[]> {
	const problems: string[] = [];
	for (const field of fields) {
		for (const [kind, value] of wrongFor(field)) {
			// A run that gets through changes what its parameters name (a Campaign's contacts table): each gets its own.
			const parameters = target.freshParameters ? await target.parameters!(fx) : base;
			problems.push(...verdict(field, kind, await attempt(target, setAt(parameters, field.path, value), fx), target));
		}
	}
	return problems;
}

test.each(TABLE.map((target) => [target.name, target] as const))(
	'%s: every field refuses an object, a list and a boolean, naming the field, writing nothing',
	async (_name, target) => {
		const { base, fields } = await fieldsFor(target);
		expect(fields.length).toBeGreaterThan(0);
		expect(await problemsOf(target, base, fields)).toEqual([]);
	},
);

