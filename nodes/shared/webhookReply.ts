import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

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
