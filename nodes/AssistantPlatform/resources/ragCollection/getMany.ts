import type { INodeProperties } from 'n8n-workflow';

import { listProperties } from '../../../shared/descriptions';

import { showFor } from './common';

export const getManyDescription: INodeProperties[] = [...listProperties(showFor('getAll'), 'collections')];
