import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CampaignStatus, DialLease, LineHold } from '../../../shared/campaign/campaignControl';
import { countSuspicious } from '../../../shared/campaign/campaignControl';
import type { ContactRow, ContactsTableRef } from '../../../shared/campaign/contactLife';
import { asContact, heldResultOf, isIn, move } from '../../../shared/campaign/contactLife';
import { claimContext } from '../../../shared/campaign/contactsTable';
import { carryInCallResultUrl } from '../../../shared/campaign/resultContext';
import { hoursOpen, hoursOpening } from '../../../shared/guards/callingHours';
import type { GuardPlaces, GuardRefusal, Guards } from '../../../shared/guards/guards';
import { passGuards } from '../../../shared/guards/guards';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { policyColumn } from '../../../shared/campaign/retryPolicy';
import type { Condition, Row } from '../../../shared/transport/dataTables';
import { writeToken } from '../../../shared/transport/dataTables';
import { outboundApi } from '../../../shared/transport/outbound';
import type { RequestSettings } from '../../../shared/transport/settings';
import type { Placement } from '../../../shared/calls/placement';
import { outcomeOf, placedItem, readPlacement } from '../../../shared/calls/placement';
import { markNoCallPlaced } from '../../../shared/calls/messages';

import type { DialSettings } from './fields';
import { contactHours } from './fields';

/*
 * The claims of a dial run and the calls they place. Each due contact is checked (calling hours, its number in no
 * live call, the number itself, then the Guardrails: the do-not-call list, the calls per number, the spending
 * limit), claimed in the table (a conditional update only one run wins), then allowed by the campaign's control row
 * (`go`: the run still holds the lease and the campaign is running), and only then is its call POSTed; the platform's
 * answer is written right after. A POST is therefore never sent after a Pause or Stop was written, and a crash at any
 * point leaves a row that says what may have happened. The guards' places are given back whenever nothing was placed.
 */

export interface Run {
	ctx: IExecuteFunctions;
	table: ContactsTableRef;
	controlTableId: string;
	settings: DialSettings;
	policy: RetryPolicy;
	request: RequestSettings;
	/** The Guardrails every call passes right before its claim (passGuards). */
	guards: Guards;
	baseURL: string;
	credentialKey: string;
	lease: DialLease;
	output: IDataObject[];
	/** The lines held now: by row id, the hold (its number: a number is never in two calls of the campaign at once). */
	lines: Map<number, LineHold>;
	/** Due contacts read and not yet worked: read once, claimed over several passes. */
	queue: Row[];
	/** No contact is due before this time (ms), as read once the due contacts read were worked: no due read until then. */
	noneDueBefore?: number;
	/** Why the run stopped placing calls, when it did. */
	stop?: string;
	/** The status the campaign was given while this run dialled (Pause or Stop), when it was. */
	halted?: CampaignStatus;
	placed: number;
}

/** A number as the campaign compares numbers. */
export function dialNumber(value: unknown): string {
	return String(value ?? '').replace(/[\s().-]/g, '');
}

/** A contact this run holds, and its call as it will be placed. */
export interface Claimed {
	row: ContactRow<'claimed'>;
	placement: Placement;
	/** The places the guards hold for this call: kept once it is placed (or may be), given back when nothing was. */
	places: GuardPlaces;
}

/** The checks before a claim (calling hours, a number in a live call, the number itself, the guards), then the claim itself. */
export async function claim(run: Run, raw: Row, now: number): Promise<Claimed | undefined> {
	const { ctx, table } = run;
	const contact = asContact(raw);
	if ('invalid' in contact) {
		run.output.push({ rowId: raw.id, campaignState: 'cannot be worked', reason: `${contact.invalid}: fix the row in the table` });
		return undefined;
	}
	if (!isIn(contact, 'pending')) return undefined;
	const phone = contact[run.settings.phoneColumn];
	// Still pending, and still the number read: a contact edited meanwhile is read again by the next run.
	const asRead = [{ columnName: run.settings.phoneColumn, condition: 'eq' as const, value: String(phone ?? '') }];
	const hours = contactHours(ctx, run.settings, contact);
	if (hours && !('windows' in hours)) {
		await rejectContact(run, contact, 'invalid' in hours ? hours.invalid : hours.noTimeZone, asRead);
		return undefined;
	}
	if (hours && !hoursOpen(hours, now)) {
		await move(ctx, table, contact, 'defer', { nextAttemptAt: hoursOpening(hours, now), reason: `outside calling hours (${hours.label})` }, asRead);
		return undefined;
	}
	const number = dialNumber(phone);
	if ([...run.lines.values()].some((hold) => hold.number === number) || (Number(contact.lineUntil) || 0) > now) return undefined;
	// The number is checked before the claim: one that cannot be dialled is failed from pending, never claimed.
	const placement = placementOf(run, contact);
	if ('invalid' in placement) {
		await rejectContact(run, contact, placement.invalid, asRead);
		return undefined;
	}
	const verdict = await passGuards(ctx, run.guards, { dst: String(placement.body.dst), itemIndex: 0 });
	if ('refused' in verdict) {
		await guardRefused(run, contact, verdict, asRead);
		return undefined;
	}
	const attempt = contact.attempt + 1;
	const claimed = await move(
		ctx,
		table,
		contact,
		'claim',
		{
			attempt,
			claimToken: writeToken(ctx),
			claimedAt: now,
			lineUntil: now + run.settings.claimMs + run.settings.maxCallMs,
			retryPolicy: policyColumn(run.policy),
			reason: `attempt ${attempt}: being placed`,
		},
		asRead,
	).catch(async (error: unknown) => {
		await verdict.places.giveBack();
		throw error;
	});
	if (!claimed || !isIn(claimed, 'claimed')) {
		await verdict.places.giveBack();
		return undefined;
	}
	run.lines.set(claimed.id, { rowId: claimed.id, until: Number(claimed.lineUntil), number });
	return { row: claimed, placement, places: verdict.places };
}

