import type { INode } from 'n8n-workflow';

import type { CallingWindow } from '../../../nodes/shared/guards/callingHours';
import { isOpen, localTime, nextOpening, readCallingWindow, zonedInstant } from '../../../nodes/shared/guards/callingHours';

/*
 * Calling hours in a time zone, with Intl only: windows on chosen days, windows that cross midnight, and
 * the days clocks change. The nodes' use of them (nothing dialled outside, the item out with the time the
 * window opens) is in test/node/campaign.test.ts and test/node/outboundCallAndWait.test.ts.
 */

const node = { name: 'Place Call', type: 'test', typeVersion: 1, parameters: {}, id: 'n', position: [0, 0] } as INode;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function window(days: string[], from: string, to: string, timeZone: string): CallingWindow {
	return readCallingWindow(node, { days, from, to, timeZone }, 'UTC', 0);
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

describe('a window on weekdays, 09:00 to 20:00 in Rome', () => {
	const rome = window(WEEKDAYS, '09:00', '20:00', 'Europe/Rome');

	test('open from 09:00 to 19:59 local on a weekday (winter: UTC+1), closed outside and at the weekend', () => {
		// Tuesday 2026-01-13
		expect(isOpen(rome, at('2026-01-13T07:59:00Z'))).toBe(false); // 08:59
		expect(isOpen(rome, at('2026-01-13T08:00:00Z'))).toBe(true); // 09:00
		expect(isOpen(rome, at('2026-01-13T18:59:59Z'))).toBe(true); // 19:59:59
		expect(isOpen(rome, at('2026-01-13T19:00:00Z'))).toBe(false); // 20:00
		expect(isOpen(rome, at('2026-01-17T10:00:00Z'))).toBe(false); // Saturday 11:00
	});

	test('the next opening: later today, tomorrow, or Monday after a Friday evening', () => {
		expect(iso(nextOpening(rome, at('2026-01-13T05:00:00Z')))).toBe('2026-01-13T08:00:00.000Z');
		expect(iso(nextOpening(rome, at('2026-01-13T19:30:00Z')))).toBe('2026-01-14T08:00:00.000Z');
		expect(iso(nextOpening(rome, at('2026-01-16T19:30:00Z')))).toBe('2026-01-19T08:00:00.000Z'); // Fri -> Mon
		expect(iso(nextOpening(rome, at('2026-01-13T12:00:00Z')))).toBe('2026-01-13T12:00:00.000Z'); // open now
	});

	test('in summer Rome is UTC+2: the same local hours are an hour earlier in UTC', () => {
		expect(isOpen(rome, at('2026-07-14T07:00:00Z'))).toBe(true); // 09:00 CEST
		expect(iso(nextOpening(rome, at('2026-07-14T05:00:00Z')))).toBe('2026-07-14T07:00:00.000Z');
	});
});

describe('a window that crosses midnight', () => {
	const night = window(['friday'], '22:00', '02:00', 'America/New_York');

	test('Friday 22:00 to Saturday 02:00 belongs to Friday; Saturday evening does not', () => {
		// Friday 2026-01-16, New York is UTC-5
		expect(isOpen(night, at('2026-01-17T02:59:00Z'))).toBe(false); // Fri 21:59
		expect(isOpen(night, at('2026-01-17T03:00:00Z'))).toBe(true); // Fri 22:00
		expect(isOpen(night, at('2026-01-17T06:30:00Z'))).toBe(true); // Sat 01:30
		expect(isOpen(night, at('2026-01-17T07:00:00Z'))).toBe(false); // Sat 02:00
		expect(isOpen(night, at('2026-01-18T03:30:00Z'))).toBe(false); // Sat 22:30
		expect(isOpen(night, at('2026-01-16T06:30:00Z'))).toBe(false); // Fri 01:30 (Thursday's window, not chosen)
	});

	test('after the window the next opening is the next Friday at 22:00', () => {
		expect(iso(nextOpening(night, at('2026-01-17T07:00:00Z')))).toBe('2026-01-24T03:00:00.000Z');
	});

	test('24:00 ends the window at midnight', () => {
		const evening = window(['monday'], '18:00', '24:00', 'UTC');
		expect(isOpen(evening, at('2026-01-12T23:59:00Z'))).toBe(true);
		expect(isOpen(evening, at('2026-01-13T00:00:00Z'))).toBe(false);
	});
});

describe('the days clocks change', () => {
	test('Rome, 2026-03-29 (02:00 -> 03:00): a window opening at 02:30 opens when the clocks jump', () => {
		const w = window(['sunday'], '02:30', '05:00', 'Europe/Rome');
		expect(iso(nextOpening(w, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
		expect(localTime(at('2026-03-29T01:00:00Z'), 'Europe/Rome')).toMatchObject({ hour: 3, minute: 0 });
		expect(isOpen(w, at('2026-03-29T00:59:00Z'))).toBe(false); // 01:59 CET
		expect(isOpen(w, at('2026-03-29T01:00:00Z'))).toBe(true);
		expect(iso(zonedInstant(2026, 3, 29, 150, 'Europe/Rome'))).toBe('2026-03-29T01:00:00.000Z');
	});

	test('Rome, 2026-10-25 (03:00 -> 02:00): the repeated hour is inside a window that holds it; the opening is the first', () => {
		const w = window(['sunday'], '02:00', '03:00', 'Europe/Rome');
		expect(iso(nextOpening(w, at('2026-10-24T12:00:00Z')))).toBe('2026-10-25T00:00:00.000Z'); // 02:00 CEST
		expect(isOpen(w, at('2026-10-25T00:30:00Z'))).toBe(true); // 02:30 CEST
		expect(isOpen(w, at('2026-10-25T01:30:00Z'))).toBe(true); // 02:30 CET, the second time
		expect(isOpen(w, at('2026-10-25T02:00:00Z'))).toBe(false); // 03:00 CET
	});

	test('New York, 2026-03-08: 09:00 is 13:00 UTC on the day of the change and 14:00 UTC the day before', () => {
		const w = window(['saturday', 'sunday'], '09:00', '17:00', 'America/New_York');
		expect(iso(nextOpening(w, at('2026-03-07T12:00:00Z')))).toBe('2026-03-07T14:00:00.000Z');
		expect(iso(nextOpening(w, at('2026-03-07T23:00:00Z')))).toBe('2026-03-08T13:00:00.000Z');
	});

	test('a night window across the change keeps local times (Saturday 22:00 to Sunday 06:00, New York)', () => {
		const w = window(['saturday'], '22:00', '06:00', 'America/New_York');
		expect(isOpen(w, at('2026-03-08T09:59:00Z'))).toBe(true); // Sun 05:59 EDT
		expect(isOpen(w, at('2026-03-08T10:00:00Z'))).toBe(false); // Sun 06:00 EDT
		expect(isOpen(w, at('2026-03-08T06:30:00Z'))).toBe(true); // Sun 01:30 EST
	});

	test('Sydney (southern hemisphere, clocks back on 2026-04-05): 09:00 is 22:00 UTC the day before, then 23:00', () => {
		const w = window(['saturday', 'sunday', 'monday'], '09:00', '17:00', 'Australia/Sydney');
		expect(iso(nextOpening(w, at('2026-04-03T12:00:00Z')))).toBe('2026-04-03T22:00:00.000Z'); // Sat 09:00 AEDT
		expect(iso(nextOpening(w, at('2026-04-04T12:00:00Z')))).toBe('2026-04-04T23:00:00.000Z'); // Sun 09:00 AEST
	});
});

describe('what is refused, naming the field', () => {
	const read = (raw: Record<string, unknown>) => () =>
		readCallingWindow(node, { days: WEEKDAYS, from: '09:00', to: '17:00', timeZone: 'UTC', ...raw }, 'UTC', 3);

	test('an unknown time zone', () => {
		expect(read({ timeZone: 'Mars/Olympus_Mons' })).toThrow('Invalid "Calling Hours > Time Zone": unknown time zone "Mars/Olympus_Mons"');
		expect(read({ timeZone: { zone: 'UTC' } })).toThrow('Invalid "Calling Hours > Time Zone": must be a time zone name such as Europe/Rome, not an object');
	});

	test('a window whose end equals its start', () => {
		expect(read({ from: '09:00', to: '09:00' })).toThrow('Invalid "Calling Hours > To": must differ from From (09:00)');
	});

	test('times that are not HH:MM, and no day', () => {
		expect(read({ from: '9am' })).toThrow('Invalid "Calling Hours > From": must be a time of day as HH:MM');
		expect(read({ to: '24:30' })).toThrow('Invalid "Calling Hours > To"');
		expect(read({ from: '24:00' })).toThrow('Invalid "Calling Hours > From"');
		expect(read({ days: [] })).toThrow('Invalid "Calling Hours > Days": must name at least one day of the week');
		expect(read({ days: ['funday'] })).toThrow('Invalid "Calling Hours > Days": must be days of the week');
	});

	test('an empty time zone is the workflow\'s', () => {
		const w = readCallingWindow(node, { days: WEEKDAYS, from: '09:00', to: '17:00', timeZone: '' }, 'Asia/Tokyo', 0);
		expect(w.timeZone).toBe('Asia/Tokyo');
		expect(w.label).toBe('Mon Tue Wed Thu Fri 09:00-17:00 Asia/Tokyo');
	});
});
