/**
 * List operations as a whole: they run as custom operations over the shared cursor walk (not through
 * n8n's declarative engine, whose `push(...items)` overflows the call stack above about 120,000 items),
 * and they honour Settings > Request Options (Timeout, Proxy) as declarative requests do.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import { DirectoryLoader } from 'n8n-core';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import { registerNodeType, runNode } from '../harness/engine';
import { expectNoSecrets, startSandbox, useSandbox } from '../harness/sandbox';
import type { SandboxFixture } from '../harness/sandbox';

const fx = useSandbox();

/** The node as n8n loads it: with the Settings > Request Options collection n8n adds to declarative nodes. */
const LOADED_TYPE = 'test.assistantPlatform.lists';
const loaded = new AssistantPlatform();
DirectoryLoader.applyDeclarativeNodeOptionParameters(loaded);
registerNodeType(LOADED_TYPE, loaded);

/** Runs `check` against a sandbox of its own holding `count` assistants only, its journal empty. */
async function withAssistants(count: number, check: (big: SandboxFixture) => Promise<void>): Promise<void> {
	const big = await startSandbox({ seed: { demo: false } });
	try {
		big.sandbox.seed({ assistants: count });
		big.sandbox.clearJournal();
		await check(big);
	} finally {
		await big.sandbox.stop();
	}
}

describe('Return All beyond n8n-core declarative limit', () => {
	// n8n-core 2.41's RoutingNode appends a declarative operation's items with push(...items), which
	// throws "Maximum call stack size exceeded" above about 120,000 items. 150,000 must all come out.
	test('Assistant → Get Many returns 150,000 assistants in 300 pages of 500', async () => {
		await withAssistants(150_000, async (big) => {
			const { items, error } = await runNode({
				parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
				credentials: big.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(150_000);
			expect(big.sandbox.journal).toHaveLength(300);
			expect(big.sandbox.journal.filter((e) => e.query.limit !== '500').map((e) => e.query)).toEqual([]);
			expect(new Set(items.map((i) => i.json.assistantId)).size).toBe(150_000);
			expect(items[149_999].pairedItem).toEqual({ item: 0 });
		});
	}, 120_000);

	test('Custom API Request with Paginate returns 150,000 items too', async () => {
		await withAssistants(150_000, async (big) => {
			const { items, error } = await runNode({
				parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/assistants', paginate: true, returnAll: true },
				credentials: big.credentials,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(150_000);
			expect(big.sandbox.journal).toHaveLength(300);
		});
	}, 120_000);

	test('the list operations are the ones the shape test expects (test/stability/shape.test.ts)', () => {
		const node = new AssistantPlatform();
		const lists: Array<[string, string]> = [];
		for (const property of node.description.properties) {
			if (property.name !== 'returnAll') continue;
			const show = property.displayOptions?.show ?? {};
			for (const resource of (show.resource ?? []) as string[]) {
				for (const operation of (show.operation ?? []) as string[]) lists.push([resource, operation]);
			}
		}
		expect(lists.sort()).toEqual(
			[
				['assistant', 'getAll'],
				// Read from n8n's data tables, page by page (not a list of the platform's).
				['campaign', 'contacts'],
				['catalog', 'getAssistantTools'],
				['catalog', 'getTools'],
				['customApiRequest', 'request'],
				['ragCollection', 'getAll'],
				['ragCollection', 'getManyDocuments'],
			].sort(),
		);
	});
});

describe('Settings > Request Options on list operations', () => {
	test('Timeout applies to every page read (a read that times out is retried, then reported)', async () => {
		fx.sandbox.injectFault({ method: 'GET', path: '/api/v1/assistants', kind: 'slow', delayMs: 600, times: 1 });
		fx.sandbox.clearJournal();
		const { items, error } = await runNode({
			nodeType: LOADED_TYPE,
			parameters: { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 3, requestOptions: { timeout: 200 } },
			credentials: fx.credentials,
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		// The slow answer was abandoned after 200 ms and the read sent again.
		for (let i = 0; i < 40 && fx.sandbox.journal.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
		expect(fx.sandbox.journal).toHaveLength(2);
	});

	test('Proxy: every page goes through the proxy', async () => {
		const seen: string[] = [];
		const proxy = createServer((req, res) => {
			seen.push(`${req.method} ${req.url}`);
			const upstream = httpRequest(String(req.url), { method: req.method, headers: req.headers }, (answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			upstream.on('error', () => res.destroy());
			req.pipe(upstream);
		});
		await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
		try {
			fx.sandbox.seed({ assistants: 1_000 });
			const port = (proxy.address() as AddressInfo).port;
			const { items, error } = await runNode({
				nodeType: LOADED_TYPE,
				parameters: {
					resource: 'assistant',
					operation: 'getAll',
					returnAll: true,
					requestOptions: { proxy: `http://127.0.0.1:${port}` },
				},
				credentials: fx.credentials,
			});
			expect(error).toBeUndefined();
			const pages = Math.ceil(fx.sandbox.state.assistants.size / 500);
			expect(items).toHaveLength(fx.sandbox.state.assistants.size);
			expect(seen).toHaveLength(pages);
			for (const line of seen) expect(line).toMatch(new RegExp(`^GET ${fx.sandbox.url}/api/v1/assistants\\?`));
			expectNoSecrets(fx, items);
		} finally {
			await new Promise((resolve) => proxy.close(resolve));
		}
	});

	test('Proxy without a port is refused before anything is sent', async () => {
		fx.sandbox.clearJournal();
		const { error } = await runNode({
			nodeType: LOADED_TYPE,
			parameters: { resource: 'ragCollection', operation: 'getAll', returnAll: true, requestOptions: { proxy: 'proxy.example.com' } },
			credentials: fx.credentials,
		});
		expect(error?.message).toMatch(/Proxy/);
		expect(error?.message).toMatch(/must be a URL/);
		expect(fx.sandbox.journal).toHaveLength(0);
	});
});
