import type { INodeProperties } from 'n8n-workflow';

import { listProperties } from '../../../shared/descriptions/fields';
import { listOperation } from '../../helpers/lists';
import { showOperations } from '../../helpers/module';

export const description: INodeProperties[] = [...listProperties(showOperations('catalog')('getTools'), 'tools')];

/** GET /catalog/tools, page by page. */
export const execute = listOperation({ path: () => '/catalog/tools' });
