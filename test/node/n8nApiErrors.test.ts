import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { LIMIT_TABLE } from '../../nodes/shared/calls/callLimit';
import { N8N_API_CREDENTIAL } from '../../nodes/shared/core/constants';
import { runNode } from '../harness/engine';
import { callLimit } from '../harness/guardrails';
import { TRANSPORT_PROBE_TYPE } from '../harness/transportProbe';
import { useCallerAssistant, useSandbox } from '../harness/sandbox';
import { registerSecret } from '../harness/secretsGuard';

/*
 * What an error of n8n's public API (the Assistant Platform Data Tables API credential) says: its real cause in n8n's
 * terms, never the platform's hints. n8n is played here by a server on 127.0.0.1 that answers with what n8n sends
 * (measured on n8n 2.41.1 and 1.123.81; docs/assumptions.md, "Durable state"):
 * - 401 {"message":"unauthorized"}: a wrong key, and on 2.x any key while its public API is off (N8N_PUBLIC_API_DISABLED);
 * - 403 {"message":"Forbidden"}: the key lacks the request's scope (or its owner the table's project);
 * - 404 naming the data table: the table is not there;
 * - 404 {"message":"not found"} (1.x: no data tables in its public API) or Express's HTML page (1.x with its public
 *   API off, or a URL without /api/v1): no data tables at that URL;
 * - 400 "Validation error with data table request: Data table size limit exceeded: …": the size cap of all data tables.
 */

const CALLER = '+390212345678';
const API_KEY = 'n8n-api-key-for-error-tests-0123456789';
registerSecret(API_KEY);

interface Answer {
	status: number;
	body: unknown;
	/** text/html: the body is sent as it is. */
	html?: boolean;
}

/** How the server answers a request (method, path as received); undefined: as an n8n with the limit table answers. */
let answer: (method: string, path: string) => Answer | undefined = () => undefined;
const received: string[] = [];

/** Express's page for a path nobody serves, as n8n answers it (its default 404). */
const expressNotFound = (method: string, path: string): Answer => ({
	status: 404,
	html: true,
	body: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${method} ${path}</pre>\n</body>\n</html>\n`,
});

const LIMIT_TABLE_ROW = { id: 1, ledger: '{}', version: 0, token: '' };

/** An n8n whose limit table exists with its count row: list, rows, a conditional update that writes. */
function n8nWithLimitTable(method: string, path: string): Answer {
	if (method === 'GET' && path === '/api/v1/data-tables') {
		const columns = ['ledger', 'version', 'token'].map((name) => ({ name, type: name === 'version' ? 'number' : 'string' }));
		return { status: 200, body: { data: [{ id: 't1', name: LIMIT_TABLE, columns }], nextCursor: null } };
	}
	if (method === 'GET' && path === '/api/v1/data-tables/t1/rows') return { status: 200, body: { data: [LIMIT_TABLE_ROW], nextCursor: null } };
	return expressNotFound(method, path);
}

let server: Server;
let baseUrl: string;

beforeAll(async () => {
	server = createServer((req: IncomingMessage, res) => {
		req.resume();
		req.on('end', () => {
			const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
			const method = req.method ?? '';
			received.push(`${method} ${path}`);
			const { status, body, html } = answer(method, path) ?? n8nWithLimitTable(method, path);
			res.writeHead(status, { 'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8' });
			res.end(html ? String(body) : JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	answer = () => undefined;
	received.length = 0;
});


const fx = useSandbox();
useCallerAssistant(fx, CALLER);

const n8nCredential = () => ({ baseUrl, apiKey: API_KEY });
const credentials = () => ({ ...fx.credentials, [N8N_API_CREDENTIAL]: n8nCredential() });
const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');

async function probe(method: string, url: string) {
	const { error } = await runNode({ nodeType: TRANSPORT_PROBE_TYPE, parameters: { method, url }, credentials: { [N8N_API_CREDENTIAL]: n8nCredential() } });
	expect(error).toBeDefined();
	return error!;
}

/** Place Call with Limit Calls Across Executions (Continue On Fail): the item of its one call. */
async function placeLimited(): Promise<IDataObject> {
	const { items, error } = await runNode({
		parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550101', ...callLimit(5) },
		credentials: credentials(),
		continueOnFail: true,
	});
	expect(error).toBeUndefined();
	return items[0].json;
}

describe("401 from n8n's public API: the API key, or the public API turned off", () => {
	test('Place Call under a limit: refused, naming the key, the credential and N8N_PUBLIC_API_DISABLED; nothing sent', async () => {
		answer = () => ({ status: 401, body: { message: 'unauthorized' } });
		const item = await placeLimited();
		expect(item.error).toBe("n8n's public API refused the API key (401 Unauthorized) (unauthorized). No call was placed.");
		expect(item.description).toBe(
			'Check the API key in the "Assistant Platform Data Tables API" credential (in n8n: Settings > n8n API; a key can expire or be deleted), and that n8n\'s public API is on: while N8N_PUBLIC_API_DISABLED is true, n8n answers every key with 401. Keys are never shown in errors.',
		);
		expect(posts()).toHaveLength(0);
	});
});

describe("403 from n8n's public API: the scope the request needs", () => {
	test.each([
		['GET', '/data-tables', 'dataTable:list'],
		['POST', '/data-tables', 'dataTable:create'],
		['GET', '/data-tables/t1', 'dataTable:read'],
		['POST', '/data-tables/t1/columns', 'dataTableColumn:create'],
		['GET', '/data-tables/t1/rows', 'dataTableRow:read'],
		['POST', '/data-tables/t1/rows', 'dataTableRow:create'],
		['PATCH', '/data-tables/t1/rows/update', 'dataTableRow:update'],
	])('%s %s: %s', async (method, path, scope) => {
		answer = () => ({ status: 403, body: { message: 'Forbidden' } });
		const error = await probe(method, path);
		expect(error.message).toBe(`n8n's public API refused ${method} /api/v1${path} (403 Forbidden) (Forbidden)`);
		expect(error.description).toBe(
			`The API key in the "Assistant Platform Data Tables API" credential was accepted but may not do this: it needs the scope ${scope} (the nodes use dataTable:list, dataTable:create, dataTable:read, dataTableColumn:create, dataTableRow:read, dataTableRow:create, dataTableRow:update), and its owner needs access to the data table's project.`,
		);
	});
});

