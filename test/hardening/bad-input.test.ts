/**
 * Bad input matrix: every operation of the Assistant Platform node and of the Call and
 * Wait node, fed values that must be refused before anything reaches the platform. Each row runs the
 * real node through n8n-core's WorkflowExecute against the sandbox and asserts that the error names
 * the field and the rule, that it carries no secret, and that the sandbox journal stayed empty.
 *
 * A few tool-binding rules can only be checked against the live tool catalog: those rows allow the
 * catalog reads they need (listed in `reads`) and assert that nothing else was sent (no write).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../harness/sandbox';

import type { Target } from './helpers';
import { apNode, byId, itemWithFiles, OPERATIONS, run } from './helpers';

const fx = useSandbox();

const ALLOWANCE = 209_715_200;
const ASSISTANT = byId('asst_AAAAAAAAAAAAAAAA');
const RAG = byId('rag_AAAAAAAAAAAA');
const CALLER = '+390200001001';

interface Row {
	/** Operation the row exercises, e.g. "assistant.create". */
	op: string;
	what: string;
	target?: Target;
	parameters: IDataObject;
	items?: INodeExecutionData[];
	nodeSettings?: IDataObject;
	/** Credentials of the Outbound API with this assistant key (default: a non-empty one). */
	assistantKey?: string;
	/** The field the error must name ('' for a rule about the input as a whole). */
	field: string;
	/** n8n's own pre-flight check refuses it (a required parameter left empty) before the node runs. */
	preflight?: boolean;
	/** Text of the rule the error must contain. */
	rule: string;
	/** Reads a rule needs (method + path); anything else in the journal fails the row. */
	reads?: string[];
}

const assistant = (operation: string, extra: IDataObject): IDataObject => ({ resource: 'assistant', operation, ...extra });
const runtime = (operation: string, extra: IDataObject): IDataObject => ({
	resource: 'runtime',
	operation,
	assistantId: ASSISTANT,
	...extra,
});
const catalog = (operation: string, extra: IDataObject): IDataObject => ({ resource: 'catalog', operation, ...extra });
const rag = (operation: string, extra: IDataObject): IDataObject => ({ resource: 'ragCollection', operation, ...extra });
const call = (extra: IDataObject): IDataObject => ({
	resource: 'outboundCall',
	operation: 'placeCall',
	route: 'trunk',
	dst: '+14155550123',
	callerId: CALLER,
	...extra,
});
const wait = (extra: IDataObject): IDataObject => ({ route: 'trunk', dst: '+14155550123', callerId: CALLER, ...extra });
const status = (extra: IDataObject): IDataObject => ({ resource: 'callStatus', operation: 'get', ...extra });
const custom = (extra: IDataObject): IDataObject => ({ resource: 'customApiRequest', operation: 'request', ...extra });
const tool = (toolName: string, toolKind = 'fromCatalog', subscriptionName = '') => ({ toolName, toolKind, subscriptionName });
const schemaProperty = (name: string, extra: IDataObject = {}) => ({ name, type: 'string', description: '', required: false, ...extra });

const pdf = () => [itemWithFiles({ data: { fileName: 'manual.pdf' } })];
const CATALOG_READ = 'GET /api/v1/catalog/tools';

const MALFORMED_JSON = '{"extra": ';
const JSON_RULE = 'must be valid JSON';
const OBJECT_RULE = 'must be a JSON object';

