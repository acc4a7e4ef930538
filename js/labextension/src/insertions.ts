/**
 * What the page adds to a notebook for the person, without the kernel: pure rules (no JupyterLab
 * imports, tested with node). The DOM side is `buttons.ts`.
 *
 * - The widget <-> extension contract (mirror of `js/src/insert.ts`): the extension sets
 *   `data-dsh-notebook-extension="<version>"` on `document.body`; the widget's **Insert below**
 *   dispatches a bubbling `dsh-notebook:insert-cell` CustomEvent whose `detail` is
 *   `{version: 1, code}`. Anything else is ignored.
 * - Python fences (`python`, `py`, `python3`, `ipython`, `ipython3`; an unlabelled fence is not
 *   Python) get Insert below; others keep Copy only.
 * - **Ask dsh** on a code cell whose execution raised: a `%%dsh` cell whose prompt names the cell
 *   by its short id and carries its code and traceback as fenced blocks (not `{In[n]}` /
 *   `{Err[n]}`: execution counts point at another cell after a restart). **Fix with dsh** next to
 *   it: a `%%dsh` prompt asking for an `edit_cell` on that cell, with the traceback, shown only
 *   while the notebook's kernel has linked to this page (`EDITS_LINKED`: the kernel loaded
 *   dsh_notebook, so this page can apply the edit it proposes). Text that
 *   would read as a reference to the kernel's interpolation (`{name}`) is escaped (`{{name}}`),
 *   and each fence outgrows every backtick run inside it. A `%%dsh` cell's own errors get neither.
 */

export const INSERT_CELL_EVENT = 'dsh-notebook:insert-cell';
/**
 * A notebook panel's `dataset` key (attribute `data-dsh-edits-linked`), set while its kernel's
 * dsh_notebook link is open: where it is not, no page can apply an edit of that kernel, and
 * Fix with dsh is hidden (the stylesheet).
 */
export const EDITS_LINKED = 'dshEditsLinked';
/** `document.body.dataset` key (attribute `data-dsh-notebook-extension`). */
export const EXTENSION_MARKER = 'dshNotebookExtension';
/** The longest code an Insert below event may carry (a larger one is ignored). */
export const MAX_INSERT_CHARS = 1_000_000;

const PYTHON = new Set(['python', 'py', 'python3', 'ipython', 'ipython3']);

export interface IInsertCellDetail {
  version: 1;
  code: string;
}

/** The detail of an Insert below event, or `null` (never throws). */
export function parseInsertDetail(detail: unknown): IInsertCellDetail | null {
  if (typeof detail !== 'object' || detail === null) {
    return null;
  }
  const record = detail as Record<string, unknown>;
  const code = record.code;
  if (record.version !== 1 || typeof code !== 'string' || code.length > MAX_INSERT_CHARS) {
    return null;
  }
  return { version: 1, code };
}

export function isPythonFence(language: string): boolean {
  return PYTHON.has(language.trim().toLowerCase());
}

/** The fence language of a rendered `<code class="language-x">`, or ''. */
export function fenceLanguage(className: string): string {
  return /(?:^|\s)language-([\w+#.-]+)/.exec(className)?.[1] ?? '';
}

/** A rendered code block's text as a cell's source: the one newline that ends a fence dropped. */
export function cellSource(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** Whether a cell's source is a `%%dsh` cell (its first non-blank line is the magic). */
export function isDshCell(source: string): boolean {
  const first = source.split('\n').find(line => line.trim() !== '') ?? '';
  return /^\s*%%dsh(\s|$)/.test(first);
}

/** The longest traceback a prompt carries (its end: the error itself). */
export const MAX_PROMPT_TRACEBACK = 6000;
/** The longest code a prompt carries. */
export const MAX_PROMPT_CODE = 20000;

// CSI / OSC sequences and lone escapes (terminal colours of a traceback)
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

/** A traceback's lines as plain text (ANSI stripped), its tail kept within `MAX_PROMPT_TRACEBACK`. */
export function plainTraceback(lines: readonly string[]): string {
  const text = lines.join('\n').replace(ANSI, '');
  return text.length <= MAX_PROMPT_TRACEBACK ? text : `…\n${text.slice(text.length - MAX_PROMPT_TRACEBACK)}`;
}

// a brace group the kernel would read as a reference (context/interpolate.py, rules 2-3)
const REFERENCE = /(?<![A-Za-z0-9_\\$^{}])\{((?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(?:In|Out|Err)\[-?\d+\])\}(?!\})/g;

/** `text` with every interpolation reference doubled, so the kernel keeps it verbatim. */
export function escapeReferences(text: string): string {
  return text.replace(REFERENCE, (_m, ref: string) => `{{${ref}}}`);
}

/** A fenced block of `text` whose fence is longer than any backtick run inside it. */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), m => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${escapeReferences(text)}\n${fence}`;
}

/** The short id `notebook_cells` shows for a cell id. */
export function shortId(cellId: string): string {
  return cellId.slice(0, 8);
}

function cap(code: string): string {
  return code.length <= MAX_PROMPT_CODE ? code : `${code.slice(0, MAX_PROMPT_CODE)}\n# … [cut]`;
}

/** The `%%dsh` cell Ask dsh inserts for the error of cell `cellId`. */
export function askSource(cellId: string, code: string, traceback: readonly string[]): string {
  const id = shortId(cellId);
  return [
    '%%dsh',
    `Cell ${id} raised an error. Explain what went wrong and how to fix it.`,
    '',
    `The code of cell ${id}:`,
    fenced(cap(code), 'python'),
    '',
    'The error:',
    fenced(plainTraceback(traceback))
  ].join('\n');
}

/** The `%%dsh` cell Fix with dsh inserts (and runs) for the error of cell `cellId`. */
export function fixSource(cellId: string, traceback: readonly string[]): string {
  const id = shortId(cellId);
  return [
    '%%dsh',
    `Fix the error in cell ${id} (edit it with edit_cell; I will review the diff).`,
    '',
    fenced(plainTraceback(traceback))
  ].join('\n');
}

/** Output metadata of a dsh run's settled transcript (`{dsh_notebook: {run: true, ...}}`). */
export function isRunTranscript(metadata: unknown, data: unknown): boolean {
  if (typeof metadata !== 'object' || metadata === null || typeof data !== 'object' || data === null) {
    return false;
  }
  const marker = (metadata as Record<string, unknown>).dsh_notebook;
  return (
    typeof marker === 'object' &&
    marker !== null &&
    (marker as Record<string, unknown>).run === true &&
    typeof (data as Record<string, unknown>)['text/markdown'] === 'string'
  );
}

/**
 * Whether a code block of a settled transcript is the code of a tool call or an approval (the
 * transcript writes `**Tool** …` / `**Approval** …` as the paragraph right before it): those are
 * not the answer's code and get no Insert below (the agent-cells feature records what ran).
 */
export function isToolHeading(previousParagraph: string | null): boolean {
  return previousParagraph !== null && /^(Tool|Approval)\b/.test(previousParagraph.trim());
}