describe("404 from n8n's public API: the URL, or no data tables in this n8n's public API", () => {
	const URL_HINT =
		'Check the n8n API URL in the "Assistant Platform Data Tables API" credential: this n8n\'s address followed by /api/v1 (e.g. https://n8n.example.com/api/v1). n8n serves data tables in its public API from 2.x on; n8n 1.x answers 404 here, and with its public API off (N8N_PUBLIC_API_DISABLED=true) 404 at every path of it.';

	test("n8n 1.x with its public API off, or a URL without /api/v1 (Express's HTML page): the URL and the public API, not the HTML", async () => {
		answer = expressNotFound;
		const error = await probe('GET', '/data-tables/t1/rows');
		expect(error.message).toBe("n8n's public API answered 404 at /api/v1/data-tables/t1/rows: no data tables there");
		expect(error.description).toBe(URL_HINT);
	});

	test('n8n 1.x with its public API on ({"message":"not found"}): the same', async () => {
		answer = () => ({ status: 404, body: { message: 'not found' } });
		const error = await probe('GET', '/data-tables');
		expect(error.message).toBe("n8n's public API answered 404 at /api/v1/data-tables: no data tables there (not found)");
		expect(error.description).toBe(URL_HINT);
	});

	test.each([
		["n8n's data table service", "Could not find the data table: 't9'"],
		["n8n's project check", 'Data table with ID "t9" not found.'],
	])('a data table that is not there (%s): that table', async (_who, message) => {
		answer = () => ({ status: 404, body: { message } });
		const error = await probe('GET', '/data-tables/t9/rows');
		expect(error.message).toBe(`n8n's public API found no such data table (404 Not Found) (${message})`);
		expect(error.description).toBe("It may have been deleted, or be in a project the API key's owner cannot open.");
	});

	test("Place Call under a limit on an n8n 1.x with its public API off: refused as an n8n without data tables, not as an HTML answer; nothing sent", async () => {
		answer = expressNotFound;
		const item = await placeLimited();
		expect(item.error).toBe("This n8n's public API has no data tables (/data-tables answered 404). No call was placed.");
		expect(received).toEqual(['GET /api/v1/data-tables']);
		expect(posts()).toHaveLength(0);
	});
});

describe("n8n's size cap of its data tables (N8N_DATA_TABLES_MAX_SIZE_BYTES)", () => {
	const FULL = 'Validation error with data table request: Data table size limit exceeded: 200MB used, limit is 200MB';

	test('Place Call under a limit, the count refused by the cap (400 on the conditional update): refused, naming the cap and what to do; nothing sent', async () => {
		answer = (method) => (method === 'PATCH' ? { status: 400, body: { message: FULL } } : undefined);
		const item = await placeLimited();
		expect(item.error).toBe(`n8n refused the write: its data tables are at their size limit (${FULL}). No call was placed.`);
		expect(item.description).toBe(
			"n8n caps the total size of all its data tables (N8N_DATA_TABLES_MAX_SIZE_BYTES, 200 MB by default) and, once they reach it, refuses every insert and update until they are smaller; reading and deleting rows still work. Delete rows or data tables no longer needed (in n8n's Data tables), or raise N8N_DATA_TABLES_MAX_SIZE_BYTES and restart n8n. n8n measures the size again every few seconds.",
		);
		expect(received).toContain('PATCH /api/v1/data-tables/t1/rows/update');
		expect(posts()).toHaveLength(0);
	});

	test('an insert refused by the cap says the same', async () => {
		answer = () => ({ status: 400, body: { message: FULL } });
		const error = await probe('POST', '/data-tables/t1/rows');
		expect(error.message).toBe(`n8n refused the write: its data tables are at their size limit (${FULL})`);
		expect(error.description).toMatch(/^n8n caps the total size of all its data tables \(N8N_DATA_TABLES_MAX_SIZE_BYTES/);
	});
});
