import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';

// The campaign's Retry Policy has one owner, Dial Due Contacts: each claim carries it and Record Call Result applies
// what its contact carries. Version 1.1 (what a new node gets) shows the field only where it is used; version 1 keeps
// showing it on Record Call Result, unused, so that saved workflows open as they were saved.

const description = new AssistantPlatform().description;

/** The parameters n8n keeps for a node of this version and operation (defaults filled in, hidden ones left out). */
function parametersOf(typeVersion: number, operation: string): INodeParameters {
	const node = { name: 'Campaign', type: 'n8n-nodes-assistant-platform.assistantPlatform', typeVersion, position: [0, 0], parameters: {} } as unknown as INode;
	const values = { resource: 'campaign', operation, retryPolicy: { maxAttempts: 2 } };
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) as INodeParameters;
}

describe('the campaign Retry Policy is shown where it is used', () => {
	test('a new node is version 1.1, and version 1 is still served', () => {
		expect(description.version).toEqual([1, 1.1]);
		expect(description.defaultVersion).toBe(1.1);
	});

	test('version 1.1: Dial Due Contacts keeps it, Record Call Result has none', () => {
		expect(parametersOf(1.1, 'dial').retryPolicy).toEqual({ maxAttempts: 2 });
		expect(parametersOf(1.1, 'recordResult')).not.toHaveProperty('retryPolicy');
	});

	test('version 1: both keep it, as saved', () => {
		expect(parametersOf(1, 'dial').retryPolicy).toEqual({ maxAttempts: 2 });
		expect(parametersOf(1, 'recordResult').retryPolicy).toEqual({ maxAttempts: 2 });
	});
});
