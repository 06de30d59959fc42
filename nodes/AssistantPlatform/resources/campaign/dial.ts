import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { ContactRow, ContactsTable } from '../../../shared/campaign/contactsTable';
import { activateNewRows, asContact, campaignStatus, changeRow, claimContext, openContactsTable, rowsInFlight, rowsInState } from '../../../shared/campaign/contactsTable';
import { carryInCallResultUrl } from '../../../shared/campaign/options';
import { isOpen, nextOpening } from '../../../shared/campaign/callingHours';
import type { DialLease } from '../../../shared/campaign/dialLease';
import { dialLease } from '../../../shared/campaign/dialLease';
import { MAX_ROWS_PER_PAGE, writeToken } from '../../../shared/transport/dataTables';
import { outboundApi } from '../../../shared/transport/outbound';
import type { Placement } from '../../../shared/calls/placement';
import { credentialAssistantKey, outcomeOf, placedItem, readPlacement, refuseAutomaticRetry } from '../../../shared/calls/placement';
import { markNoCallPlaced } from '../../../shared/calls/messages';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { policyNote, readRetryPolicy } from '../../../shared/campaign/retryPolicy';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import type { RequestSettings } from '../../../shared/transport/settings';
import { readRequestSettings } from '../../../shared/transport/settings';

import type { DialSettings } from './fields';
import { CONTACTS_TABLE_FIELD, contactWindow, dialProperties, dialTextColumns, readDialSettings } from './fields';
import { placementProperties } from '../../../shared/descriptions/placementFields';
import type { NoRecordReads } from './reconcile';
import { reconcile } from './reconcile';

/*
 * Campaign → Dial Due Contacts: one short run. It settles what earlier runs left (claims never confirmed become
 * unknown; placed calls get their status read), counts the calls in flight from the table, and places the due
 * contacts while lines are free: each contact is claimed in the table (a conditional update only one run wins)
 * before its POST, and the platform's answer is written right after. A crash between the two leaves a claim that
 * the next run marks unknown, never dialled again automatically.
 */

export const description: INodeProperties[] = [
	...dialProperties,
	...placementProperties({ resource: ['campaign'], operation: ['dial'] }, 'campaignDial'),
];

interface Run {
	ctx: IExecuteFunctions;
	table: ContactsTable;
	settings: DialSettings;
	policy: RetryPolicy;
	request: RequestSettings;
	baseURL: string;
	credentialKey: string;
	/** The campaign's dial lease, held while the run counts and claims (kept before each claim). */
	lease?: DialLease;
	output: IDataObject[];
	/** Numbers in flight or claimed in this run (a number is never in two calls of the campaign at once). */
	busyNumbers: Set<string>;
	stop?: string;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	refuseAutomaticRetry(node, false);
	let run: Run;
	try {
		const settings = readDialSettings(this);
		const table = await openContactsTable(this, CONTACTS_TABLE_FIELD, settings.table, dialTextColumns(settings));
		run = {
			ctx: this,
			table,
			settings,
			policy: readRetryPolicy(node, this.getNodeParameter('retryPolicy', 0, {}), 0),
			request: readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0),
			baseURL: await outboundBaseUrl(this),
			credentialKey: await credentialAssistantKey(this),
			output: [],
			busyNumbers: new Set(),
		};
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	const summary: IDataObject = { campaign: run.table.name };
	const notRunning = async () => {
		summary.status = (await campaignStatus(this, run.table)).status;
		return summary.status === 'running' ? undefined : [[{ json: { ...summary, placed: 0, message: `The campaign is ${summary.status}: nothing was dialled.` } }]];
	};
	const before = await notRunning();
	if (before) return before;
	// One dial run at a time per campaign: its calls in flight are counted, then lines filled, with no other run
	// filling the same lines meanwhile (dialLease: renewed before each claim while the run lasts; a crashed run's
	// lease ends a minute after its last renewal). A run that finds it held waits for it, reading it every Check
	// Interval, while its own Keep Dialling For lasts (so the next scheduled run takes over the lines as soon as the
	// one before ends); with no Keep Dialling For it ends at once.
	const lease = dialLease(this, run.table.id);
	const until = Date.now() + run.settings.keepMs;
	for (let waited = false; ; waited = true) {
		if (await lease.take()) {
			// Paused or stopped while this run waited: the lease is given back, nothing is dialled.
			const meanwhile = waited ? await notRunning() : undefined;
			if (!meanwhile) break;
			await lease.release().catch(() => undefined);
			return meanwhile;
		}
		if (Date.now() + run.settings.checkMs > until || this.getExecutionCancelSignal?.()?.aborted) {
			return [[{ json: { ...summary, placed: 0, message: 'Another run of this campaign is dialling: nothing was dialled by this one.' } }]];
		}
		await sleep(run.settings.checkMs);
	}
	run.lease = lease;
	try {
		await dialRun(this, run, summary, until);
	} finally {
		await lease.release().catch(() => undefined);
	}
	return [[{ json: summary }, ...run.output.map((json) => ({ json }))]];
}

