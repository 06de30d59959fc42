export const DEFAULT_STORAGE_ALLOWANCE = 209_715_200;
/** Extra request-body room above the storage allowance (multipart framing, other fields). */
export const BODY_OVERHEAD_BYTES = 1024 * 1024;
export const SAVED_AUTH_NAME = 'n8n-header-auth';
export const SAVED_AUTH_HEADER = 'X-Webhook-Auth';
/** Per billed second, for trafficCost. */
export const COST_PER_SECOND = 0.0125;
export const CONTROL_PREFIX = '/__sandbox';
export const API_PREFIX = '/api/v1';
