import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { LIMIT_TABLE } from '../../nodes/shared/calls/callLimit';
import { runAgent, TOOL_TYPE } from '../harness/agent';
import type { ToolCall } from '../harness/agent';
import { registerNodeType, runNode } from '../harness/engine';
import { callAsMcpClient } from '../harness/mcp';
import { callLimit } from '../harness/guardrails';
import { useN8nDataTables } from '../harness/n8nDataTables';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * Who may place how many calls, on every route an agent takes to Place Call:
 * - Max Calls per Agent Run counts the calls of one AI agent run (the calling node is an agent: this tool and a
 *   language model are attached to it). A tool called by anything else (an MCP Server Trigger runs each MCP tool
 *   call as an execution of its own) cannot name an agent run: it refuses, rather than count per execution.
 * - Limit Calls Across Executions counts in a data table of n8n (through n8n's API), across executions: each
 *   place is taken by a conditional update only one writer wins, before the POST; a call the platform refused
 *   gives its place back; an unknown outcome keeps it.
 */

const CALL_AND_WAIT_TYPE = 'test.limitedCallAndWait';
registerNodeType(CALL_AND_WAIT_TYPE, new AssistantPlatformCallAndWait());

const CALLER = '+390212345678';
const PLACE_CALL = 'Place Call';
const fx = useSandbox();
useCallerAssistant(fx, CALLER);

const n8nApi = useN8nDataTables();

const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');
const call = (dst: string): ToolCall => ({ tool: PLACE_CALL, input: { Destination_Number: dst } });
const credentials = () => ({ ...fx.credentials, assistantPlatformN8nApi: n8nApi.store.credentials });
const LIMIT = callLimit(1);
const tool = (extra: IDataObject = {}) => ({
	name: PLACE_CALL,
	parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...extra },
});
const ledger = () => JSON.parse(String(n8nApi.store.tables.find((t) => t.name === LIMIT_TABLE)?.rows[0]?.ledger ?? '{}')) as Record<string, number[]>;

async function place(parameters: IDataObject, options: { items?: number; batch?: number } = {}) {
	return await runNode({
		parameters: {
			resource: 'outboundCall',
			operation: 'placeCall',
			callerId: CALLER,
			dst: '={{ "+1415555010" + $itemIndex }}',
			...(options.batch ? { requestOptions: { batching: { batch: { batchSize: options.batch, batchInterval: 0 } } } } : {}),
			...parameters,
		},
		credentials: credentials(),
		items: Array.from({ length: options.items ?? 1 }, () => ({ json: {} })),
		continueOnFail: true,
	});
}