const rows: Row[] = [
	// ---- Assistant
	{ op: 'assistant.create', what: 'empty name (n8n pre-flight)', parameters: assistant('create', { name: '' }), field: 'Name', rule: 'is required', preflight: true },
	{ op: 'assistant.create', what: 'blank name', parameters: assistant('create', { name: '   ' }), field: 'Name', rule: 'must not be empty' },
	{ op: 'assistant.create', what: 'name expression resolving to an object', parameters: assistant('create', { name: '={{ {} }}' }), field: 'Name', rule: 'must be text' },
	{ op: 'assistant.create', what: 'empty mode', parameters: assistant('create', { name: 'A', mode: '' }), field: 'Mode', rule: 'must not be empty' },
	{ op: 'assistant.create', what: 'malformed Additional Fields (JSON)', parameters: assistant('create', { name: 'A', additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'assistant.create', what: 'Additional Fields (JSON) an array', parameters: assistant('create', { name: 'A', additionalFieldsJson: '[1, 2]' }), field: 'Additional Fields (JSON)', rule: OBJECT_RULE },
	{ op: 'assistant.create', what: 'Additional Fields (JSON) expression resolving to a number', parameters: assistant('create', { name: 'A', additionalFieldsJson: '={{ 123 }}' }), field: 'Additional Fields (JSON)', rule: OBJECT_RULE },
	{ op: 'assistant.delete', what: 'empty assistant ID (n8n pre-flight)', parameters: assistant('delete', { assistantId: byId('') }), field: 'Assistant', rule: 'is required', preflight: true },
	{ op: 'assistant.delete', what: 'assistant ID expression resolving to an empty string', parameters: assistant('delete', { assistantId: byId('={{ "" }}') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'assistant.delete', what: 'assistant ID from an expression resolving to nothing', parameters: assistant('delete', { assistantId: byId('={{ $json.assistantId }}') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'assistant.delete', what: 'assistant ID from an expression resolving to an object', parameters: assistant('delete', { assistantId: byId('={{ { id: 1 } }}') }), field: 'Assistant', rule: 'must be text' },
	{ op: 'assistant.getAll', what: 'Limit 0', parameters: assistant('getAll', { limit: 0 }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'assistant.getAll', what: 'Limit 2.5', parameters: assistant('getAll', { limit: 2.5 }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'assistant.getAll', what: 'Limit expression resolving to text', parameters: assistant('getAll', { limit: '={{ "ten" }}' }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'assistant.getAll', what: 'Page Size 0', parameters: assistant('getAll', { options: { pageSize: 0 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'assistant.getAll', what: 'Page Size 501', parameters: assistant('getAll', { returnAll: true, options: { pageSize: 501 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'assistant.getAll', what: 'Page Size 10.5', parameters: assistant('getAll', { options: { pageSize: 10.5 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'assistant.updatePrompt', what: 'empty prompt (n8n pre-flight)', parameters: assistant('updatePrompt', { assistantId: ASSISTANT, prompt: '' }), field: 'Prompt', rule: 'is required', preflight: true },
	{ op: 'assistant.updatePrompt', what: 'prompt expression resolving to nothing', parameters: assistant('updatePrompt', { assistantId: ASSISTANT, prompt: '={{ $json.prompt }}' }), field: 'Prompt', rule: 'must not be empty' },
	{ op: 'assistant.updatePrompt', what: 'prompt expression resolving to an object', parameters: assistant('updatePrompt', { assistantId: ASSISTANT, prompt: '={{ {} }}' }), field: 'Prompt', rule: 'must be text' },
	{ op: 'assistant.updatePrompt', what: 'prompt expression resolving to an array', parameters: assistant('updatePrompt', { assistantId: ASSISTANT, prompt: '={{ ["a"] }}' }), field: 'Prompt', rule: 'must be text' },
	{ op: 'assistant.updatePrompt', what: 'assistant ID expression resolving to blanks', parameters: assistant('updatePrompt', { assistantId: byId('={{ "  " }}'), prompt: 'Hi' }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'assistant.updatePrompt', what: 'malformed Additional Fields (JSON)', parameters: assistant('updatePrompt', { assistantId: ASSISTANT, prompt: 'Hi', additionalFieldsJson: '{prompt: "x"}' }), field: 'Additional Fields (JSON)', rule: JSON_RULE },

	// ---- Runtime
	{ op: 'runtime.setProvider', what: 'kind expression resolving to an unknown kind', parameters: runtime('setProvider', { providerKind: '={{ "video" }}', providerId: byId('openai') }), field: 'Kind', rule: 'must be one of tts, asr, llm, audio-to-audio' },
	{ op: 'runtime.setProvider', what: 'empty provider', parameters: runtime('setProvider', { providerKind: 'llm', providerId: byId('={{ $json.provider }}') }), field: 'Provider', rule: 'must not be empty' },
	{ op: 'runtime.setProvider', what: 'empty assistant', parameters: runtime('setProvider', { assistantId: byId('={{ "" }}'), providerKind: 'llm', providerId: byId('openai') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'runtime.setProvider', what: 'malformed Settings (JSON)', parameters: runtime('setProvider', { providerKind: 'llm', providerId: byId('openai'), providerOptions: { settings: '{"temperature": }' } }), field: 'Settings', rule: JSON_RULE },
	{ op: 'runtime.setProvider', what: 'Settings (JSON) an array', parameters: runtime('setProvider', { providerKind: 'llm', providerId: byId('openai'), providerOptions: { settings: '[0.2]' } }), field: 'Settings', rule: OBJECT_RULE },
	{ op: 'runtime.setProvider', what: 'malformed Additional Fields (JSON)', parameters: runtime('setProvider', { providerKind: 'llm', providerId: byId('openai'), additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'runtime.updateTools', what: 'no tool to add or remove', parameters: runtime('updateTools', {}), field: 'Tools to Add', rule: 'add at least one tool' },
	{ op: 'runtime.updateTools', what: 'empty tool name', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('')] } }), field: 'Tools to Add › Tool 1 › Tool', rule: 'must not be empty' },
	{ op: 'runtime.updateTools', what: 'unknown kind from an expression', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('crm_search', '={{ "mcp" }}')] } }), field: 'Tools to Add › Tool 1 › Kind', rule: 'must be one of fromCatalog, custom_tool, plugin_tool, custom_mcp_tool' },
	{ op: 'runtime.updateTools', what: 'custom_tool with a subscription name', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('lookup_order', 'custom_tool', 'some-instance')] } }), field: 'Tools to Add › Tool 1 › Subscription Name', rule: 'must be empty for a custom_tool' },
	{ op: 'runtime.updateTools', what: 'removal: custom_tool with a subscription name', parameters: runtime('updateTools', { toolsToRemove: { tools: [tool('lookup_order', 'custom_tool', 'x-instance')] } }), field: 'Tools to Remove › Tool 1 › Subscription Name', rule: 'must be empty for a custom_tool' },
	{ op: 'runtime.updateTools', what: 'a tool not in the catalog', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('no_such_tool')] } }), field: 'Tools to Add › Tool 1 › Tool', rule: '"no_such_tool" is not in the tool catalog', reads: [CATALOG_READ] },
	{ op: 'runtime.updateTools', what: 'a kind that contradicts the catalog', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('crm_search', 'plugin_tool')] } }), field: 'Tools to Add › Tool 1 › Kind', rule: '"crm_search" is a custom_mcp_tool in the tool catalog, not a plugin_tool', reads: [CATALOG_READ] },
	{ op: 'runtime.updateTools', what: "a subscription name that is not the catalog's instance name", parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('crm_search', 'fromCatalog', 'kb-mcp')] } }), field: 'Tools to Add › Tool 1 › Subscription Name', rule: 'must be the catalog\'s instance name of "crm_search" ("crm-mcp")', reads: [CATALOG_READ] },
	{ op: 'runtime.updateTools', what: 'a subscription name for a catalog custom_tool', parameters: runtime('updateTools', { toolsToAdd: { tools: [tool('create_ticket', 'fromCatalog', 'crm-mcp')] } }), field: 'Tools to Add › Tool 1 › Subscription Name', rule: 'must be empty: "create_ticket" is a custom_tool in the catalog', reads: [CATALOG_READ] },
	{ op: 'runtime.attachRag', what: 'collection ID not of the rag_ form', parameters: runtime('attachRag', { ragId: byId('={{ "collection-1" }}') }), field: 'RAG Collection', rule: 'must be a collection ID of the form rag_' },
	{ op: 'runtime.attachRag', what: 'empty collection ID', parameters: runtime('attachRag', { ragId: byId('={{ $json.ragId }}') }), field: 'RAG Collection', rule: 'must not be empty' },
	{ op: 'runtime.attachRag', what: 'Additional Fields (JSON) a string', parameters: runtime('attachRag', { ragId: RAG, additionalFieldsJson: '"ragId"' }), field: 'Additional Fields (JSON)', rule: OBJECT_RULE },
	{ op: 'runtime.detachRag', what: 'empty assistant', parameters: runtime('detachRag', { assistantId: byId('={{ $json.assistant }}') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'runtime.detachRag', what: 'malformed Additional Fields (JSON)', parameters: runtime('detachRag', { additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'runtime.configureConversationWebhook', what: 'enabled without a URL', parameters: runtime('configureConversationWebhook', { webhookUrl: '' }), field: 'Webhook URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'runtime.configureConversationWebhook', what: 'an ftp:// URL', parameters: runtime('configureConversationWebhook', { webhookUrl: 'ftp://files.example.com/hook' }), field: 'Webhook URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'runtime.configureConversationWebhook', what: 'URL expression resolving to a number', parameters: runtime('configureConversationWebhook', { webhookUrl: '={{ 123 }}' }), field: 'Webhook URL', rule: 'must be an http:// or https:// URL (got "123")' },
	{ op: 'runtime.configureConversationWebhook', what: 'Enabled expression resolving to "yes"', parameters: runtime('configureConversationWebhook', { webhookEnabled: '={{ "yes" }}', webhookUrl: 'https://example.com/h' }), field: 'Enabled', rule: 'must be true or false' },
	{ op: 'runtime.configureConversationWebhook', what: 'malformed Additional Fields (JSON)', parameters: runtime('configureConversationWebhook', { webhookUrl: 'https://example.com/h', additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'runtime.configureDataExtraction', what: 'a hangup URL that is not a URL', parameters: runtime('configureDataExtraction', { hangupUrl: 'example.com/data', schemaProperties: { property: [schemaProperty('a')] } }), field: 'Hangup URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'runtime.configureDataExtraction', what: 'no schema property', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d' }), field: 'Schema', rule: 'add at least one property' },
	{ op: 'runtime.configureDataExtraction', what: 'a property without a name', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d', schemaProperties: { property: [schemaProperty(' ')] } }), field: 'Schema › Property 1 › Name', rule: 'must not be empty' },
	{ op: 'runtime.configureDataExtraction', what: 'two properties with the same name', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d', schemaProperties: { property: [schemaProperty('city'), schemaProperty('city')] } }), field: 'Schema › Property 2 › Name', rule: 'must be unique' },
	{ op: 'runtime.configureDataExtraction', what: 'a type outside the five from an expression', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d', schemaProperties: { property: [schemaProperty('when', { type: '={{ "date" }}' })] } }), field: 'Schema › Property 1 › Type', rule: 'must be one of string, number, boolean, enum, object' },
	{ op: 'runtime.configureDataExtraction', what: 'duplicate enum values', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d', schemaProperties: { property: [schemaProperty('team', { type: 'enum', enumValues: 'sales, support, sales' })] } }), field: 'Schema › Property 1 › Enum Values', rule: 'must be unique: "sales" appears twice' },
	{ op: 'runtime.configureDataExtraction', what: 'Required expression resolving to "maybe"', parameters: runtime('configureDataExtraction', { hangupUrl: 'https://example.com/d', schemaProperties: { property: [schemaProperty('a', { required: '={{ "maybe" }}' })] } }), field: 'Schema › Property 1 › Required', rule: 'must be true or false' },
	{ op: 'runtime.clearDataExtraction', what: 'assistant ID from an expression resolving to nothing', parameters: runtime('clearDataExtraction', { assistantId: byId('={{ $json.nothing }}') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'runtime.configurePostCallMcp', what: 'enabled without a server URL', parameters: runtime('configurePostCallMcp', { mcpServerUrl: '' }), field: 'Server URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'runtime.configurePostCallMcp', what: 'a javascript: server URL', parameters: runtime('configurePostCallMcp', { mcpServerUrl: 'javascript:alert(1)' }), field: 'Server URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'runtime.configurePostCallMcp', what: 'malformed Settings (JSON)', parameters: runtime('configurePostCallMcp', { mcpServerUrl: 'https://mcp.example.com', mcpOptions: { settings: '{' } }), field: 'Settings', rule: JSON_RULE },
	{ op: 'runtime.configurePostCallMcp', what: 'Additional Fields (JSON) an array', parameters: runtime('configurePostCallMcp', { mcpServerUrl: 'https://mcp.example.com', additionalFieldsJson: '[]' }), field: 'Additional Fields (JSON)', rule: OBJECT_RULE },

	// ---- Catalog
	{ op: 'catalog.getProviders', what: 'kind expression resolving to an unknown kind', parameters: catalog('getProviders', { providerKind: '={{ "video" }}' }), field: 'Kind', rule: 'must be one of tts, asr, llm, audio-to-audio' },
	{ op: 'catalog.getTools', what: 'Limit 0', parameters: catalog('getTools', { limit: 0 }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'catalog.getTools', what: 'Page Size 1000', parameters: catalog('getTools', { options: { pageSize: 1000 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'catalog.getAssistantTools', what: 'assistant ID from an expression resolving to nothing', parameters: catalog('getAssistantTools', { assistantId: byId('={{ $json.id }}') }), field: 'Assistant', rule: 'must not be empty' },
	{ op: 'catalog.getAssistantTools', what: 'Limit -1', parameters: catalog('getAssistantTools', { assistantId: ASSISTANT, limit: -1 }), field: 'Limit', rule: 'must be a whole number of at least 1' },

	// ---- RAG Collection
	{ op: 'ragCollection.create', what: 'name expression resolving to blanks', parameters: rag('create', { name: '={{ "   " }}' }), field: 'Name', rule: 'must not be empty' },
	{ op: 'ragCollection.create', what: 'name expression resolving to a boolean', parameters: rag('create', { name: '={{ true }}' }), field: 'Name', rule: 'must be text' },
	{ op: 'ragCollection.create', what: 'malformed Additional Fields (JSON)', parameters: rag('create', { name: 'FAQ', additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'ragCollection.delete', what: 'collection ID with a forbidden character', parameters: rag('delete', { ragId: byId('={{ "rag_abc!" }}') }), field: 'RAG Collection', rule: 'must be a collection ID of the form rag_' },
	{ op: 'ragCollection.delete', what: 'collection ID from an expression resolving to nothing', parameters: rag('delete', { ragId: byId('={{ $json.ragId }}') }), field: 'RAG Collection', rule: 'must not be empty' },
	{ op: 'ragCollection.estimateUpload', what: 'chunk size 499', parameters: rag('estimateUpload', { chunkSize: 499 }), items: pdf(), field: 'Chunk Size', rule: 'must be a whole number from 500 to 10000' },
	{ op: 'ragCollection.estimateUpload', what: 'chunk size 10001', parameters: rag('estimateUpload', { chunkSize: 10001 }), items: pdf(), field: 'Chunk Size', rule: 'must be a whole number from 500 to 10000' },
	{ op: 'ragCollection.estimateUpload', what: 'chunk size 5000.5', parameters: rag('estimateUpload', { chunkSize: 5000.5 }), items: pdf(), field: 'Chunk Size', rule: 'must be a whole number from 500 to 10000' },
	{ op: 'ragCollection.estimateUpload', what: 'chunk size expression resolving to text', parameters: rag('estimateUpload', { chunkSize: '={{ "big" }}' }), items: pdf(), field: 'Chunk Size', rule: 'must be a whole number from 500 to 10000' },
	{ op: 'ragCollection.estimateUpload', what: 'an .exe in the typed list', parameters: rag('estimateUpload', { filesFrom: 'list', fileList: { files: [{ fileName: 'setup.exe', sizeBytes: 10 }] } }), field: 'File Name', rule: 'file type not accepted: "setup.exe"' },
	{ op: 'ragCollection.estimateUpload', what: 'an empty typed list', parameters: rag('estimateUpload', { filesFrom: 'list' }), field: 'Files', rule: 'add at least one file' },
	{ op: 'ragCollection.estimateUpload', what: 'a negative size', parameters: rag('estimateUpload', { filesFrom: 'list', fileList: { files: [{ fileName: 'a.pdf', sizeBytes: -1 }] } }), field: 'Size in Bytes', rule: 'must be a whole number of bytes, 0 or more' },
	{ op: 'ragCollection.estimateUpload', what: 'typed files over 200 MB', parameters: rag('estimateUpload', { filesFrom: 'list', fileList: { files: [{ fileName: 'a.pdf', sizeBytes: ALLOWANCE }, { fileName: 'b.csv', sizeBytes: 1 }] } }), field: 'Files', rule: `the files add up to ${ALLOWANCE + 1} bytes, more than the 200 MB document storage allowance` },
	{ op: 'ragCollection.estimateUpload', what: 'a binary .png', parameters: rag('estimateUpload', {}), items: [itemWithFiles({ data: { fileName: 'scan.png' } })], field: 'Input Binary Fields', rule: 'file type not accepted: "scan.png"' },
	{ op: 'ragCollection.estimateUpload', what: 'a missing binary field', parameters: rag('estimateUpload', { binaryPropertyName: 'attachment' }), items: pdf(), field: 'Input Binary Fields', rule: 'the input item has no binary field "attachment"' },
	{ op: 'ragCollection.estimateUpload', what: 'a collection ID not of the rag_ form', parameters: rag('estimateUpload', { ragId: byId('={{ "RAG_upper" }}') }), items: pdf(), field: 'RAG Collection', rule: 'must be a collection ID of the form rag_' },
	{ op: 'ragCollection.estimateUpload', what: 'malformed Additional Fields (JSON)', parameters: rag('estimateUpload', { additionalFieldsJson: MALFORMED_JSON }), items: pdf(), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'ragCollection.getAll', what: 'Limit 0', parameters: rag('getAll', { limit: 0 }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'ragCollection.getAll', what: 'Page Size expression resolving to text', parameters: rag('getAll', { options: { pageSize: '={{ "all" }}' } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'ragCollection.getManyDocuments', what: 'empty collection ID', parameters: rag('getManyDocuments', { ragId: byId('={{ "" }}') }), field: 'RAG Collection', rule: 'must not be empty' },
	{ op: 'ragCollection.getManyDocuments', what: 'Page Size 0', parameters: rag('getManyDocuments', { ragId: RAG, options: { pageSize: 0 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },
	{ op: 'ragCollection.getUploadProgress', what: 'upload ID from an expression resolving to nothing', parameters: rag('getUploadProgress', { uploadId: '={{ $json.uploadId }}' }), field: 'Upload ID', rule: 'must not be empty' },
	{ op: 'ragCollection.getUploadProgress', what: 'upload ID expression resolving to an object', parameters: rag('getUploadProgress', { uploadId: '={{ { id: "upl_1" } }}' }), field: 'Upload ID', rule: 'must be text' },
	{ op: 'ragCollection.getUploadProgress', what: 'Max Wait 0', parameters: rag('getUploadProgress', { uploadId: 'upl_1', waitForProcessing: true, waitOptions: { maxWaitSeconds: 0 } }), field: 'Max Wait (Seconds)', rule: 'must be a whole number from 1 to 86400' },
	{ op: 'ragCollection.getUploadProgress', what: 'First Poll Interval 50 ms', parameters: rag('getUploadProgress', { uploadId: 'upl_1', waitForProcessing: true, waitOptions: { pollIntervalMs: 50 } }), field: 'First Poll Interval (Ms)', rule: 'must be a whole number from 100 to 15000' },
	{ op: 'ragCollection.uploadDocuments', what: 'chunk size 20000', parameters: rag('uploadDocuments', { ragId: RAG, chunkSize: 20000 }), items: pdf(), field: 'Chunk Size', rule: 'must be a whole number from 500 to 10000' },
	{ op: 'ragCollection.uploadDocuments', what: 'an .exe file', parameters: rag('uploadDocuments', { ragId: RAG }), items: [itemWithFiles({ data: { fileName: 'tool.EXE' } })], field: 'Input Binary Fields', rule: 'file type not accepted: "tool.EXE"' },
	{ op: 'ragCollection.uploadDocuments', what: 'a file without an extension', parameters: rag('uploadDocuments', { ragId: RAG }), items: [itemWithFiles({ data: { fileName: 'README' } })], field: 'Input Binary Fields', rule: 'file type not accepted: "README"' },
	{ op: 'ragCollection.uploadDocuments', what: 'no binary field named', parameters: rag('uploadDocuments', { ragId: RAG, binaryPropertyName: ' , ' }), items: pdf(), field: 'Input Binary Fields', rule: 'must name at least one binary field' },
	{ op: 'ragCollection.uploadDocuments', what: 'files over 200 MB', parameters: rag('uploadDocuments', { ragId: RAG, binaryPropertyName: 'a, b' }), items: [itemWithFiles({ a: { fileName: 'a.pdf', bytes: 150_000_000 }, b: { fileName: 'b.pdf', bytes: 59_715_201 } })], field: 'Input Binary Fields', rule: `the files add up to ${ALLOWANCE + 1} bytes` },
	{ op: 'ragCollection.uploadDocuments', what: 'a collection ID with the wrong prefix', parameters: rag('uploadDocuments', { ragId: byId('={{ "Rag_abc" }}') }), items: pdf(), field: 'RAG Collection', rule: 'must be a collection ID of the form rag_' },
	{ op: 'ragCollection.uploadDocuments', what: 'malformed Additional Fields (JSON)', parameters: rag('uploadDocuments', { ragId: RAG, additionalFieldsJson: MALFORMED_JSON }), items: pdf(), field: 'Additional Fields (JSON)', rule: JSON_RULE },

	// ---- Outbound Call → Place Call
	{ op: 'outboundCall.placeCall', what: 'destination without a plus', parameters: call({ dst: '0039333123456' }), field: 'Destination Number', rule: 'must be in international (E.164) form' },
	{ op: 'outboundCall.placeCall', what: 'destination starting with +0', parameters: call({ dst: '+0123456789' }), field: 'Destination Number', rule: 'must be in international (E.164) form' },
	{ op: 'outboundCall.placeCall', what: 'destination of 16 digits', parameters: call({ dst: '+1234567890123456' }), field: 'Destination Number', rule: 'must be in international (E.164) form' },
	{ op: 'outboundCall.placeCall', what: 'destination expression resolving to a number without a plus', parameters: call({ dst: '={{ 393331234567 }}' }), field: 'Destination Number', rule: 'a leading + then 2 to 15 digits' },
	{ op: 'outboundCall.placeCall', what: 'destination expression resolving to an object', parameters: call({ dst: '={{ {} }}' }), field: 'Destination Number', rule: 'must be a phone number in international form' },
	{ op: 'outboundCall.placeCall', what: 'caller ID with letters', parameters: call({ callerId: '+39 02 CALLME' }), field: 'Caller ID', rule: 'must be in international (E.164) form' },
	{ op: 'outboundCall.placeCall', what: 'PBX route without a PBX address (n8n pre-flight)', parameters: call({ route: 'pbx', ipPbx: '' }), field: 'PBX Address', rule: 'is required', preflight: true },
	{ op: 'outboundCall.placeCall', what: 'PBX address expression resolving to blanks', parameters: call({ route: 'pbx', ipPbx: '={{ " " }}' }), field: 'PBX Address', rule: 'must not be empty on the PBX route' },
	{ op: 'outboundCall.placeCall', what: 'PBX address that is neither an IP nor a host name', parameters: call({ route: 'pbx', ipPbx: 'pbx_main!.example' }), field: 'PBX Address', rule: 'must be an IPv4 or IPv6 address or a hostname' },
	{ op: 'outboundCall.placeCall', what: 'SIP port 70000', parameters: call({ route: 'pbx', ipPbx: '10.0.0.5', options: { sipPort: 70000 } }), field: 'SIP Port', rule: 'must be a whole number from 1 to 65535' },
	{ op: 'outboundCall.placeCall', what: 'SIP port expression resolving to text', parameters: call({ route: 'pbx', ipPbx: '10.0.0.5', options: { sipPort: '={{ "sip" }}' } }), field: 'SIP Port', rule: 'must be a whole number from 1 to 65535' },
	{ op: 'outboundCall.placeCall', what: 'an ftp:// call result URL', parameters: call({ options: { callResultUrl: 'ftp://example.com/result' } }), field: 'Call Result URL', rule: 'must be an http:// or https:// URL' },
	{ op: 'outboundCall.placeCall', what: 'call result URL expression resolving to a number', parameters: call({ options: { callResultUrl: '={{ 123 }}' } }), field: 'Call Result URL', rule: 'must be an http:// or https:// URL (got 123)' },
	{ op: 'outboundCall.placeCall', what: 'call result URL expression resolving to an object', parameters: call({ options: { callResultUrl: '={{ { url: "https://x.example" } }}' } }), field: 'Call Result URL', rule: 'must be an http:// or https:// URL (got an object)' },
	{ op: 'outboundCall.placeCall', what: 'no assistant key anywhere', parameters: call({}), assistantKey: '', field: 'Assistant API Key', rule: 'must not be empty' },
	{ op: 'outboundCall.placeCall', what: 'malformed Additional Fields (JSON)', parameters: call({ additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'outboundCall.placeCall', what: 'Retry On Fail switched on', parameters: call({}), nodeSettings: { retryOnFail: true }, field: 'Retry On Fail', rule: 'must be off when placing calls' },
	{ op: 'outboundCall.placeCall', what: 'a bad second item stops before the first call', parameters: call({ dst: '={{ $json.dst }}' }), items: [{ json: { dst: '+14155550123' } }, { json: { dst: '12345' } }], field: 'Destination Number', rule: 'must be in international (E.164) form' },

	// ---- Call Status → Get
	{ op: 'callStatus.get', what: 'default Internal ID on an item without internal_id', parameters: status({}), field: 'Internal ID', rule: 'must not be empty' },
	{ op: 'callStatus.get', what: 'Internal ID expression resolving to an object', parameters: status({ internalId: '={{ { id: 1 } }}' }), field: 'Internal ID', rule: 'must be text' },
	{ op: 'callStatus.get', what: 'Max Wait 4000 s', parameters: status({ internalId: 'abc', waitForRecord: true, maxWait: 4000 }), field: 'Max Wait (Seconds)', rule: 'must be a number from 0 to 3600' },
	{ op: 'callStatus.get', what: 'Initial Delay 0', parameters: status({ internalId: 'abc', waitForRecord: true, initialDelay: 0 }), field: 'Initial Delay (Ms)', rule: 'must be a whole number from 1 to 600000' },
	{ op: 'callStatus.get', what: 'Initial Delay 1.5', parameters: status({ internalId: 'abc', waitForRecord: true, initialDelay: 1.5 }), field: 'Initial Delay (Ms)', rule: 'must be a whole number from 1 to 600000' },

	// ---- Campaign (a blank Contacts Table is refused before n8n's API is asked for anything)
	...['dial', 'contacts', 'summary', 'pause', 'prepare', 'recordResult', 'resume', 'stop'].map(
		(operation): Row => ({
			op: `campaign.${operation}`,
			what: 'a blank Contacts Table',
			parameters: { resource: 'campaign', operation, contactsTable: '  ', callerId: CALLER, internalId: 'abc' },
			field: 'Contacts Table',
			rule: 'must name a data table',
		}),
	),
	{ op: 'campaign.dial', what: 'Max Calls in Flight 0', parameters: { resource: 'campaign', operation: 'dial', contactsTable: 'contacts', callerId: CALLER, maxCallsInFlight: 0 }, field: 'Max Calls in Flight', rule: 'must be a whole number from 1 to 1000' },
	{ op: 'campaign.recordResult', what: 'Wait for Call Record 61 s', parameters: { resource: 'campaign', operation: 'recordResult', contactsTable: 'contacts', internalId: 'abc', recordWaitSeconds: 61 }, field: 'Wait for Call Record (Seconds)', rule: 'must be a number from 0 to 60' },
	{ op: 'campaign.dial', what: 'Calling Hours From 9', parameters: { resource: 'campaign', operation: 'dial', contactsTable: 'contacts', callerId: CALLER, callingHours: { window: [{ days: ['monday'], from: '9', to: '18:00' }] } }, field: 'Calling Hours > From', rule: 'must be a time of day as HH:MM' },
	{ op: 'campaign.dial', what: 'Spending Limit of 0', parameters: { resource: 'campaign', operation: 'dial', contactsTable: 'contacts', callerId: CALLER, campaignGuardrails: { spendingLimit: { limit: { amount: 0, perCall: 1 } } } }, field: 'Guardrails > Spending Limit > Amount', rule: 'must be an amount above 0' },

	// ---- Do-Not-Call List (refused before this n8n's data tables are asked for anything)
	{ op: 'doNotCallList.add', what: 'a number with letters', parameters: { resource: 'doNotCallList', operation: 'add', number: 'call me maybe' }, field: 'Number', rule: 'must be a phone number in international form' },
	{ op: 'doNotCallList.add', what: 'a prefix without +', parameters: { resource: 'doNotCallList', operation: 'add', number: '1900*' }, field: 'Number', rule: 'a prefix must be + and its first digits, then *' },
	{ op: 'doNotCallList.add', what: 'a campaign call without its Internal ID', parameters: { resource: 'doNotCallList', operation: 'add', numberFrom: 'campaignCall', contactsTable: 'contacts', internalId: ' ' }, field: 'Internal ID', rule: 'must be the internal_id of a call of the campaign' },
	{ op: 'doNotCallList.check', what: 'a number with letters', parameters: { resource: 'doNotCallList', operation: 'check', number: 'call me maybe' }, field: 'Number', rule: 'must be a phone number in international form' },
	{ op: 'outboundCall.placeCall', what: 'Max Calls per Number 0', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550123', guardrails: { callsPerNumber: { limit: { max: 0, hours: 24 } } } }, field: 'Guardrails > Max Calls per Number > Max Calls', rule: 'must be a whole number from 1 to 1000' },
	{ op: 'outboundCall.placeCall', what: 'Calling Hours Time Zone not a time zone', parameters: { resource: 'outboundCall', operation: 'placeCall', callerId: CALLER, dst: '+14155550123', callingHours: { window: [{ days: ['monday'], from: '09:00', to: '18:00' }], timeZone: [{ timeZone: 'Mars/Olympus' }] } }, field: 'Calling Hours > Time Zone', rule: 'unknown time zone' },

	// ---- Custom API Request
	{ op: 'customApiRequest.request', what: 'empty path (n8n pre-flight)', parameters: custom({ path: '' }), field: 'Path', rule: 'is required', preflight: true },
	{ op: 'customApiRequest.request', what: 'path expression resolving to nothing', parameters: custom({ path: '={{ $json.path }}' }), field: 'Path', rule: 'must not be empty' },
	{ op: 'customApiRequest.request', what: 'a full URL', parameters: custom({ path: 'https://evil.example.com/steal' }), field: 'Path', rule: 'must not contain "://"' },
	{ op: 'customApiRequest.request', what: 'a path climbing out with ..', parameters: custom({ path: '/assistants/../../admin' }), field: 'Path', rule: 'must not contain ".."' },
	{ op: 'customApiRequest.request', what: 'a %-encoded ..', parameters: custom({ path: '/assistants/%2e%2e/%2e%2e/admin' }), field: 'Path', rule: 'must not contain ".."' },
	{ op: 'customApiRequest.request', what: 'a protocol-relative path', parameters: custom({ path: '//evil.example.com/x' }), field: 'Path', rule: 'must not start with "//"' },
	{ op: 'customApiRequest.request', what: 'a path with a query string', parameters: custom({ path: '/assistants?limit=1' }), field: 'Path', rule: 'must not contain "?" or "#"' },
	{ op: 'customApiRequest.request', what: 'a path without a leading slash', parameters: custom({ path: 'assistants' }), field: 'Path', rule: 'must start with "/"' },
	{ op: 'customApiRequest.request', what: 'a path repeating /api/v1', parameters: custom({ path: '/api/v1/assistants' }), field: 'Path', rule: 'is already relative to /api/v1' },
	{ op: 'customApiRequest.request', what: 'path expression resolving to a number', parameters: custom({ path: '={{ 123 }}' }), field: 'Path', rule: 'must start with "/"' },
	{ op: 'customApiRequest.request', what: 'method expression resolving to TRACE', parameters: custom({ method: '={{ "TRACE" }}', path: '/assistants' }), field: 'Method', rule: 'must be one of GET, POST, PUT, PATCH, DELETE' },
	{ op: 'customApiRequest.request', what: 'malformed JSON body', parameters: custom({ method: 'POST', path: '/rag/collections', body: '{"name": "x",}' }), field: 'Body', rule: JSON_RULE },
	{ op: 'customApiRequest.request', what: 'a JSON body that is a string', parameters: custom({ method: 'PATCH', path: '/assistants/x/prompt', body: '"just text"' }), field: 'Body', rule: 'must be a JSON object or array' },
	{ op: 'customApiRequest.request', what: 'a query parameter without a name', parameters: custom({ path: '/knowledge', queryParameters: { parameters: [{ name: ' ', value: 'x' }] } }), field: 'Query Parameters', rule: 'every parameter needs a name' },
	{ op: 'customApiRequest.request', what: 'a query parameter set twice', parameters: custom({ path: '/knowledge', queryParameters: { parameters: [{ name: 'type', value: 'a' }, { name: 'type', value: 'b' }] } }), field: 'Query Parameters', rule: 'the parameter "type" is set twice' },
	{ op: 'customApiRequest.request', what: 'limit among the query parameters with Paginate', parameters: custom({ path: '/knowledge', paginate: true, queryParameters: { parameters: [{ name: 'limit', value: '5' }] } }), field: 'Query Parameters', rule: '"limit" is set by Paginate' },
	{ op: 'customApiRequest.request', what: 'Paginate with Limit 0', parameters: custom({ path: '/knowledge', paginate: true, limit: 0 }), field: 'Limit', rule: 'must be a whole number of at least 1' },
	{ op: 'customApiRequest.request', what: 'Paginate with Page Size 600', parameters: custom({ path: '/knowledge', paginate: true, options: { pageSize: 600 } }), field: 'Page Size', rule: 'must be a whole number from 1 to 500' },

	// ---- Assistant Platform Call and Wait
	{ op: 'callAndWait', target: 'wait', what: 'destination with letters', parameters: wait({ dst: 'call me' }), field: 'Destination Number', rule: 'must be in international (E.164) form' },
	{ op: 'callAndWait', target: 'wait', what: 'caller ID from an expression resolving to nothing', parameters: wait({ callerId: '={{ $json.callerId }}' }), field: 'Caller ID', rule: 'must be a phone number in international form' },
	{ op: 'callAndWait', target: 'wait', what: 'PBX route without a PBX address', parameters: wait({ route: 'pbx', ipPbx: '  ' }), field: 'PBX Address', rule: 'must not be empty on the PBX route' },
	{ op: 'callAndWait', target: 'wait', what: 'SIP port 0', parameters: wait({ route: 'pbx', ipPbx: 'pbx.example.com', options: { sipPort: 0 } }), field: 'SIP Port', rule: 'must be a whole number from 1 to 65535' },
	{ op: 'callAndWait', target: 'wait', what: 'Max Wait 0 minutes', parameters: wait({ maxWaitMinutes: 0 }), field: 'Max Wait (Minutes)', rule: 'must be a number above 0 and at most 10080' },
	{ op: 'callAndWait', target: 'wait', what: 'Max Wait 20000 minutes', parameters: wait({ maxWaitMinutes: 20000 }), field: 'Max Wait (Minutes)', rule: 'must be a number above 0 and at most 10080' },
	{ op: 'callAndWait', target: 'wait', what: 'malformed Additional Fields (JSON)', parameters: wait({ additionalFieldsJson: MALFORMED_JSON }), field: 'Additional Fields (JSON)', rule: JSON_RULE },
	{ op: 'callAndWait', target: 'wait', what: 'Additional Fields (JSON) expression resolving to an array', parameters: wait({ additionalFieldsJson: '={{ [1] }}' }), field: 'Additional Fields (JSON)', rule: OBJECT_RULE },
	{ op: 'callAndWait', target: 'wait', what: 'no assistant key anywhere', parameters: wait({}), assistantKey: '', field: 'Assistant API Key', rule: 'must not be empty' },
	{ op: 'callAndWait', target: 'wait', what: 'Retry On Fail switched on', parameters: wait({}), nodeSettings: { retryOnFail: true }, field: 'Retry On Fail', rule: 'must be off when placing calls' },
	{ op: 'callAndWait', target: 'wait', what: 'two input items', parameters: wait({}), items: [{ json: {} }, { json: {} }], field: '', rule: 'places one call per execution and got 2 input items' },
];


test('the matrix covers every operation of both nodes, with at least 40 rows', () => {
	expect(rows.length).toBeGreaterThanOrEqual(40);
	expect([...new Set(rows.map((row) => row.op))].sort()).toEqual([...OPERATIONS].sort());
});

test('OPERATIONS lists every operation the Assistant Platform node offers', () => {
	const offered: string[] = [];
	for (const property of apNode.description.properties) {
		if (property.name !== 'operation') continue;
		const resources = (property.displayOptions?.show?.resource ?? []) as string[];
		for (const option of property.options ?? []) {
			for (const resource of resources) offered.push(`${resource}.${String((option as { value: string }).value)}`);
		}
	}
	expect(offered.sort()).toEqual(OPERATIONS.filter((op) => op !== 'callAndWait').sort());
});

describe.each(rows.map((row) => [`${row.op}: ${row.what}`, row] as const))('%s', (_title, row) => {
	test('refused before sending, naming the field and the rule', async () => {
		fx.sandbox.clearJournal();
		const credentials = {
			...fx.credentials,
			assistantPlatformOutboundApi: {
				...fx.outbound,
				assistantApiKey: row.assistantKey ?? 'ak_placeholder_never_sent_0000000000',
			},
		};
		const { error, items } = await run(fx, row.target ?? 'ap', row.parameters, {
			items: row.items,
			nodeSettings: row.nodeSettings,
			credentials,
		});
		expect(items).toEqual([]);
		expect(error).toBeDefined();
		const message = String(error?.message);
		if (row.preflight) expect(message).toContain(`Parameter "${row.field}"`);
		else if (row.field !== '') expect(message).toContain(`Invalid "${row.field}"`);
		expect(message).toContain(row.rule);
		const sent = fx.sandbox.journal.map((entry) => `${entry.method} ${entry.path}`);
		expect(sent.filter((request) => !(row.reads ?? []).includes(request))).toEqual([]);
		expect(fx.sandbox.journal.filter((entry) => entry.method !== 'GET').map((entry) => `${entry.method} ${entry.path}`)).toEqual([]);
	});
});