/** The calls this run placed: its output items that say so. */
function placedBy(run: Run): number {
	return run.output.filter((o) => o.campaignState === 'placed').length;
}

async function dialRun(ctx: IExecuteFunctions, run: Run, summary: IDataObject, until: number): Promise<void> {
	const totals: Record<string, number> = {};
	let inFlightBefore: number | undefined;
	const noRecord: NoRecordReads = new Map();
	for (let pass = 0; ; pass++) {
		if (!(await keepLease(run))) break;
		// The calls in flight, read once per pass: settled first (unconfirmed claims, status records), then counted.
		const flight = await rowsInFlight(ctx, run.table, run.settings.maxInFlight + MAX_READ_PER_PASS);
		const { report, ended } = await reconcile(ctx, run.table, run.settings, run.policy, run.request, run.baseURL, flight.rows, noRecord);
		for (const [key, value] of Object.entries(report)) totals[key] = (totals[key] ?? 0) + Number(value);
		run.busyNumbers.clear();
		const live = flight.rows.filter((row) => !ended.has(row.id));
		for (const row of live) run.busyNumbers.add(dialNumber(row[run.settings.phoneColumn]));
		const inFlight = flight.more ? Math.max(live.length, run.settings.maxInFlight) : live.length;
		inFlightBefore ??= inFlight;
		const free = Math.max(0, Math.min(run.settings.maxInFlight - inFlight, run.settings.maxPerRun - placedBy(run)));
		if (free > 0) await dialDue(run, free, pass === 0);
		// One pass, unless Keep Dialling For says to go on while lines free up (and there may be more to place).
		if (run.stop || Date.now() + run.settings.checkMs > until || ctx.getExecutionCancelSignal?.()?.aborted) break;
		if (placedBy(run) >= run.settings.maxPerRun) break;
		await sleep(run.settings.checkMs);
	}
	Object.assign(summary, totals, { inFlightBefore, placed: placedBy(run) });
	if (run.stop) summary.stoppedBecause = run.stop;
}

/** Rows of calls in flight a pass reads beyond Max Calls in Flight: enough to settle the ones waiting longest. */
const MAX_READ_PER_PASS = 250;
/** POSTs of one run at once: the claims before them are written one at a time, each POST starts right after its claim. */
const POSTS_AT_ONCE = 50;

/** A number as the campaign compares numbers (a number is never in two calls of the campaign at once). */
function dialNumber(value: unknown): string {
	return String(value ?? '').replace(/[\s().-]/g, '');
}

/** Whether the run still holds its dial lease (renewed when it runs low); when it lost it, the run stops saying so. */
async function keepLease(run: Run): Promise<boolean> {
	if (!run.lease || (await run.lease.keep())) return true;
	run.stop = 'the dial lease was taken by another run (this run could not renew it in time): the lines are theirs to count';
	return false;
}

/**
 * Claims up to `free` due contacts, one at a time, and places each one's call as soon as it is claimed: once the
 * platform has accepted a call of this run, up to POSTS_AT_ONCE POSTs at once, so a platform that answers slowly
 * still fills the free lines. Rows added without a state
 * are made pending when the due read comes back short (`activate`: the run's first pass).
 */
