import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { DataTable } from '../transport/dataTables';
import { addColumn, ensureTable, findTable, readRows, tablesById } from '../transport/dataTables';
import { isObject } from '../core/object';

import { CONTROL_COLUMNS, CONTROL_TABLE } from './campaignControl';
import { STATE_COLUMNS } from './contactLife';

/*
 * The data tables of a campaign: the contacts table the node names (by name or id) and the control table every
 * campaign shares. Looking a table up by name costs a request to n8n's API; the ids found are kept in the node's
 * static data (n8n saves it with the workflow after every execution that is not a manual one), so a run whose ids are
 * known finds both tables, with their columns and when their rows last changed, in one request. The kept ids are only
 * a shortcut: a table they no longer name (deleted, renamed) is looked up again.
 */

export interface ContactsTable {
	id: string;
	name: string;
	/** When n8n last wrote a row of it (DataTable.updatedAt). */
	updatedAt: string;
	columns: Map<string, string>;
}

export interface CampaignTables {
	contacts: ContactsTable;
	/** The control table's id ('' when not asked for). */
	controlTableId: string;
}

interface Kept {
	control?: string;
	contacts?: Record<string, string>;
}

const KEPT = 'campaignTables';

function kept(ctx: IExecuteFunctions): Kept {
	let data: IDataObject;
	try {
		data = ctx.getWorkflowStaticData('node');
	} catch {
		return {};
	}
	if (!isObject(data[KEPT])) data[KEPT] = {};
	return data[KEPT] as Kept;
}

function asContacts(table: DataTable): ContactsTable {
	return {
		id: table.id,
		name: table.name,
		updatedAt: String(table.updatedAt ?? ''),
		columns: new Map((table.columns ?? []).map((column) => [column.name, String(column.type ?? '')])),
	};
}

function hasColumns(table: DataTable | undefined, columns: Record<string, string>): boolean {
	const have = new Set((table?.columns ?? []).map((column) => column.name));
	return Object.keys(columns).every((column) => have.has(column));
}

/**
 * The campaign's tables: the contacts table named in `field` (its name or id; refused, naming the field, when there
 * is none) and, with `control`, the control table (created on first use; a column a newer version of the package
 * keeps there is added to it).
 */
export async function findCampaignTables(ctx: IExecuteFunctions, field: string, ref: unknown, options: { control: boolean }): Promise<CampaignTables> {
	const node = ctx.getNode();
	const name = typeof ref === 'string' ? ref.trim() : typeof ref === 'number' ? String(ref) : '';
	if (name === '') throw new NodeOperationError(node, `Invalid "${field}": must name a data table (its name or id)`);
	const cache = kept(ctx);
	const knownContacts = cache.contacts?.[name];
	if (knownContacts && (!options.control || cache.control)) {
		const ids = options.control ? [knownContacts, cache.control as string] : [knownContacts];
		const found = await tablesById(ctx, ids);
		const contacts = found.find((table) => table.id === knownContacts);
		const control = found.find((table) => table.id === cache.control);
		const controlUsable = !options.control || (control?.name === CONTROL_TABLE && hasColumns(control, CONTROL_COLUMNS));
		if (contacts && (contacts.id === name || contacts.name === name) && controlUsable) {
			return { contacts: asContacts(contacts), controlTableId: options.control ? (control as DataTable).id : '' };
		}
	}
	const contacts = await findTable(ctx, name);
	if (!contacts) {
		throw new NodeOperationError(node, `Invalid "${field}": no data table "${name}" in the project of the n8n API key`, {
			description: 'Create it in n8n (Overview > Data tables, or import a CSV there), or check the Assistant Platform Data Tables API credential.',
		});
	}
	let controlTableId = '';
	if (options.control) controlTableId = (await ensureTable(ctx, CONTROL_TABLE, CONTROL_COLUMNS, undefined, { addMissing: true })).table.id;
	if (cache.contacts?.[name] !== contacts.id) cache.contacts = { ...(cache.contacts ?? {}), [name]: contacts.id };
	if (options.control && cache.control !== controlTableId) cache.control = controlTableId;
	return { contacts: asContacts(contacts), controlTableId };
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
 * Checks the contacts table before anything is dialled: each of `textColumns` a text (string) column, and every
 * campaign column there. `prepare` adds the missing campaign columns instead of refusing.
 */
export async function checkColumns(ctx: IExecuteFunctions, table: ContactsTable, textColumns: TextColumn[], options: { prepare?: boolean } = {}): Promise<void> {
	const node = ctx.getNode();
	const have = [...table.columns.keys()].map((c) => `"${c}"`).join(', ') || 'no columns';
	for (const text of textColumns) {
		const rule = `${text.field} must name a text (string) column`;
		const type = table.columns.get(text.column);
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
	const missing = (Object.keys(STATE_COLUMNS) as Array<keyof typeof STATE_COLUMNS>).filter((column) => !table.columns.has(column));
	if (missing.length === 0) return;
	if (!options.prepare) {
		throw new NodeOperationError(node, `The data table "${table.name}" lacks the campaign column(s) ${missing.join(', ')}`, {
			description: `Run Campaign → Prepare Contacts Table once (it adds them), or add them in n8n: ${missing.map((c) => `${c} (${STATE_COLUMNS[c]})`).join(', ')}. Nothing was dialled.`,
		});
	}
	for (const column of missing) {
		await addColumn(ctx, table.id, column, STATE_COLUMNS[column]);
		table.columns.set(column, STATE_COLUMNS[column]);
	}
}

/**
 * Whether the campaign has dialled before: a contact with a state. A control row created for such a campaign holds
 * the lease first (its old row may have been deleted while a run held it).
 */
export async function hasStarted(ctx: IExecuteFunctions, table: ContactsTable): Promise<boolean> {
	if (!table.columns.has('campaignState')) return false;
	const rows = await readRows(
		ctx,
		table.id,
		[
			{ columnName: 'campaignState', condition: 'neq', value: null },
			{ columnName: 'campaignState', condition: 'neq', value: '' },
		],
		1,
	);
	return rows.length > 0;
}
