// "Insert below" on the Python code blocks of an answer. The widget never asks the kernel for this
// (it may be busy running the very cell): the button dispatches a bubbling DOM event with the
// code, and the dsh-notebook page extension, which listens on the notebook panel, inserts an
// unexecuted code cell below the cell that holds the widget. The extension says it is there by
// setting ``data-dsh-notebook-extension`` (its version) on ``document.body``; without it (VS Code,
// Colab, classic Notebook) code blocks keep Copy only and one view on the page says so once.
// Mirrors js/labextension/src/protocol.ts (INSERT_CELL_EVENT, EXTENSION_MARKER).
import { button, h } from "./dom";

/** The event the extension listens for; ``detail`` is {@link InsertCellDetail}. */
export const INSERT_CELL_EVENT = "dsh-notebook:insert-cell";
/** ``document.body.dataset`` key the extension sets (attribute ``data-dsh-notebook-extension``). */
export const EXTENSION_MARKER = "dshNotebookExtension";

export interface InsertCellDetail {
  version: 1;
  /** The code of the new cell, exactly (no trailing newline added). */
  code: string;
}

/** Fence languages that get Insert below: Python spelled the usual ways. An unlabelled fence does
 * not (it is as often output, a shell line or data as Python). */
const PYTHON = new Set(["python", "py", "python3", "ipython", "ipython3"]);

export function insertable(language: string): boolean {
  return PYTHON.has(language.trim().toLowerCase());
}

/** Whether the dsh-notebook page extension runs on this page. */
export function extensionPresent(): boolean {
  return typeof document !== "undefined" && Boolean(document.body?.dataset?.[EXTENSION_MARKER]);
}

/** A code block's text as a cell's source: the one newline that ends a fence's content dropped. */
export function cellSource(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

export function insertButton(code: string): HTMLButtonElement {
  const el = button("Insert below", "Insert this code as a new cell below", () => {
    const detail: InsertCellDetail = { version: 1, code: cellSource(code) };
    el.dispatchEvent(new CustomEvent(INSERT_CELL_EVENT, { bubbles: true, composed: true, detail }));
    el.textContent = "Inserted";
    setTimeout(() => (el.textContent = "Insert below"), 1500);
  }, "dsh-btn dsh-insert");
  return el;
}

/** Marks a code block that would have had Insert below with the extension (for the notice). */
export const WANTS_INSERT = "data-dsh-wants-insert";

export const FALLBACK_NOTICE =
  "Insert below needs the dsh-notebook extension (JupyterLab 4 / Notebook 7); here, use Copy.";

// Page-wide, not module-wide: anywidget may load a fresh copy of this bundle for each widget model.
const OWNER = Symbol.for("dsh-notebook.insert-notice-owner");
type Page = { [OWNER]?: object | null };
const page = globalThis as Page;

/** The one-line notice, shown once per page: in the first view that has a Python block while the
 * extension is absent. ``update`` is cheap (one query) and never throws. */
export class FallbackNotice {
  readonly el = h("div", { class: "dsh-insert-notice", role: "note" });

  constructor() {
    this.el.hidden = true;
  }

  update(root: HTMLElement): void {
    const owner = page[OWNER] ?? null;
    if (owner !== null && owner !== this) return;
    if (owner === null && (extensionPresent() || !root.querySelector(`[${WANTS_INSERT}]`))) return;
    page[OWNER] = this;
    this.el.textContent = FALLBACK_NOTICE;
    this.el.hidden = false;
  }

  destroy(): void {
    if (page[OWNER] === this) page[OWNER] = null;
  }
}

/** Tests: forget which view showed the notice. */
export function resetNotice(): void {
  page[OWNER] = null;
}