async function dialDue(run: Run, free: number, activate: boolean): Promise<void> {
	const wanted = Math.min(MAX_ROWS_PER_PAGE, free * 4 + 10);
	const readDue = async () =>
		await rowsInState(run.ctx, run.table, 'pending', wanted, [{ columnName: 'nextAttemptAt', condition: 'lte', value: Date.now() }]);
	let due = await readDue();
	if (activate && due.length < wanted) {
		await activateNewRows(run.ctx, run.table);
		due = await readDue();
	}
	due.sort((a, b) => Number(a.nextAttemptAt ?? 0) - Number(b.nextAttemptAt ?? 0) || a.id - b.id);
	const posting = new Set<Promise<void>>();
	let launched = 0;
	let accepted = false;
	let failure: unknown;
	for (const raw of due) {
		// The run's output stays bounded: at most Max Calls per Run items, whatever happened to each contact.
		if (launched >= free || run.stop || failure !== undefined || run.output.length + posting.size >= run.settings.maxPerRun) break;
		const contact = asContact(raw);
		if ('invalid' in contact) {
			run.output.push({ rowId: raw.id, campaignState: 'skipped', reason: contact.invalid });
			continue;
		}
		// Counted and claimed under the lease: a run that lost it claims nothing more (another run counts the lines).
		if (!(await keepLease(run))) break;
		const claimed = await claim(run, contact, Date.now());
		if (!claimed) continue;
		launched++;
		const post: Promise<void> = place(run, claimed)
			.then((placed) => {
				if (placed) accepted = true;
			})
			.catch((error: unknown) => {
				failure ??= error;
			})
			.finally(() => posting.delete(post));
		posting.add(post);
		// One POST at a time until the platform has accepted one in this run: a platform that fails every call, or
		// refuses the account, gets one call before the run stops, not a line's worth.
		while (posting.size >= (accepted ? POSTS_AT_ONCE : 1)) await Promise.race(posting);
	}
	await Promise.all(posting);
	if (failure !== undefined) throw failure;
}

/** A contact this run holds, and its call as it will be placed. */
interface Claimed {
	row: ContactRow;
	placement: Placement;
}

