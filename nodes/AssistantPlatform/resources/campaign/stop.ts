import type { INodeProperties } from 'n8n-workflow';

import { setStatus } from './status';

/** Campaign → Stop: dial runs place no calls, for good; results of calls in flight are still recorded. */
export const description: INodeProperties[] = [];

export const execute = setStatus('stopped');
