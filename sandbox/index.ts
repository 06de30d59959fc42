export { PlatformSandbox } from './sandbox';
export type { SandboxClockApi } from './sandbox';
export { CONTROL_ENDPOINTS } from './control';
export { API_PREFIX, CONTROL_PREFIX, SAVED_AUTH_HEADER, SAVED_AUTH_NAME } from './constants';
export { AUTHORIZED_PBX, DEMO_ASSISTANTS, FREE_DEMO_NUMBER, PROVIDER_CATALOG, PURCHASED_NUMBERS, TOOL_CATALOG } from './seed';
export { sampleValue } from './core';
export type { ActiveFault } from './faults';
export type * from './types';
export { DIAL_STATUSES, PROVIDER_KINDS } from './types';
