export const PORTAL_CREDENTIAL = 'assistantPlatformPortalApi';
export const OUTBOUND_CREDENTIAL = 'assistantPlatformOutboundApi';
/** n8n's own public API: the durable call limit's data table (credentials/AssistantPlatformN8nApi.credentials.ts). */
export const N8N_API_CREDENTIAL = 'assistantPlatformN8nApi';

/** Largest page the platform serves (docs/assumptions.md, "Pagination"); also the default page size. */
export const MAX_PAGE_SIZE = 500;

/** Pages one walk reads at most unless Options > Max Pages says otherwise (500,000 items at 500 a page). */
export const DEFAULT_MAX_PAGES = 1_000;

/** One MB as the size options count it (1,048,576 bytes). */
export const MB = 1024 * 1024;
/**
 * Largest answer read, in MB after decompression, unless Settings > Request Options > Max Response
 * Size says otherwise: a page of 500 items is well under 1 MB.
 */
export const DEFAULT_MAX_RESPONSE_MB = 16;
/** Largest list one walk reads (the sum of its pages, in MB) unless Options > Max List Size says otherwise. */
export const DEFAULT_MAX_LIST_MB = 64;

/** Default per-request timeout when the user sets none (n8n's own default is 5 minutes). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Reads are retried at most this many times after the first attempt. */
export const READ_RETRIES = 3;
export const READ_BACKOFF_BASE_MS = 500;
export const READ_BACKOFF_MAX_MS = 8_000;
/** A Retry-After longer than this is not waited for: the read fails with a clear error instead. */
export const RETRY_AFTER_MAX_MS = 30_000;

export const SCHEMA_TYPES = ['string', 'number', 'boolean', 'enum', 'object'];
