import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { OUTBOUND_CREDENTIAL } from '../core/constants';
import type { RequestContext } from './endpoint';
import { outboundBaseUrl } from './endpoint';
import type { PlatformResponse } from './request';
import { platformRequest } from './request';
import type { RequestSettings } from './settings';

/*
 * The outbound API as Place Call, Call Status and Call and Wait use it: one request function on top of the
 * package transport.
 */

/**
 * One request to the outbound API ({outboundUrl}) with the outbound credential, Request Options read once
 * per run (`settings`).
 * `baseURL`: outboundBaseUrl(ctx) read once by a caller that sends many requests (a real n8n loads and
 * decrypts the credential on every getCredentials); without it the credential is read here.
 */
export async function outboundApi(
	ctx: RequestContext,
	settings: RequestSettings,
	method: IHttpRequestOptions['method'],
	path: string,
	options: { body?: IDataObject; retry: boolean; itemIndex?: number; passStatuses?: number[]; baseURL?: string },
): Promise<PlatformResponse> {
	const request: IHttpRequestOptions = {
		method,
		baseURL: options.baseURL ?? (await outboundBaseUrl(ctx)),
		url: path,
		headers: { Accept: 'application/json' },
		json: true,
		...settings,
	};
	if (options.body !== undefined) request.body = options.body;
	return await platformRequest(ctx, OUTBOUND_CREDENTIAL, request, {
		retry: options.retry,
		itemIndex: options.itemIndex,
		passStatuses: options.passStatuses,
	});
}
