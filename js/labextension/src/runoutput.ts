/**
 * The outputs of dsh runs in notebook JSON: pure functions over nbformat-shaped objects (no
 * JupyterLab imports, tested with node).
 *
 * A run shown as a live widget is a `display_data` whose data has the widget mime type and
 * whose metadata carries `dsh_notebook: {run: true, model_id}` (the kernel's `open_view`). Such
 * an output is turned into a static `display_data` of the run's transcript:
 * - `settled`: the run's final transcript (the kernel's `run_output` settled); a page that
 *   still has the display_id got the same from `update_display_data` already;
 * - when saved while live: the saved copy carries the latest `live` transcript next to the widget
 *   data, with a note that the run was still going, so a reopen without the kernel can show it;
 * - `interrupted`: on open, a run widget whose model the kernel does not have any more shows that
 *   saved transcript (or a note when none was saved) instead of "model not found".
 */

import type { IRunBundle } from './protocol/kernel';

export const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
export const RUN_METADATA_KEY = 'dsh_notebook';
export const SAVED_LIVE_NOTE =
  'dsh: this notebook was saved while the run was in progress; it is shown as interrupted, with what had arrived by then.';
export const NOTHING_SAVED =
  'dsh: this run was in progress when the notebook was saved, and none of its transcript was saved with it; it is shown as interrupted.';

/** The JSON of one output, as much of nbformat as this module reads. */
export interface IOutputJSON {
  output_type: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function marker(output: IOutputJSON): Record<string, unknown> | null {
  const found = output.metadata?.[RUN_METADATA_KEY];
  return isRecord(found) && found.run === true ? found : null;
}

/** The widget model id an output shows, or `null`. */
export function widgetModelId(output: IOutputJSON): string | null {
  const view = output.data?.[WIDGET_MIME];
  return isRecord(view) && typeof view.model_id === 'string' && view.model_id !== '' ? view.model_id : null;
}

/** Whether `output` is the live widget of a dsh run (the kernel's metadata marker). */
export function isRunWidget(output: IOutputJSON): boolean {
  return marker(output) !== null && widgetModelId(output) !== null;
}

/** Whether `output` shows run `modelId`: its widget, or a static "interrupted" stand-in for it. */
export function showsRun(output: IOutputJSON, modelId: string): boolean {
  if (widgetModelId(output) === modelId) {
    return true;
  }
  const found = marker(output);
  return found !== null && found.model_id === modelId && found.interrupted === true;
}

/** The static output that replaces run `modelId`'s widget. */
export function staticRunOutput(bundle: IRunBundle, modelId: string, interrupted: boolean): IOutputJSON {
  const meta: Record<string, unknown> = { run: true, model_id: modelId };
  if (interrupted) {
    meta.interrupted = true;
  }
  return {
    output_type: 'display_data',
    data: { 'text/markdown': bundle['text/markdown'], 'text/plain': bundle['text/plain'] },
    metadata: { [RUN_METADATA_KEY]: meta }
  };
}

/** The output that shows run `modelId`'s live widget (what the kernel's `open_view` displays). */
export function widgetRunOutput(modelId: string, bundle: IRunBundle): IOutputJSON {
  return {
    output_type: 'display_data',
    data: {
      [WIDGET_MIME]: { model_id: modelId, version_major: 2, version_minor: 1 },
      'text/plain': bundle['text/plain']
    },
    metadata: { [RUN_METADATA_KEY]: { run: true, model_id: modelId } }
  };
}

/** Whether a cell's `source` is a `%%dsh` prompt cell. */
export function isPromptSource(source: string): boolean {
  return /^\s*%%dsh\b/.test(source);
}

/** What a live run widget output is saved as: the widget, plus its latest transcript under the note. */
export function withSavedTranscript(output: IOutputJSON, bundle: IRunBundle): IOutputJSON {
  return {
    ...output,
    data: {
      ...output.data,
      'text/markdown': `*${SAVED_LIVE_NOTE}*\n\n${bundle['text/markdown']}`,
      'text/plain': `${SAVED_LIVE_NOTE}\n\n${bundle['text/plain']}`
    }
  };
}

export const RESTARTED_NOTE =
  'dsh: the kernel restarted or changed while this run was in progress; it is shown as interrupted, with what had arrived by then.';
export const RESTARTED_EMPTY =
  'dsh: the kernel restarted or changed while this run was in progress, before any of its transcript reached this page; it is shown as interrupted.';

/** The interrupted stand-in of a run widget whose kernel restarted or changed under this page: what the page had of it. */
export function restartedOutput(output: IOutputJSON, live: IRunBundle | undefined): IOutputJSON | null {
  const modelId = widgetModelId(output);
  if (modelId === null || !isRunWidget(output)) {
    return null;
  }
  if (live === undefined) {
    return staticRunOutput({ 'text/markdown': `*${RESTARTED_EMPTY}*`, 'text/plain': RESTARTED_EMPTY }, modelId, true);
  }
  return staticRunOutput(
    {
      'text/markdown': `*${RESTARTED_NOTE}*\n\n${live['text/markdown']}`,
      'text/plain': `${RESTARTED_NOTE}\n\n${live['text/plain']}`
    },
    modelId,
    true
  );
}

/** The interrupted stand-in of a run widget whose model is gone (what was saved, or a note). */
export function interruptedOutput(output: IOutputJSON): IOutputJSON | null {
  const modelId = widgetModelId(output);
  if (modelId === null || !isRunWidget(output)) {
    return null;
  }
  const markdown = output.data?.['text/markdown'];
  const plain = output.data?.['text/plain'];
  if (typeof markdown === 'string' && markdown.startsWith(`*${SAVED_LIVE_NOTE}*`)) {
    const text = typeof plain === 'string' ? plain : markdown;
    return staticRunOutput({ 'text/markdown': markdown, 'text/plain': text }, modelId, true);
  }
  return staticRunOutput({ 'text/markdown': `*${NOTHING_SAVED}*`, 'text/plain': NOTHING_SAVED }, modelId, true);
}

/**
 * `notebook` (nbformat JSON) as it is saved: each live run widget whose latest transcript is in
 * `live` (model id -> bundle) also carries it, under the note. A copy where anything changes.
 */
export function notebookForSave<T>(notebook: T, live: ReadonlyMap<string, IRunBundle>): T {
  if (live.size === 0 || !isRecord(notebook) || !Array.isArray(notebook.cells)) {
    return notebook;
  }
  let changed = false;
  const cells = notebook.cells.map((cell: unknown) => {
    if (!isRecord(cell) || !Array.isArray(cell.outputs)) {
      return cell;
    }
    let touched = false;
    const outputs = cell.outputs.map((output: unknown) => {
      if (!isRecord(output) || !isRunWidget(output as IOutputJSON)) {
        return output;
      }
      const bundle = live.get(widgetModelId(output as IOutputJSON) ?? '');
      if (bundle === undefined) {
        return output;
      }
      touched = true;
      return withSavedTranscript(output as IOutputJSON, bundle);
    });
    if (!touched) {
      return cell;
    }
    changed = true;
    return { ...cell, outputs };
  });
  return changed ? ({ ...notebook, cells } as T) : notebook;
}
