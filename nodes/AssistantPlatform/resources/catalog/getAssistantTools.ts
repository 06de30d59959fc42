import type { INodeProperties } from 'n8n-workflow';

import { assistantLocator, listProperties } from '../../../shared/descriptions/fields';
import { listOperation } from '../../helpers/lists';
import { showOperations } from '../../helpers/module';
import { resolvePath } from '../../helpers/request';

const show = showOperations('catalog')('getAssistantTools');

export const description: INodeProperties[] = [
	assistantLocator(show, { description: 'The assistant whose tools to list' }),
	...listProperties(show, 'tools'),
];

/** GET /catalog/assistants/{assistantId}/tools, page by page. */
export const execute = listOperation({
	path: (scope) => resolvePath(scope, '/catalog/assistants/{assistantId}/tools', { assistantId: 'Assistant' }),
});
