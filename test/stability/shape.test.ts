import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { AssistantPlatform } from '../../nodes/AssistantPlatform/AssistantPlatform.node';
import type { ResourceModule } from '../../nodes/AssistantPlatform/helpers/module';

// One shape for the action node (docs/architecture.md): the node routes resource → operation to the
// `execute` of one file, resources/<resource>/<file>.ts, which also exports that operation's fields;
// nothing is left to n8n's declarative engine.

const RESOURCES = resolve(__dirname, '../../nodes/AssistantPlatform/resources');

interface OperationFile {
	file: string;
	description?: INodeProperties[];
	execute?: unknown;
}

interface Folder {
	folder: string;
	module: ResourceModule;
	files: OperationFile[];
}

async function resourceFolders(): Promise<Folder[]> {
	const folders: Folder[] = [];
	for (const folder of readdirSync(RESOURCES)) {
		const index = (await import(join(RESOURCES, folder, 'index.ts'))) as Record<string, unknown>;
		const module = Object.values(index).find((value) => (value as ResourceModule)?.operations) as ResourceModule;
		const files: OperationFile[] = [];
		for (const name of readdirSync(join(RESOURCES, folder))) {
			if (!name.endsWith('.ts') || name === 'index.ts') continue;
			files.push({ file: name, ...((await import(join(RESOURCES, folder, name))) as object) });
		}
		folders.push({ folder, module, files });
	}
	return folders;
}

function hasRouting(value: unknown, depth = 0): boolean {
	if (depth > 20 || value === null || typeof value !== 'object') return false;
	if (Array.isArray(value)) return value.some((entry) => hasRouting(entry, depth + 1));
	return Object.entries(value).some(([key, child]) => key === 'routing' || hasRouting(child, depth + 1));
}

describe('the action node has one shape', () => {
	const node = new AssistantPlatform();

	test('the node executes every operation itself: no declarative routing, no request defaults', () => {
		expect(typeof node.execute).toBe('function');
		expect(node.description.requestDefaults).toBeUndefined();
		expect(hasRouting(node.description.properties)).toBe(false);
	});

	test('each operation is one file exporting its fields and its execute, and the router calls that execute', async () => {
		const folders = await resourceFolders();
		expect(folders.map((f) => f.folder).sort()).toEqual(
			['assistant', 'callStatus', 'campaign', 'catalog', 'customApiRequest', 'doNotCallList', 'outboundCall', 'ragCollection', 'runtime'],
		);
		for (const { folder, module, files } of folders) {
			const selector = module.properties.find((property) => property.name === 'operation');
			const values = (selector?.options as INodePropertyOptions[]).map((option) => String(option.value));
			expect({ folder, routed: Object.keys(module.operations).sort() }).toEqual({ folder, routed: [...values].sort() });
			for (const value of values) {
				const owners = files.filter((file) => file.execute === module.operations[value]).map((owner) => owner.file);
				expect({ folder, value, owners }).toEqual({ folder, value, owners: [expect.any(String)] });
				const owner = files.find((file) => file.file === owners[0])!;
				expect({ file: owner.file, description: owner.description }).toEqual({ file: owner.file, description: expect.any(Array) });
				for (const property of owner.description ?? []) expect(module.properties).toContain(property);
			}
		}
	});
});
