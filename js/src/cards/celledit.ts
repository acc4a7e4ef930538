// What a cell-editing approval shows (docs/cell-editing.md): which cell (position, short id,
// In [k], its first line, "Show in notebook"), and the kernel's unified diff, line by line
// (+ added, − removed, @@ muted), folded after DIFF_FOLD_LINES lines. run_cells' card lists its
// cells (its reason is one line per cell). Every piece is agent or notebook text: text nodes only.
import { button, h } from "../dom";
import type { Ctx } from "../context";
import { isTool } from "../code";
import type { ApprovalItem } from "../types";

export const CELL_EDIT_TOOLS = ["edit_cell", "replace_cell", "insert_cell", "delete_cell"] as const;
export type CellEditTool = (typeof CELL_EDIT_TOOLS)[number];

/** Diff lines shown before the fold (the static transcript folds after as many). */
export const DIFF_FOLD_LINES = 40;

/** The event the page extension listens for: scroll to and select that cell. */
export const SHOW_CELL_EVENT = "dsh-show-cell";

const VERBS: Record<CellEditTool, string> = {
  edit_cell: "Edit",
  replace_cell: "Replace",
  insert_cell: "Insert",
  delete_cell: "Delete",
};

/** The editing tool an approval is for (``edit_cell`` or ``mcp__notebook__edit_cell``), else null. */
export function cellEditTool(name: string): CellEditTool | null {
  return CELL_EDIT_TOOLS.find((tool) => isTool(name, tool)) ?? null;
}

export function isRunCells(name: string): boolean {
  return isTool(name, "run_cells");
}

export type DiffLineKind = "add" | "del" | "hunk" | "ctx" | "meta";

export interface ParsedDiff {
  /** The cell as the header lines name it: "cell 7 · id 1a2b3c4d · In [12]" (null: no header). */
  where: string | null;
  /** The diff without its two header lines. */
  lines: string[];
}

/** The two ``---``/``+++`` header lines taken off; ``where`` from the first ("(new cell below …)"
 * loses its parentheses). */
export function parseDiff(diff: string): ParsedDiff {
  const all = diff.replace(/\n$/, "").split("\n");
  if (all.length >= 2 && all[0].startsWith("--- ") && all[1].startsWith("+++ ")) {
    let where = all[0].slice(4).trim();
    if (where.startsWith("(") && where.endsWith(")")) where = where.slice(1, -1);
    if (!where || where === "/dev/null") where = all[1].slice(4).trim();
    return { where: where || null, lines: all.slice(2) };
  }
  return { where: null, lines: all };
}

export function lineKind(line: string): DiffLineKind {
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith(" ")) return "ctx";
  return "meta"; // "… N more lines", "\ No newline at end of file"
}

/** The first line of the cell the change is about (for the card's header), or null. */
export function firstLineOf(tool: CellEditTool, lines: string[], proposed: string | null | undefined): string | null {
  const pick = (prefixes: string): string | null => {
    const line = lines.find((l) => lineKind(l) !== "hunk" && prefixes.includes(l[0]));
    return line === undefined ? null : line.slice(1);
  };
  if (tool === "delete_cell") return pick("-");
  if (tool === "insert_cell") return proposed != null ? proposed.split("\n")[0] : pick("+");
  // the cell's own first line is in the diff when the first hunk starts at line 1; else the
  // edit left it alone and the proposed source starts with it too
  if (lines.length && /^@@ -1(,\d+)? /.test(lines[0])) return pick(" -");
  return proposed != null ? proposed.split("\n")[0] : null;
}

/** "Edit cell 7 · id 1a2b3c4d · In [12]", its first line, and "Show in notebook" (with a target). */
export function cellHeader(el: HTMLElement, node: ApprovalItem, tool: CellEditTool, parsed: ParsedDiff): HTMLElement {
  const verb = tool === "insert_cell" ? "Insert a" : VERBS[tool];
  const where = parsed.where ?? (node.target ? `cell ${node.target.slice(0, 8)}` : "a cell");
  const first = firstLineOf(tool, parsed.lines, node.proposed);
  const row = h("div", { class: "dsh-cell-target" },
    h("span", { class: "dsh-cell-where" }, `${verb} ${where}`),
    first !== null && first.trim() ? h("code", { class: "dsh-cell-first", title: first }, first) : null);
  const target = node.target;
  if (target) row.appendChild(showInNotebook(el, target));
  return row;
}

/** A link-styled button that asks the page to scroll to the cell (the page listens on document). */
export function showInNotebook(from: HTMLElement, cellId: string): HTMLButtonElement {
  return button("Show in notebook", `Show cell ${cellId.slice(0, 8)} in the notebook`, () => {
    from.dispatchEvent(new CustomEvent(SHOW_CELL_EVENT, { bubbles: true, composed: true, detail: { cellId } }));
  }, "dsh-link dsh-show-cell");
}

/** The diff, one element per line classed by kind, folded after DIFF_FOLD_LINES lines. */
export function diffView(lines: string[], key: string, ownerId: string, ctx: Ctx): HTMLElement {
  const open = ctx.ui.open.has(key);
  const folds = lines.length > DIFF_FOLD_LINES;
  const shown = folds && !open ? lines.slice(0, DIFF_FOLD_LINES) : lines;
  const pre = h("pre", { class: "dsh-diff", "aria-label": "The proposed change (unified diff)" });
  for (const line of shown) pre.appendChild(h("span", { class: `dsh-diff-line dsh-diff-${lineKind(line)}` }, line));
  if (!folds) return h("div", { class: "dsh-diff-box" }, pre);
  const label = open ? "show fewer lines" : `show all ${lines.length} lines`;
  const toggle = button(label, open ? "Show fewer lines of the diff" : `Show all ${lines.length} lines of the diff`, () => {
    ctx.ui.toggle(key, ownerId);
    ctx.schedule();
  }, "dsh-link dsh-more dsh-diff-more");
  return h("div", { class: "dsh-diff-box" }, pre, toggle);
}

/** The cells a ``run_cells`` approval runs (its reason: one line per cell). */
export function runCellsList(reason: string | null): HTMLElement {
  const lines = (reason ?? "").split("\n").filter((l) => l.trim());
  return h("ul", { class: "dsh-cell-list", "aria-label": "The cells to run, in order" },
    ...lines.map((line) => h("li", { class: "dsh-cell-list-item" }, line)));
}
