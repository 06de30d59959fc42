import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ColumnType, Condition, DataTable, Row } from '../transport/dataTables';
import { addColumn, ensureTable, findTable, forEachRow, insertRows, readRows, updateIfUnchanged, updateRows } from '../transport/dataTables';

/*
 * A campaign's state, kept in the contacts' own data table: one row per contact, with the columns below beside the
 * user's (phone, name, time zone, …). Every change of a row is a compare-and-set on its `version` that writes a
 * fresh `writeToken`: the writer whose token comes back won, any other writer read a stale row and changed
 * nothing. Whatever is irreversible (placing a call) happens only after the row says so (claimed), and what the
 * platform answers is written right after (placed, with its internal_id, or unknown), so a crash at any point
 * leaves a row that says what may have happened (docs/campaigns.md, "Durable campaigns").
 *
 * States: pending (due at nextAttemptAt), claimed (a dial run is placing the call), placed (the platform accepted
 * it: internalId), answered, finished (no further attempt: out of attempts, or an outcome not retried), failed
 * (the platform refused the placement, or the row cannot be dialled), unknown (the call may have been placed and
 * its outcome is not known: never dialled again automatically).
 */

export const CAMPAIGN_STATES = ['pending', 'claimed', 'placed', 'answered', 'finished', 'failed', 'unknown'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

/** The columns a contacts table needs for a durable campaign, beside the user's own. */
export const STATE_COLUMNS: Record<string, ColumnType> = {
	campaignState: 'string',
	attempt: 'number',
	nextAttemptAt: 'number',
	internalId: 'string',
	claimToken: 'string',
	claimedAt: 'number',
	placedAt: 'number',
	dialStatus: 'string',
	reason: 'string',
	version: 'number',
	writeToken: 'string',
};

export interface ContactRow extends Row {
	campaignState: CampaignState;
	attempt: number;
	nextAttemptAt: number;
	version: number;
	internalId?: string | null;
	claimToken?: string | null;
	claimedAt?: number | null;
	placedAt?: number | null;
}

export interface ContactsTable {
	id: string;
	name: string;
}

/**
 * A column of the user's that an operation reads as text (the phone number, the time zone): `field` is the node
 * field that names it, `alternative` what else the field allows (appended to the rule), `why` what goes wrong with a
 * column that is not text.
 */
export interface TextColumn {
	column: string;
	field: string;
	alternative?: string;
	why: string;
}

/**
 * The contacts table named (by id or name) in `field`, checked before anything is dialled: it must exist, have each
 * of `textColumns` as a text (string) column, and every state column. `prepare` adds the missing state columns
 * instead of refusing.
 */
export async function openContactsTable(
	ctx: IExecuteFunctions,
	field: string,
	ref: unknown,
	textColumns: TextColumn[],
	options: { prepare?: boolean } = {},
): Promise<ContactsTable> {
	const node = ctx.getNode();
	const name = typeof ref === 'string' ? ref.trim() : typeof ref === 'number' ? String(ref) : '';
	if (name === '') throw new NodeOperationError(node, `Invalid "${field}": must name a data table (its name or id)`);
	const table: DataTable | undefined = await findTable(ctx, name);
	if (!table) {
		throw new NodeOperationError(node, `Invalid "${field}": no data table "${name}" in the project of the n8n API key`, {
			description: 'Create it in n8n (Overview > Data tables, or import a CSV there), or check the Assistant Platform Data Tables API credential.',
		});
	}
	const columns = new Map((table.columns ?? []).map((column) => [column.name, String(column.type ?? '')]));
	const have = [...columns.keys()].map((c) => `"${c}"`).join(', ') || 'no columns';
	for (const text of textColumns) {
		const rule = `${text.field} must name a text (string) column`;
		const type = columns.get(text.column);
		if (type === undefined) {
			throw new NodeOperationError(node, `The data table "${table.name}" has no column "${text.column}": ${rule} of the table${text.alternative ?? ''}`, {
				description: `It has ${have}. ${text.why}`,
			});
		}
		if (type !== 'string') {
			const what = type === '' ? 'has no type' : `is a ${type} column`;
			throw new NodeOperationError(node, `The column "${text.column}" of the data table "${table.name}" ${what}: ${rule}${text.alternative ?? ''}`, {
				description: text.why,
			});
		}
	}
	const missing = Object.keys(STATE_COLUMNS).filter((column) => !columns.has(column));
	if (missing.length > 0) {
		if (!options.prepare) {
			throw new NodeOperationError(node, `The data table "${table.name}" lacks the campaign column(s) ${missing.join(', ')}`, {
				description: `Run Campaign → Prepare Contacts Table once (it adds them), or add them in n8n: ${missing.map((c) => `${c} (${STATE_COLUMNS[c]})`).join(', ')}. Nothing was dialled.`,
			});
		}
		for (const column of missing) await addColumn(ctx, table.id, column, STATE_COLUMNS[column]);
	}
	return { id: table.id, name: table.name };
}

/**
 * Rows added without a state (imported, or added while the campaign runs) become pending, due now: one update for
 * empty and blank cells (n8n's API takes only eq, neq, like, ilike, gt, gte, lt and lte in an update's filter; eq
 * null is IS NULL).
 */
export async function activateNewRows(ctx: IExecuteFunctions, table: ContactsTable): Promise<void> {
	await updateRows(
		ctx,
		table.id,
		[
			{ columnName: 'campaignState', condition: 'eq', value: null },
			{ columnName: 'campaignState', condition: 'eq', value: '' },
		],
		{ campaignState: 'pending', attempt: 0, nextAttemptAt: 0, version: 0 },
		undefined,
		false,
		'or',
	);
}

/** The calls in flight: every claimed or placed contact, in one read (page by page), up to `limit` rows. */
export async function rowsInFlight(ctx: IExecuteFunctions, table: ContactsTable, limit: number): Promise<{ rows: Row[]; more: boolean }> {
	const rows: Row[] = [];
	let more = false;
	await forEachRow(
		ctx,
		table.id,
		[
			{ columnName: 'campaignState', condition: 'eq', value: 'claimed' },
			{ columnName: 'campaignState', condition: 'eq', value: 'placed' },
		],
		(row) => {
			if (rows.length >= limit) {
				more = true;
				return false;
			}
			rows.push(row);
			return true;
		},
		'or',
	);
	return { rows, more };
}

/**
 * A row read back: its state, attempt and version as numbers; a row whose state is none of the campaign's is
 * refused (an unknown state is a row someone edited: it is never dialled, and the run says which).
 */
export function asContact(row: Row): ContactRow | { invalid: string } {
	const state = row.campaignState;
	if (typeof state !== 'string' || !(CAMPAIGN_STATES as readonly string[]).includes(state)) {
		return { invalid: `row ${row.id} has the campaign state ${JSON.stringify(state)}, which is none of ${CAMPAIGN_STATES.join(', ')}` };
	}
	const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value ?? 0));
	const contact = { ...row, attempt: number(row.attempt), nextAttemptAt: number(row.nextAttemptAt), version: number(row.version) };
	if (!Number.isInteger(contact.attempt) || contact.attempt < 0 || !Number.isInteger(contact.version)) {
		return { invalid: `row ${row.id} has an attempt or version that is not a whole number` };
	}
	return contact as ContactRow;
}