/** A contact that cannot be dialled (its number, its time zone): failed from pending, never claimed. */
async function rejectContact(run: Run, contact: ContactRow<'pending'>, why: string, asRead: Condition[]): Promise<void> {
	const reason = `not dialled: ${why}`;
	if (await move(run.ctx, run.table, contact, 'reject', { reason }, asRead)) {
		run.output.push({ rowId: contact.id, phone: contact[run.settings.phoneColumn] as IDataObject[string], attempt: contact.attempt, campaignState: 'failed', reason });
	}
}

/**
 * A guard said no: a listed number ends its contact in doNotCall; a number called its most times is due again when
 * it may be called; the spending limit, or a guard that could not be checked, stops the run (nobody moves).
 */
async function guardRefused(run: Run, contact: ContactRow<'pending'>, verdict: GuardRefusal, asRead: Condition[]): Promise<void> {
	const { ctx, table } = run;
	const message = verdict.refusal.message.replace(/^Not placed: /, '');
	if (verdict.unchecked || verdict.refused === 'spendingLimit' || (verdict.refused !== 'doNotCall' && verdict.until === undefined)) {
		run.stop = `${verdict.unchecked ? 'a guard could not be checked' : 'a guard refused the calls'}: ${message}`;
		return;
	}
	const out: IDataObject = { rowId: contact.id, phone: contact[run.settings.phoneColumn] as IDataObject[string], attempt: contact.attempt };
	if (verdict.refused === 'doNotCall') {
		if (await move(ctx, table, contact, 'screen', { reason: message }, asRead)) run.output.push({ ...out, campaignState: 'doNotCall', reason: message });
		return;
	}
	await move(ctx, table, contact, 'defer', { nextAttemptAt: verdict.until ?? 0, reason: message }, asRead);
}

/**
 * The call of a contact as it would be placed (its number checked: `invalid` says why it cannot be dialled). A field
 * of the node, not of this contact, stops the run before anything is claimed.
 */
function placementOf(run: Run, contact: ContactRow): Placement | { invalid: string } {
	const node = run.ctx.getNode();
	const column = run.settings.phoneColumn;
	try {
		return readPlacement(run.ctx, node, 0, run.credentialKey, undefined, { value: contact[column], field: `${column} (row ${contact.id})` });
	} catch (error) {
		const message = (error as Error).message;
		if (message.includes(`${column} (row ${contact.id})`) || message.includes('is not in Allowed Destinations')) return { invalid: message };
		throw markNoCallPlaced(error as Error);
	}
}

/** Gives a claim back (nothing was placed): pending again, due now, the attempt not spent, its line free, the guards' places given back. */
async function release(run: Run, { row, places }: Claimed, reason: string): Promise<void> {
	run.lines.delete(row.id);
	await places.giveBack();
	await move(run.ctx, run.table, row, 'release', { reason });
}

