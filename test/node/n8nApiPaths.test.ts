import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { AssistantPlatformCallAndWait } from '../../nodes/AssistantPlatformCallAndWait/AssistantPlatformCallAndWait.node';
import { TOOL_TYPE } from '../harness/agent';
import { registerNodeType, runNode } from '../harness/engine';
import { TRANSPORT_PROBE_TYPE } from '../harness/transportProbe';
import { callLimit } from '../harness/guardrails';
import { useN8nDataTables } from '../harness/n8nDataTables';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';

/*
 * The Assistant Platform Data Tables API credential holds an n8n API key, which on most plans opens all of n8n's
 * public API. The nodes use it for n8n's data tables only: every request they send with it goes to
 * {n8n API URL}/data-tables or below (read here from what n8n's API, served on 127.0.0.1, received), and the
 * transport refuses to send one anywhere else, before anything is sent.
 */

const CALLER = '+390212345678';
const TABLE = 'Contacts';
const CALL_AND_WAIT_TYPE = 'test.n8nApiPaths.assistantPlatformCallAndWait';
registerNodeType(CALL_AND_WAIT_TYPE, new AssistantPlatformCallAndWait());


const fx = useSandbox();
useCallerAssistant(fx, CALLER);
const n8nApi = useN8nDataTables();

const credentials = () => ({ ...fx.credentials, assistantPlatformN8nApi: n8nApi.store.credentials });
const LIMIT = callLimit(5);

/** Whether a path as n8n's API received it is {n8n API URL}/data-tables or below. */
const onDataTables = (pathname: string | undefined) => pathname === '/api/v1/data-tables' || Boolean(pathname?.startsWith('/api/v1/data-tables/'));

async function campaign(operation: string, parameters: IDataObject = {}, items: IDataObject[] = [{}]) {
	const { error } = await runNode({
		parameters: { resource: 'campaign', operation, contactsTable: TABLE, ...parameters },
		credentials: credentials(),
		items: items.map((json) => ({ json })),
	});
	expect(error).toBeUndefined();
}

describe('every request the nodes send with the Data Tables API credential goes to {n8n API URL}/data-tables', () => {
	test('Limit Calls Across Executions (Place Call, its tool variant, Call and Wait) and every Campaign operation', async () => {
		const placeCall = { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, ...LIMIT };
		expect((await runNode({ parameters: { ...placeCall, dst: '+14155550101' }, credentials: credentials() })).error).toBeUndefined();
		const tool = await runNode({ nodeType: TOOL_TYPE, parameters: { ...placeCall, dst: '+14155550102' }, credentials: credentials(), continueOnFail: true });
		expect(tool.items[0]?.json.error).toBeUndefined();
		const wait = await runNode({ nodeType: CALL_AND_WAIT_TYPE, parameters: { callerId: CALLER, dst: '+14155550103', ...LIMIT }, credentials: credentials() });
		expect(wait.error).toBeUndefined();

		n8nApi.store.seed(TABLE, [{ phone: '+14155550104' }, { phone: '+14155550105' }]);
		await campaign('prepare');
		await campaign('dial', { callerId: CALLER, maxCallsInFlight: 2, retryPolicy: { busy: 0, noAnswer: 0, maxAttempts: 1 } });
		const placed = fx.sandbox.callJournal.calls.at(-1)!;
		await campaign('recordResult', {}, [{ internal_id: placed.internal_id, dialStatus: 'ANSWER' }]);
		for (const operation of ['summary', 'pause', 'resume', 'stop']) await campaign(operation);

		const requests = n8nApi.store.requests;
		expect(requests.length).toBeGreaterThan(0);
		expect(requests.filter((r) => !onDataTables(r.pathname)).map((r) => `${r.method} ${r.pathname}`)).toEqual([]);
		// What they do there, each with the n8n API key scope the README names for it (n8n 2.41's public API): list,
		// create and read tables, add columns, read, insert and update rows. An endpoint added here needs its scope there.
		const shapes = new Set(requests.map((r) => `${r.method} ${r.path.replace(/^\/data-tables\/[^/]+/, '/data-tables/{id}')}`));
		expect([...shapes].sort()).toEqual(
			[
				'GET /data-tables', // dataTable:list
				'POST /data-tables', // dataTable:create
				'GET /data-tables/{id}', // dataTable:read
				'POST /data-tables/{id}/columns', // dataTableColumn:create
				'GET /data-tables/{id}/rows', // dataTableRow:read
				'POST /data-tables/{id}/rows', // dataTableRow:create
				'PATCH /data-tables/{id}/rows/update', // dataTableRow:update
			].sort(),
		);
	});
});

describe('the transport sends the Data Tables API key nowhere else: refused before anything is sent', () => {
	const probe = (url: string) => runNode({ nodeType: TRANSPORT_PROBE_TYPE, parameters: { url, passStatuses: '404' }, credentials: credentials() });

	test('a path below /data-tables is sent', async () => {
		const { items, error } = await probe('/data-tables/none/rows');
		expect(error).toBeUndefined();
		expect(items[0].json.statusCode).toBe(404);
		expect(n8nApi.store.requests.map((r) => r.pathname)).toEqual(['/api/v1/data-tables/none/rows']);
	});

	// [what, the URL asked for, where it would have gone], below or beside the n8n API URL `base`.
	const elsewhere: Array<[string, (base: string) => string, (base: string) => string]> = [
		["another path of n8n's API", () => '/workflows', (base) => `${base}/workflows`],
		['one that only starts like /data-tables', () => '/data-tables-archive', (base) => `${base}/data-tables-archive`],
		['the same host outside the API URL', (base) => `${base.replace(/\/api\/v1$/, '')}/rest/users`, (base) => `${base.replace(/\/api\/v1$/, '')}/rest/users`],
		['an absolute URL to another path', (base) => `${base}/credentials`, (base) => `${base}/credentials`],
	];
	test.each(elsewhere)('refused: %s', async (_what, url, target) => {
		const base = n8nApi.store.url;
		const { error } = await probe(url(base));
		expect(error?.message).toBe(
			`Invalid "URL": must stay where the credential's key may go: it goes only to ${base}/data-tables and below, not to ${target(base)}`,
		);
		expect(n8nApi.store.requests).toEqual([]);
	});

	test('refused: out of /data-tables by ".." (a dot segment)', async () => {
		const { error } = await probe('/data-tables/../workflows');
		expect(error?.message).toMatch(/^Invalid "URL": must not contain "\." or "\.\." path segments/);
		expect(n8nApi.store.requests).toEqual([]);
	});

	test('refused: another host, which receives nothing', async () => {
		const received: string[] = [];
		const other = createServer((req, res) => {
			received.push(String(req.url));
			res.end('{}');
		});
		await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
		try {
			const { error } = await probe(`http://127.0.0.1:${(other.address() as AddressInfo).port}/api/v1/data-tables`);
			expect(error?.message).toMatch(/^Invalid "URL": must stay on the credential's host/);
			expect(received).toEqual([]);
			expect(n8nApi.store.requests).toEqual([]);
		} finally {
			await new Promise((resolve) => other.close(resolve));
		}
	});
});
