// What a cell-editing approval shows (docs/cell-editing.md): which cell (position, short id,
// In [k], its first line, "Show in notebook"), and the kernel's unified diff, line by line
// (+ added, − removed, @@ muted), folded after DIFF_FOLD_LINES lines. run_cells' card shows what
// will run: each cell's line, and the whole source of each that changed since it ran (or never
// ran), marked against the source that ran, folded the same way (issue 43). Every piece is agent
// or notebook text: text nodes only.
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

/** "Show" on the queued note: the page scrolls to the cell of the run ahead and, when a card there
 * waits for a decision, brings that card's buttons on screen (`waiting: true`). */
export function showWaitingCell(from: HTMLElement, cellId: string): HTMLButtonElement {
  return button("Show", "Show the cell of the run ahead and the card it waits on", () => {
    from.dispatchEvent(new CustomEvent(SHOW_CELL_EVENT, { bubbles: true, composed: true, detail: { cellId, waiting: true } }));
  }, "dsh-link dsh-show-cell");
}

/** The attribute that marks what a card asks the person to read first (the diff, the cells to
 * run, the code): focusable (tabindex -1, never a Tab stop of its own), named by its aria-label.
 * "dsh: Go to the next waiting request" (Alt+Shift+D) focuses it, never a decision button: one
 * more Enter must not apply what the person has not read. Nothing focusable comes between it and
 * the card's first decision button, so that is one Tab away. */
export const READ_FIRST = "data-dsh-read";

/** Make ``el`` what the card's keyboard route lands on (see READ_FIRST). */
export function readFirst(el: HTMLElement, label: string): HTMLElement {
  el.setAttribute(READ_FIRST, "");
  el.setAttribute("tabindex", "-1");
  el.setAttribute("aria-label", label);
  return el;
}

const MARKED: ReadonlySet<DiffLineKind> = new Set(["add", "del"]);

function nLines(n: number): string {
  return `${n} line${n === 1 ? "" : "s"}`;
}

/** The diff, one element per line classed by kind, folded after DIFF_FOLD_LINES lines. The fold
 * ("show all N lines") sits in a bar above the lines, with how many changed lines it hides, so
 * that nothing focusable comes between the lines and the card's buttons; a line under the folded
 * lines says how many more there are. ``label`` names the lines (their aria-label). */
export function diffView(
  lines: string[],
  key: string,
  ownerId: string,
  ctx: Ctx,
  label = "The proposed change (unified diff)",
): HTMLElement {
  const open = ctx.ui.open.has(key);
  const folds = lines.length > DIFF_FOLD_LINES;
  const shown = folds && !open ? lines.slice(0, DIFF_FOLD_LINES) : lines;
  const hiddenMarked = folds && !open ? lines.slice(DIFF_FOLD_LINES).filter((l) => MARKED.has(lineKind(l))).length : 0;
  const pre = h("pre", { class: "dsh-diff" });
  readFirst(pre, folds && !open ? `${label}: the first ${DIFF_FOLD_LINES} of ${nLines(lines.length)}` : label);
  for (const line of shown) pre.appendChild(h("span", { class: `dsh-diff-line dsh-diff-${lineKind(line)}` }, line));
  if (!folds) return h("div", { class: "dsh-diff-box" }, pre);
  const toggle = button(open ? "show fewer lines" : `show all ${lines.length} lines`, open ? "Show fewer lines" : `Show all ${lines.length} lines (${label})`, () => {
    ctx.ui.toggle(key, ownerId);
    ctx.schedule();
  }, "dsh-link dsh-more dsh-diff-more");
  const bar = h("div", { class: "dsh-diff-bar" }, toggle);
  if (hiddenMarked) bar.appendChild(h("span", { class: "dsh-diff-hidden" }, `${nLines(hiddenMarked)} marked + or − below line ${DIFF_FOLD_LINES}`));
  const box = h("div", { class: "dsh-diff-box" }, bar, pre);
  if (!open) {
    const rest = lines.length - DIFF_FOLD_LINES;
    box.appendChild(h("div", { class: "dsh-diff-folded" }, `… ${nLines(rest)} more (show all ${lines.length} lines, above)`));
  }
  return box;
}

/** One cell of a ``run_cells`` card: its header line and, when it changed since it ran (or never
 * ran), its whole source, each line marked as in a diff (the kernel's reason, docs/cell-editing.md). */
export interface RunCell {
  header: string;
  body: string[];
}

export interface RunCells {
  /** Lines before the first cell ("Run 2 cell(s) in the notebook, …"). */
  intro: string[];
  cells: RunCell[];
}

/** ``run_cells``' reason: a line starting ``cell `` opens a cell, the lines after it that start
 * with `` ``, ``+``, ``-`` or ``…`` are its marked source; an older kernel's one line per cell
 * reads as cells without a source. */
export function parseRunCells(reason: string | null): RunCells {
  const out: RunCells = { intro: [], cells: [] };
  for (const line of (reason ?? "").replace(/\n$/, "").split("\n")) {
    const last = out.cells[out.cells.length - 1];
    if (line.startsWith("cell ")) out.cells.push({ header: line, body: [] });
    else if (last !== undefined && /^[ +\-…]/.test(line)) last.body.push(line);
    else if (line.trim()) (last ? last.body : out.intro).push(line);
  }
  return out;
}

/** What a ``run_cells`` approval runs: the cells in order, each that changed since it ran (or
 * never ran) with its whole source, the lines added since marked (+), folded after
 * DIFF_FOLD_LINES lines. One that is as it ran is its one line. */
export function runCellsList(reason: string | null, ownerId = "", ctx: Ctx | null = null): HTMLElement {
  const parsed = parseRunCells(reason);
  const changed = parsed.cells.filter((c) => c.body.length).length;
  const list = h("ul", { class: "dsh-cell-list", "aria-label": "The cells to run, in order" });
  parsed.cells.forEach((cell, i) => {
    if (!cell.body.length || ctx === null) {
      list.appendChild(h("li", { class: "dsh-cell-list-item" }, cell.header, ...cell.body.map((l) => `\n${l}`)));
      return;
    }
    const where = cell.header.split(" · ").slice(0, 2).join(" · ");
    list.appendChild(h("li", { class: "dsh-cell-list-item dsh-cell-changed" },
      h("div", { class: "dsh-cell-list-head" }, cell.header),
      diffView(cell.body, `${ownerId}:run:${i}`, ownerId, ctx, `The source of ${where} that will run (+ added since it ran, − removed)`)));
  });
  const count = `${parsed.cells.length} cell${parsed.cells.length === 1 ? "" : "s"}`;
  const box = h("div", { class: "dsh-run-cells" }, ...parsed.intro.map((l) => h("div", { class: "dsh-run-intro" }, l)), list);
  return readFirst(box, `What will run: ${count}, in order${changed ? `; ${changed} changed since ${changed === 1 ? "it" : "they"} ran, shown whole` : ""}`);
}
