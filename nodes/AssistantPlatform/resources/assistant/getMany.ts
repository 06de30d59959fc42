import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { listProperties } from '../../../shared/descriptions/fields';
import type { ItemScope } from '../../helpers/items';
import { listOperation } from '../../helpers/lists';
import { textField } from '../../../shared/core/validation';

const show = { resource: ['assistant'], operation: ['getAll'] };

export const description: INodeProperties[] = [
	...listProperties(show, 'assistants'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Name Contains',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Only assistants whose name contains this text (case-insensitive)',
			},
		],
	},
];

/** Filters → query parameters, sent on every page (an empty Name Contains filters nothing). */
function filtersQuery(scope: ItemScope): IDataObject {
	const filters = (scope.getNodeParameter('filters', {}) as IDataObject) ?? {};
	const qs: IDataObject = {};
	const name = textField(scope.getNode(), 'Name Contains', filters.name, scope.getItemIndex(), { trim: false });
	if (name !== '') qs.name = name;
	return qs;
}

/** GET /assistants, page by page. */
export const execute = listOperation({ path: () => '/assistants', query: filtersQuery });
