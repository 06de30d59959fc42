import type { INodeProperties } from 'n8n-workflow';

import { listProperties, ragCollectionLocator } from '../../../shared/descriptions';

import { showFor } from './common';

const show = showFor('getManyDocuments');

export const getManyDocumentsDescription: INodeProperties[] = [
	ragCollectionLocator(show, { description: 'The collection whose documents to list' }),
	...listProperties(show, 'documents'),
];
