import type { FromAIArgument, IDataObject, INode, INodePropertyOptions } from 'n8n-workflow';
import { FROM_AI_AUTO_GENERATED_MARKER, NodeHelpers, nodeNameToToolName, traverseNodeParameters } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { resolvedParameters } from '../harness/engine';
import { runAgent, toolParameters, toolType } from '../harness/agent';
import { useSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';

/*
 * What a model is told about each operation attached to an AI agent as a tool, computed with n8n's own functions
 * from the tool variant n8n derives from the node (n8n-workflow's getToolDescriptionForNode, makeNodeName,
 * nodeNameToToolName and the $fromAI parser behind the tool's input schema). Without a description written for a
 * model, the model only reads "<action> in Assistant Platform" and an input schema without a word about the
 * inputs; a name cut at 64 characters can collide with another tool's.
 */

interface Operation {
	resource: string;
	operation: string;
	parameters: IDataObject;
}

const base = new AssistantPlatform().description;

function operations(): Operation[] {
	const out: Operation[] = [];
	for (const property of base.properties.filter((p) => p.name === 'operation')) {
		const resource = String(property.displayOptions?.show?.resource?.[0]);
		for (const option of property.options as INodePropertyOptions[]) {
			out.push({ resource, operation: String(option.value), parameters: { resource, operation: option.value } });
		}
	}
	return out;
}

/** The tool node as n8n runs it: the parameters the editor stores, every tool default filled in. */
function toolNode(op: Operation): INode {
	return {
		id: 'tool',
		name: NodeHelpers.makeNodeName(op.parameters as INode['parameters'], toolType.description),
		type: toolType.description.name,
		typeVersion: 1,
		position: [0, 0],
		parameters: toolParameters(op.parameters) as INode['parameters'],
	};
}

function inputsOf(node: INode): FromAIArgument[] {
	const found: FromAIArgument[] = [];
	traverseNodeParameters(node.parameters, found);
	return found;
}

const all = operations();
const label = (op: Operation) => `${op.resource} → ${op.operation}`;

describe('each operation as an AI tool: what the model is told', () => {
	test('there is an operation of every resource to check', () => {
		expect(new Set(all.map((op) => op.resource)).size).toBe(9);
		expect(all.length).toBeGreaterThanOrEqual(25);
	});

	test.each(all.map((op) => [label(op), op] as const))('%s: a name within 64 characters, kept whole', (_label, op) => {
		const node = toolNode(op);
		expect(node.name.length).toBeLessThanOrEqual(64);
		expect(nodeNameToToolName(node)).toBe(node.name.replace(/[^a-zA-Z0-9_-]+/g, '_'));
	});

	test.each(all.map((op) => [label(op), op] as const))('%s: a description written for a model, not the automatic one', (_label, op) => {
		const node = toolNode(op);
		const description = NodeHelpers.getToolDescriptionForNode(node, toolType);
		expect(description).not.toBe(`${node.name}`);
		expect(description).not.toMatch(/ in Assistant Platform$/);
		expect(description.length).toBeGreaterThan(120);
		// What it costs or that it is free, and whether it can be undone (or that it only reads).
		expect(description).toMatch(/billed|free|undo|cannot be undone|for good/i);
	});

	test.each(all.map((op) => [label(op), op] as const))('%s: every input the model fills is described, with an example', (_label, op) => {
		const node = toolNode(op);
		const description = NodeHelpers.getToolDescriptionForNode(node, toolType);
		for (const input of inputsOf(node)) {
			expect(input.key).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
			expect(input.description?.length ?? 0).toBeGreaterThan(20);
			expect(input.description).toMatch(/\(e\.g\. .+\)\.?$/);
			// The tool's description names every input the model fills.
			expect(description).toContain(input.key);
		}
	});

	test('Place Call: the model is told it places a real, billed call that cannot be undone, and to keep internal_id', () => {
		const node = toolNode({ resource: 'outboundCall', operation: 'placeCall', parameters: { resource: 'outboundCall', operation: 'placeCall' } });
		const description = NodeHelpers.getToolDescriptionForNode(node, toolType);
		expect(description).toMatch(/real phone call/);
		expect(description).toMatch(/billed/);
		expect(description).toMatch(/cannot be undone/);
		expect(description).toMatch(/E\.164/);
		expect(description).toMatch(/keep it/);
		expect(description).toContain('internal_id');
		expect(inputsOf(node).map((input) => input.key)).toEqual(['Destination_Number']);
		expect(inputsOf(node)[0].description).toContain('e.g. +14155550123');
	});

	test('Call Status: the model gives the internal_id Place Call returned', () => {
		const node = toolNode({ resource: 'callStatus', operation: 'get', parameters: { resource: 'callStatus', operation: 'get' } });
		expect(inputsOf(node).map((input) => input.key)).toEqual(['Internal_ID']);
		expect(inputsOf(node)[0].description).toMatch(/internal_id/);
	});

	test("every $fromAI default is the editor's own kind: shown as defined by the model, keyed by the display name", () => {
		// n8n's editor shows a value starting so (FROM_AI_AUTO_GENERATED_MARKER) as "Defined automatically by the
		// model" with its description editable, and rebuilds the key from the display name when it is edited.
		const marker = `={{ ${FROM_AI_AUTO_GENERATED_MARKER} $fromAI('`;
		const twins = toolType.description.properties.filter((p) => JSON.stringify(p.default ?? '').includes('$fromAI('));
		expect(twins.length).toBeGreaterThanOrEqual(20);
		for (const twin of twins) {
			const value = String(typeof twin.default === 'object' ? (twin.default as IDataObject).value : twin.default);
			const start = `${marker}${twin.displayName.replace(/[^a-zA-Z0-9-]/g, '_')}'`;
			expect(value.slice(0, start.length)).toBe(start);
			expect(twin.displayOptions?.show?.['@tool']).toEqual([true]);
		}
	});

	test('a tool description the user wrote replaces the default one', () => {
		const parameters = { resource: 'outboundCall', operation: 'placeCall', descriptionType: 'manual', toolDescription: 'Call the on-duty engineer.' };
		const op = { resource: 'outboundCall', operation: 'placeCall', parameters };
		expect(NodeHelpers.getToolDescriptionForNode(toolNode(op), toolType)).toBe('Call the on-duty engineer.');
	});

	test('a parameter the user fixes in the tool is not asked of the model', () => {
		const op = { resource: 'outboundCall', operation: 'placeCall', parameters: { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123' } };
		expect(inputsOf(toolNode(op))).toEqual([]);
	});
});

describe('outside AI tools nothing changes', () => {
	test.each(all.map((op) => [label(op), op] as const))('%s: no tool description and no $fromAI default in a workflow node', (_label, op) => {
		const parameters = resolvedParameters(op.parameters);
		expect(parameters.toolDescription).toBeUndefined();
		expect(JSON.stringify(parameters)).not.toContain('$fromAI');
	});

	test('Call Status keeps reading internal_id from the input item by default', () => {
		expect(resolvedParameters({ resource: 'callStatus', operation: 'get' }).internalId).toBe('={{ $json.internal_id }}');
	});
});

describe('Place Call attached to an agent with its tool defaults', () => {
	const fx = useSandbox();

	test('the destination comes from the model: one call to the number it gave', async () => {
		const assistant = fx.sandbox.createAssistant({ name: 'Caller', number: '+390212345678' });
		registerSecret(assistant.assistantApiKey);
		fx.outbound.assistantApiKey = assistant.assistantApiKey;
		fx.sandbox.clearJournal();
		const { results, error } = await runAgent({
			credentials: fx.credentials,
			tools: [{ name: 'Place Call', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: '+390212345678' } }],
			turns: [[{ tool: 'Place Call', input: { Destination_Number: '+14155550123' } }]],
		});
		expect(error).toBeUndefined();
		expect(results).toHaveLength(1);
		expect(results[0].error).toBeUndefined();
		expect(fx.sandbox.journal.filter((e) => e.method === 'POST').map((e) => (e.body as IDataObject).dst)).toEqual(['+14155550123']);
		expect(results[0].items?.[0].internal_id).toBe([...fx.sandbox.state.calls.values()][0].internalId);
	});
});
