import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { countSuspicious } from '../../../shared/campaign/campaignControl';
import { checkColumns, findCampaignTables } from '../../../shared/campaign/campaignTables';
import type { ContactRow, ContactsTableRef } from '../../../shared/campaign/contactLife';
import { asContact, holdResult, isIn } from '../../../shared/campaign/contactLife';
import { CLAIM_CONTEXT_FIELD, contactOfClaim, contactsOfCall } from '../../../shared/campaign/contactsTable';
import { normalizeDialStatus } from '../../../shared/calls/dialStatuses';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import type { RequestSettings } from '../../../shared/transport/settings';
import { readRequestSettings } from '../../../shared/transport/settings';
import { invalid, numberField, textField } from '../../../shared/core/validation';

import { CONTACTS_TABLE_FIELD } from './fields';
import { applyRecord, readRecord, waitForRecord } from './results';

/*
 * Campaign → Record Call Result: a result (from the Assistant Platform Trigger's Call Result, Call Status or
 * anywhere) applied to its contact, once. The contact is the one the Call Result URL's claim names (read by id), or
 * without a claim the one whose call has this internal_id; only the call that contact's own POST returned can move
 * it: a result naming another call is suspicious, counted for Get Summary, and moves nobody (anybody who has seen the
 * Call Result URL can post to it). A result for a contact whose POST is still unanswered is held in its row for the
 * dial run to judge. With Verify With Call Record (the default) the platform's status record, read with the
 * account's key, is the fact: the posted result only says which call ended. The platform posts a result at hangup, a
 * moment before it writes the record, so the record is waited for (Wait for Call Record) and the result applied in
 * this execution, freeing the call's line for the next dial run at once; a record still missing after the wait
 * leaves the result to a later read (the next dial run's). The attempt and the Retry Policy are the row's.
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

interface Campaign {
	table: ContactsTableRef;
	controlTableId: string;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	// Every setting is checked before n8n's API or the platform is asked for anything.
	const request = readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0);
	const verify = this.getNodeParameter('verifyWithRecord', 0, true) !== false;
	const waitMs = verify ? readRecordWait(node, this.getNodeParameter('recordWaitSeconds', 0, DEFAULT_RECORD_WAIT_SECONDS)) : 0;
	const tables = await findCampaignTables(this, CONTACTS_TABLE_FIELD, this.getNodeParameter('contactsTable', 0, ''), { control: true });
	await checkColumns(this, tables.contacts, []);
	const campaign = { table: tables.contacts, controlTableId: tables.controlTableId };
	const baseURL = verify ? await outboundBaseUrl(this) : '';
	const items = this.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const id = textField(node, 'Internal ID', this.getNodeParameter('internalId', i, ''), i).trim();
		const reported = normalizeDialStatus(textField(node, 'Dial Status', this.getNodeParameter('dialStatus', i, ''), i, { numbers: false }));
		const claim = textField(node, 'Contact Claim', this.getNodeParameter('campaignClaim', i, ''), i, { numbers: false }).trim();
		const json = await recordOne(this, campaign, { id, claim, reported, verify, waitMs, request, baseURL });
		out.push({ json: { internal_id: id || null, ...json }, pairedItem: { item: i } });
	}
	return [out];
}

function readRecordWait(node: INode, value: unknown): number {
	const seconds = numberField(node, RECORD_WAIT_FIELD, value, DEFAULT_RECORD_WAIT_SECONDS, 0);
	if (!(seconds >= 0 && seconds <= MAX_RECORD_WAIT_SECONDS)) throw invalid(node, RECORD_WAIT_FIELD, `must be a number from 0 to ${MAX_RECORD_WAIT_SECONDS}`, 0);
	return Math.round(seconds * 1000);
}

const calm = { suspicious: false };

/** The contact a result is for: the claim's (by id), else the one whose call has this internal_id. */
async function contactOf(ctx: IExecuteFunctions, campaign: Campaign, call: Call): Promise<ContactRow | { invalid: string; rowId?: number } | undefined> {
	if (call.claim !== '') return await contactOfClaim(ctx, campaign.table, call.claim);
	const [row] = await contactsOfCall(ctx, campaign.table, call.id);
	if (!row) return undefined;
	const contact = asContact(row);
	return 'invalid' in contact ? { ...contact, rowId: row.id } : contact;
}

async function recordOne(ctx: IExecuteFunctions, campaign: Campaign, call: Call): Promise<IDataObject> {
	if (call.id === '') return { recorded: false, reason: 'no internal_id: nothing to record', ...calm };
	const found = await contactOf(ctx, campaign, call);
	if (!found) {
		const what = call.claim !== '' ? 'holds this claim (a claim of an earlier attempt, or one nobody made)' : 'has this internal_id';
		return { recorded: false, reason: `no contact of the campaign "${campaign.table.name}" ${what}: nothing was changed`, ...calm };
	}
	if ('invalid' in found) return { recorded: false, rowId: found.rowId ?? null, reason: found.invalid, ...calm };
	const row = found;
	if (isIn(row, 'claimed') || (isIn(row, 'unknown') && !row.internalId)) return await held(ctx, campaign, row, call);
	if (String(row.internalId ?? '') !== call.id) {
		// Not the call this contact's POST returned: whoever posted it holds the URL, not the call.
		const warning = `This result names call ${call.id}, but the contact's own call is ${String(row.internalId || 'not known')}: nothing was changed. Whoever posted it may have seen the Call Result URL.`;
		return { recorded: false, rowId: row.id, campaignState: row.campaignState, reason: 'not the contact\'s call', ...(await suspicious(ctx, campaign, { warning, postedInternalId: call.id })) };
	}
	if (!isIn(row, 'placed', 'unknown')) {
		const done = { recorded: false, rowId: row.id, campaignState: row.campaignState, reason: `already recorded: the contact is ${row.campaignState}` };
		return { ...done, ...(await afterTheFact(ctx, campaign, row, call)) };
	}
	return await apply(ctx, campaign, row, call);
}

