import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { asContact, CAMPAIGN_STATES, heldResultOf } from '../../../shared/campaign/contactLife';
import { eachRow } from '../../../shared/campaign/contactsTable';
import type { Timeline } from '../../../shared/campaign/timeline';
import { combined, emptyTimeline, record } from '../../../shared/campaign/timeline';
import type { CampaignTables } from '../../../shared/campaign/campaignTables';
import { campaignSpendKey, spendSoFar } from '../../../shared/guards/spend';
import { isToolRun } from '../../../shared/n8n/agentTool';
import { assertIntegerInRange, optionField } from '../../../shared/core/validation';
import type { Row } from '../../../shared/transport/dataTables';

import type { CampaignFacts } from './progress';
import { progressPage } from './progressPage';
import { campaign } from './status';
import { summaryPictures } from './summaryPicture';

/**
 * Campaign → Get Summary: the contacts counted by state (the whole table, page by page), in flight and due, what the
 * calls cost (the contacts' recorded spend, and what the calls in flight hold reserved under a Spending Limit counted
 * per campaign), the suspicious results counted in the control row, and every row the engine cannot work, with what
 * to fix. Beside the counts, a picture (PNG, binary `picture`) and, when asked, a web page (HTML, binary `page`),
 * drawn from the same read: the calls answered over time come from the rows read for the counts, the calls placed
 * and the lines busy from the timeline the dial runs keep in the control row, so neither adds a request.
 */

const show = { resource: ['campaign'], operation: ['summary'] };
const PICTURES = ['image', 'page', 'none'] as const;
const DEFAULT_REFRESH_SECONDS = 60;

export const description: INodeProperties[] = [
	{
		displayName: 'Picture',
		name: 'picture',
		type: 'options',
		noDataExpression: true,
		default: 'image',
		options: [
			{
				name: 'Image',
				value: 'image',
				description: 'A PNG of the campaign in the binary field "picture": n8n shows it in the output panel (Binary, View)',
			},
			{
				name: 'Image and Web Page',
				value: 'page',
				description: 'Also a web page in the binary field "page": the picture, the counts, the time of the last change; it reloads itself. Answer a Webhook with it.',
			},
			{ name: 'None', value: 'none', description: 'The counts only' },
		],
		displayOptions: { show },
	},
	{
		displayName: 'Page Refresh (Seconds)',
		name: 'pageRefreshSeconds',
		type: 'number',
		typeOptions: { minValue: 5, maxValue: 3600 },
		default: DEFAULT_REFRESH_SECONDS,
		description: 'How often the page reloads itself. Each reload runs Get Summary again, which reads the whole contacts table (250 rows a request).',
		displayOptions: { show: { ...show, picture: ['page'] } },
	},
];

/** Rows listed by name in `needsAttention` (all are counted). */
const LISTED = 20;
const HOUR = 3_600_000;
/** Calls answered longer ago than this are left out of the picture (a time someone typed into a row, say). */
const OLDEST_SHOWN = 400 * 24 * HOUR;

/** Why the engine cannot work a row, and what fixes it; undefined for a row it can work. */
function problemOf(row: Row, now: number): { problem: string; fix: string } | undefined {
	const state = row.campaignState;
	if (state === null || state === undefined || state === '') return undefined;
	const contact = asContact(row);
	if ('invalid' in contact) {
		return { problem: String(contact.invalid), fix: `set campaignState to one of ${CAMPAIGN_STATES.join(', ')} (pending to call the contact), and attempt and version to whole numbers (or empty)` };
	}
	if (contact.campaignState === 'pending' && !Number.isFinite(Number(row.nextAttemptAt ?? 0))) {
		return { problem: `row ${row.id} is pending with a nextAttemptAt that is not a time`, fix: 'set nextAttemptAt to 0 (due now) or a time in ms since 1970' };
	}
	if (contact.campaignState === 'unknown' && heldResultOf(row) && !contact.internalId) {
		return { problem: `row ${row.id} may have been called (unknown) and a result was posted for it: ${String(row.heldResult)}`, fix: "look the call up in the platform's call log; set campaignState to pending to call again" };
	}
	if ((contact.campaignState === 'claimed' || contact.campaignState === 'placed') && Number(row.lineUntil ?? 0) < now - 60_000) {
		return { problem: `row ${row.id} has been ${contact.campaignState} past its Max Call Length`, fix: 'the next dial run settles it (marks it unknown or records its result); none is running: publish the workflow' };
	}
	return undefined;
}

interface Tally {
	counts: Record<string, number>;
	total: number;
	dueNow: number;
	linesHeld: number;
	spent: number;
	needsAttention: IDataObject[];
	cannotBeWorked: number;
	/** The calls answered, by when they ended. */
	answered: Timeline;
	answeredLastHour: number;
}

