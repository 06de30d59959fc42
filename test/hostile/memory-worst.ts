/**
 * The worst answers a platform can send, run through the node in this process, which memory.test.ts
 * starts with a 512 MB heap: a 3 GB gzip, brotli or deflate bomb (a few MB on the wire), 1 GB
 * without a Content-Length or with an honest one, the same as a call's acceptance, and an endless
 * list of 1 KB items (Get Many, Custom API Request with Paginate). Prints one JSON line per case (how
 * the node ended) and a last line with the process's peak memory. Not a test file: run by memory.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { FREE_DEMO_NUMBER as CALLER } from '../../sandbox';
import { runNode } from '../harness/engine';
import type { Behaviour } from '../harness/hostile';
import { startHostile } from '../harness/hostile';

const GB = 1024 ** 3;

interface Case {
	name: string;
	behave: Behaviour;
	method?: string;
	parameters: IDataObject;
}

const getMany = { resource: 'assistant', operation: 'getAll', returnAll: false, limit: 5 };

export const CASES: Case[] = [
	{ name: 'Get Many, a 3 GB gzip bomb', behave: { kind: 'oversize', bytes: 3 * GB, encoding: 'gzip' }, parameters: getMany },
	{ name: 'Call Status → Get, a 3 GB brotli bomb', behave: { kind: 'oversize', bytes: 3 * GB, encoding: 'br' }, parameters: { resource: 'callStatus', operation: 'get', internalId: 'abc' } },
	{
		name: 'Custom API Request, a 3 GB deflate bomb',
		behave: { kind: 'oversize', bytes: 3 * GB, encoding: 'deflate' },
		parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/knowledge' },
	},
	{ name: 'Get Many, 1 GB chunked without a Content-Length', behave: { kind: 'oversize', bytes: GB }, parameters: getMany },
	{ name: 'Get Many, 1 GB with its Content-Length', behave: { kind: 'oversize', bytes: GB, framing: 'length' }, parameters: getMany },
	{
		name: 'Place Call, a 3 GB gzip bomb as the acceptance',
		method: 'POST',
		behave: { kind: 'oversize', bytes: 3 * GB, encoding: 'gzip' },
		parameters: { resource: 'outboundCall', operation: 'placeCall', route: 'trunk', dst: '+14155550123', callerId: CALLER },
	},
	{
		name: 'Get Many Return All, an endless list of 1 KB items',
		behave: { kind: 'endlessList', itemBytes: 1000, totalCount: 1e12 },
		parameters: { resource: 'assistant', operation: 'getAll', returnAll: true },
	},
	{
		name: 'Custom API Request with Paginate, an endless list of 1 KB items without an id field',
		behave: { kind: 'endlessList', itemBytes: 1000, totalCount: 1e12 },
		parameters: { resource: 'customApiRequest', operation: 'request', method: 'GET', path: '/filler-lists', paginate: true, returnAll: true },
	},
];

async function main(): Promise<void> {
	const fx = await startHostile();
	try {
		const caller = fx.sandbox.createAssistant({ name: 'Caller', number: CALLER });
		fx.outbound.assistantApiKey = caller.assistantApiKey;
		for (const worst of CASES) {
			fx.hostile.clear();
			fx.sandbox.createAssistant({ name: 'Caller', number: CALLER });
			fx.hostile.rule({ method: worst.method ?? 'GET', behave: worst.behave });
			const { error, items } = await runNode({ parameters: worst.parameters, credentials: fx.credentials });
			const line = { case: worst.name, error: error?.message ?? null, items: items.length, requests: fx.hostile.requests.length };
			process.stdout.write(`${JSON.stringify(line)}\n`);
		}
	} finally {
		await fx.hostile.stop();
	}
	process.stdout.write(`${JSON.stringify({ maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
}

if (require.main === module || process.env.MEMORY_WORST_RUN === '1') {
	main().then(
		() => process.exit(0),
		(error: Error) => {
			process.stderr.write(`${error.stack ?? error.message}\n`);
			process.exit(2);
		},
	);
}
