import type { IDataObject, IExecuteFunctions, INodeProperties, NodeOutput } from 'n8n-workflow';

import { assistantLocator } from '../../../shared/descriptions/fields';
import { invalid, textField } from '../../../shared/core/validation';
import type { ItemScope } from '../../helpers/items';
import { forEachItem, itemScope } from '../../helpers/items';
import type { BoundTool, CatalogTool } from '../catalog/catalogReader';
import { readAssistantTools, readToolCatalog } from '../catalog/catalogReader';

import { assistantPath, patchRuntime, showFor } from './common';

const show = showFor('updateTools');

/** Kind value meaning "look the tool up in the catalog and use what it says". */
export const FROM_CATALOG = 'fromCatalog';

/** The kinds of tool the platform knows (a tool outside the catalog names its kind). */
const TOOL_KINDS = ['custom_tool', 'plugin_tool', 'custom_mcp_tool'];

interface ToolEntry {
	/** e.g. "Tools to Add › Tool 2", used to name the field in errors. */
	label: string;
	toolName: string;
	kind: string;
	/** The Subscription Name the user gave, trimmed ('' when not given). */
	given: string;
	removal: boolean;
}

interface ToolBinding {
	toolName: string;
	subscriptionName: string | null;
}

function readEntries(
	ctx: ItemScope,
	parameter: string,
	title: string,
	removal: boolean,
): ToolEntry[] {
	const node = ctx.getNode();
	const itemIndex = ctx.getItemIndex();
	const raw = ctx.getNodeParameter(`${parameter}.tools`, []) as unknown;
	const list = Array.isArray(raw) ? (raw as IDataObject[]) : [];
	return list.map((value, index) => {
		const label = `${title} › Tool ${index + 1}`;
		const toolName = textField(node, `${label} › Tool`, value?.toolName, itemIndex);
		if (toolName === '') throw invalid(node, `${label} › Tool`, 'must not be empty', itemIndex);
		const kind = textField(node, `${label} › Kind`, value?.toolKind ?? FROM_CATALOG, itemIndex) || FROM_CATALOG;
		if (kind !== FROM_CATALOG && !TOOL_KINDS.includes(kind)) {
			throw invalid(
				node,
				`${label} › Kind`,
				`must be one of ${[FROM_CATALOG, ...TOOL_KINDS].join(', ')} (got "${kind}")`,
				itemIndex,
			);
		}
		const given = textField(node, `${label} › Subscription Name`, value?.subscriptionName, itemIndex);
		if (kind === 'custom_tool' && given !== '') {
			throw invalid(
				node,
				`${label} › Subscription Name`,
				`must be empty for a custom_tool: the platform requires null (got "${given}")`,
				itemIndex,
			);
		}
		return { label, toolName, kind, given, removal };
	});
}

const isCustom = (tool: CatalogTool) => tool.kind === 'custom_tool';
const instanceOf = (tool: CatalogTool) =>
	typeof tool.instanceName === 'string' && tool.instanceName !== '' ? tool.instanceName : undefined;

/**
 * A catalog entry with its kind: its own `kind` when it has one (a field the spec does not show), else the Kind the
 * entry asked for, else (From Catalog) what the spec says sets the kinds apart: the catalog returns an instanceName
 * for plugin and tool-server tools, so an entry without one is a custom_tool (sent with null).
 */
function withKind(tool: CatalogTool, asked: string): CatalogTool {
	if (typeof tool.kind === 'string' && tool.kind !== '') return tool;
	if (asked !== FROM_CATALOG) return { ...tool, kind: asked };
	return instanceOf(tool) ? tool : { ...tool, kind: 'custom_tool' };
}

/**
 * Fills in subscriptionName from the catalog: null for a custom_tool, the catalog's instanceName for
 * plugin_tool and custom_mcp_tool (an entry without a kind: withKind). Rules (docs/assumptions.md, "Runtime and
 * Catalog"):
 * - a custom_tool takes no Subscription Name;
 * - a plugin/MCP tool's Subscription Name, when given, must be its catalog instanceName, and a
 *   plugin/MCP tool without an instanceName in the catalog cannot be sent;
 * - with Kind "From Catalog", the tool must be in the catalog; a removal of a tool that left the
 *   catalog falls back on the assistant's current bindings;
 * - a tool name offered by several instances needs the Subscription Name to pick one.
 */