/** Every row of the contacts table, read once (page by page) and counted. */
async function tally(ctx: IExecuteFunctions, tables: CampaignTables, now: number): Promise<Tally> {
	const t: Tally = {
		counts: Object.fromEntries([...CAMPAIGN_STATES, 'new', 'other'].map((state) => [state, 0])),
		total: 0,
		dueNow: 0,
		linesHeld: 0,
		spent: 0,
		needsAttention: [],
		cannotBeWorked: 0,
		answered: emptyTimeline(),
		answeredLastHour: 0,
	};
	await eachRow(ctx, tables.contacts, (row) => {
		t.total++;
		const state = row.campaignState;
		const key = state === null || state === undefined || state === '' ? 'new' : typeof state === 'string' && Object.hasOwn(t.counts, state) ? state : 'other';
		t.counts[key]++;
		if ((key === 'pending' && Number(row.nextAttemptAt ?? 0) <= now) || key === 'new') t.dueNow++;
		if (Number(row.lineUntil ?? 0) > now || key === 'claimed' || key === 'placed') t.linesHeld++;
		t.spent += Number(row.spent) || 0;
		const endedAt = Number(row.endedAt);
		if (key === 'answered' && endedAt > now - OLDEST_SHOWN && endedAt <= now + 60_000) {
			t.answered = record(t.answered, endedAt, { answered: 1 });
			if (endedAt > now - HOUR) t.answeredLastHour++;
		}
		const problem = problemOf(row, now);
		if (problem) {
			t.cannotBeWorked++;
			if (t.needsAttention.length < LISTED) t.needsAttention.push({ rowId: row.id, ...problem });
		}
	});
	return t;
}

/** When the campaign last changed: a row written (the table's updatedAt) or its status set, the later. */
function lastChange(tables: CampaignTables, statusChangedAt: number | null): number | null {
	const written = Date.parse(tables.contacts.updatedAt);
	const times = [Number.isFinite(written) ? written : 0, statusChangedAt ?? 0];
	const latest = Math.max(...times);
	return latest > 0 ? latest : null;
}

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	// An AI agent's model reads the JSON only: no picture is drawn for it.
	const picture = isToolRun(node) ? 'none' : optionField(node, 'Picture', this.getNodeParameter('picture', 0, 'image'), PICTURES, 0);
	const refresh = picture === 'page' ? assertIntegerInRange(node, 'Page Refresh (Seconds)', this.getNodeParameter('pageRefreshSeconds', 0, DEFAULT_REFRESH_SECONDS), 5, 3600, 0) : 0;
	const { tables, control } = await campaign(this);
	const now = Date.now();
	const t = await tally(this, tables, now);
	const lastChangeAt = lastChange(tables, control.statusChangedAt);
	const json: IDataObject = {
		campaign: tables.contacts.name,
		status: control.status,
		contacts: t.total,
		...t.counts,
		inFlight: t.counts.claimed + t.counts.placed,
		linesHeld: t.linesHeld,
		dueNow: t.dueNow,
		waiting: t.counts.pending + t.counts.new - t.dueNow,
		done: t.counts.answered + t.counts.finished + t.counts.failed + t.counts.doNotCall,
		// The sum of the contacts' recorded costs (six decimals, as the platform gives trafficCost).
		spent: Math.round(t.spent * 1e6) / 1e6,
		spendReserved: (await spendSoFar(this, campaignSpendKey(tables.contacts.id)))?.reserved ?? null,
		suspiciousResults: control.suspiciousResults,
		cannotBeWorked: t.cannotBeWorked,
		needsAttention: t.needsAttention,
		dialling: control.holder !== '' && control.until > now,
		answeredLastHour: t.answeredLastHour,
		lastChangeAt: lastChangeAt === null ? null : new Date(lastChangeAt).toISOString(),
	};
	if (control.extraRows > 0) json.controlRowsIgnored = control.extraRows;
	const item: INodeExecutionData = { json, pairedItem: { item: 0 } };
	if (picture !== 'none') {
		const timeline = record(combined(control.timeline, t.answered), now, {});
		const facts = factsOf(json, { timeline, lastChangeAt, now, timeZone: this.getTimezone() });
		item.binary = await binaries(this, facts, picture === 'page' ? refresh : undefined, t.needsAttention);
	}
	return [[item]];
}

function factsOf(json: IDataObject, rest: Pick<CampaignFacts, 'timeline' | 'lastChangeAt' | 'now' | 'timeZone'>): CampaignFacts {
	const n = (field: string) => Number(json[field]) || 0;
	return {
		campaign: String(json.campaign),
		status: String(json.status),
		dialling: json.dialling === true,
		contacts: n('contacts'),
		counts: Object.fromEntries([...CAMPAIGN_STATES, 'new', 'other'].map((state) => [state, n(state)])),
		inFlight: n('inFlight'),
		linesHeld: n('linesHeld'),
		done: n('done'),
		dueNow: n('dueNow'),
		waiting: n('waiting'),
		spent: n('spent'),
		spendReserved: typeof json.spendReserved === 'number' ? json.spendReserved : null,
		suspiciousResults: n('suspiciousResults'),
		cannotBeWorked: n('cannotBeWorked'),
		answeredLastHour: n('answeredLastHour'),
		...rest,
	};
}

/** The picture (and with `refresh`, the page) as the item's binary data, stored the way n8n stores binaries. */
async function binaries(ctx: IExecuteFunctions, facts: CampaignFacts, refresh: number | undefined, needsAttention: IDataObject[]): Promise<IBinaryKeyData> {
	const pictures = summaryPictures(facts);
	const name = facts.campaign.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'campaign';
	const binary: IBinaryKeyData = { picture: await ctx.helpers.prepareBinaryData(pictures.light, `${name}.png`, 'image/png') };
	if (refresh !== undefined) {
		const html = progressPage(facts, pictures, refresh, needsAttention);
		binary.page = await ctx.helpers.prepareBinaryData(Buffer.from(html, 'utf8'), `${name}.html`, 'text/html; charset=utf-8');
	}
	return binary;
}
