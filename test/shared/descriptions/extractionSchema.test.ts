/**
 * One extraction-schema rule (nodes/shared/descriptions/extractionSchema.ts) for its two users: the same property rows
 * go through Runtime → Configure Data Extraction and through the trigger's Extraction Schema on publish,
 * and are sent alike or refused alike, naming each node's own field; clearing sends the same body.
 */
import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../../harness/engine';
import { useSandbox } from '../../harness/sandbox';
import { registerSecret } from '../../harness/secretsGuard';
import type { TriggerHarness } from '../../harness/webhook';
import { startTrigger } from '../../harness/webhook';

const secret = randomBytes(24).toString('hex');
registerSecret(secret);

const fx = useSandbox();
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** Rows that are sent, and the schema both nodes send for them. */
const SENT: Array<[string, IDataObject[], IDataObject[]]> = [
	[
		'every type, enum values trimmed and optional',
		[
			{ name: ' customerName ', type: 'string', description: 'Name of the caller', required: true },
			{ name: 'team', type: 'enum', description: '', required: false, enumValues: 'sales, support ,billing,' },
			{ name: 'priority', type: 'enum', enumValues: '' },
			{ name: 'total', type: 'number' },
			{ name: 'callback', type: 'boolean', required: false },
			{ name: 'address', type: 'object', description: 'Street, city' },
		],
		[
			{ name: 'customerName', type: 'string', description: 'Name of the caller', required: true },
			{ name: 'team', type: 'enum', description: '', required: false, values: ['sales', 'support', 'billing'] },
			{ name: 'priority', type: 'enum', description: '', required: false },
			{ name: 'total', type: 'number', description: '', required: false },
			{ name: 'callback', type: 'boolean', description: '', required: false },
			{ name: 'address', type: 'object', description: 'Street, city', required: false },
		],
	],
];

/** Rows that are refused before anything is sent: the field under the schema field, and the rule. */
const REFUSED: Array<[string, IDataObject[], string, string]> = [
	['no property', [], '', 'add at least one property'],
	['an empty name', [{ name: '  ', type: 'string' }], ' › Property 1 › Name', 'must not be empty'],
	[
		'a duplicate name',
		[{ name: 'city', type: 'string' }, { name: 'zip' }, { name: 'city', type: 'number' }],
		' › Property 3 › Name',
		'must be unique: "city" is used by an earlier property',
	],
	['an unknown type', [{ name: 'when', type: 'date' }], ' › Property 1 › Type', 'must be one of string, number, boolean, enum, object (got "date")'],
	['a Required that is not a boolean', [{ name: 'a', required: 'maybe' }], ' › Property 1 › Required', 'must be true or false (got "maybe")'],
	['duplicate enum values', [{ name: 'a', type: 'enum', enumValues: 'a, b, a' }], ' › Property 1 › Enum Values', 'must be unique: "a" appears twice'],
];

const open: TriggerHarness[] = [];
afterEach(async () => {
	while (open.length > 0) await open.pop()!.close();
});

/** Runtime → Configure Data Extraction with these rows. */
async function viaRuntime(assistantId: string, rows: IDataObject[]) {
	return await runNode({
		parameters: {
			resource: 'runtime',
			operation: 'configureDataExtraction',
			assistantId: byId(assistantId),
			hangupUrl: 'https://hooks.example.com/extracted',
			schemaProperties: { property: rows },
		},
		credentials: fx.credentials,
	});
}

/** The trigger with Extracted Data and these rows. */
async function viaTrigger(assistantId: string, rows: IDataObject[]): Promise<TriggerHarness> {
	const h = await startTrigger({
		parameters: {
			webhookSecret: secret,
			events: ['extractedData'],
			assistantId: byId(assistantId),
			extractionSchema: { properties: rows },
		},
		credentials: fx.credentials,
	});
	open.push(h);
	return h;
}

const schemaSent = () => (fx.sandbox.journal.at(-1)!.body as IDataObject).schema;

describe('the same rows are sent alike', () => {
	test.each(SENT)('%s', async (_what, rows, schema) => {
		const assistantId = fx.sandbox.createAssistant({ name: 'Schema' }).assistantId;
		fx.sandbox.clearJournal();
		const runtime = await viaRuntime(assistantId, rows);
		expect(runtime.error).toBeUndefined();
		expect(schemaSent()).toEqual(schema);

		const h = await viaTrigger(assistantId, rows);
		fx.sandbox.clearJournal();
		await h.publish();
		expect(schemaSent()).toEqual(schema);
		await h.unpublish();
	});
});

describe('the same rows are refused alike, before anything is sent', () => {
	test.each(REFUSED)('%s', async (_what, rows, field, rule) => {
		const assistantId = fx.sandbox.createAssistant({ name: 'Schema' }).assistantId;
		fx.sandbox.clearJournal();
		const runtime = await viaRuntime(assistantId, rows);
		expect(runtime.error?.message).toContain(`Invalid "Schema${field}": ${rule}`);

		const h = await viaTrigger(assistantId, rows);
		await expect(h.publish()).rejects.toThrow(`Invalid "Extraction Schema${field}": ${rule}`);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});

test('Clear Data Extraction and unpublishing the trigger send the same clearing body', async () => {
	const assistantId = fx.sandbox.createAssistant({ name: 'Schema' }).assistantId;
	const h = await viaTrigger(assistantId, [{ name: 'a' }]);
	await h.publish();
	fx.sandbox.clearJournal();
	await h.unpublish();
	const fromTrigger = fx.sandbox.journal.map((e) => e.body);

	fx.sandbox.clearJournal();
	const cleared = await runNode({
		parameters: { resource: 'runtime', operation: 'clearDataExtraction', assistantId: byId(assistantId) },
		credentials: fx.credentials,
	});
	expect(cleared.error).toBeUndefined();
	expect(fx.sandbox.journal.map((e) => e.body)).toEqual(fromTrigger);
	expect(fromTrigger).toEqual([{ hangupUrl: null, schema: [] }]);
});
