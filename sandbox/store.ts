/**
 * Items kept in insertion order (ascending `seq`) with a keyed index. Pagination slices `list`
 * by position; a cursor remembers the last `seq` it returned and finds its place by binary search,
 * so a page never sorts the whole set and deletions between pages never skip an item.
 */
export class OrderedStore<T extends { seq: number }> {
	private readonly items: T[] = [];
	private readonly index = new Map<string, T>();
	private nextSeq = 1;

	constructor(private readonly idOf: (item: T) => string) {}

	get size(): number {
		return this.items.length;
	}

	/** The items in order. Do not mutate. */
	get list(): readonly T[] {
		return this.items;
	}

	/** Reserves the next sequence number (pass it as the new item's `seq`). */
	takeSeq(): number {
		return this.nextSeq++;
	}

	add(item: T): T {
		const id = this.idOf(item);
		if (this.index.has(id)) throw new Error(`duplicate id ${id}`);
		if (this.items.length > 0 && item.seq <= this.items[this.items.length - 1].seq) {
			throw new Error('items must be added in ascending seq order');
		}
		if (item.seq >= this.nextSeq) this.nextSeq = item.seq + 1;
		this.items.push(item);
		this.index.set(id, item);
		return item;
	}

	get(id: string): T | undefined {
		return this.index.get(id);
	}

	has(id: string): boolean {
		return this.index.has(id);
	}

	delete(id: string): T | undefined {
		const item = this.index.get(id);
		if (!item) return undefined;
		this.index.delete(id);
		const at = lowerBound(this.items, item.seq);
		if (this.items[at] === item) this.items.splice(at, 1);
		return item;
	}

	values(): IterableIterator<T> {
		return this.items[Symbol.iterator]();
	}

	[Symbol.iterator](): IterableIterator<T> {
		return this.items[Symbol.iterator]();
	}

	toJSON(): T[] {
		return this.items.slice();
	}
}

/** First position whose seq is >= `seq` in an array sorted by ascending seq. */
export function lowerBound(items: readonly { seq: number }[], seq: number): number {
	let lo = 0;
	let hi = items.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		if (items[mid].seq < seq) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}
