import type { INodeProperties } from 'n8n-workflow';

import { listProperties, ragCollectionLocator } from '../../../shared/descriptions/fields';
import { listOperation } from '../../helpers/lists';

import { ragPathOf, showFor } from './common';

const show = showFor('getManyDocuments');

export const description: INodeProperties[] = [
	ragCollectionLocator(show, { description: 'The collection whose documents to list' }),
	...listProperties(show, 'documents'),
];

/** GET /rag/collections/{ragId}/documents, page by page. */
export const execute = listOperation({ path: (scope) => ragPathOf(scope, '/rag/collections/{ragId}/documents') });
