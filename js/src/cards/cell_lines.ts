// The notebook's cell tools in words, as the static transcript says them (mirrors
// dsh_notebook/transcript/cell_lines.py): "Edited cell 3 (y = x * 20) — applied by you",
// "Ran cells 3–4: 10 — allowed by you", "Insert a markdown cell after cell 3 — waiting for you".
// The card's diff stays on the approval card; the call's JSON arguments and the result written
// for the model ("Applied: Edited cell 3 · id … (approved; …)") are not shown again. An approved
// run_python call's result loses its note for the model ("This code is now a cell … Do not repeat
// the code in your answer.") and says "kept as agent cell N" instead. Pure functions of a node.
import { isTool } from "../code";
import type { ApprovalItem, ToolItem } from "../types";
import { CELL_EDIT_TOOLS } from "./celledit";

/** Anything that can no longer be decided (its run ended, or its kernel stopped). */
export const INTERRUPTED_DECISION = "not decided — the run was interrupted";
export const WAITING_DECISION = "waiting for you";

const CELL_TOOLS = [...CELL_EDIT_TOOLS, "run_cells"] as const;
type CellTool = (typeof CELL_TOOLS)[number];

const DONE: Record<CellTool, string> = {
  edit_cell: "Edited", replace_cell: "Rewrote", insert_cell: "Inserted", delete_cell: "Deleted", run_cells: "Ran",
};
const ASKED: Record<CellTool, string> = {
  edit_cell: "Edit", replace_cell: "Rewrite", insert_cell: "Insert", delete_cell: "Delete", run_cells: "Run",
};
const WHO: Record<string, string> = {
  you: "by you", "you-for-run": "by you, for the rest of this run", "you-edited": "by you, after your edit",
  scope: "for this run", policy: "by policy", timeout: "(timed out)", "connection-lost": "(connection lost)",
  runtime: "by the runtime", "cancelled-by-agent": "by the agent",
};
const KEPT_NOTE =
  /^This code is now a cell of the notebook: agent cell (\d+) of this run, below the user's %%dsh prompt cell, with its output\. Do not repeat the code in your answer\.(?:\n\n|\n|$)/;
