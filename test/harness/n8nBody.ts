/**
 * How n8n reads the body of a webhook request, resume requests included (packages/cli
 * middlewares/body-parser.ts, rawBodyReader, 2.41): a gzip or deflate body is decoded, the decoded
 * body is read up to N8N_PAYLOAD_SIZE_MAX (16 MB by default; beyond it n8n answers 413) and kept
 * as `req.rawBody`. Shared by the trigger's webhook harness and the wait-and-resume harness.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';

/** n8n's default N8N_PAYLOAD_SIZE_MAX, in bytes. */
export const DEFAULT_PAYLOAD_SIZE_MAX = 16 * 1024 * 1024;

export async function readN8nRawBody(req: IncomingMessage, limit = DEFAULT_PAYLOAD_SIZE_MAX): Promise<Buffer | 'too-large' | 'unreadable'> {
	const encoding = req.headers['content-encoding'];
	let stream: Readable = req;
	if (encoding === 'gzip') stream = req.pipe(createGunzip());
	else if (encoding === 'deflate') stream = req.pipe(createInflate());
	else if (Number(req.headers['content-length'] ?? 0) > limit) {
		req.resume();
		return 'too-large';
	}
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of stream) {
			size += (chunk as Buffer).length;
			if (size > limit) {
				req.resume();
				return 'too-large';
			}
			chunks.push(chunk as Buffer);
		}
	} catch {
		return 'unreadable';
	}
	return Buffer.concat(chunks);
}