async function resolveEntry(
	ctx: ItemScope,
	entry: ToolEntry,
	loadCatalog: () => Promise<CatalogTool[]>,
	loadBound: () => Promise<BoundTool[]>,
): Promise<ToolBinding> {
	const { toolName, kind, given } = entry;
	if (kind === 'custom_tool') return { toolName, subscriptionName: null };

	const named = (await loadCatalog()).filter((tool) => tool.toolName === toolName).map((tool) => withKind(tool, kind));
	const candidates = kind === FROM_CATALOG ? named : named.filter((tool) => tool.kind === kind);

	if (candidates.length === 0) return await resolveOutsideCatalog(ctx, entry, named, loadBound);
	if (given !== '') return checkedSubscriptionName(ctx, entry, candidates);
	return catalogSubscriptionName(ctx, entry, candidates);
}

/**
 * An entry no catalog tool of its kind matches: a removal is resolved from the assistant's current
 * bindings; anything else is refused, naming the kind the catalog has when the name is there.
 */
async function resolveOutsideCatalog(
	ctx: ItemScope,
	entry: ToolEntry,
	named: CatalogTool[],
	loadBound: () => Promise<BoundTool[]>,
): Promise<ToolBinding> {
	if (entry.removal) return await resolveFromBindings(ctx, entry, loadBound);
	const node = ctx.getNode();
	const itemIndex = ctx.getItemIndex();
	const { label, toolName, kind } = entry;
	if (named.length > 0) {
		const kinds = [...new Set(named.map((tool) => tool.kind ?? 'unknown'))].join(' / ');
		throw invalid(
			node,
			`${label} › Kind`,
			`"${toolName}" is a ${kinds} in the tool catalog, not a ${kind}`,
			itemIndex,
		);
	}
	throw invalid(node, `${label} › Tool`, `"${toolName}" is not in the tool catalog`, itemIndex);
}

/** A removal of a tool outside the catalog: the one binding of the assistant it names, else refused. */
async function resolveFromBindings(
	ctx: ItemScope,
	entry: ToolEntry,
	loadBound: () => Promise<BoundTool[]>,
): Promise<ToolBinding> {
	const node = ctx.getNode();
	const itemIndex = ctx.getItemIndex();
	const { label, toolName, kind, given } = entry;
	const bound = (await loadBound()).filter(
		(b) =>
			b.toolName === toolName &&
			(kind === FROM_CATALOG || !b.kind || b.kind === kind) &&
			(given === '' || b.subscriptionName === given),
	);
	const names = [...new Set(bound.map((b) => b.subscriptionName ?? null))];
	if (names.length === 1) return { toolName, subscriptionName: names[0] };
	if (names.length > 1) {
		throw invalid(
			node,
			`${label} › Subscription Name`,
			`"${toolName}" is bound to the assistant several times (${names.map((n) => JSON.stringify(n)).join(', ')}): give the Subscription Name of the one to remove`,
			itemIndex,
		);
	}
	throw invalid(
		node,
		`${label} › Tool`,
		`"${toolName}"${kind === FROM_CATALOG ? '' : ` (${kind})`} is neither in the tool catalog nor bound to the assistant${given ? ` with subscription name "${given}"` : ''}`,
		itemIndex,
	);
}

/** An entry with a Subscription Name: kept when it is a candidate's catalog instanceName, else refused. */
function checkedSubscriptionName(ctx: ItemScope, entry: ToolEntry, candidates: CatalogTool[]): ToolBinding {
	const node = ctx.getNode();
	const itemIndex = ctx.getItemIndex();
	const { label, toolName, given } = entry;
	const match = candidates.find((tool) => !isCustom(tool) && instanceOf(tool) === given);
	if (match) return { toolName, subscriptionName: given };
	if (candidates.every(isCustom)) {
		throw invalid(
			node,
			`${label} › Subscription Name`,
			`must be empty: "${toolName}" is a custom_tool in the catalog, for which the platform requires null (got "${given}")`,
			itemIndex,
		);
	}
	const expected = candidates.map(instanceOf).filter((name): name is string => !!name);
	throw invalid(
		node,
		`${label} › Subscription Name`,
		expected.length > 0
			? `must be the catalog's instance name of "${toolName}" (${expected.map((name) => `"${name}"`).join(' or ')}), got "${given}"`
			: `"${toolName}" has no instanceName in the tool catalog, so no subscription name can be checked (got "${given}")`,
		itemIndex,
	);
}

