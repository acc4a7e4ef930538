/**
 * The notebook's identity: a stable id in its own metadata (`metadata.dsh_notebook`), so a
 * conversation belongs to one notebook and survives rename, move, kernel restart and reopening.
 *
 * The rule, applied when a notebook is opened and when its path changes while it is open
 * (rename, move, Save As):
 *
 * 1. No valid stored identity: assign a fresh id (uuid4 hex) and the current path.
 * 2. The stored path is the current path: keep it.
 * 3. Otherwise look at the stored path with the contents API:
 *    - a notebook is there and carries the same id: this file is a copy (Duplicate, `cp`,
 *      Save As): it gets a fresh id and `forked_from: <old id>`, so it never silently shares
 *      the original's conversation;
 *    - nothing is there (404), or a notebook with another id (the name was reused): the file
 *      was moved: keep the id, record the new path;
 *    - the check fails otherwise (server error): treated as a copy (a fresh id is the safe
 *      side; `forked_from` still links the two).
 *
 * Every change goes through the notebook model's metadata; a document that was clean is left
 * clean (a notebook opens unmodified), so the identity reaches the file with the person's next
 * save (or an autosave after their next change).
 */

import { IStoredIdentity, isId, newId, parseStoredIdentity } from './protocol/identity';

/** What is at a path: `missing`, or a notebook with the id it carries (`null`: none). */
export type Lookup = (path: string) => Promise<{ found: false } | { found: true; id: string | null }>;

export interface IResolution {
  identity: IStoredIdentity;
  /** `assigned` (rule 1), `kept` (2), `forked` (copy), `moved` */
  verdict: 'assigned' | 'kept' | 'forked' | 'moved';
}

/** Apply the rule to what the notebook stores (`stored`, raw metadata) at `path`. */
export async function resolveIdentity(
  stored: unknown,
  path: string,
  lookup: Lookup,
  makeId: () => string = newId
): Promise<IResolution> {
  const current = parseStoredIdentity(stored);
  if (current === null) {
    return { identity: { id: makeId(), path }, verdict: 'assigned' };
  }
  if (current.path === path) {
    return { identity: current, verdict: 'kept' };
  }
  let isCopy: boolean;
  try {
    const there = await lookup(current.path);
    isCopy = there.found && there.id === current.id;
  } catch {
    isCopy = true;
  }
  if (isCopy) {
    return { identity: { id: makeId(), path, forked_from: current.id }, verdict: 'forked' };
  }
  return { identity: { ...current, path }, verdict: 'moved' };
}

interface IContentsLike {
  get(path: string, options: { content: boolean; type: 'notebook' }): Promise<{ content: unknown }>;
}

/** A `Lookup` over the Jupyter contents API (reads the notebook at the path). */
export function contentsLookup(contents: IContentsLike): Lookup {
  return async (path: string) => {
    try {
      const model = await contents.get(path, { content: true, type: 'notebook' });
      const content = model.content as { metadata?: Record<string, unknown> } | null;
      const stored = content?.metadata?.dsh_notebook as { id?: unknown } | undefined;
      return { found: true, id: isId(stored?.id) ? stored.id : null };
    } catch (error) {
      const status = (error as { response?: { status?: number } }).response?.status;
      if (status === 404) {
        return { found: false };
      }
      if (status === 400) {
        // not a notebook (a folder or a text file took the name): not the original
        return { found: true, id: null };
      }
      throw error;
    }
  };
}