const CELL_NO = /\bcell (\d+) · id /;
const RUN_HEAD = /^cell (\d+) · id /gm;
const INSERTED = /^--- \(new (\w+) cell below cell (\d+) · id /;
const OUTPUT = /^(stdout|out|error): (.*)$/gm;
/** A line that starts an output block or a cell (what ends a multi-line value). */
const BLOCK_START = /^(?:(?:stdout|out|error|stream)\b|## )/;
const SNIPPET = 60;

export interface CellLine {
  /** "Edited cell 3" (done) / "Edit cell 3" (asked) / "Inserted a markdown cell after cell 3". */
  action: string;
  /** A short piece of the new source, shown as code; null for none. */
  snippet: string | null;
  /** run_cells: the first output line of the cells that ran. */
  output: string | null;
  /** "applied by you", "rejected by you — note: …", "waiting for you", INTERRUPTED_DECISION… */
  outcome: string;
  done: boolean;
}

/** The cell tool `name` is (`edit_cell`, also as `mcp__notebook__edit_cell`), or null. */
export function cellTool(name: string): CellTool | null {
  return CELL_TOOLS.find((tool) => isTool(name, tool)) ?? null;
}

/** The line a ran cell shows for its last output: the first line of a stream or an error; a
 * value only when it fits on one line (a table's first line is a header, like "station"). */
function outputSummary(match: RegExpMatchArray, result: string): string | null {
  const [whole, kind, first] = match;
  const after = result.slice((match.index ?? 0) + whole.length).split("\n");
  const following = after.length > 1 ? after[1] : "";
  if (kind === "out" && following.trim() !== "" && !BLOCK_START.test(following)) return null;
  return firstLine(first ?? "");
}

function firstLine(text: string, limit = SNIPPET): string | null {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "");
  if (line === undefined) return null;
  return line.length <= limit ? line : `${line.slice(0, limit - 1)}…`;
}

function str(args: unknown, key: string): string | null {
  const value = args && typeof args === "object" ? (args as Record<string, unknown>)[key] : null;
  return typeof value === "string" ? value : null;
}

function cellsWords(numbers: number[]): string {
  if (numbers.length === 1) return `cell ${numbers[0]}`;
  const run = numbers.every((n, i) => n === numbers[0] + i);
  if (run) return `cells ${numbers[0]}\u2013${numbers[numbers.length - 1]}`;
  return `cells ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`;
}

/** The decision in words; `over`: the run ended, so a pending card can no longer be decided. */
function decision(card: ApprovalItem | null, done: boolean, verb: string, over: boolean): string {
  if (!card) return "";
  if (card.state === "undecided" || (card.state === "pending" && over)) return INTERRUPTED_DECISION;
  if (card.state === "pending") return WAITING_DECISION;
  const who = WHO[card.decided_by ?? ""] ?? "";
  if (card.outcome === "allowed-once") return done ? `${verb} ${who}`.trim() : "";
  const words = `${card.outcome ?? "decided"} ${who}`.trim();
  return card.note ? `${words} — note: ${card.note}` : words;
}

/** How a cell tool call reads, or null for any other tool (or arguments that are no object). */
export function cellLine(node: ToolItem, over: boolean): CellLine | null {
  const tool = cellTool(node.name || "");
  const args = node.args;
  if (tool === null || !args || typeof args !== "object") return null;
  const card = node.approval;
  const result = node.result;
  const failed = Boolean(node.is_error) || node.state === "failed" || node.state === "rejected";
  const done = result !== null && result !== undefined && !failed;
  const reason = card?.reason ?? "";
  let outcome = decision(card, done, tool === "run_cells" ? "allowed" : "applied", over);
  if (result != null && failed && !/^(rejected|cancelled)/.test(outcome)) {
    let why = (firstLine(result, 400) ?? "").split(". ")[0].replace(/\.$/, "");
    if (why.startsWith(tool) && why.includes(": ")) why = why.slice(why.indexOf(": ") + 2);
    outcome = why ? `not done: ${why.length > 160 ? `${why.slice(0, 159)}…` : why}` : "not done";
  } else if (result == null && !outcome && !over && (node.state === "pending" || node.state === "running") && card?.state === "pending") {
    outcome = WAITING_DECISION;
  }
  const verb = done ? DONE[tool] : ASKED[tool];
  if (tool === "run_cells") {
    const numbers = [...reason.matchAll(RUN_HEAD)].map((m) => Number(m[1]));
    const ids = (args as Record<string, unknown>).cell_ids;
    const count = numbers.length || (Array.isArray(ids) ? ids.length : 1);
    const where = numbers.length ? cellsWords(numbers) : `${count} cell${count === 1 ? "" : "s"}`;
    const outputs = done ? [...(result ?? "").matchAll(OUTPUT)] : [];
    const last = outputs[outputs.length - 1];
    const output = last ? outputSummary(last, result ?? "") : null;
    return { action: `${verb} ${where}`, snippet: null, output, outcome, done };
  }
  const header = reason.split("\n", 1)[0];
  let action: string;
  let snippet: string | null = null;
  if (tool === "insert_cell") {
    const inserted = INSERTED.exec(reason);
    const kind = inserted ? inserted[1] : str(args, "cell_type") ?? "code";
    const where = inserted ? `cell ${inserted[2]}` : `cell ${(str(args, "after_cell_id") ?? "?").slice(0, 8)}`;
    action = `${verb} a ${kind} cell after ${where}`;
    snippet = firstLine(str(args, "source") ?? "");
  } else {
    const number = CELL_NO.exec(header) ?? /^Applied: \w+ cell (\d+) · id /.exec(result ?? "");
    action = `${verb} ${number ? `cell ${number[1]}` : `cell ${(str(args, "cell_id") ?? "?").slice(0, 8)}`}`;
    if (tool === "edit_cell") snippet = firstLine(str(args, "new_text") ?? "");
    if (tool === "replace_cell") snippet = firstLine(str(args, "source") ?? "");
  }
  return { action, snippet, output: null, outcome, done };
}

/** The outputs of the cells a run_cells call ran (its result from the first cell on), or null. */
export function ranOutputs(node: ToolItem): string | null {
  const at = (node.result ?? "").search(/^## cell \d+ · id /m);
  return at < 0 ? null : (node.result ?? "").slice(at).replace(/\n+$/, "");
}

/** An approved run_python call's result without its note for the model. */
export function resultForReader(node: ToolItem): string | null {
  const result = node.result;
  if (result == null || !isTool(node.name || "", "run_python")) return result ?? null;
  return result.replace(KEPT_NOTE, "");
}

/** The agent cell an approved run_python call's code was kept as, or null. */
export function agentCellOf(node: ToolItem): number | null {
  if (node.result == null || !isTool(node.name || "", "run_python")) return null;
  const found = KEPT_NOTE.exec(node.result);
  return found ? Number(found[1]) : null;
}