/** An entry without a Subscription Name: the one candidate's, from the catalog (null for a custom_tool). */
function catalogSubscriptionName(ctx: ItemScope, entry: ToolEntry, candidates: CatalogTool[]): ToolBinding {
	const node = ctx.getNode();
	const itemIndex = ctx.getItemIndex();
	const { label, toolName } = entry;
	if (candidates.every(isCustom)) return { toolName, subscriptionName: null };
	if (candidates.length > 1) {
		const instances = candidates.map((tool) => (isCustom(tool) ? 'custom_tool (null)' : `"${instanceOf(tool) ?? ''}"`));
		throw invalid(
			node,
			`${label} › Subscription Name`,
			`"${toolName}" is offered by several catalog entries (${instances.join(', ')}): give the Subscription Name of the one to use`,
			itemIndex,
		);
	}
	const [tool] = candidates;
	const instance = instanceOf(tool);
	if (!instance) {
		throw invalid(
			node,
			`${label} › Tool`,
			`"${toolName}" is a ${tool.kind ?? 'non-custom'} tool without an instanceName in the tool catalog, so its subscription name is unknown`,
			itemIndex,
		);
	}
	return { toolName, subscriptionName: instance };
}

function toolCollection(name: string, displayName: string, description: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Tool',
		default: {},
		description,
		displayOptions: { show },
		options: [
			{
				displayName: 'Tool',
				name: 'tools',
				values: [
					{
						displayName: 'Tool Name or ID',
						name: 'toolName',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getCatalogTools' },
						default: '',
						description:
							'The tool, from the tool catalog. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Kind',
						name: 'toolKind',
						type: 'options',
						default: FROM_CATALOG,
						options: [
							{
								name: 'From Catalog',
								value: FROM_CATALOG,
								description: 'Look the tool up in the catalog and fill in its subscription name',
							},
							{
								name: 'Custom Tool',
								value: 'custom_tool',
								description: 'A classic custom tool (one HTTP endpoint); sent with a null subscription name',
							},
							{
								name: 'Plugin Tool',
								value: 'plugin_tool',
								description: "A plugin tool; sent with its catalog instance name",
							},
							{
								name: 'Custom MCP Tool',
								value: 'custom_mcp_tool',
								description: "A tool of a tool server (MCP); sent with its catalog instance name",
							},
						],
					},
					{
						displayName: 'Subscription Name',
						name: 'subscriptionName',
						type: 'string',
						default: '',
						description:
							"Leave empty: it is filled in from the catalog (null for a custom tool, the catalog's instance name for plugin and tool-server tools). If given, it must match the catalog.",
					},
				],
			},
		],
	};
}

export const description: INodeProperties[] = [
	assistantLocator(show),
	toolCollection('toolsToAdd', 'Tools to Add', 'Tools to bind to the assistant (added to its current tools)'),
	toolCollection(
		'toolsToRemove',
		'Tools to Remove',
		'Tools to unbind from the assistant. Removing a tool that is not bound does nothing.',
	),
];

/** PATCH /assistants/{assistantId}/runtime/tools {tools, deleteTools} (docs/assumptions.md row 9). */
export async function execute(this: IExecuteFunctions): Promise<NodeOutput> {
	return await forEachItem(this, async (itemIndex) => {
		const scope = itemScope(this, itemIndex);
		const path = assistantPath(scope, '/runtime/tools');
		const toAdd = readEntries(scope, 'toolsToAdd', 'Tools to Add', false);
		const toRemove = readEntries(scope, 'toolsToRemove', 'Tools to Remove', true);
		if (toAdd.length + toRemove.length === 0) {
			throw invalid(
				this.getNode(),
				'Tools to Add',
				'add at least one tool to add or to remove (Tools to Add or Tools to Remove)',
				itemIndex,
			);
		}
		// The catalog (and, for removals, the assistant's bindings) are read only when an entry needs them.
		let catalog: Promise<CatalogTool[]> | undefined;
		let bound: Promise<BoundTool[]> | undefined;
		const loadCatalog = async () => await (catalog ??= readToolCatalog(this, itemIndex));
		const loadBound = async () =>
			await (bound ??= readAssistantTools(
				this,
				String(this.getNodeParameter('assistantId', itemIndex, '', { extractValue: true })),
				itemIndex,
			));
		const tools: ToolBinding[] = [];
		for (const entry of toAdd) tools.push(await resolveEntry(scope, entry, loadCatalog, loadBound));
		const deleteTools: ToolBinding[] = [];
		for (const entry of toRemove) deleteTools.push(await resolveEntry(scope, entry, loadCatalog, loadBound));
		return await patchRuntime(this, scope, path, { tools, deleteTools } as unknown as IDataObject);
	});
}
