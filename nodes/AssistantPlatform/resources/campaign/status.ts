import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { CampaignStatus, Control } from '../../../shared/campaign/campaignControl';
import { openControl, setStatus as writeStatus } from '../../../shared/campaign/campaignControl';
import type { CampaignTables } from '../../../shared/campaign/campaignTables';
import { findCampaignTables, hasStarted } from '../../../shared/campaign/campaignTables';
import { readRows } from '../../../shared/transport/dataTables';

import { CONTACTS_TABLE_FIELD } from './fields';

/*
 * What the Campaign control operations share: the campaign they name, and the change of its status (Pause, Resume,
 * Stop) without editing the workflow. Every dial run asks the control row before each POST (`go`), so once a Pause
 * or Stop is written no run sends another POST; a run that was allowed just before still sends that one. Pause and
 * Stop therefore return only once no contact is left claimed (every POST allowed before has been answered, or its
 * claim given back), so that when they return, no call is placed by any run. Calls in flight end as they would and
 * their results are still recorded; Resume lets runs dial again; a stopped campaign is not resumed.
 */

/** How long Pause and Stop wait for the claims a run holds to be answered or given back. */
const SETTLE_MS = 90_000;
const SETTLE_PAUSE_MS = 250;

export async function campaign(ctx: IExecuteFunctions): Promise<{ tables: CampaignTables; control: Control }> {
	const tables = await findCampaignTables(ctx, CONTACTS_TABLE_FIELD, ctx.getNodeParameter('contactsTable', 0, ''), { control: true });
	const control = await openControl(ctx, tables.controlTableId, tables.contacts.id, async () => await hasStarted(ctx, tables.contacts));
	return { tables, control };
}

export function setStatus(to: CampaignStatus) {
	return async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { tables, control } = await campaign(this);
		const name = tables.contacts.name;
		if (control.status === 'stopped' && to !== 'stopped') {
			throw new NodeOperationError(this.getNode(), `The campaign "${name}" is stopped: it cannot be ${to === 'running' ? 'resumed' : 'paused'}`, {
				description: 'A stopped campaign stays stopped. To call its contacts again, copy them into a new contacts table.',
			});
		}
		if (control.status !== to) await writeStatus(this, control, to);
		const json: IDataObject = { campaign: name, status: to, previousStatus: control.status };
		if (to !== 'running') Object.assign(json, await settleClaims(this, tables));
		return [[{ json }]];
	};
}

/**
 * Waits until no contact is claimed: every POST a run was allowed before the status changed has been answered (the
 * contact placed, failed or unknown) or its claim given back. A claim older than SETTLE_MS is a run that stopped
 * (n8n killed between the claim and its answer): it is reported, not waited for.
 */
async function settleClaims(ctx: IExecuteFunctions, tables: CampaignTables): Promise<IDataObject> {
	const started = Date.now();
	for (;;) {
		const claimed = await readRows(ctx, tables.contacts.id, [{ columnName: 'campaignState', condition: 'eq', value: 'claimed' }], 50);
		const fresh = claimed.filter((row) => Number(row.claimedAt) > started - SETTLE_MS);
		if (fresh.length === 0) {
			const settled: IDataObject = { claimsSettled: true, waitedMs: Date.now() - started };
			if (claimed.length > 0) {
				settled.unconfirmedClaims = claimed.map((row) => row.id);
				settled.message = `No run is placing calls. ${claimed.length} contact(s) were claimed by a run that stopped before its POST was answered: the next dial run marks them unknown (they may have been called).`;
			}
			return settled;
		}
		if (Date.now() - started > SETTLE_MS || ctx.getExecutionCancelSignal?.()?.aborted) {
			return {
				claimsSettled: false,
				waitedMs: Date.now() - started,
				stillClaimed: fresh.map((row) => row.id),
				message: `${fresh.length} contact(s) are still being placed by a run after ${Math.round(SETTLE_MS / 1000)} s: their POSTs were sent before this change; no other call is placed.`,
			};
		}
		await sleep(SETTLE_PAUSE_MS);
	}
}
