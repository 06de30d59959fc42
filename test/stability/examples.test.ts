import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// A Call Result URL is known to the platform and its logs, and a Result Context travels in it: the examples, which
// users copy, put identifiers there and never what names a person.

const EXAMPLES = resolve(__dirname, '../../examples');

interface ExampleNode {
	name: string;
	parameters?: { options?: { resultContext?: { fields?: Array<{ name: string; value: unknown }> } } };
}

/** Every Result Context field of every example: [file, node, field name, value]. */
function resultContextFields(): Array<[string, string, string, string]> {
	const found: Array<[string, string, string, string]> = [];
	for (const file of readdirSync(EXAMPLES).filter((name) => name.endsWith('.json'))) {
		const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as { nodes: ExampleNode[] };
		for (const node of workflow.nodes) {
			for (const field of node.parameters?.options?.resultContext?.fields ?? []) found.push([file, node.name, field.name, String(field.value)]);
		}
	}
	return found;
}

/** An identifier (…Id, …_id), never a person's details. */
const IDENTIFIER = /^(?:[a-z]+Id|[a-z]+_id|id)$/;
const valueField = (value: string) => /\$json\.([A-Za-z_]+)/.exec(value)?.[1];

describe('examples: a Result Context carries identifiers only', () => {
	it('finds the Result Contexts it must judge', () => {
		expect(resultContextFields().length).toBeGreaterThanOrEqual(1);
	});

	it.each(resultContextFields())('%s, %s: %s', (_file, _node, name, value) => {
		expect(name).toMatch(IDENTIFIER);
		expect(valueField(value) ?? name).toMatch(IDENTIFIER);
	});
});
