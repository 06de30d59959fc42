import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Condition, Row } from '../transport/dataTables';
import { updateIfUnchanged, updateRows, versionOf } from '../transport/dataTables';

/*
 * A contact's life in a durable campaign: its states, every transition with its guard, and every write of a contact
 * row. Nothing else writes a contact: a caller names a transition and gives the fields it writes; `move` writes the
 * target state itself, only where the row still is as it was read (its version, its state, and the transition's own
 * guard: the claim a claimed row holds, the call a placed row names). A misspelt state or a transition from a state
 * it does not leave does not compile. docs/campaigns.md's table of transitions is checked against TRANSITIONS.
 *
 * A contact holds a line while its call may be live: `lineUntil` (ms since 1970) is set when it is claimed (the claim
 * plus Unconfirmed Claim After plus Max Call Length: its POST may still go out, and its call last that long) and when
 * its call is placed (the POST plus Max Call Length), and is kept by every transition that does not know the call has
 * ended (an unknown outcome, an unconfirmed claim). Only a call's end (its record) or a placement that never happened
 * frees the line: those writes set `lineUntil` 0 and `endedAt` (when the line was freed).
 */

export const CAMPAIGN_STATES = ['pending', 'claimed', 'placed', 'answered', 'finished', 'failed', 'unknown', 'doNotCall'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];
/** A row added without a state (imported, or added while the campaign runs): not a state a row is written in. */
export const NEW = 'new';
type Source = CampaignState | typeof NEW;

interface TransitionSpec {
	from: readonly Source[];
	to: CampaignState;
	/** Who moves a contact this way. */
	by: string;
	/** When: the transition's guard as a person reads it. */
	when: string;
}

const DIAL = 'Dial Due Contacts';
const RESULT = "Record Call Result, or a dial run's status read";

export const TRANSITIONS = {
	activate: { from: [NEW], to: 'pending', by: DIAL, when: 'a row added without a state: due now' },
	defer: {
		from: ['pending'],
		to: 'pending',
		by: DIAL,
		when: 'due outside its calling hours, or its number has had Max Calls per Number: due again when its window opens, or the number may be called again',
	},
	reject: { from: ['pending'], to: 'failed', by: DIAL, when: 'its number cannot be dialled, or its time zone is empty or unknown: never claimed' },
	screen: { from: ['pending'], to: 'doNotCall', by: DIAL, when: 'its number is on the Do-Not-Call List (Guardrails), checked right before the claim: never called' },
	claim: { from: ['pending'], to: 'claimed', by: DIAL, when: 'due, inside its hours, its number in no live call: written before its POST' },
	release: {
		from: ['claimed'],
		to: 'pending',
		by: DIAL,
		when: 'nothing was placed: the campaign was paused or stopped after the claim, the account was full (429) or refused the key; the attempt is not spent',
	},
	place: { from: ['claimed'], to: 'placed', by: DIAL, when: "the platform accepted the call: the POST's internal_id is written" },
	refuse: { from: ['claimed'], to: 'failed', by: DIAL, when: 'the platform refused the call (4xx): nothing was placed' },
	lose: { from: ['claimed'], to: 'unknown', by: DIAL, when: "the POST's outcome is not known (timeout, 5xx): the call may have been placed" },
	unconfirmed: {
		from: ['claimed'],
		to: 'unknown',
		by: DIAL,
		when: 'claimed longer than Unconfirmed Claim After with no answer written (n8n stopped between the claim and the answer)',
	},
	answer: { from: ['placed', 'unknown'], to: 'answered', by: RESULT, when: "its own call's record says ANSWER" },
	retry: {
		from: ['placed', 'unknown'],
		to: 'pending',
		by: RESULT,
		when: "its own call's record has an outcome the Retry Policy calls again, with attempts left: due after the delay",
	},
	finish: { from: ['placed', 'unknown'], to: 'finished', by: RESULT, when: "its own call's record has any other outcome, or no attempt is left" },
	noOutcome: {
		from: ['placed'],
		to: 'unknown',
		by: DIAL,
		when: 'no status record Max Call Length after its POST, or a record that contradicts itself: never dialled again automatically',
	},
} as const satisfies Record<string, TransitionSpec>;

