import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listSearchCursor, listSearchEntries } from '../../shared/transport/pageMeta';
import { portalRequest } from '../../shared/transport/request';

/** Pages through RAG collections for the collection picker; the filter matches names (when given) and ids locally. */
export async function searchRagCollections(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: 100 };
	if (paginationToken) qs.cursor = paginationToken;
	const { body } = await portalRequest(this, 'GET', '/rag/collections', { qs, retry: true });
	const collections = listSearchEntries(this.getNode(), body, 'ragId');
	const needle = (filter ?? '').toLowerCase();
	const results = collections
		.map((collection) => {
			const id = String(collection.ragId);
			// A collection's name is not shown by the spec: the id stands in for it.
			const name = typeof collection.name === 'string' && collection.name.trim() !== '' ? collection.name : id;
			return { name, value: id };
		})
		.filter((entry) => !needle || entry.name.toLowerCase().includes(needle) || entry.value.toLowerCase().includes(needle));
	return { results, paginationToken: listSearchCursor(this.getNode(), (body as IDataObject | undefined)?.meta) };
}