/** Places the call of a claimed contact, once the control row allows it, and writes what the platform answered; true when placed. */
export async function place(run: Run, claimed: Claimed): Promise<boolean> {
	const { row, placement, places } = claimed;
	const { ctx } = run;
	const node = ctx.getNode();
	try {
		// The result finds its contact by this claim (by id, no scan) and is judged against the call this POST returns.
		carryInCallResultUrl(node, 0, placement, claimContext(row));
	} catch (error) {
		// The Call Result URL with the claim is too long or not a URL: a field of the node; the claim is given back.
		await release(run, claimed, (error as Error).message);
		throw markNoCallPlaced(error as Error);
	}
	const noGo = await run.lease.go();
	if (noGo) {
		if (noGo.kind === 'status') run.halted = noGo.status;
		else run.stop = `the dial lease was lost (${noGo.why}): the lines are another run's to count`;
		await release(run, claimed, noGo.kind === 'status' ? `not placed: the campaign was ${noGo.status}` : 'not placed: the dial lease was lost');
		return false;
	}
	let accepted: IDataObject;
	try {
		const response = await outboundApi(ctx, run.request, 'POST', placement.path, { baseURL: run.baseURL, body: placement.body, retry: false, passStatuses: [429] });
		if (response.statusCode === 429) {
			await release(run, claimed, "the account's limit of calls at once was reached (429): not placed, due again now");
			run.stop = "the platform answered 429: the account's lines are full";
			return false;
		}
		accepted = placedItem(node, placement, response, new Date().toISOString(), 0);
	} catch (error) {
		await failed(run, claimed, error as Error);
		return false;
	}
	const internalId = String(accepted.internal_id);
	const placedAt = Date.now();
	const lineUntil = placedAt + run.settings.maxCallMs;
	run.lines.set(row.id, { rowId: row.id, until: lineUntil, number: run.lines.get(row.id)?.number ?? '' });
	// The guards' places name the call first: a spend reservation is settled from its record, even if the row's write fails.
	await places.placed(internalId);
	await record(run, row, 'place', { internalId, placedAt, lineUntil }, accepted);
	return true;
}

/** A POST that failed: refused by the platform (failed), its outcome unknown (unknown, and the run stops), or the account refused (the run fails). */
async function failed(run: Run, claimed: Claimed, error: Error): Promise<void> {
	const { row } = claimed;
	const message = error.message;
	const status = Number((error as { httpCode?: unknown }).httpCode);
	if (status === 401 || status === 403) {
		// The account or its key, not this contact: nothing was placed; the claim is given back and the run ends.
		await release(run, claimed, `not placed: ${message}`);
		throw markNoCallPlaced(error);
	}
	if (outcomeOf(error) === 'rejected') {
		run.lines.delete(row.id);
		await claimed.places.giveBack();
		await record(run, row, 'refuse', { reason: `refused by the platform: ${message}` });
		return;
	}
	await record(run, row, 'lose', { reason: `outcome unknown: ${message}; the call may have been placed and is never dialled again automatically` });
	// A platform that leaves outcomes unknown would do it to every contact of the run: the run stops here.
	run.stop = `the outcome of a call is unknown (${message})`;
}

/**
 * Writes what happened to a claimed contact (a write whose answer is lost is read back: move). The output says what
 * was written, and whether a result posted for this claim before its internal_id was known named another call.
 */
async function record(
	run: Run,
	row: ContactRow<'claimed'>,
	name: 'place' | 'refuse' | 'lose',
	data: { internalId: string; placedAt: number; lineUntil: number } | { reason: string },
	accepted?: IDataObject,
): Promise<void> {
	let written: ContactRow | undefined;
	let lastError: Error | undefined;
	try {
		written = name === 'place' ? await move(run.ctx, run.table, row, name, data as { internalId: string; placedAt: number; lineUntil: number }) : await move(run.ctx, run.table, row, name, data as { reason: string });
	} catch (error) {
		lastError = error as Error;
	}
	const out: IDataObject = { rowId: row.id, phone: row[run.settings.phoneColumn] as IDataObject[string], attempt: row.attempt, campaignState: TO[name], ...data };
	if (accepted) out.internal_id = accepted.internal_id;
	if (written && name === 'place') Object.assign(out, await judgeHeld(run, written, String(accepted?.internal_id)));
	if (name === 'place') run.placed++;
	if (!written) {
		out.recorded = false;
		out.warning = `The contacts table could not be written${lastError ? ` (${lastError.message})` : ''}: the contact stays claimed and the next run marks it unknown; it is never dialled again automatically.`;
	}
	run.output.push(out);
	if (!written && name === 'place' && lastError) {
		throw new NodeOperationError(run.ctx.getNode(), `The call to row ${row.id} was placed (internal_id ${String(accepted?.internal_id)}) but could not be recorded`, {
			description: `${String(out.warning)} Dialling stopped for this run.`,
		});
	}
}

const TO = { place: 'placed', refuse: 'failed', lose: 'unknown' } as const;

/**
 * A result posted for this contact's claim while its POST was unanswered was held (heldResult): one naming another
 * call than the POST returned is suspicious (someone with the Call Result URL posted it), counted, and moved nobody.
 */
async function judgeHeld(run: Run, row: ContactRow, internalId: string): Promise<IDataObject> {
	const held = heldResultOf(row);
	if (!held || held.internalId === internalId) return {};
	const out: IDataObject = {
		suspicious: true,
		postedInternalId: held.internalId,
		warning: `A result was posted for this contact's claim naming call ${held.internalId}, not the call its POST returned: nothing was moved. Whoever posted it may have seen the Call Result URL.`,
	};
	try {
		await countSuspicious(run.ctx, run.controlTableId, run.table.id);
		out.suspiciousCounted = true;
	} catch (error) {
		out.suspiciousCounted = false;
		out.warning = `${String(out.warning)} It could not be counted: ${(error as Error).message}`;
	}
	return out;
}