/** What a person does in the table (docs/campaigns.md): not a write of the engine, listed with the transitions. */
export const BY_A_PERSON = {
	requeue: {
		from: ['answered', 'finished', 'failed', 'unknown', 'doNotCall'],
		to: 'pending',
		by: 'a person',
		when: 'campaignState set to pending in the table: the next run calls the contact again (its attempt counts on; a number still on the Do-Not-Call List goes back to doNotCall)',
	},
} as const satisfies Record<string, TransitionSpec>;

export type TransitionName = keyof typeof TRANSITIONS;
type From<N extends TransitionName> = (typeof TRANSITIONS)[N]['from'][number];

/** The columns a contact row holds for the campaign, beside the user's own. */
export const STATE_COLUMNS = {
	campaignState: 'string',
	attempt: 'number',
	nextAttemptAt: 'number',
	internalId: 'string',
	claimToken: 'string',
	claimedAt: 'number',
	placedAt: 'number',
	lineUntil: 'number',
	endedAt: 'number',
	dialStatus: 'string',
	trafficCost: 'number',
	spent: 'number',
	retryPolicy: 'string',
	heldResult: 'string',
	reason: 'string',
	version: 'number',
	writeToken: 'string',
} as const;

export interface ContactRow<S extends CampaignState = CampaignState> extends Row {
	campaignState: S;
	attempt: number;
	nextAttemptAt: number;
	/** null: a version never written (a row added by hand): still a version a write can name. */
	version: number | null;
	internalId?: string | null;
	claimToken?: string | null;
	claimedAt?: number | null;
	placedAt?: number | null;
	lineUntil?: number | null;
	retryPolicy?: string | null;
}

/** What each transition writes besides the state (which `move` writes). */
export interface TransitionData {
	defer: { nextAttemptAt: number; reason: string };
	reject: { reason: string };
	screen: { reason: string };
	claim: { attempt: number; claimToken: string; claimedAt: number; lineUntil: number; retryPolicy: string; reason: string };
	release: { reason: string };
	place: { internalId: string; placedAt: number; lineUntil: number };
	refuse: { reason: string };
	lose: { reason: string };
	unconfirmed: { reason: string };
	answer: Outcome;
	retry: Outcome & { nextAttemptAt: number };
	finish: Outcome;
	/** A record that contradicts itself ended the call: its line is freed (lineUntil 0, endedAt). */
	noOutcome: { reason: string; dialStatus?: string; lineUntil?: number; endedAt?: number };
}

/** A call's end as its record gives it. */
export interface Outcome {
	dialStatus: string;
	reason: string;
	/** What this call cost (its record's trafficCost), and what all the contact's calls cost so far. */
	trafficCost: number | null;
	spent: number;
}

/** The guard every write of a transition adds to the row's version and state. */
function guardOf(name: TransitionName, row: ContactRow): Condition[] {
	const from = (TRANSITIONS[name].from as readonly Source[])[0];
	// The value as read: an empty cell is named as empty (eq null is IS NULL), so a row never claimed can still be settled.
	const asRead = (value: unknown) => (value === null || value === undefined ? null : String(value));
	if (from === 'claimed') return [{ columnName: 'claimToken', condition: 'eq', value: asRead(row.claimToken) }];
	if (from === 'placed') return [{ columnName: 'internalId', condition: 'eq', value: asRead(row.internalId) }];
	return [];
}

/** What a transition writes beyond its data: a line freed (its call ended, or none was placed), fields of a new attempt cleared. */
function impliedBy(name: TransitionName, row: ContactRow, now: number): IDataObject {
	switch (name) {
		case 'claim':
			return { internalId: '', dialStatus: '', heldResult: '', placedAt: null, endedAt: null, trafficCost: null };
		case 'release':
			return { attempt: Math.max(0, row.attempt - 1), claimToken: '', lineUntil: 0, endedAt: now, nextAttemptAt: 0 };
		case 'refuse':
			return { claimToken: '', lineUntil: 0, endedAt: now };
		case 'answer':
		case 'retry':
		case 'finish':
			// The claim stays: a repeated delivery of this call's result still finds its contact, already recorded.
			return { lineUntil: 0, endedAt: now };
		default:
			return {};
	}
}

/** Where a contacts table is, for the writes of its rows. */
export interface ContactsTableRef {
	id: string;
	name: string;
}

/**
 * Moves a contact by `name`, where the row is still as read: `data` and the target state, with the next version and
 * a fresh writeToken (a compare-and-set; a write whose answer is lost is read back). `also` narrows the guard further
 * (e.g. the number as read, for a claim). The row as written when this writer won, else undefined.
 */
