import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchCursor, listSearchEntries } from '../transport/pageMeta';
import { portalRequest } from '../transport/request';

/** Pages through assistants for the Assistant picker, filtered by name on the platform side; entries without an assistantId are left out. */
export async function searchAssistants(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 100 };
	if (filter) qs.name = filter;
	if (paginationToken) qs.cursor = paginationToken;
	const { body } = await portalRequest(this, 'GET', '/assistants', { qs, retry: true });
	const assistants = listSearchEntries(this.getNode(), body, 'assistantId');
	const results = assistants.map((assistant) => ({
		name: typeof assistant.name === 'string' && assistant.name.trim() !== '' ? assistant.name : String(assistant.assistantId),
		value: String(assistant.assistantId),
		description: typeof assistant.description === 'string' ? assistant.description : undefined,
	}));
	return { results, paginationToken: listSearchCursor(this.getNode(), (body as IDataObject | undefined)?.meta) };
}
