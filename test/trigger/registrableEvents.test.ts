/**
 * The events the trigger can register on publish are listed once (REGISTRABLE_EVENTS): the fields and the
 * credential shown for them, and what publishing sends, agree for every event.
 */
import { randomBytes } from 'node:crypto';

import type { INodeProperties } from 'n8n-workflow';

import { AssistantPlatformTrigger } from '../../nodes/AssistantPlatformTrigger/AssistantPlatformTrigger.node';
import { EVENTS, REGISTRABLE_EVENTS } from '../../nodes/AssistantPlatformTrigger/events';
import { useSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';
import { startTrigger } from '../harness/webhook';

const secret = randomBytes(24).toString('hex');
registerSecret(secret);

const fx = useSandbox();
const { description } = new AssistantPlatformTrigger();
const field = (name: string) => description.properties.find((p: INodeProperties) => p.name === name)!;

test.each(EVENTS.map((e) => e.value))('%s: shown fields, credential and publish agree', async (event) => {
	const registrable = REGISTRABLE_EVENTS.includes(event);
	expect(field('registerOnPublish').displayOptions?.show?.events?.includes(event)).toBe(registrable);
	expect(description.credentials![0].displayOptions?.show?.events?.includes(event)).toBe(registrable);

	const { assistantId } = fx.sandbox.createAssistant({ name: 'Registrable' });
	const h = await startTrigger({
		parameters: {
			webhookSecret: secret,
			events: [event],
			registerOnPublish: true,
			assistantId: { __rl: true, mode: 'id', value: assistantId },
			extractionSchema: { properties: [{ name: 'a' }] },
		},
		credentials: fx.credentials,
	});
	try {
		fx.sandbox.clearJournal();
		await h.publish();
		expect(fx.sandbox.journal.filter((e) => e.method === 'PATCH')).toHaveLength(registrable ? 1 : 0);
		await h.unpublish();
	} finally {
		await h.close();
	}
});
