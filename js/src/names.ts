// Names instead of raw ids in tool results ("started background job “Wait and say done”", not
// "bash-4f536804ba2a46ab"). Mirrors dsh_notebook/transcript/names.py, so the live card and the
// static transcript agree: only ids the snapshot itself names (a job attached to a tool call, a
// subagent's child session) are replaced; the snapshot keeps the raw text. Pure; the result is
// shown with textContent like every result, never as HTML.
import { toolCode } from "./code";
import type { Item, SubagentItem, ToolItem } from "./types";

export const NAME_MAX = 60;
const MIN_ID = 6;

function short(text: string): string {
  const line = (text.trim().split("\n", 1)[0] ?? "").split(/\s+/).filter(Boolean).join(" ");
  return line.length <= NAME_MAX ? line : `${line.slice(0, NAME_MAX - 1).trimEnd()}…`;
}

function jobName(tool: ToolItem): string {
  const code = toolCode(tool);
  for (const candidate of [tool.description, code?.code, tool.summary]) {
    if (candidate && candidate.trim()) return short(candidate);
  }
  return "";
}

function subagentName(item: SubagentItem): string {
  for (const candidate of [item.label, item.description]) {
    if (candidate && candidate.trim() && candidate !== item.child_id) return short(candidate);
  }
  return "";
}

/** Every job id and subagent session id in ``items`` (nested ones too) → its display name. */
export function idNames(items: Item[]): Map<string, string> {
  const names = new Map<string, string>();
  const visit = (list: Item[]): void => {
    for (const item of list) {
      if (!item || typeof item !== "object") continue;
      if (item.kind === "tool") {
        const id = item.job?.job_id;
        const name = id ? jobName(item) : "";
        if (id && name) names.set(id, name);
        if (item.subagent) visit([item.subagent]);
      } else if (item.kind === "subagent") {
        const name = subagentName(item);
        if (item.child_id && name) names.set(item.child_id, name);
        visit(item.items ?? []);
      }
    }
  };
  visit(items);
  for (const id of [...names.keys()]) if (id.length < MIN_ID) names.delete(id);
  return names;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** ``text`` with each known id replaced by ``“name”`` (whole ids only, not inside a word). */
export function withNames(text: string, names: Map<string, string>): string {
  if (!names.size || !text) return text;
  const ids = [...names.keys()].sort((a, b) => b.length - a.length).map(escape);
  const pattern = new RegExp(`(?<![\\w-])(?:${ids.join("|")})(?![\\w-])`, "g");
  return text.replace(pattern, (id) => `“${names.get(id)}”`);
}

const cache = new WeakMap<object, Map<string, string>>();

/** {@link idNames} of a snapshot's items, computed once per snapshot object. */
export function namesOf(snapshot: { items: Item[] }): Map<string, string> {
  let names = cache.get(snapshot);
  if (!names) {
    names = idNames(snapshot.items ?? []);
    cache.set(snapshot, names);
  }
  return names;
}
