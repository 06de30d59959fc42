import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { Control, DialLease } from '../../../shared/campaign/campaignControl';
import { dialLease, OWNER_MS, openControl } from '../../../shared/campaign/campaignControl';
import { checkColumns, findCampaignTables, hasStarted } from '../../../shared/campaign/campaignTables';
import type { CampaignTables } from '../../../shared/campaign/campaignTables';
import { readRetryPolicy } from '../../../shared/campaign/retryPolicy';
import { outboundBaseUrl } from '../../../shared/transport/endpoint';
import { readRequestSettings } from '../../../shared/transport/settings';
import { credentialAssistantKey, refuseAutomaticRetry } from '../../../shared/calls/placement';
import { markNoCallPlaced } from '../../../shared/calls/messages';
import { placementProperties } from '../../../shared/descriptions/placementFields';
import type { Guards } from '../../../shared/guards/guards';
import { campaignGuards, readGuards } from '../../../shared/guards/guards';

import type { Run } from './claims';
import type { DialSettings } from './fields';
import { CONTACTS_TABLE_FIELD, dialProperties, dialTextColumns, readDialSettings } from './fields';
import type { Progress } from './dialRun';
import { closingWrite, dialPasses } from './dialRun';

/*
 * Campaign → Dial Due Contacts: one short run. It reads the campaign's control row first: a paused or stopped
 * campaign, another workflow's campaign, or one with nothing to do (the table unchanged since the last run found
 * nothing due, and nothing due until later) ends there, after two reads. Otherwise it takes the dial lease, settles
 * what earlier runs left, counts the lines held and places the due contacts while lines are free: each contact is
 * claimed in the table before its POST, each POST allowed by the control row first, and the platform's answer is
 * written right after.
 */

export const description: INodeProperties[] = [
	...dialProperties,
	...placementProperties({ resource: ['campaign'], operation: ['dial'] }, 'campaignDial'),
];

interface Setup {
	settings: DialSettings;
	guards: Guards;
	tables: CampaignTables;
	control: Control;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	refuseAutomaticRetry(node, false);
	let setup: Setup;
	let policy;
	let request;
	try {
		const settings = readDialSettings(this);
		policy = readRetryPolicy(node, this.getNodeParameter('retryPolicy', 0, {}), 0);
		request = readRequestSettings(node, this.getNodeParameter('requestOptions', 0, {}), 0);
		const guards = readGuards(this, request, { campaign: true });
		const tables = await findCampaignTables(this, CONTACTS_TABLE_FIELD, settings.table, { control: true });
		const control = await openControl(this, tables.controlTableId, tables.contacts.id, async () => await hasStarted(this, tables.contacts));
		setup = { settings, guards, tables, control };
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	const { settings, tables, control } = setup;
	const summary: IDataObject = { campaign: tables.contacts.name, status: control.status };
	const quiet = (message: string, extra: IDataObject = {}) => [[{ json: { ...summary, placed: 0, ...extra, message } }]];
	if (control.status !== 'running') return quiet(`The campaign is ${control.status}: nothing was dialled.`);
	refuseAnotherWorkflow(this, control);
	const now = Date.now();
	const gate = control.gate;
	if (gate.seen !== '' && gate.seen === tables.contacts.updatedAt && gate.inFlight === 0 && gate.dueAt > now) {
		const next = gate.dueAt >= Number.MAX_SAFE_INTEGER ? null : new Date(gate.dueAt).toISOString();
		return quiet(next ? `No contact is due before ${next}: nothing was dialled.` : 'No contact is due: every contact is done. Nothing was dialled.', { idle: true, nextDueAt: next });
	}
	let run: Run;
	try {
		await checkColumns(this, tables.contacts, dialTextColumns(settings));
		run = {
			ctx: this,
			table: tables.contacts,
			controlTableId: tables.controlTableId,
			settings,
			policy,
			request,
			guards: campaignGuards(setup.guards, tables.contacts.id),
			baseURL: await outboundBaseUrl(this),
			credentialKey: await credentialAssistantKey(this),
			lease: dialLease(this, control, workflowId(this)),
			output: [],
			lines: new Map(),
			queue: [],
			placed: 0,
		};
	} catch (error) {
		throw markNoCallPlaced(error as Error);
	}
	const until = Date.now() + settings.keepMs;
	const waited = await takeLease(this, run.lease, settings, until);
	if (waited) return quiet(waited.message, waited.extra);
	const progress: Progress = { lastRowId: control.lastRowId, known: control.lines, report: {}, timeline: run.lease.timeline() };
	try {
		await dialPasses(run, progress, until);
	} finally {
		const closing = await closingWrite(run, progress).catch(() => undefined);
		await run.lease.release(closing?.data).catch(() => undefined);
		if (closing && closing.gate.seen !== '') summary.nextDueAt = closing.gate.dueAt >= Number.MAX_SAFE_INTEGER ? null : new Date(closing.gate.dueAt).toISOString();
	}
	Object.assign(summary, progress.report, { placed: run.placed });
	if (run.halted) {
		summary.status = run.halted;
		summary.message = `The campaign was ${run.halted} during this run: ${run.placed} call(s) were placed before; nothing more was dialled.`;
	}
	if (run.stop) summary.stoppedBecause = run.stop;
	return [[{ json: summary }, ...run.output.map((json) => ({ json }))]];
}

function workflowId(ctx: IExecuteFunctions): string {
	return String(ctx.getWorkflow().id ?? '');
}

/**
 * One workflow dials a contacts table: a run of another workflow is refused while the campaign's owner dialled within
 * OWNER_MS (two workflows would share one lease and one Pause without either saying so).
 */
function refuseAnotherWorkflow(ctx: IExecuteFunctions, control: Control): void {
	const mine = workflowId(ctx);
	if (control.owner === '' || control.owner === mine || control.ownerSeenAt < Date.now() - OWNER_MS) return;
	const ago = Math.max(0, Math.round((Date.now() - control.ownerSeenAt) / 60_000));
	throw markNoCallPlaced(
		new NodeOperationError(ctx.getNode(), `This contacts table is dialled by another workflow (id ${control.owner}, its last run ${ago} minute(s) ago): one workflow dials a campaign`, {
			description: `Two workflows dialling one table would share its lines, its lease and its Pause. Unpublish the other workflow (or remove its Dial Due Contacts): this workflow may dial ${Math.round(OWNER_MS / 60_000)} minutes after the other's last run. To call the same people in another campaign, copy them into a new contacts table.`,
		}),
	);
}

/**
 * Takes the campaign's lease; one that finds it held waits for it, trying again every Check Interval while its own
 * Keep Dialling For lasts (so that the next scheduled run takes over the lines as soon as the one before ends). The
 * message to end with when the lease was not taken.
 */
async function takeLease(
	ctx: IExecuteFunctions,
	lease: DialLease,
	settings: DialSettings,
	until: number,
): Promise<{ message: string; extra?: IDataObject } | undefined> {
	for (;;) {
		const noGo = await lease.take();
		if (!noGo) return undefined;
		if (noGo.kind === 'status') return { message: `The campaign is ${noGo.status}: nothing was dialled.`, extra: { status: noGo.status } };
		if (Date.now() + settings.checkMs > until || ctx.getExecutionCancelSignal?.()?.aborted) {
			return { message: 'Another run of this campaign is dialling: nothing was dialled by this one.' };
		}
		await sleep(settings.checkMs);
	}
}