/**
 * A result for a contact whose POST has not answered yet (claimed), or whose POST's outcome was never known: it is
 * held in the row (holdResult), never applied. The dial run compares it with the internal_id its POST returns.
 */
async function held(ctx: IExecuteFunctions, campaign: Campaign, row: ContactRow<'claimed' | 'unknown'>, call: Call): Promise<IDataObject> {
	const note = `${call.id} ${call.reported} posted ${new Date().toISOString()}`;
	if (isIn(row, 'claimed') && (await holdResult(ctx, campaign.table, row, note))) {
		return { recorded: false, rowId: row.id, campaignState: 'claimed', reason: "held: the contact's call is still being placed; the dial run judges this result once its POST's internal_id is written", ...calm };
	}
	return {
		recorded: false,
		rowId: row.id,
		campaignState: row.campaignState,
		reason: "not recorded: the contact's call was never confirmed by the platform, so no result can be matched to it; look the number up in the platform's call log",
		...calm,
	};
}

/** The result of the contact's own call: verified with its record (when asked), then applied under the row's Retry Policy. */
async function apply(ctx: IExecuteFunctions, campaign: Campaign, row: ContactRow<'placed' | 'unknown'>, call: Call): Promise<IDataObject> {
	let record: { dialStatus: string; contradiction?: string; trafficCost?: unknown } = { dialStatus: call.reported };
	let suspicion: IDataObject = calm;
	if (call.verify) {
		const read = await waitForRecord(ctx, call.request, call.id, call.baseURL, call.waitMs);
		if (read.kind === 'none') {
			const waited = call.waitMs > 0 ? ` after ${call.waitMs / 1000} s (Wait for Call Record)` : '';
			return { recorded: false, rowId: row.id, reason: `no status record yet${waited}: the result is recorded when the record exists (the next dial run reads it)`, ...calm };
		}
		if (read.kind === 'unusable') return { recorded: false, rowId: row.id, reason: `${read.why}: the result is recorded by a later read`, ...calm };
		// The record decides; a posted result that says otherwise is counted before the record's outcome is written.
		if (call.reported !== '' && call.reported !== read.record.dialStatus) suspicion = await disagreeing(ctx, campaign, call.reported, read.record.dialStatus);
		record = { dialStatus: read.record.dialStatus, contradiction: read.record.contradiction, trafficCost: read.record.record.trafficCost };
	}
	if (record.dialStatus === '') return { recorded: false, rowId: row.id, reason: 'no dial status: nothing to record', ...suspicion };
	const applied = await applyRecord(ctx, campaign.table, row, record, Date.now());
	if (applied === 'noPolicy') {
		return { recorded: false, rowId: row.id, reason: "the contact's retryPolicy cell cannot be read: the next dial run records this result under its own Retry Policy", ...suspicion };
	}
	if (!applied) return { recorded: false, rowId: row.id, reason: 'already recorded by another execution', ...suspicion };
	return { recorded: true, rowId: row.id, campaignState: applied.state, dialStatus: record.dialStatus, attempt: row.attempt, reason: applied.reason, ...suspicion };
}

/**
 * A result posted for a call whose contact has moved on (answered, finished, due again): the row is never written
 * again. A posted dial status other than the one the row holds is checked against the record (one read): when the
 * record contradicts it, the delivery is suspicious.
 */
async function afterTheFact(ctx: IExecuteFunctions, campaign: Campaign, row: ContactRow, call: Call): Promise<IDataObject> {
	if (!call.verify || call.reported === '' || call.reported === normalizeDialStatus(row.dialStatus)) return calm;
	const read = await readRecord(ctx, call.request, call.id, call.baseURL);
	if (read.kind !== 'record' || read.record.dialStatus === call.reported) return calm;
	return await disagreeing(ctx, campaign, call.reported, read.record.dialStatus);
}

/** A posted result the platform's record contradicts: reported, and counted. */
async function disagreeing(ctx: IExecuteFunctions, campaign: Campaign, posted: string, recorded: string): Promise<IDataObject> {
	const warning = `The posted result (${posted}) disagrees with the platform's status record (${recorded}): the record stands. Whoever posted it may have seen the Call Result URL.`;
	return await suspicious(ctx, campaign, { warning, postedDialStatus: posted, recordedDialStatus: recorded });
}

/** A suspicious delivery: reported, and counted in the campaign's control row (Get Summary's suspiciousResults). */
async function suspicious(ctx: IExecuteFunctions, campaign: Campaign, fields: IDataObject & { warning: string }): Promise<IDataObject> {
	const out: IDataObject = { suspicious: true, ...fields };
	try {
		await countSuspicious(ctx, campaign.controlTableId, campaign.table.id);
		out.suspiciousCounted = true;
	} catch (error) {
		out.suspiciousCounted = false;
		out.warning = `${fields.warning} It could not be counted: ${(error as Error).message}`;
	}
	return out;
}
