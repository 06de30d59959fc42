import type { IDataObject } from 'n8n-workflow';

import { CONTROL_TABLE } from '../../nodes/shared/campaign/campaignControl';
import type { RunResult } from './engine';
import { runNode } from './engine';
import type { N8nDataTables, Row } from './n8nDataTables';
import { useN8nDataTables } from './n8nDataTables';
import type { SandboxFixture } from './sandbox';
import { useCallerAssistant, useSandbox } from './sandbox';

/*
 * The fixture of the durable campaign's engine tests: the platform sandbox (manual clock), n8n's data-table API in
 * memory, a contacts table, and the Campaign operations run through n8n-core's WorkflowExecute as a scheduled
 * execution would run them (the workflow's static data kept between runs, as n8n keeps it).
 */

export const CALLER = '+390212345678';
export const TABLE = 'Spring contacts';

export interface CampaignFixture {
	fx: SandboxFixture;
	n8nApi: { store: N8nDataTables };
	posts(): Array<{ body?: unknown }>;
	dialled(): string[];
	numbers(count: number, from?: number): string[];
	contacts(): Row[];
	controlRows(): Row[];
	stateOf(phone: string): unknown;
	campaign(operation: string, parameters?: IDataObject, items?: IDataObject[], options?: { workflowStaticData?: IDataObject; workflowName?: string }): Promise<RunResult>;
	dial(parameters?: IDataObject): Promise<RunResult>;
	prepared(phones: string[], extra?: (phone: string) => IDataObject): Promise<void>;
	/** Ends every call in progress in the sandbox (its clock moves on an hour). */
	endCalls(): Promise<void>;
}

export function useDurableCampaign(): CampaignFixture {
	const fx = useSandbox();
	useCallerAssistant(fx, CALLER);
	const n8nApi = useN8nDataTables();
	let staticData: IDataObject = {};
	beforeEach(() => {
		staticData = {};
	});
	const credentials = () => ({ ...fx.credentials, assistantPlatformN8nApi: n8nApi.store.credentials });
	const posts = () => fx.sandbox.journal.filter((e) => e.method === 'POST');
	const contacts = () => n8nApi.store.tables.find((t) => t.name === TABLE)!.rows;
	const campaign: CampaignFixture['campaign'] = async (operation, parameters = {}, items, options = {}) =>
		await runNode({
			parameters: { resource: 'campaign', operation, contactsTable: TABLE, ...parameters },
			credentials: credentials(),
			items: (items ?? [{}]).map((json) => ({ json })),
			mode: 'trigger',
			staticData: options.workflowStaticData ?? staticData,
			workflowName: options.workflowName,
		});
	return {
		fx,
		n8nApi,
		posts,
		dialled: () => posts().map((e) => String((e.body as IDataObject).dst)),
		numbers: (count, from = 0) => Array.from({ length: count }, (_, i) => `+1415555${String(from + i).padStart(4, '0')}`),
		contacts,
		controlRows: () => n8nApi.store.tables.find((t) => t.name === CONTROL_TABLE)!.rows,
		stateOf: (phone) => contacts().find((row) => row.phone === phone)?.campaignState,
		campaign,
		dial: async (parameters = {}) =>
			await campaign('dial', { callerId: CALLER, maxCallsInFlight: 3, retryPolicy: { busy: 0, noAnswer: 0, maxAttempts: 2 }, ...parameters }),
		async prepared(phones, extra = () => ({})) {
			n8nApi.store.seed(TABLE, phones.map((phone) => ({ phone, name: `Contact ${phone.slice(-4)}`, ...extra(phone) })));
			const { error } = await campaign('prepare');
			expect(error).toBeUndefined();
		},
		endCalls: async () => await fx.sandbox.clock.advance(3_600_000),
	};
}
