import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

/** Largest body a callback may have (1 MiB): a call result is under 200 bytes, extracted data a few KB. */
export const MAX_CALLBACK_BODY_BYTES = 1024 * 1024;

/**
 * Whether a callback's body is over MAX_CALLBACK_BODY_BYTES: by its Content-Length, or by the body n8n
 * read (decoded when it came gzip- or deflate-compressed, whatever its framing). One rule for the
 * trigger and the Call and Wait resume webhook.
 */
export function callbackBodyTooLarge(headers: Record<string, unknown>, rawBody: unknown): boolean {
	const declared = Number(headers['content-length'] ?? 0);
	const read = rawBody instanceof Uint8Array ? rawBody.length : 0;
	return declared > MAX_CALLBACK_BODY_BYTES || read > MAX_CALLBACK_BODY_BYTES;
}

/** The parts of n8n's HTTP response (an express Response) used to answer a request directly. */
interface ReplyResponse {
	statusCode: number;
	setHeader(name: string, value: string): unknown;
	end(chunk?: string): unknown;
}

/** Answers the request with a status and a short JSON reason; no workflow starts or resumes. */
export function refuse(ctx: IWebhookFunctions, status: number, reason: string): IWebhookResponseData {
	const res = ctx.getResponseObject() as unknown as ReplyResponse;
	res.statusCode = status;
	res.setHeader('Content-Type', 'application/json; charset=utf-8');
	res.end(JSON.stringify({ error: reason }));
	return { noWebhookResponse: true };
}
