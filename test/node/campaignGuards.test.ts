import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_DO_NOT_CALL_TABLE } from '../../nodes/shared/guards/doNotCall';
import { SPEND_TABLE } from '../../nodes/shared/guards/spend';
import { runNode } from '../harness/engine';
import { callsPerNumber, guardrails, spendingLimit } from '../harness/guardrails';
import { CALLER, TABLE, useDurableCampaign } from '../harness/campaign';

/*
 * The guards on a campaign's route (Dial Due Contacts): checked right before each contact is claimed, so a number
 * added to the do-not-call list while the campaign runs is never called from its next claim on; a listed contact ends
 * in doNotCall (final, not failed); a number another campaign or workflow called its most times is deferred until it
 * may be called; the spending limit stops the run with nobody moved; a guard that cannot be checked stops the run
 * and places nothing. Get Summary reports what the calls cost.
 */

const { fx, n8nApi, posts, dialled, numbers, contacts, stateOf, campaign, dial, prepared, endCalls } = useDurableCampaign();

const DO_NOT_CALL = guardrails({ doNotCallList: DEFAULT_DO_NOT_CALL_TABLE }, true);
const rowOf = (phone: string) => contacts().find((row) => row.phone === phone)!;

async function listed(...entries: string[]) {
	for (const number of entries) {
		const { error } = await runNode({ parameters: { resource: 'doNotCallList', operation: 'add', number }, credentials: { assistantPlatformN8nApi: n8nApi.store.credentials } });
		expect(error).toBeUndefined();
	}
}

describe('Do-Not-Call List on a campaign', () => {
	test('a listed contact is never called: it ends in doNotCall, saying since when; the others are called', async () => {
		const [a, b, c] = numbers(3);
		await listed(b);
		await prepared([a, b, c]);
		const { items, error } = await dial(DO_NOT_CALL);
		expect(error).toBeUndefined();
		expect(dialled().sort()).toEqual([a, c].sort());
		expect(stateOf(b)).toBe('doNotCall');
		expect(String(rowOf(b).reason)).toMatch(new RegExp(`^\\${b} must not be called: it is on the do-not-call list since \\S+`));
		expect(items.find((item) => item.json.phone === b)?.json).toMatchObject({ campaignState: 'doNotCall' });
	});

	test('a number added while the campaign runs is not called from its next claim on', async () => {
		const phones = numbers(4);
		await prepared(phones);
		await dial({ ...DO_NOT_CALL, maxCallsInFlight: 2 });
		expect(dialled()).toHaveLength(2);
		const later = phones.find((phone) => !dialled().includes(phone))!;
		await listed(later);
		await endCalls();
		await dial({ ...DO_NOT_CALL, maxCallsInFlight: 2 });
		expect(dialled()).toHaveLength(3);
		expect(dialled()).not.toContain(later);
		expect(stateOf(later)).toBe('doNotCall');
	});

	test('a contact due again (a retry) whose number was listed meanwhile is not called again', async () => {
		const [a] = numbers(1);
		fx.sandbox.setDialOutcome({ dst: a, dialstatus: 'BUSY', ringMs: 0 });
		await prepared([a]);
		await dial({ ...DO_NOT_CALL, retryPolicy: { maxAttempts: 3, busy: 1 } });
		await endCalls();
		await dial({ ...DO_NOT_CALL, retryPolicy: { maxAttempts: 3, busy: 1 } });
		expect(stateOf(a)).toBe('pending');
		await listed(a);
		rowOf(a).nextAttemptAt = 0;
		await dial({ ...DO_NOT_CALL, retryPolicy: { maxAttempts: 3, busy: 1 } });
		expect(dialled()).toEqual([a]);
		expect(stateOf(a)).toBe('doNotCall');
	});

	test('a list that cannot be read (a name no table has): the run stops, nobody is claimed or called', async () => {
		await prepared(numbers(2));
		const { items, error } = await dial(guardrails({ doNotCallList: 'Our opt-outs' }, true));
		expect(error).toBeUndefined();
		expect(posts()).toHaveLength(0);
		expect(items[0].json.stoppedBecause).toMatch(/^a guard could not be checked: .*names no data table of this n8n \("Our opt-outs"\)/);
		expect(contacts().map((row) => row.campaignState)).toEqual(['pending', 'pending']);
	});

	test('Get Summary counts doNotCall among the done; Get Contacts lists it', async () => {
		const [a, b] = numbers(2);
		await listed(a);
		await prepared([a, b]);
		await dial(DO_NOT_CALL);
		const { items } = await campaign('summary');
		expect(items[0].json).toMatchObject({ doNotCall: 1, placed: 1, done: 1 });
		const view = await campaign('contacts');
		expect(view.items.map((item) => item.json.state).sort()).toEqual(['doNotCall', 'placed']);
	});

	test('Add Number from a campaign call: the number of the contact whose call it was', async () => {
		const [a] = numbers(1);
		await prepared([a]);
		await dial();
		const { items } = await runNode({
			parameters: { resource: 'doNotCallList', operation: 'add', numberFrom: 'campaignCall', contactsTable: TABLE, internalId: String(rowOf(a).internalId), source: 'said during the call' },
			credentials: { assistantPlatformN8nApi: n8nApi.store.credentials },
		});
		expect(items[0].json).toMatchObject({ phone: a, alreadyListed: false, source: 'said during the call', contactRowId: rowOf(a).id, internal_id: rowOf(a).internalId });
		const unknown = await runNode({
			parameters: { resource: 'doNotCallList', operation: 'add', numberFrom: 'campaignCall', contactsTable: TABLE, internalId: 'not-a-call' },
			credentials: { assistantPlatformN8nApi: n8nApi.store.credentials },
		});
		expect(unknown.error?.message).toMatch(/^Invalid "Internal ID": no contact of "Spring contacts" had the call not-a-call: nothing was added/);
	});
});

