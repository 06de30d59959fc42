import type { INodeProperties } from 'n8n-workflow';

import { setStatus } from './status';

/** Campaign → Resume: dial runs place calls again (not after Stop). */
export const description: INodeProperties[] = [];

export const execute = setStatus('running');
