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
 * - **Ask dsh** on a code cell whose execution raised: a `%%dsh` cell whose prompt refers to
 *   that execution's `{In[n]}` and `{Err[n]}` (the kernel interpolates them when it runs), so the
 *   code and the traceback reach the model. A `%%dsh` cell's own errors do not get it.
 */

export const INSERT_CELL_EVENT = 'dsh-notebook:insert-cell';
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

/** The `%%dsh` cell Ask dsh inserts for the error of execution `n`. */
export function askSource(n: number): string {
  return [
    '%%dsh',
    `Cell In[${n}] raised an error. Explain what went wrong and how to fix it.`,
    '',
    'The code:',
    '```python',
    `{In[${n}]}`,
    '```',
    '',
    'The error:',
    '```',
    `{Err[${n}]}`,
    '```'
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