describe('Max Calls per Number on a campaign', () => {
	test('a number another workflow called its most times is deferred until it may be called again; the others are called', async () => {
		const [a, b] = numbers(2);
		const { error } = await runNode({
			parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: a, ...guardrails(callsPerNumber(1, 24)) },
			credentials: { ...fx.credentials, assistantPlatformN8nApi: n8nApi.store.credentials },
		});
		expect(error).toBeUndefined();
		await prepared([a, b]);
		await dial(guardrails(callsPerNumber(1, 24), true));
		expect(dialled()).toEqual([a, b]);
		expect(stateOf(a)).toBe('pending');
		expect(Number(rowOf(a).nextAttemptAt)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
		expect(String(rowOf(a).reason)).toMatch(/the most Max Calls per Number allows \(1\)/);
		expect(rowOf(a).attempt).toBe(0);
	});

	test('two campaigns over lists that share numbers: each shared number is called once', async () => {
		const shared = numbers(3);
		const own = numbers(2, 50);
		await prepared([...shared, own[0]]);
		n8nApi.store.seed('Autumn contacts', [...shared, own[1]].map((phone) => ({ phone })));
		await campaign('prepare', { contactsTable: 'Autumn contacts' }, undefined, { workflowStaticData: {}, workflowName: 'Autumn' });
		const limit = { ...guardrails(callsPerNumber(1, 24), true), maxCallsInFlight: 10 };
		await dial(limit);
		await campaign('dial', { contactsTable: 'Autumn contacts', callerId: CALLER, ...limit }, undefined, { workflowStaticData: {}, workflowName: 'Autumn' });
		expect(dialled().sort()).toEqual([...shared, ...own].sort());
		const autumn = n8nApi.store.tables.find((t) => t.name === 'Autumn contacts')!.rows;
		expect(autumn.filter((row) => shared.includes(String(row.phone))).map((row) => row.campaignState)).toEqual(['pending', 'pending', 'pending']);
	});
});

describe('Spending Limit on a campaign', () => {
	function ageReservations() {
		const row = n8nApi.store.tables.find((t) => t.name === SPEND_TABLE)!.rows[0];
		const spend = JSON.parse(String(row.value)) as { spent: number; open: Array<[string, number, number, string]> };
		row.value = JSON.stringify({ ...spend, open: spend.open.map(([id, amount, , internalId]) => [id, amount, Date.now() - 60_000, internalId]) });
	}

	test('the run stops once the calls in flight may cost the limit: nobody else is claimed; the recorded costs free room; Get Summary reports the spend', async () => {
		fx.sandbox.setDialOutcome({ dialstatus: 'ANSWER', ringMs: 0, durationSec: 8, persistDelayMs: 0 });
		const phones = numbers(3);
		await prepared(phones);
		const limit = guardrails(spendingLimit(1, 0.4), true);
		const first = await dial({ ...limit, maxCallsInFlight: 3 });
		expect(dialled()).toHaveLength(2);
		expect(first.items[0].json.stoppedBecause).toMatch(/^a guard refused the calls: the spending limit of this campaign is reached \(0 spent and 0\.8 reserved by calls in flight, of 1; a call reserves 0\.4\)/);
		const third = phones.find((phone) => !dialled().includes(phone))!;
		expect(rowOf(third)).toMatchObject({ campaignState: 'pending', attempt: 0 });
		expect((await campaign('summary')).items[0].json).toMatchObject({ spent: 0, spendReserved: 0.8 });

		await endCalls();
		ageReservations();
		await dial({ ...limit, maxCallsInFlight: 3 });
		expect(dialled()).toHaveLength(3);
		const summary = (await campaign('summary')).items[0].json as IDataObject;
		// Each answered call cost 0.1 (8 billed seconds), as its record says; the third is in flight.
		expect(summary).toMatchObject({ answered: 2, placed: 1, spent: 0.2, spendReserved: 0.4 });
		expect(contacts().filter((row) => row.campaignState === 'answered').map((row) => row.spent)).toEqual([0.1, 0.1]);
	});

	test('a contact called again adds up what its calls cost', async () => {
		const [a] = numbers(1);
		fx.sandbox.setDialOutcome({ dst: a, attempts: [{ dialstatus: 'NOANSWER', ringMs: 0 }, { dialstatus: 'ANSWER', ringMs: 0, durationSec: 8 }] });
		await prepared([a]);
		const policy = { retryPolicy: { maxAttempts: 3, noAnswer: 1 } };
		await dial(policy);
		await endCalls();
		await dial(policy);
		rowOf(a).nextAttemptAt = 0;
		await dial(policy);
		await endCalls();
		await dial(policy);
		expect(rowOf(a)).toMatchObject({ campaignState: 'answered', attempt: 2, trafficCost: 0.1, spent: 0.1 });
	});
});
