import type { INode, INodeParameters, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';

// A contact list is called to completion by one engine, the Campaign resource, whose state is durable. Call and Wait
// places one call and waits for its result; the trigger receives a call's result. Neither shows Campaign options or
// a Retry Policy, and a value a workflow still holds for one is not kept.

/** The parameters n8n keeps for a node of this version (defaults filled in, fields not shown left out). */
function parametersOf(description: INodeTypeDescription, typeVersion: number, values: INodeParameters): INodeParameters {
	const node = { name: 'Node', type: `n8n-nodes-assistant-platform.${description.name}`, typeVersion, position: [0, 0], parameters: {} } as unknown as INode;
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) as INodeParameters;
}

const RETRY_POLICY = { retryPolicy: { maxAttempts: 2, busy: 5 } };
const CAMPAIGN = { campaign: { attempt: 2, notBefore: '2026-03-02T09:30', resultContext: { fields: [{ name: 'contactId', value: 'C-1' }] } } };

test('Call and Wait shows no Campaign options and no Retry Policy', () => {
	const callAndWait = new AssistantPlatformCallAndWait().description;
	const kept = parametersOf(callAndWait, 1, { route: 'trunk', dst: '+14155550123', ...CAMPAIGN, ...RETRY_POLICY });
	expect(kept).not.toHaveProperty('campaign');
	expect(kept).not.toHaveProperty('retryPolicy');
	expect(kept.dst).toBe('+14155550123');
});

describe('the trigger shows no Retry Policy', () => {
	const trigger = new AssistantPlatformTrigger().description;

	test.each([1, 2])('version %d, Call Result', (version) => {
		const kept = parametersOf(trigger, version, { events: ['callResult'], ...RETRY_POLICY });
		expect(kept).not.toHaveProperty('retryPolicy');
		expect(kept.events).toEqual(['callResult']);
	});
});
