import { BoundedLru } from '../../shared/bounded-lru.ts';
import type { AudienceAnalyticsItem } from './schema.ts';
import { TOTAL_FIELDS, type Totals } from './store.ts';

/** How much the item texts of one process may hold: the items of about 80 pages of 1,000 audiences. */
const ITEM_TEXTS_BYTES = 32 * 1024 * 1024;
const ITEM_TEXTS_PAGES = 1000;

/** About what an item's totals hold in memory besides its text. */
const TOTALS_BYTES = 150;

interface ItemText {
  totals: Totals;
  text: Buffer;
}

const OPEN = Buffer.from('{"items":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

function sameTotals(a: Totals, b: Totals): boolean {
  if (a === b) return true;
  for (const field of TOTAL_FIELDS) if (a[field] !== b[field]) return false;
  return true;
}

/**
 * The JSON of each audience's analytics item as last written, per page, with the totals it was
 * written from. Made from those totals alone, and compared with them at every use, so nothing
 * invalidates it: an audience whose totals have not moved since the page's last answer (most of
 * them, from one request to the next) costs a comparison, not its figures written out again, and
 * the answer is the kept texts copied together. Writing 1,000 items took 1.7–2 ms; copying them,
 * about a tenth of that. Bounded in pages and bytes, least recently used out first.
 */
export class ItemTexts {
  private readonly pages = new BoundedLru<Map<string, ItemText>>(ITEM_TEXTS_PAGES, ITEM_TEXTS_BYTES);

  /**
   * The answer's JSON for `items` (audience ids and their totals, in order) of the page `pageKey`,
   * byte for byte JSON.stringify({ items }) of what `present` makes of them.
   */
  answer(
    pageKey: string,
    items: [audienceId: string, totals: Totals][],
    present: (audienceId: string, totals: Totals) => AudienceAnalyticsItem,
  ): Buffer {
    const before = this.pages.get(pageKey);
    const now = new Map<string, ItemText>();
    const parts: Buffer[] = [OPEN];
    let bytes = 0;
    for (const [audienceId, totals] of items) {
      const kept = before?.get(audienceId);
      const item =
        kept && sameTotals(kept.totals, totals)
          ? kept
          : { totals, text: Buffer.from(JSON.stringify(present(audienceId, totals))) };
      now.set(audienceId, item);
      if (parts.length > 1) parts.push(COMMA);
      parts.push(item.text);
      bytes += item.text.length + TOTALS_BYTES;
    }
    parts.push(CLOSE);
    this.pages.set(pageKey, now, bytes);
    return Buffer.concat(parts);
  }
}
