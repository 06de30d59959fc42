import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CampaignStatus, DialLease, LineHold } from '../../../shared/campaign/campaignControl';
import { countSuspicious } from '../../../shared/campaign/campaignControl';
import type { ContactRow, ContactsTableRef } from '../../../shared/campaign/contactLife';
import { asContact, heldResultOf, isIn, move } from '../../../shared/campaign/contactLife';
import { claimContext } from '../../../shared/campaign/contactsTable';
import { carryInCallResultUrl } from '../../../shared/campaign/options';
import { isOpen, nextOpening } from '../../../shared/campaign/callingHours';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { policyColumn } from '../../../shared/campaign/retryPolicy';
import type { Row } from '../../../shared/transport/dataTables';
import { writeToken } from '../../../shared/transport/dataTables';
import { outboundApi } from '../../../shared/transport/outbound';
import type { RequestSettings } from '../../../shared/transport/settings';
import type { Placement } from '../../../shared/calls/placement';
import { outcomeOf, placedItem, readPlacement } from '../../../shared/calls/placement';
import { markNoCallPlaced } from '../../../shared/calls/messages';

import type { DialSettings } from './fields';
import { contactWindow } from './fields';

/*
 * The claims of a dial run and the calls they place. Each due contact is checked (calling hours, its number in no
 * live call, the number itself), claimed in the table (a conditional update only one run wins), then allowed by the
 * campaign's control row (`go`: the run still holds the lease and the campaign is running), and only then is its call
 * POSTed; the platform's answer is written right after. A POST is therefore never sent after a Pause or Stop was
 * written, and a crash at any point leaves a row that says what may have happened.
 */

export interface Run {
	ctx: IExecuteFunctions;
	table: ContactsTableRef;
	controlTableId: string;
	settings: DialSettings;
	policy: RetryPolicy;
	request: RequestSettings;
	baseURL: string;
	credentialKey: string;
	lease: DialLease;
	output: IDataObject[];
	/** The lines held now: by row id, the hold (its number: a number is never in two calls of the campaign at once). */
	lines: Map<number, LineHold>;
	/** Due contacts read and not yet worked: read once, claimed over several passes. */
	queue: Row[];
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
}

/** The checks before a claim (calling hours, a number in a live call, the number itself), then the claim itself. */
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
	const window = contactWindow(ctx, run.settings, contact);
	if (window && 'invalid' in window) {
		await move(ctx, table, contact, 'reject', { reason: `not dialled: ${window.invalid}` }, asRead);
		return undefined;
	}
	if (window && !isOpen(window, now)) {
		await move(ctx, table, contact, 'defer', { nextAttemptAt: nextOpening(window, now), reason: `outside calling hours (${window.label})` }, asRead);
		return undefined;
	}
	const number = dialNumber(phone);
	if ([...run.lines.values()].some((hold) => hold.number === number) || (Number(contact.lineUntil) || 0) > now) return undefined;
	// The number is checked before the claim: one that cannot be dialled is failed from pending, never claimed.
	const placement = placementOf(run, contact);
	if ('invalid' in placement) {
		const reason = `not dialled: ${placement.invalid}`;
		if (await move(ctx, table, contact, 'reject', { reason }, asRead)) {
			run.output.push({ rowId: contact.id, phone: phone as IDataObject[string], attempt: contact.attempt, campaignState: 'failed', reason });
		}
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
	);
	if (!claimed || !isIn(claimed, 'claimed')) return undefined;
	run.lines.set(claimed.id, { rowId: claimed.id, until: Number(claimed.lineUntil), number });
	return { row: claimed, placement };
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

/** Gives a claim back (nothing was placed): pending again, due now, the attempt not spent, its line free. */
async function release(run: Run, row: ContactRow<'claimed'>, reason: string): Promise<void> {
	run.lines.delete(row.id);
	await move(run.ctx, run.table, row, 'release', { reason });
}

/** Places the call of a claimed contact, once the control row allows it, and writes what the platform answered; true when placed. */
export async function place(run: Run, { row, placement }: Claimed): Promise<boolean> {
	const { ctx } = run;
	const node = ctx.getNode();
	try {
		// The result finds its contact by this claim (by id, no scan) and is judged against the call this POST returns.
		carryInCallResultUrl(node, 0, placement, claimContext(row));
	} catch (error) {
		// The Call Result URL with the claim is too long or not a URL: a field of the node; the claim is given back.
		await release(run, row, (error as Error).message);
		throw markNoCallPlaced(error as Error);
	}
	const noGo = await run.lease.go();
	if (noGo) {
		if (noGo.kind === 'status') run.halted = noGo.status;
		else run.stop = `the dial lease was lost (${noGo.why}): the lines are another run's to count`;
		await release(run, row, noGo.kind === 'status' ? `not placed: the campaign was ${noGo.status}` : 'not placed: the dial lease was lost');
		return false;
	}
	let accepted: IDataObject;
	try {
		const response = await outboundApi(ctx, run.request, 'POST', placement.path, { baseURL: run.baseURL, body: placement.body, retry: false, passStatuses: [429] });
		if (response.statusCode === 429) {
			await release(run, row, "the account's limit of calls at once was reached (429): not placed, due again now");
			run.stop = "the platform answered 429: the account's lines are full";
			return false;
		}
		accepted = placedItem(node, placement, response, new Date().toISOString(), 0);
	} catch (error) {
		await failed(run, row, error as Error);
		return false;
	}
	const internalId = String(accepted.internal_id);
	const placedAt = Date.now();
	const lineUntil = placedAt + run.settings.maxCallMs;
	run.lines.set(row.id, { rowId: row.id, until: lineUntil, number: run.lines.get(row.id)?.number ?? '' });
	await record(run, row, 'place', { internalId, placedAt, lineUntil }, accepted);
	return true;
}

/** A POST that failed: refused by the platform (failed), its outcome unknown (unknown, and the run stops), or the account refused (the run fails). */
async function failed(run: Run, row: ContactRow<'claimed'>, error: Error): Promise<void> {
	const message = error.message;
	const status = Number((error as { httpCode?: unknown }).httpCode);
	if (status === 401 || status === 403) {
		// The account or its key, not this contact: nothing was placed; the claim is given back and the run ends.
		await release(run, row, `not placed: ${message}`);
		throw markNoCallPlaced(error);
	}
	if (outcomeOf(error) === 'rejected') {
		run.lines.delete(row.id);
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
