import type { INodeProperties } from 'n8n-workflow';

import { listProperties } from '../../../shared/descriptions/fields';
import { listOperation } from '../../helpers/lists';

import { showFor } from './common';

export const description: INodeProperties[] = [...listProperties(showFor('getAll'), 'collections')];

/** GET /rag/collections, page by page. */
export const execute = listOperation({ path: () => '/rag/collections' });
