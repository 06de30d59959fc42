import type { INode, INodeParameters, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';

// A contact list is called to completion by one engine, the Campaign resource, whose state is durable. Place Call
// places one call per item, Call and Wait one call and waits for its result, the trigger receives a call's result:
// none shows Campaign options or a Retry Policy, and a value a workflow still holds for one is not kept. Place Call's
// Result Context is one of its Options.

/** The parameters n8n keeps for a node of this version (defaults filled in, fields not shown left out). */
function parametersOf(description: INodeTypeDescription, typeVersion: number, values: INodeParameters): INodeParameters {
	const node = { name: 'Node', type: `n8n-nodes-assistant-platform.${description.name}`, typeVersion, position: [0, 0], parameters: {} } as unknown as INode;
	return NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) as INodeParameters;
}

const RETRY_POLICY = { retryPolicy: { maxAttempts: 2, busy: 5 } };
const CAMPAIGN = { campaign: { attempt: 2, notBefore: '2026-03-02T09:30', resultContext: { fields: [{ name: 'contactId', value: 'C-1' }] } } };

describe('Place Call shows no Campaign options and no Retry Policy; Result Context is an Option', () => {
	const action = new AssistantPlatform().description;
	const resultContext = { fields: [{ name: 'contactId', value: 'C-1' }] };

	test.each([1, 1.1])('version %s', (version) => {
		const values = { resource: 'outboundCall', operation: 'placeCall', dst: '+14155550123', options: { resultContext }, ...CAMPAIGN, ...RETRY_POLICY };
		const kept = parametersOf(action, version, values);
		expect(kept).not.toHaveProperty('campaign');
		expect(kept).not.toHaveProperty('retryPolicy');
		expect(kept.options).toEqual({ resultContext });
	});

	test('Dial Due Contacts keeps its Retry Policy and has no Result Context (its contacts carry their claim)', () => {
		const kept = parametersOf(action, 1.1, { resource: 'campaign', operation: 'dial', options: { resultContext }, ...RETRY_POLICY });
		expect(kept.retryPolicy).toEqual(RETRY_POLICY.retryPolicy);
		expect(kept.options).toEqual({});
	});
});

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
