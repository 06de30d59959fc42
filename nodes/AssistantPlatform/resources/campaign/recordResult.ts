import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { countSuspiciousResult } from '../../../shared/campaign/campaignCounts';
import { asContact, changeRow, CLAIM_CONTEXT_FIELD, contactOfClaim, openContactsTable } from '../../../shared/campaign/contactsTable';
import type { ContactRow, ContactsTable } from '../../../shared/campaign/contactsTable';
import { readRows } from '../../../shared/transport/dataTables';
import { normalizeDialStatus } from '../../../shared/calls/dialStatuses';
import type { RetryPolicy } from '../../../shared/campaign/retryPolicy';
import { neverRetried, policyInNote } from '../../../shared/campaign/retryPolicy';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import type { RequestSettings } from '../../../shared/transport/settings';
import { readRequestSettings } from '../../../shared/transport/settings';
import { invalid, numberField, textField } from '../../../shared/core/validation';

import { CONTACTS_TABLE_FIELD } from './fields';
import { applyResult, readRecord, waitForRecord } from './results';

/*
 * Campaign → Record Call Result: a result (from the Assistant Platform Trigger's Call Result, Call Status or
 * anywhere) applied to its contact by internal_id, once. With Verify With Call Record (the default) the platform's
 * status record, read with the account's key, is the fact and the posted result only says which call ended: the
 * record's outcome is applied. The platform posts a result at hangup, a moment before it writes the record, so the
 * record is waited for (Wait for Call Record) and the result applied in this execution, freeing the call's line for
 * the next dial run at once; a record still missing after the wait leaves the result to a later read (the next dial
 * run's). A posted result that the record contradicts changes nothing the record does not say: it is reported
 * (suspicious) and counted for Get Summary, since anybody who has seen the Call Result URL can post to it. The
 * attempt is the table's: a URL cannot reset it.
 */

const show = { resource: ['campaign'], operation: ['recordResult'] };

export const DEFAULT_RECORD_WAIT_SECONDS = 5;
const MAX_RECORD_WAIT_SECONDS = 60;
const RECORD_WAIT_FIELD = 'Wait for Call Record (Seconds)';

export const description: INodeProperties[] = [
	{
		displayName: 'Internal ID',
		name: 'internalId',
		type: 'string',
		required: true,
		default: '={{ $json.internal_id }}',
		description: 'The internal_id of the call whose result this is (the trigger and Call Status give it as internal_id)',
		displayOptions: { show },
	},
	{
		displayName: 'Dial Status',
		name: 'dialStatus',
		type: 'string',
		default: '={{ $json.dialStatus }}',
		description:
			"The dial status the result reports (e.g. ANSWER, BUSY). With Verify With Call Record the record's status is applied, and a posted one that disagrees is reported as suspicious.",
		displayOptions: { show },
	},
	{
		displayName: 'Contact Claim',
		name: 'campaignClaim',
		type: 'string',
		default: `={{ ($json.context || {}).${CLAIM_CONTEXT_FIELD} || "" }}`,
		description:
			"The contact's claim that Dial Due Contacts put in the call's Call Result URL (the trigger gives it under context). It finds the contact when the dial run stopped after placing the call, before it wrote the call's internal_id. Leave as is.",
		displayOptions: { show },
	},
	{
		displayName: 'Verify With Call Record',
		name: 'verifyWithRecord',
		type: 'boolean',
		default: true,
		description:
			"Whether to read the call's status record before recording: the record is the platform's own word, where a posted result may be repeated, late or forged by anyone who has seen the Call Result URL",
		displayOptions: { show },
	},
	{
		displayName: RECORD_WAIT_FIELD,
		name: 'recordWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: MAX_RECORD_WAIT_SECONDS, numberPrecision: 1 },
		default: DEFAULT_RECORD_WAIT_SECONDS,
		description:
			"The platform posts a result at hangup, a moment before it writes the call's status record: keep reading for up to this long (0 to 60) so the result is recorded now and its line is free for the next dial run. 0: one read; a result whose record is not there yet is recorded by a later read (the next dial run's).",
		displayOptions: { show: { ...show, verifyWithRecord: [true] } },
	},
];

interface Call {
	id: string;
	/** The contact's claim from the Call Result URL (contactOfClaim), '' when there is none. */
	claim: string;
	reported: string;
	verify: boolean;
	waitMs: number;
	request: RequestSettings;
	baseURL: string;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	// Every setting is checked before n8n's API or the platform is asked for anything.
	const request = readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0);
	const verify = this.getNodeParameter('verifyWithRecord', 0, true) !== false;
	const waitMs = verify ? readRecordWait(node, this.getNodeParameter('recordWaitSeconds', 0, DEFAULT_RECORD_WAIT_SECONDS)) : 0;
	const table = await openContactsTable(this, CONTACTS_TABLE_FIELD, this.getNodeParameter('contactsTable', 0, ''), []);
	const baseURL = verify ? await outboundBaseUrl(this) : '';
	const items = this.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const id = textField(node, 'Internal ID', this.getNodeParameter('internalId', i, ''), i).trim();
		const reported = normalizeDialStatus(textField(node, 'Dial Status', this.getNodeParameter('dialStatus', i, ''), i, { numbers: false }));
		const claim = textField(node, 'Contact Claim', this.getNodeParameter('campaignClaim', i, ''), i, { numbers: false }).trim();
		const json = await recordOne(this, table, { id, claim, reported, verify, waitMs, request, baseURL });
		out.push({ json: { internal_id: id || null, ...json }, pairedItem: { item: i } });
	}
	return [out];
}

/** A policy that calls nobody again: enough for ANSWER and DONTCALL, which no policy calls again. */
const NO_RETRIES: RetryPolicy = { maxAttempts: 1, delays: new Map() };

