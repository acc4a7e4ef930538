/** The `dsh-private` cell tag as the toolbar toggle reads and writes it (pure: tested in node). */

import { PRIVATE_TAG } from './protocol/constants';

/** `tags` (a cell's `tags` metadata, whatever it holds) with `PRIVATE_TAG` added when `on`,
 * removed otherwise; other tags kept in order. */
export function withPrivateTag(tags: unknown, on: boolean): string[] {
  const kept = Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string' && t !== PRIVATE_TAG) : [];
  return on ? [...kept, PRIVATE_TAG] : kept;
}

/** Whether `tags` holds `PRIVATE_TAG`. */
export function hasPrivateTag(tags: unknown): boolean {
  return Array.isArray(tags) && tags.includes(PRIVATE_TAG);
}