export async function move<N extends keyof TransitionData>(
	ctx: IExecuteFunctions,
	table: ContactsTableRef,
	row: ContactRow<Extract<From<N>, CampaignState>>,
	name: N,
	data: TransitionData[N],
	also: Condition[] = [],
): Promise<ContactRow | undefined> {
	const spec = TRANSITIONS[name];
	const now = Date.now();
	const written = await updateIfUnchanged(
		ctx,
		table.id,
		row,
		{ ...impliedBy(name, row, now), ...(data as IDataObject), campaignState: spec.to },
		{
			tokenColumn: 'writeToken',
			also: [{ columnName: 'campaignState', condition: 'eq', value: row.campaignState }, ...guardOf(name, row), ...also],
		},
	);
	if (!written) return undefined;
	const contact = asContact(written);
	return 'invalid' in contact ? undefined : contact;
}

/**
 * Rows added without a state (imported, or added while the campaign runs) become pending, due now: one update of the
 * empty and blank cells (n8n's API takes only eq, neq, like, ilike, gt, gte, lt and lte in an update's filter; eq
 * null is IS NULL).
 */
export async function activateNewRows(ctx: IExecuteFunctions, table: ContactsTableRef): Promise<void> {
	await updateRows(
		ctx,
		table.id,
		[
			{ columnName: 'campaignState', condition: 'eq', value: null },
			{ columnName: 'campaignState', condition: 'eq', value: '' },
		],
		{ campaignState: TRANSITIONS.activate.to, attempt: 0, nextAttemptAt: 0, version: 0 },
		undefined,
		false,
		'or',
	);
}

/**
 * A result posted for a contact whose call is still being placed (claimed: the POST's internal_id is not written
 * yet) is never applied: it is kept in `heldResult` ("<internal_id> <dialStatus>") for the dial run to judge once it
 * writes the internal_id its POST returned. The row's version and state are left as they are (this is a note, not a
 * transition), so the dial run's own write still wins; only a row still claimed under that claim is written.
 */
export async function holdResult(ctx: IExecuteFunctions, table: ContactsTableRef, row: ContactRow<'claimed'>, note: string): Promise<boolean> {
	const written = await updateRows(
		ctx,
		table.id,
		[
			{ columnName: 'id', condition: 'eq', value: row.id },
			{ columnName: 'campaignState', condition: 'eq', value: 'claimed' },
			{ columnName: 'claimToken', condition: 'eq', value: String(row.claimToken ?? '') },
		],
		{ heldResult: note },
	);
	return written.some((r) => r.id === row.id && r.heldResult === note);
}

/** The internal_id and dial status a held result names (holdResult), or undefined. */
export function heldResultOf(row: Row): { internalId: string; dialStatus: string } | undefined {
	const match = /^(\S+) (\S*)/.exec(String(row.heldResult ?? ''));
	return match ? { internalId: match[1], dialStatus: match[2] } : undefined;
}

/**
 * A row read back: its state, attempt and version as numbers; a row whose state is none of the campaign's, or whose
 * attempt or version is not a whole number, is refused (a row someone edited: never dialled, and the run says which).
 */
export function asContact(row: Row): ContactRow | { invalid: string } {
	const state = row.campaignState;
	if (typeof state !== 'string' || !(CAMPAIGN_STATES as readonly string[]).includes(state)) {
		return { invalid: `row ${row.id} has the campaign state ${JSON.stringify(state)}, which is none of ${CAMPAIGN_STATES.join(', ')}` };
	}
	const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value ?? 0));
	const version = versionOf(row.version);
	const contact = { ...row, attempt: number(row.attempt), nextAttemptAt: number(row.nextAttemptAt), version };
	if (!Number.isInteger(contact.attempt) || contact.attempt < 0) return { invalid: `row ${row.id} has an attempt that is not a whole number (${JSON.stringify(row.attempt)})` };
	if (Number.isNaN(version)) return { invalid: `row ${row.id} has a version that is not a whole number (${JSON.stringify(row.version)})` };
	return contact as ContactRow;
}

/** Whether `row` is in `state` (narrows its type for `move`). */
export function isIn<S extends CampaignState>(row: ContactRow, ...states: S[]): row is ContactRow<S> {
	return (states as readonly string[]).includes(row.campaignState);
}