/** The checks before a claim (attempts, calling hours, a number already in a call, the number itself), then the claim itself. */
async function claim(run: Run, contact: ContactRow, now: number): Promise<Claimed | undefined> {
	const { ctx, table } = run;
	if (contact.attempt >= run.policy.maxAttempts) {
		await changeRow(ctx, table, contact, { campaignState: 'finished', reason: `out of attempts (${contact.attempt} of ${run.policy.maxAttempts})` });
		return undefined;
	}
	const window = contactWindow(ctx, run.settings, contact);
	if (window && 'invalid' in window) {
		await changeRow(ctx, table, contact, { campaignState: 'failed', reason: `not dialled: ${window.invalid}` });
		return undefined;
	}
	if (window && !isOpen(window, now)) {
		await changeRow(ctx, table, contact, { nextAttemptAt: nextOpening(window, now), reason: `outside calling hours (${window.label})` });
		return undefined;
	}
	const number = dialNumber(contact[run.settings.phoneColumn]);
	if (run.busyNumbers.has(number)) return undefined;
	// The number is checked before the claim: one that cannot be dialled is failed from pending, never claimed (a
	// stop between a claim and its write would leave it unknown, "may have been placed", though nothing could be).
	const placement = placementOf(run, contact);
	const stillAsRead = [
		{ columnName: 'campaignState', condition: 'eq' as const, value: 'pending' },
		{ columnName: run.settings.phoneColumn, condition: 'eq' as const, value: String(contact[run.settings.phoneColumn] ?? '') },
	];
	if ('invalid' in placement) {
		const failed = { campaignState: 'failed', reason: `not dialled: ${placement.invalid}` };
		if (await changeRow(ctx, table, contact, failed, stillAsRead)) {
			run.output.push({ rowId: contact.id, phone: contact[run.settings.phoneColumn] as IDataObject[string], attempt: contact.attempt, ...failed });
		}
		return undefined;
	}
	const claimed = await changeRow(
		ctx,
		table,
		contact,
		{
			campaignState: 'claimed',
			attempt: contact.attempt + 1,
			claimToken: writeToken(ctx),
			claimedAt: now,
			internalId: '',
			dialStatus: '',
			// The policy this call's result is applied under, wherever the result arrives (Record Call Result reads it).
			reason: `attempt ${contact.attempt + 1} of ${run.policy.maxAttempts}, under the ${policyNote(run.policy)}`,
		},
		// Still pending, and still the number read: a contact edited meanwhile is read again by the next run.
		stillAsRead,
	);
	if (!claimed) return undefined;
	run.busyNumbers.add(number);
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

/** Places the call of a claimed contact and writes what the platform answered; true when it was placed. */
async function place(run: Run, { row, placement }: Claimed): Promise<boolean> {
	const { ctx } = run;
	const node = ctx.getNode();
	try {
		// The result finds its contact by this claim even when the run stops before the internal_id is written.
		carryInCallResultUrl(node, 0, placement, { attempt: row.attempt, context: claimContext(row) });
	} catch (error) {
		// The Call Result URL with the claim is too long or not a URL: a field of the node; the claim is given back.
		await release(run, row, (error as Error).message);
		throw markNoCallPlaced(error as Error);
	}
	let accepted: IDataObject;
	try {
		const response = await outboundApi(ctx, run.request, 'POST', placement.path, {
			baseURL: run.baseURL,
			body: placement.body,
			retry: false,
			passStatuses: [429],
		});
		if (response.statusCode === 429) {
			await release(run, row, "the account's limit of calls at once was reached (429): not placed, due again now");
			run.stop = "the platform answered 429: the account's lines are full";
			return false;
		}
		accepted = placedItem(node, placement, response, new Date().toISOString(), 0);
	} catch (error) {
		const outcome = outcomeOf(error);
		const message = (error as Error).message;
		const status = Number((error as { httpCode?: unknown }).httpCode);
		if (status === 401 || status === 403) {
			// The account or its key, not this contact: nothing was placed; the claim is given back and the run ends.
			await release(run, row, `not placed: ${message}`);
			throw markNoCallPlaced(error as Error);
		}
		if (outcome === 'rejected') await record(run, row, { campaignState: 'failed', reason: `refused by the platform: ${message}` });
		else {
			await record(run, row, { campaignState: 'unknown', reason: `outcome unknown: ${message}; the call may have been placed and is never dialled again automatically` });
			// A platform that leaves outcomes unknown would do it to every contact of the run: the run stops here.
			run.stop = `the outcome of a call is unknown (${message})`;
		}
		return false;
	}
	await record(run, row, { campaignState: 'placed', internalId: String(accepted.internal_id), placedAt: Date.now() }, accepted);
	return true;
}

/** Gives a claim back (nothing was placed): pending again, due now, the attempt not spent. */
async function release(run: Run, row: ContactRow, reason: string): Promise<void> {
	await changeRow(run.ctx, run.table, row, { campaignState: 'pending', attempt: row.attempt - 1, claimToken: '', reason });
}

/**
 * Writes what happened to a claimed contact (a write whose answer is lost is read back and, when n8n did not apply
 * it, written again: changeRow). The output says what was written.
 */
async function record(run: Run, row: ContactRow, data: IDataObject, accepted?: IDataObject): Promise<void> {
	let written: ContactRow | undefined;
	let lastError: Error | undefined;
	try {
		written = await changeRow(run.ctx, run.table, row, data, [{ columnName: 'claimToken', condition: 'eq', value: String(row.claimToken ?? '') }]);
	} catch (error) {
		lastError = error as Error;
	}
	const out: IDataObject = {
		rowId: row.id,
		phone: row[run.settings.phoneColumn] as IDataObject[string],
		attempt: row.attempt,
		...data,
	};
	if (accepted) out.internal_id = accepted.internal_id;
	if (!written) {
		out.recorded = false;
		out.warning = `The contacts table could not be written${lastError ? ` (${lastError.message})` : ''}: the contact stays claimed and the next run marks it unknown; it is never dialled again automatically.`;
	}
	run.output.push(out);
	if (!written && data.campaignState === 'placed' && lastError) {
		throw new NodeOperationError(run.ctx.getNode(), `The call to row ${row.id} was placed (internal_id ${String(accepted?.internal_id)}) but could not be recorded`, {
			description: `${String(out.warning)} Dialling stopped for this run.`,
		});
	}
}