/**
 * Changes one row if nobody changed it since it was read (`row.version`): `data` and the next version are written
 * with a fresh token; the row as written when this writer won, else undefined. `also` narrows the update further
 * (e.g. the state it must still be in).
 */
export async function changeRow(
	ctx: IExecuteFunctions,
	table: ContactsTable,
	row: ContactRow,
	data: IDataObject,
	also: Condition[] = [],
): Promise<ContactRow | undefined> {
	const mine = await updateIfUnchanged(ctx, table.id, row, data, { tokenColumn: 'writeToken', also });
	if (!mine) return undefined;
	const contact = asContact(mine);
	return 'invalid' in contact ? undefined : contact;
}

/**
 * The claim a dial run puts in a call's Call Result URL (Result Context `campaignClaim`: the row id and its claim
 * token), so that the call's result finds its contact even when the run stopped after the POST, before it wrote
 * the call's internal_id. The token is fresh for every claim: a claim of an earlier attempt finds nothing.
 */
export const CLAIM_CONTEXT_FIELD = 'campaignClaim';

export function claimContext(row: ContactRow): Record<string, string> {
	return { [CLAIM_CONTEXT_FIELD]: `${row.id}:${String(row.claimToken ?? '')}` };
}

/**
 * The contact a claim names (claimContext) when it still holds that claim and no call was recorded for it: claimed,
 * or unknown after the next run found the claim unconfirmed. Undefined for anything else (a forged claim, a claim
 * of an earlier attempt, a contact whose call was recorded).
 */
