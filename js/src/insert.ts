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

// Page-wide, not module-wide: anywidget may load a fresh copy of this bundle for each widget model,
// so the registry lives on the page and holds only elements (no class of one copy is seen by another).
const CANDIDATES = Symbol.for("dsh-notebook.insert-notice-candidates.v2");
const RECHECK = Symbol.for("dsh-notebook.insert-notice-recheck.v2");
interface Recheck { timer: ReturnType<typeof setTimeout> | null; tries: number }
type Page = { [CANDIDATES]?: Set<HTMLElement>; [RECHECK]?: Recheck };
const page = globalThis as Page;

/** While a candidate is not yet in the document (a view renders before its output area is
 * attached), the choice is made again every RECHECK_MS, at most RECHECK_TRIES times. */
const RECHECK_MS = 250;
const RECHECK_TRIES = 40;

function candidates(): Set<HTMLElement> {
  return (page[CANDIDATES] ??= new Set());
}

/** Candidates in document order; those not in the document after those that are, in the order
 * they became candidates. */
function inPageOrder(all: Set<HTMLElement>): HTMLElement[] {
  const attached = [...all].filter((el) => el.isConnected);
  attached.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  return [...attached, ...[...all].filter((el) => !el.isConnected)];
}

/** Show the notice in the first candidate in page order and hide it everywhere else. Never throws. */
function choose(): void {
  const all = candidates();
  const first = extensionPresent() ? null : (inPageOrder(all)[0] ?? null);
  for (const el of all) {
    const show = el === first;
    if (show && el.textContent !== FALLBACK_NOTICE) el.textContent = FALLBACK_NOTICE;
    if (el.hidden === show) el.hidden = !show;
  }
  const recheck = (page[RECHECK] ??= { timer: null, tries: 0 });
  const waiting = [...all].some((el) => !el.isConnected);
  if (waiting && recheck.timer === null && recheck.tries < RECHECK_TRIES) {
    recheck.tries += 1;
    recheck.timer = setTimeout(() => {
      recheck.timer = null;
      choose();
    }, RECHECK_MS);
  }
}

/** The one-line notice, shown once per page: in the first view in page order (the notebook's
 * order, not the order the runs answered in) that has a Python block while the extension is
 * absent. A view that takes the notice from a later one, or leaves the page, moves it; ``update``
 * is cheap (one query, and a choice among the page's few candidates) and never throws. */
export class FallbackNotice {
  readonly el = h("div", { class: "dsh-insert-notice", role: "note" });

  constructor() {
    this.el.hidden = true;
  }

  update(root: HTMLElement): void {
    const all = candidates();
    if (root.querySelector(`[${WANTS_INSERT}]`) !== null) {
      if (!all.has(this.el)) {
        all.add(this.el);
        const recheck = page[RECHECK];
        if (recheck) recheck.tries = 0; // a new candidate gets the whole time to be attached
      }
    } else {
      if (!all.delete(this.el)) return;
      this.el.hidden = true;
    }
    choose();
  }

  destroy(): void {
    if (!candidates().delete(this.el)) return;
    this.el.hidden = true;
    choose();
  }
}

/** Tests: forget every candidate. */
export function resetNotice(): void {
  const recheck = page[RECHECK];
  if (recheck?.timer) clearTimeout(recheck.timer);
  page[RECHECK] = { timer: null, tries: 0 };
  candidates().clear();
}
