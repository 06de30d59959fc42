import { CONTROL_COLUMNS, CONTROL_TABLE } from '../../nodes/shared/campaign/campaignControl';
import { parseTimeline } from '../../nodes/shared/campaign/timeline';
import { useDurableCampaign } from '../harness/campaign';

/*
 * The timeline a campaign's dial runs keep in its control row (calls placed, lines busy, Max Calls in Flight, over
 * time), through n8n-core's WorkflowExecute: each run adds to what the run before left, a control table of an
 * earlier version gets the column, and a timeline that cannot be read never stops a run.
 */

const { n8nApi, numbers, controlRows, campaign, dial, prepared, endCalls } = useDurableCampaign();

const placed = (text: unknown) => parseTimeline(text).buckets.reduce((sum, b) => sum + b.placed, 0);

describe('the timeline the dial runs keep', () => {
	test('each run adds its calls and the lines it saw busy to the control row: runs add up, none overwrites another', async () => {
		await prepared(numbers(5));
		await dial({ maxCallsInFlight: 2 });
		const first = parseTimeline(controlRows()[0].timeline);
		expect(placed(controlRows()[0].timeline)).toBe(2);
		expect(Math.max(...first.buckets.map((b) => b.lines))).toBe(2);
		expect(Math.max(...first.buckets.map((b) => b.max))).toBe(2);
		await endCalls();
		await dial({ maxCallsInFlight: 3 });
		const second = parseTimeline(controlRows()[0].timeline);
		expect(placed(controlRows()[0].timeline)).toBe(5);
		expect(Math.max(...second.buckets.map((b) => b.max))).toBe(3);
		expect(String(controlRows()[0].timeline).length).toBeLessThan(2048);
	});

	test("a control table made before the timeline existed gets its column; a timeline someone broke is started again, and nothing stops", async () => {
		const older = Object.fromEntries(Object.keys(CONTROL_COLUMNS).filter((column) => column !== 'timeline').map((column) => [column, null]));
		n8nApi.store.seed(CONTROL_TABLE, [{ ...older, contactsTable: 'another campaign', status: 'running' }]);
		await prepared(numbers(2));
		expect((await dial()).error).toBeUndefined();
		expect(n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!.columns.map((c) => c.name)).toContain('timeline');
		const row = controlRows().find((r) => r.contactsTable !== 'another campaign')!;
		expect(placed(row.timeline)).toBe(2);
		const table = n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!;
		n8nApi.store.edit(table, row, { timeline: '{"w": "broken' });
		await endCalls();
		expect((await dial()).error).toBeUndefined();
		expect((await campaign('summary')).items[0].json).toMatchObject({ contacts: 2 });
		// Written again from an empty timeline: this run's passes.
		expect(JSON.parse(String(row.timeline))).toMatchObject({ w: 60_000, b: expect.arrayContaining([expect.any(Array)]) });
	});
});