function readRecordWait(node: INode, value: unknown): number {
	const seconds = numberField(node, RECORD_WAIT_FIELD, value, DEFAULT_RECORD_WAIT_SECONDS, 0);
	if (!(seconds >= 0 && seconds <= MAX_RECORD_WAIT_SECONDS)) throw invalid(node, RECORD_WAIT_FIELD, `must be a number from 0 to ${MAX_RECORD_WAIT_SECONDS}`, 0);
	return Math.round(seconds * 1000);
}

async function recordOne(ctx: IExecuteFunctions, table: ContactsTable, call: Call): Promise<IDataObject> {
	const calm = { suspicious: false };
	if (call.id === '') return { recorded: false, reason: 'no internal_id: nothing to record', ...calm };
	const rows = await readRows(ctx, table.id, [{ columnName: 'internalId', condition: 'eq', value: call.id }], 2);
	let found: ContactRow | { invalid: string } | undefined = rows.length > 0 ? asContact(rows[0]) : undefined;
	// A contact whose call was placed but whose internal_id was never written: found by its claim and given the
	// internal_id first (a later status read can then find its record too); the record decides its outcome below.
	if (!found && call.claim !== '') {
		const claimed = await contactOfClaim(ctx, table, call.claim);
		if (claimed) {
			const adopt = {
				campaignState: 'placed',
				internalId: call.id,
				// Placed right after its claim: Max Call Length counts from then.
				placedAt: Number(claimed.claimedAt) || Date.now(),
			};
			found = await changeRow(ctx, table, claimed, adopt, [{ columnName: 'claimToken', condition: 'eq', value: String(claimed.claimToken) }]);
		}
	}
	if (!found) return { recorded: false, reason: `no contact of the campaign "${table.name}" has this internal_id or claim`, ...calm };
	if ('invalid' in found) return { recorded: false, rowId: rows[0].id, reason: found.invalid, ...calm };
	const row = found;
	if (row.campaignState !== 'placed') {
		const done = { recorded: false, rowId: row.id, campaignState: row.campaignState, reason: `already recorded: the contact is ${row.campaignState}` };
		return { ...done, ...(await afterTheFact(ctx, table, row, call)) };
	}
	let status = call.reported;
	let suspicion: IDataObject = calm;
	if (call.verify) {
		const read = await waitForRecord(ctx, call.request, call.id, call.baseURL, call.waitMs);
		if (read.kind === 'none') {
			const waited = call.waitMs > 0 ? ` after ${call.waitMs / 1000} s (Wait for Call Record)` : '';
			return { recorded: false, rowId: row.id, reason: `no status record yet${waited}: the result is recorded when the record exists (the next dial run reads it)`, ...calm };
		}
		if (read.kind === 'unusable') return { recorded: false, rowId: row.id, reason: `${read.why}: the result is recorded by a later read`, ...calm };
		// The record decides; a posted result that says otherwise is counted before the record's outcome is written.
		if (status !== '' && status !== read.dialStatus) suspicion = await suspicious(ctx, table, call.reported, read.dialStatus);
		status = read.dialStatus;
	}
	if (status === '') return { recorded: false, rowId: row.id, reason: 'no dial status: nothing to record', ...suspicion };
	// The Retry Policy is the dial run's, written in the contact's reason when it was claimed. Only ANSWER and
	// DONTCALL need none; any other result of a contact whose claim carries none (claimed by an earlier version, or
	// marked unknown since) is applied by the next dial run's status read, under its own policy.
	const policy = policyInNote(row.reason) ?? (neverRetried(status) ? NO_RETRIES : undefined);
	if (!policy) {
		return { recorded: false, rowId: row.id, reason: `the contact's claim carries no Retry Policy: the next dial run records this result under its own`, ...suspicion };
	}
	const applied = await applyResult(ctx, table, row, status, policy, Date.now());
	if (!applied) return { recorded: false, rowId: row.id, reason: 'already recorded by another execution', ...suspicion };
	return { recorded: true, rowId: row.id, campaignState: applied.state, dialStatus: status, attempt: row.attempt, reason: applied.reason, ...suspicion };
}

/**
 * A result posted for a call whose contact has moved on (answered, finished, due again): the row is never written
 * again. A posted dial status other than the one the row holds is checked against the record (one read): when the
 * record contradicts it, the delivery is suspicious.
 */
async function afterTheFact(ctx: IExecuteFunctions, table: ContactsTable, row: ContactRow, call: Call): Promise<IDataObject> {
	if (!call.verify || call.reported === '' || call.reported === normalizeDialStatus(row.dialStatus)) return { suspicious: false };
	const read = await readRecord(ctx, call.request, call.id, call.baseURL);
	if (read.kind !== 'record' || read.dialStatus === call.reported) return { suspicious: false };
	return await suspicious(ctx, table, call.reported, read.dialStatus);
}

/** A posted result the platform's record contradicts: reported, and counted in the campaign's counts table. */
async function suspicious(ctx: IExecuteFunctions, table: ContactsTable, posted: string, recorded: string): Promise<IDataObject> {
	const out: IDataObject = {
		suspicious: true,
		postedDialStatus: posted,
		recordedDialStatus: recorded,
		warning: `The posted result (${posted}) disagrees with the platform's status record (${recorded}): the record stands. Whoever posted it may have seen the Call Result URL.`,
	};
	try {
		await countSuspiciousResult(ctx, table);
		out.suspiciousCounted = true;
	} catch (error) {
		out.suspiciousCounted = false;
		out.warning = `${String(out.warning)} It could not be counted: ${(error as Error).message}`;
	}
	return out;
}
