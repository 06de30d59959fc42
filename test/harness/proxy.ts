import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The headers a node's request needs at the sandbox (content, and both APIs' authentication). */
const FORWARDED = ['content-type', 'accept', 'authorization', 'x-apikey-secret-service'];

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
	const out: Record<string, string> = {};
	for (const name of FORWARDED) {
		const value = headers[name];
		if (typeof value === 'string') out[name] = value;
	}
	return out;
}

export interface RecordingProxy {
	url: string;
	/** 'start' when a request's body has arrived, 'end' when its answer is sent, in order. */
	events: Array<'start' | 'end'>;
	/** The most requests that were open at once. */
	maxInFlight(): number;
	close(): Promise<void>;
}

/**
 * A pass-through proxy in front of `targetUrl` that records when each request starts and ends: how many
 * requests a node had open at once, and whether one batch ended before the next began.
 */
export async function startRecordingProxy(targetUrl: string): Promise<RecordingProxy> {
	const events: Array<'start' | 'end'> = [];
	let inFlight = 0;
	let most = 0;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			most = Math.max(most, ++inFlight);
			events.push('start');
			void fetch(`${targetUrl}${req.url}`, {
				method: req.method,
				headers: forwardHeaders(req.headers),
				body: chunks.length ? Buffer.concat(chunks) : undefined,
			}).then(async (answer) => {
				const text = await answer.text();
				inFlight--;
				events.push('end');
				res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				res.end(text);
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		events,
		maxInFlight: () => most,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