describe('a tool called by something that is not an agent (an MCP Server Trigger): no agent run to count', () => {
	const alone = (extra: IDataObject = {}) =>
		runNode({
			nodeType: TOOL_TYPE,
			parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550101', ...extra },
			credentials: credentials(),
			continueOnFail: true,
		});

	test('Max Calls per Agent Run alone: refused before anything is sent, saying first what to turn on, then why', async () => {
		const { items, error } = await alone();
		expect(posts()).toHaveLength(0);
		expect(error?.message ?? items[0]?.json.error).toBe(
			'Not placed: the workflow\'s author must add Guardrails > Limit Calls Across Executions to this tool before it can place calls for a caller that is not an AI Agent (called by "Input"). No call was placed. Max Calls per Agent Run counts only the calls of one AI Agent run, so it cannot count these. Do not try again: tell the user.',
		);
	});

	test('what an MCP client reads (n8n\'s tool wrapper: the message, then the description): first, what the author must turn on and that no call was placed; nothing only the author can act on', async () => {
		const [result] = await callAsMcpClient({ tool: tool(), calls: [{ Destination_Number: '+14155550101' }], credentials: credentials() });
		expect(posts()).toHaveLength(0);
		expect(result.isError).toBe(true);
		const [first] = result.text.replace(/^\w+Error: /, '').split(/(?<=\.) /);
		expect(first).toMatch(/^Not placed: the workflow's author must add Guardrails > Limit Calls Across Executions to this tool/);
		expect(result.text).toMatch(/No call was placed\./);
		expect(result.text).not.toMatch(/Settings > On Error|Continue On Fail|(workflow|credential|execution):\S/);
	});

	test('past Limit Calls Across Executions, what an MCP client reads names no internal key and no advice for the author', async () => {
		const placeOne = () => callAsMcpClient({ tool: tool(LIMIT), calls: [{ Destination_Number: '+14155550101' }], credentials: credentials() });
		expect((await placeOne())[0].isError).toBe(false);
		const [refused] = await placeOne();
		expect(posts()).toHaveLength(1);
		expect(refused.isError).toBe(true);
		expect(refused.text).toMatch(/the most Limit Calls Across Executions allows \(1\)\. No call was placed\./);
		expect(refused.text).not.toMatch(/Settings > On Error|Continue On Fail|Stopped at item|(workflow|credential|execution):\S/);
	});

	test('with Limit Calls Across Executions: counted there instead, across executions', async () => {
		await alone(LIMIT);
		const second = await alone(LIMIT);
		expect(second.items[0]?.json.error).toMatch(/the most Limit Calls Across Executions allows \(1\)/);
		expect(posts()).toHaveLength(1);
	});

	test('behind a human review step (a caller with tools and no model): counted per execution, so a second approved call is refused', async () => {
		const { results } = await runAgent({
			credentials: fx.credentials,
			tools: [tool()],
			turns: [[call('+14155550101')], [call('+14155550102')]],
			withoutModel: true,
		});
		expect(posts()).toHaveLength(1);
		expect(results[1].error).toMatch(/the most Max Calls per Agent Run allows \(1\)/);
	});

	test('with Limit Calls Across Executions (1): three tool calls at once place one; the others are told no call was placed', async () => {
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [tool(LIMIT)],
			turns: [[call('+14155550101'), call('+14155550102'), call('+14155550103')]],
			withoutModel: true,
		});
		expect(posts()).toHaveLength(1);
		const refused = results.filter((r) => r.error);
		expect(refused).toHaveLength(2);
		for (const r of refused) expect(r.error).toMatch(/the most (Limit Calls Across Executions|Max Calls per Agent Run) allows \(1\)\. No call was placed\./);
	});

	test('the count holds across executions: three executions of the same workflow place one call in all', async () => {
		for (const dst of ['+14155550101', '+14155550102', '+14155550103']) {
			await runAgent({ credentials: credentials(), tools: [tool(LIMIT)], turns: [[call(dst)]], withoutModel: true, workflowId: 'mcp-workflow' });
		}
		expect(posts()).toHaveLength(1);
		expect(Object.keys(ledger())).toEqual(['workflow:mcp-workflow']);
	});

	test('an agent run keeps its own cap as well: both hold', async () => {
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [tool(callLimit(5))],
			turns: [[call('+14155550101'), call('+14155550102')]],
		});
		expect(posts()).toHaveLength(1);
		expect(results.filter((r) => r.error)[0].error).toMatch(/Max Calls per Agent Run/);
	});
});

