import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchCursor } from '../transport/pageMeta';
import { portalRequest } from '../transport/request';

/** Pages through assistants for the Assistant picker, filtered by name on the platform side. */
export async function searchAssistants(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 100 };
	if (filter) qs.name = filter;
	if (paginationToken) qs.cursor = paginationToken;
	const { body } = await portalRequest(this, 'GET', '/assistants', { qs, retry: true });
	const page = body as { data?: IDataObject[]; meta?: IDataObject };
	const results = (page.data ?? []).map((assistant) => ({
		name: `${String(assistant.name ?? assistant.assistantId)}`,
		value: String(assistant.assistantId),
		description: typeof assistant.description === 'string' ? assistant.description : undefined,
	}));
	return { results, paginationToken: listSearchCursor(this.getNode(), page.meta) };
}
