import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';

// The campaign's Retry Policy has one owner, Dial Due Contacts: each claim keeps it in its contact's retryPolicy
// column and Record Call Result applies what its contact holds. The field is shown only where it is used.

const description = new AssistantPlatform().description;

/** The parameters n8n keeps for a node of this operation (defaults filled in, hidden ones left out). */
function parametersOf(operation: string): INodeParameters {
	const node = { name: 'Campaign', type: 'n8n-nodes-assistant-platform.assistantPlatform', typeVersion: 1, position: [0, 0], parameters: {} } as unknown as INode;
	const values = { resource: 'campaign', operation, retryPolicy: { maxAttempts: 2 } };
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) as INodeParameters;
}

describe('the campaign Retry Policy is shown where it is used', () => {
	test('Dial Due Contacts keeps it, Record Call Result and the control operations have none', () => {
		expect(parametersOf('dial').retryPolicy).toEqual({ maxAttempts: 2 });
		for (const operation of ['recordResult', 'summary', 'pause', 'resume', 'stop', 'prepare']) {
			expect(parametersOf(operation)).not.toHaveProperty('retryPolicy');
		}
	});
});