describe('Limit Calls Across Executions: a durable count, taken atomically before the POST', () => {
	test('Max Calls 2, five items at once (Batching 5): two calls placed, three refused items, no error', async () => {
		const { items, error } = await place(callLimit(2), { items: 5, batch: 5 });
		expect(error).toBeUndefined();
		expect(posts()).toHaveLength(2);
		expect(items.filter((item) => item.json.internal_id !== undefined)).toHaveLength(2);
		expect(items.filter((item) => /Limit Calls Across Executions/.test(String(item.json.error)))).toHaveLength(3);
	});

	test('five executions that all read the same count before writing: exactly Max Calls (2) places are taken', async () => {
		n8nApi.store.gate.close();
		const runs = Array.from({ length: 5 }, (_, i) => place({ ...callLimit(2), dst: `+1415555020${i}` }));
		// Every execution has read the count and sent its conditional update; then they are applied one by one.
		for (let waited = 0; n8nApi.store.gate.waiting() < 5 && waited < 200; waited++) await new Promise((r) => setTimeout(r, 10));
		expect(n8nApi.store.gate.waiting()).toBe(5);
		n8nApi.store.gate.open();
		await Promise.all(runs);
		expect(posts()).toHaveLength(2);
		expect(ledger()['workflow:test-workflow']).toHaveLength(2);
	});

	test('a call the platform refused (4xx) gives its place back; an unknown outcome (5xx) keeps it', async () => {
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 400, times: 1 });
		const first = await place(LIMIT);
		expect(first.items[0].json.error).toMatch(/No call was placed/);
		expect(ledger()).toEqual({});
		fx.sandbox.injectFault({ method: 'POST', path: '/webhook/outbound_call', kind: 'status', status: 500, times: 1 });
		const second = await place(LIMIT);
		expect(second.items[0].json.error).toMatch(/may have been placed/);
		const third = await place(LIMIT);
		expect(third.items[0].json.error).toMatch(/Limit Calls Across Executions/);
		expect(posts()).toHaveLength(2);
	});

	test('a place leaves the count when its window has passed', async () => {
		await place(LIMIT);
		const row = n8nApi.store.tables[0].rows[0];
		row.ledger = JSON.stringify({ 'workflow:test-workflow': [Date.now() - 1] });
		const again = await place(LIMIT);
		expect(again.items[0].json.internal_id).toBeDefined();
		expect(posts()).toHaveLength(2);
	});

	test('past the limit in a workflow: the message (all an agent reads of a sub-workflow that failed) names no internal key; the description still advises the author', async () => {
		expect((await runNode({ parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550101', ...LIMIT }, credentials: credentials() })).error).toBeUndefined();
		const { error } = await runNode({ parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550102', ...LIMIT }, credentials: credentials() });
		expect(posts()).toHaveLength(1);
		expect(error?.message).toBe(
			'Not placed: 1 call was placed in the last 60 minute(s) under this limit, the most Limit Calls Across Executions allows (1). No call was placed. Do not try again now: tell the user the limit is reached.',
		);
		expect(error?.description).toMatch(/Raise Max Calls, or wait until the window has passed\. Stopped at item 0\. .* Set Settings > On Error to "Continue"/);
	});

	test('Count Per Outbound Credential: counted under the credential, across workflows', async () => {
		await place(callLimit(1, { countPer: 'credential' }));
		const other = await runAgent({ credentials: credentials(), tools: [tool(callLimit(1, { countPer: 'credential' }))], turns: [[call('+14155550109')]], workflowId: 'another' });
		expect(other.results[0].error).toMatch(/Limit Calls Across Executions/);
		expect(Object.keys(ledger())).toEqual(['credential:assistantPlatformOutboundApi-id']);
	});

	test('Count Per Calling Execution, in an execution no other workflow started: refused, nothing sent', async () => {
		const { items, error } = await place(callLimit(1, { countPer: 'callingExecution' }));
		expect(error?.message ?? items[0]?.json.error).toMatch(/^Not placed: Count Per is Calling Execution, and this execution was not started by another workflow/);
		expect(posts()).toHaveLength(0);
	});

	test.each([
		['Max Calls 0', callLimit(1, { maxRaw: 0 }), /^Invalid "Guardrails > Limit Calls Across Executions > Max Calls": must be a whole number from 1 to/],
		['Per (Minutes) 0.5', callLimit(1, { minutes: 0.5 }), /^Invalid "Guardrails > Limit Calls Across Executions > Per \(Minutes\)": must be a whole number from 1 to/],
		['Max Calls from the model', callLimit(1, { maxRaw: "={{ $fromAI('Max', '', 'number') }}" }), /^Invalid "Guardrails": must be set in the node, not by the AI model/],
	])('%s: refused before anything is sent', async (_name, parameters, message) => {
		const { results } = await runAgent({
			credentials: credentials(),
			tools: [tool(parameters)],
			turns: [[{ tool: PLACE_CALL, input: { Destination_Number: '+14155550101', Max: 5 } }]],
		});
		expect(results[0].error).toMatch(message);
		expect(results[0].error).toMatch(/No call was placed/);
		expect(posts()).toHaveLength(0);
	});

	test('an unreadable count: refused, naming the table, row and column; nothing sent', async () => {
		await place(LIMIT);
		n8nApi.store.tables[0].rows[0].ledger = 'not json';
		const { items } = await place(LIMIT);
		expect(items[0].json.error).toMatch(new RegExp(`the count in the data table "${LIMIT_TABLE}" is unreadable \\(row \\d+, column ledger\\)`));
		expect(posts()).toHaveLength(1);
	});

	test('a table of that name without the columns: refused, naming the missing columns; nothing sent', async () => {
		n8nApi.store.tables.push({ id: 'table-x', name: LIMIT_TABLE, columns: [{ name: 'ledger', type: 'string' }], rows: [], createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
		const { items } = await place(LIMIT);
		expect(items[0].json.error).toMatch(new RegExp(`The data table "${LIMIT_TABLE}" lacks the column\\(s\\) version, token`));
		expect(posts()).toHaveLength(0);
	});

	test("n8n's API failing: the count cannot be taken, so nothing is placed", async () => {
		n8nApi.store.failWith(403);
		const { items } = await place(LIMIT);
		expect(items[0].json.error).toMatch(/No call was placed/);
		expect(posts()).toHaveLength(0);
	});

	test('an n8n whose public API has no data tables (n8n 1.x answers 404): refused, saying so; nothing sent', async () => {
		n8nApi.store.failWith(404);
		const { items } = await place(LIMIT);
		expect(items[0].json.error).toBe("This n8n's public API has no data tables (/data-tables answered 404). No call was placed.");
		expect(posts()).toHaveLength(0);
	});

	test('Call and Wait: past the limit, refused before anything is sent', async () => {
		await place(LIMIT);
		const { error } = await runNode({
			nodeType: CALL_AND_WAIT_TYPE,
			parameters: { callerId: CALLER, dst: '+14155550111', ...LIMIT },
			credentials: credentials(),
		});
		expect(error?.message).toMatch(/the most Limit Calls Across Executions allows \(1\)\. No call was placed\./);
		expect(posts()).toHaveLength(1);
	});
});
