import type { IDataObject } from 'n8n-workflow';

import type { CampaignFacts } from './progress';
import { amount, clock, count, STATE_GROUPS } from './progress';
import { PICTURE_HEIGHT, PICTURE_WIDTH } from './summaryPicture';

/*
 * Get Summary's web page: the picture (its dark palette when the browser prefers dark), the counts as a table, the
 * time of the last change, the rows that need a person, reloading itself. A Webhook answers GET with it (example 9):
 * one self-contained file, no script, nothing fetched (the picture is inside it), every text from the campaign
 * escaped.
 */

const STYLE = `
body{margin:0;padding:24px;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f2f4f7;color:#1d2939}
main{max-width:1100px;margin:0 auto}
.glance{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
.glance picture{flex:0 1 ${PICTURE_WIDTH}px}
.counts{flex:1 1 320px}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}
h2{font-size:18px;margin:24px 0 8px}
.meta{color:#475467;margin:0 0 16px}
img{display:block;max-width:100%;height:auto;border-radius:8px}
table{border-collapse:collapse;width:100%;margin-bottom:16px}
th,td{padding:4px 8px;border-bottom:1px solid #d0d5dd;text-align:left}
td{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:8px 0 4px}
.attention li{margin-bottom:6px}
.fix{color:#475467}
@media (prefers-color-scheme:dark){body{background:#0c111d;color:#f2f4f7}.meta,.fix{color:#98a2b3}th,td{border-color:#333d4d}}
`;

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The counts as the first table lists them: label, the JSON field it is, its value shown. */
function totals(facts: CampaignFacts): Array<[string, string, string]> {
	return [
		['Contacts', 'contacts', count(facts.contacts)],
		['Done', 'done', count(facts.done)],
		['Left', 'left', count(facts.dueNow + facts.waiting)],
		['Due now', 'dueNow', count(facts.dueNow)],
		['In flight', 'inFlight', count(facts.inFlight)],
		['Lines busy', 'linesHeld', count(facts.linesHeld)],
		['Answered in the last hour', 'answeredLastHour', count(facts.answeredLastHour)],
		['Spent', 'spent', amount(facts.spent)],
		...(facts.spendReserved ? [['Held for calls in flight', 'spendReserved', amount(facts.spendReserved)] as [string, string, string]] : []),
		['Suspicious results', 'suspiciousResults', count(facts.suspiciousResults)],
		['Rows that cannot be worked', 'cannotBeWorked', count(facts.cannotBeWorked)],
	];
}

/** The contacts by their campaignState, as the contacts table holds it (new: no state yet). */
function byState(facts: CampaignFacts): Array<[string, string, string]> {
	const labels: Record<string, string> = { new: 'new (no state yet)', other: 'other (a word the campaign does not know)' };
	return STATE_GROUPS.flatMap((group) => group.states).map((state) => [labels[state] ?? state, state, count(facts.counts[state] ?? 0)]);
}

function table(caption: string, rows: Array<[string, string, string]>): string {
	const body = rows.map(([label, field, value]) => `<tr><th>${escapeHtml(label)}</th><td data-count="${field}">${value}</td></tr>`).join('\n');
	return `<table>\n<caption>${escapeHtml(caption)}</caption>\n${body}\n</table>`;
}

function time(at: number, facts: CampaignFacts, field: string): string {
	return `<time data-field="${field}" datetime="${new Date(at).toISOString()}">${escapeHtml(clock(at, facts.now, facts.timeZone))}</time>`;
}

function attention(facts: CampaignFacts, needsAttention: IDataObject[]): string {
	const unknown = facts.counts.unknown ?? 0;
	const items: string[] = [];
	if (unknown > 0) items.push(`<li>${count(unknown)} contact(s) <strong>unknown</strong>: they may have been called. <span class="fix">Check the platform's call log; set a row's campaignState to pending to call it again.</span></li>`);
	if (facts.suspiciousResults > 0) {
		items.push(`<li>${count(facts.suspiciousResults)} <strong>suspicious result(s)</strong>: posted results its call's record contradicts. <span class="fix">Give the trigger a new Webhook Secret.</span></li>`);
	}
	for (const row of needsAttention) {
		items.push(`<li>Row ${escapeHtml(String(row.rowId))}: ${escapeHtml(String(row.problem))}. <span class="fix">${escapeHtml(String(row.fix))}</span></li>`);
	}
	const more = facts.cannotBeWorked - needsAttention.length;
	if (more > 0) items.push(`<li>${count(more)} more row(s) cannot be worked: run Get Summary for the list.</li>`);
	return items.length === 0 ? '<p data-field="attention">Nothing.</p>' : `<ul class="attention" data-field="attention">${items.join('')}</ul>`;
}

/** The page of `facts` with its pictures (PNG), reloading itself every `refreshSeconds`. */
export function progressPage(facts: CampaignFacts, pictures: { light: Buffer; dark: Buffer }, refreshSeconds: number, needsAttention: IDataObject[]): string {
	const name = escapeHtml(facts.campaign);
	const changed = facts.lastChangeAt === null ? 'no change yet' : `last change ${time(facts.lastChangeAt, facts, 'lastChangeAt')}`;
	const alt = `${facts.campaign}: ${count(facts.contacts)} contacts, ${count(facts.done)} done, ${count(facts.inFlight)} in flight, ${count(facts.dueNow + facts.waiting)} left`;
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${refreshSeconds}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${name}: campaign progress</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 data-field="campaign">${name}</h1>
<p class="meta">Status <strong data-field="status">${escapeHtml(facts.status)}</strong>, <span data-field="dialling">${facts.dialling ? 'dialling now' : 'not dialling'}</span>; ${changed}; shown ${time(facts.now, facts, 'shownAt')} (${escapeHtml(facts.timeZone)}). This page reloads itself every ${refreshSeconds} s.</p>
<div class="glance">
<picture>
<source media="(prefers-color-scheme: dark)" srcset="data:image/png;base64,${pictures.dark.toString('base64')}">
<img src="data:image/png;base64,${pictures.light.toString('base64')}" width="${PICTURE_WIDTH}" height="${PICTURE_HEIGHT}" alt="${escapeHtml(alt)}">
</picture>
<div class="counts">
${table('Progress', totals(facts))}
${table('Contacts by campaignState', byState(facts))}
</div>
</div>
<h2>Needs a person</h2>
${attention(facts, needsAttention)}
</main>
</body>
</html>
`;
}
