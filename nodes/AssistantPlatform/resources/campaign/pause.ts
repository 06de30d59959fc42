import type { INodeProperties } from 'n8n-workflow';

import { setStatus } from './status';

/** Campaign → Pause: dial runs place no calls until Resume; calls in flight end and are recorded. */
export const description: INodeProperties[] = [];

export const execute = setStatus('paused');
