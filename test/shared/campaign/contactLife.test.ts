import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IExecuteFunctions } from 'n8n-workflow';

import type { ContactRow, ContactsTableRef } from '../../../nodes/shared/campaign/contactLife';
import { BY_A_PERSON, CAMPAIGN_STATES, move, NEW, TRANSITIONS } from '../../../nodes/shared/campaign/contactLife';

/*
 * A contact's life is written in one module: its states and every transition with its guard. docs/campaigns.md's
 * table of transitions is the module's, row for row; and a write from a state a transition does not leave, or to a
 * state that does not exist, does not compile (the `@ts-expect-error` lines below fail the type check the day they
 * would compile).
 */

/** The rows of the table under "**Every transition**" in docs/campaigns.md: from, to, when, by. */
function documentedTransitions(): string[][] {
	const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'campaigns.md'), 'utf8');
	const lines = doc.slice(doc.indexOf('**Every transition**')).split('\n');
	const start = lines.findIndex((line) => line.startsWith('| From | To |'));
	const rows: string[][] = [];
	for (const line of lines.slice(start + 2)) {
		if (!line.startsWith('|')) break;
		rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
	}
	return rows;
}

const shown = (state: string) => (state === NEW ? '(empty)' : `\`${state}\``);

test("docs/campaigns.md's table of transitions is the module's: every transition, in order, with its states, guard and author", () => {
	const expected = [...Object.values(TRANSITIONS), ...Object.values(BY_A_PERSON)].map((spec) => [
		(spec.from as readonly string[]).map(shown).join(', '),
		shown(spec.to),
		spec.when,
		spec.by,
	]);
	expect(documentedTransitions()).toEqual(expected);
});

test('every state is reached by some transition, and every state but the final ones is left by one', () => {
	const specs = Object.values(TRANSITIONS);
	const reached = new Set(specs.map((spec) => spec.to as string));
	const left = new Set(specs.flatMap((spec) => spec.from as readonly string[]));
	expect([...CAMPAIGN_STATES].filter((state) => !reached.has(state))).toEqual([]);
	expect([...CAMPAIGN_STATES].filter((state) => !left.has(state))).toEqual(['answered', 'finished', 'failed', 'doNotCall']);
});

test('a transition from a state it does not leave, or with fields it does not write, does not compile', () => {
	const ctx = {} as IExecuteFunctions;
	const table: ContactsTableRef = { id: 't', name: 'Contacts' };
	const placed = { id: 1, campaignState: 'placed', attempt: 1, nextAttemptAt: 0, version: 1 } as ContactRow<'placed'>;
	const pending = { id: 3, campaignState: 'pending', attempt: 0, nextAttemptAt: 0, version: 1 } as ContactRow<'pending'>;
	const answered = { id: 2, campaignState: 'answered', attempt: 1, nextAttemptAt: 0, version: 1 } as ContactRow<'answered'>;
	const compileOnly = () => {
		// @ts-expect-error: a placed contact is never claimed (its call may be live)
		void move(ctx, table, placed, 'claim', { attempt: 2, claimToken: 't', claimedAt: 0, lineUntil: 0, retryPolicy: '{}', reason: '' });
		// @ts-expect-error: an answered contact is final for the engine (only a person sets it to pending)
		void move(ctx, table, answered, 'retry', { dialStatus: 'BUSY', reason: '', trafficCost: null, spent: 0, nextAttemptAt: 0 });
		// @ts-expect-error: a retry needs the time it is due
		void move(ctx, table, placed, 'retry', { dialStatus: 'BUSY', reason: '', trafficCost: null, spent: 0 });
		// @ts-expect-error: no transition is called "done"
		void move(ctx, table, placed, 'done', {});
		// @ts-expect-error: callers never write the state: `move` writes the transition's own
		void move(ctx, table, placed, 'answer', { dialStatus: 'ANSWER', reason: '', trafficCost: null, spent: 0, campaignState: 'answerd' });
		// @ts-expect-error: a pending contact is never put on the do-not-call list without its reason
		void move(ctx, table, pending, 'screen', {});
	};
	expect(typeof compileOnly).toBe('function');
});
