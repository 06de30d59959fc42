import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readWholeList } from '../../helpers/lists';
import type { RequestContext } from '../../../shared/transport/endpoint';
import { pageItems } from '../../../shared/transport/pageMeta';
import { portalRequest } from '../../../shared/transport/request';
import { isObject } from '../../../shared/core/object';
import { invalid } from '../../../shared/core/validation';

/** Provider kinds: the four runtime slots of an assistant (also the catalog path segment). */
export const PROVIDER_KINDS = ['tts', 'asr', 'llm', 'audio-to-audio'];

export const providerKindOptions: INodePropertyOptions[] = [
	{ name: 'Audio-to-Audio', value: 'audio-to-audio', description: 'A combined speech-to-speech provider' },
	{ name: 'ASR (Speech Recognition)', value: 'asr', description: 'Speech-to-text' },
	{ name: 'LLM (Language Model)', value: 'llm', description: 'The language model that drives the conversation' },
	{ name: 'TTS (Speech Synthesis)', value: 'tts', description: 'Text-to-speech' },
];

/** A provider of the catalog (docs/assumptions.md row 5). */
export interface CatalogProvider {
	providerId: string;
	name?: string;
	kind?: string;
	models?: string[];
	voices?: string[];
	languages?: string[];
}

/** A tool of the catalog (docs/assumptions.md row 7). */
export interface CatalogTool {
	toolName: string;
	kind?: string;
	instanceName?: string | null;
	description?: string;
}

/** A tool bound to an assistant (docs/assumptions.md row 8). */
export interface BoundTool {
	toolName: string;
	subscriptionName?: string | null;
	kind?: string;
}

export function assertProviderKind(ctx: RequestContext, value: unknown, itemIndex?: number): string {
	const kind = typeof value === 'string' ? value.trim() : '';
	if (!PROVIDER_KINDS.includes(kind)) {
		throw invalid(
			ctx.getNode(),
			'Kind',
			`must be one of ${PROVIDER_KINDS.join(', ')} (got ${JSON.stringify(value ?? null)})`,
			itemIndex,
		);
	}
	return kind;
}

/** What to do when the provider catalog cannot be read as a list of providers. */
const PROVIDER_CATALOG_HINT =
	'The spec does not show the shape of the provider catalog; this list reads the providers\' providerId (and models). Type the provider By ID (and the model By Name), or read the raw catalog with Catalog → Get Providers.';

/**
 * GET /catalog/providers/{kind} (read with retries): its shape is not shown by the spec. The providers are the
 * answer's list (a bare list, else "data", else the one list of the object: pageItems); an entry is used when it
 * has a providerId, the one field this node names a provider by. A catalog whose providers cannot be found, or
 * whose entries all lack a providerId, is an error that says to choose the provider By ID (never an empty list).
 */
export async function readProviders(
	ctx: RequestContext,
	kind: string,
	itemIndex?: number,
): Promise<CatalogProvider[]> {
	const { body } = await portalRequest(ctx, 'GET', `/catalog/providers/${encodeURIComponent(kind)}`, {
		retry: true,
		itemIndex,
	});
	const page = pageItems(body);
	if (!page.ok) {
		throw new NodeOperationError(ctx.getNode(), `The provider catalog (${kind}) answered with ${page.problem}: choose the provider By ID`, {
			itemIndex,
			description: PROVIDER_CATALOG_HINT,
		});
	}
	const providers = page.items.filter(
		(entry): entry is CatalogProvider => isObject(entry) && typeof entry.providerId === 'string' && entry.providerId !== '',
	);
	if (providers.length === 0 && page.items.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The provider catalog (${kind}) has ${page.items.length} entries, none with a providerId: choose the provider By ID`,
			{ itemIndex, description: PROVIDER_CATALOG_HINT },
		);
	}
	return providers;
}

/** Every tool of the catalog (GET /catalog/tools, all pages). */
export async function readToolCatalog(ctx: RequestContext, itemIndex?: number): Promise<CatalogTool[]> {
	const entries = await readWholeList(ctx, '/catalog/tools', itemIndex);
	return entries.filter((entry): entry is IDataObject & CatalogTool => typeof entry.toolName === 'string');
}

/** Every tool bound to an assistant (GET /catalog/assistants/{assistantId}/tools, all pages). */
export async function readAssistantTools(
	ctx: RequestContext,
	assistantId: string,
	itemIndex?: number,
): Promise<BoundTool[]> {
	const entries = await readWholeList(
		ctx,
		`/catalog/assistants/${encodeURIComponent(assistantId)}/tools`,
		itemIndex,
	);
	return entries.filter((entry): entry is IDataObject & BoundTool => typeof entry.toolName === 'string');
}
