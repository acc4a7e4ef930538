// Apply a delta (see dsh_notebook/widget/delta.py, the reference implementation) to a snapshot.
// Paths are keys from the root; inside an item list a segment is the item's id.

import type { Op } from "./messages";

export type { Op } from "./messages";

export class DeltaError extends Error {}

function step(container: any, segment: string): any {
  if (Array.isArray(container)) {
    const found = container.find((item) => item && typeof item === "object" && item.id === segment);
    if (found === undefined) throw new DeltaError(`no item ${segment}`);
    return found;
  }
  if (container && typeof container === "object" && Object.prototype.hasOwnProperty.call(container, segment)) {
    return container[segment];
  }
  throw new DeltaError(`no key ${segment}`);
}

const clone = <T>(value: T): T => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

/** Apply ``ops`` in place; throws DeltaError when they do not fit (the caller resyncs). */
export function applyOps(snapshot: any, ops: Op[]): void {
  for (const op of ops) {
    const path = op.path;
    if (!Array.isArray(path) || path.length === 0) throw new DeltaError("bad path");
    let parent: any = snapshot;
    for (const segment of path.slice(0, -1)) parent = step(parent, segment);
    const last = path[path.length - 1];
    if (last === "__proto__" || last === "constructor" || last === "prototype") {
      throw new DeltaError("forbidden key");
    }
    if (Array.isArray(parent)) {
      if (op.op !== "set") throw new DeltaError(`${op.op} on a list item`);
      const index = parent.findIndex((item) => item && typeof item === "object" && item.id === last);
      if (index < 0) throw new DeltaError(`no item ${last}`);
      parent[index] = clone(op.value);
      continue;
    }
    if (!parent || typeof parent !== "object") throw new DeltaError(`cannot address ${last}`);
    switch (op.op) {
      case "set":
        parent[last] = clone(op.value);
        break;
      case "del":
        delete parent[last];
        break;
      case "append": {
        if (typeof parent[last] !== "string") throw new DeltaError("append to a non-string");
        parent[last] = parent[last] + String(op.text);
        break;
      }
      case "items": {
        const current = parent[last];
        if (!Array.isArray(current)) throw new DeltaError("items on a non-list");
        const have = new Map<string, unknown>();
        for (const item of current) if (item && typeof item === "object") have.set((item as any).id, item);
        const add = op.add || {};
        parent[last] = op.ids.map((id) => {
          if (Object.prototype.hasOwnProperty.call(add, id)) return clone(add[id]);
          if (have.has(id)) return have.get(id);
          throw new DeltaError(`item ${id} neither kept nor added`);
        });
        break;
      }
      default:
        throw new DeltaError(`unknown op ${(op as any).op}`);
    }
  }
}
