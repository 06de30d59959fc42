import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchCursor } from '../../shared/transport/pageMeta';
import { portalRequest } from '../../shared/transport/request';

/** Pages through RAG collections for the collection picker; the filter matches names locally. */
export async function searchRagCollections(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 100 };
	if (paginationToken) qs.cursor = paginationToken;
	const { body } = await portalRequest(this, 'GET', '/rag/collections', { qs, retry: true });
	const page = body as { data?: IDataObject[]; meta?: IDataObject };
	const needle = (filter ?? '').toLowerCase();
	const results = (page.data ?? [])
		.filter((c) => !needle || String(c.name ?? '').toLowerCase().includes(needle) || String(c.ragId).toLowerCase().includes(needle))
		.map((collection) => ({
			name: String(collection.name ?? collection.ragId),
			value: String(collection.ragId),
		}));
	return { results, paginationToken: listSearchCursor(this.getNode(), page.meta) };
}