export async function contactOfClaim(ctx: IExecuteFunctions, table: ContactsTable, claim: string): Promise<ContactRow | undefined> {
	const match = /^([1-9][0-9]{0,15}):(.+)$/.exec(claim.trim());
	if (!match) return undefined;
	const [row] = await readRows(
		ctx,
		table.id,
		[
			{ columnName: 'id', condition: 'eq', value: Number(match[1]) },
			{ columnName: 'claimToken', condition: 'eq', value: match[2] },
		],
		1,
	);
	const contact = row ? asContact(row) : undefined;
	if (!contact || 'invalid' in contact) return undefined;
	const unrecorded = contact.campaignState === 'claimed' || contact.campaignState === 'unknown';
	return unrecorded && !contact.internalId ? contact : undefined;
}

/** Rows in `state` (up to `limit`). */
export async function rowsInState(ctx: IExecuteFunctions, table: ContactsTable, state: CampaignState, limit: number, extra: Condition[] = []): Promise<Row[]> {
	return await readRows(ctx, table.id, [{ columnName: 'campaignState', condition: 'eq', value: state }, ...extra], limit);
}

/** Every row of the campaign (page by page), for counts; `visit` sees each. */
export async function eachRow(ctx: IExecuteFunctions, table: ContactsTable, visit: (row: Row) => void): Promise<void> {
	await forEachRow(ctx, table.id, [], visit);
}

// ------------------------------------------------------------------------------------------------ control

export const CONTROL_TABLE = 'Assistant Platform Campaigns';
const CONTROL_COLUMNS = { contactsTable: 'string', status: 'string', changedAt: 'number' } as const;
export type CampaignStatus = 'running' | 'paused' | 'stopped';

/**
 * A campaign's status is the last of its rows in the control table (one row appended per change, never updated:
 * two changes at once cannot overwrite each other, and the table is the history of who paused when). No row:
 * running.
 */
export async function campaignStatus(ctx: IExecuteFunctions, table: ContactsTable): Promise<{ status: CampaignStatus; changedAt: number | null }> {
	const { table: control } = await ensureTable(ctx, CONTROL_TABLE, CONTROL_COLUMNS);
	let last: Row | undefined;
	await forEachRow(ctx, control.id, [{ columnName: 'contactsTable', condition: 'eq', value: table.id }], (row) => {
		if (!last || row.id > last.id) last = row;
	});
	const status = last?.status;
	return {
		status: status === 'paused' || status === 'stopped' ? status : 'running',
		changedAt: typeof last?.changedAt === 'number' ? last.changedAt : null,
	};
}

export async function setCampaignStatus(ctx: IExecuteFunctions, table: ContactsTable, status: CampaignStatus): Promise<void> {
	const { table: control } = await ensureTable(ctx, CONTROL_TABLE, CONTROL_COLUMNS);
	await insertRows(ctx, control.id, [{ contactsTable: table.id, status, changedAt: Date.now() }]);
}
