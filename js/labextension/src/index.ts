/**
 * `dsh-notebook`: the JupyterLab 4 / Notebook 7 extension of dsh_notebook.
 *
 * For every notebook: a stable identity in its metadata, sent with each execute request; the
 * `dsh_notebook.frontend` comm target on its kernel; the waiting signal (tab badge, toolbar
 * button, the page title, and in JupyterLab a status-bar item for the current notebook); Insert
 * below, Ask dsh and Fix with dsh (`buttons.ts`), announced to the widget by a marker on
 * `document.body`; the kernel's approved cell edits and runs and "Undo this run"
 * (`celledits.ts`); the widget's "Show in notebook" (`showcell.ts`); a `%%dsh` cell's run never in
 * Notebook 7's scrolled output box (`unboxed.ts`); and `%%dsh` cells edited as prose
 * (./promptmodeplugin).
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { DocumentRegistry } from '@jupyterlab/docregistry';
import { INotebookModel, INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';
import { ICommandPalette } from '@jupyterlab/apputils';

import { NotebookButtons } from './buttons';
import { PlaceKeeper } from './keepplace';
import { contentsLookup } from './identity';
import { EXTENSION_MARKER } from './insertions';
import promptModePlugin from './promptmodeplugin';
import { NotebookBinding } from './notebook';
import { PageTitleBadge } from './pagetitle';
import { listenShowCell } from './showcell';
import { RunsUnboxed } from './unboxed';
import { WaitingState, WaitingStatus } from './waiting';
import { registerGoToWaiting } from './gotowaiting';
import { registerPrivateToggle } from './privatetoggle';

/** Sent in `hello_reply`; kept equal to the Python package's version. */
export const VERSION = '0.1.0';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'dsh-notebook:plugin',
  description: 'Notebook identity, the kernel link and the waiting signal of dsh_notebook.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [IStatusBar, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null
  ) => {
    const lookup = contentsLookup(app.serviceManager.contents);
    const bindings = new WeakMap<DocumentRegistry.IContext<INotebookModel>, NotebookBinding>();
    const views = new WeakMap<NotebookPanel, WaitingState>();
    const live = new Set<NotebookBinding>();
    const pageTitle = new PageTitleBadge();
    document.body.dataset[EXTENSION_MARKER] = VERSION; // the widget offers Insert below
    listenShowCell(tracker); // the widget's "Show in notebook"

    const retitle = (): void => {
      let count = 0;
      for (const binding of live) {
        count += binding.waitingCount;
      }
      pageTitle.set(count);
    };

    tracker.widgetAdded.connect((_, panel) => {
      let binding = bindings.get(panel.context);
      if (binding === undefined) {
        const created = new NotebookBinding(panel, lookup, VERSION, retitle);
        bindings.set(panel.context, created);
        live.add(created);
        panel.context.disposed.connect(() => {
          live.delete(created);
          retitle();
        });
        binding = created;
      }
      views.set(panel, binding.addView(panel));
      new NotebookButtons(panel);
      new PlaceKeeper(panel);
      new RunsUnboxed(panel); // Notebook 7 boxes tall outputs: a run's card and summary stay in view
    });

    registerGoToWaiting(app, tracker, panel => views.get(panel), palette);
    registerPrivateToggle(app, tracker, palette);

    if (statusBar !== null) {
      const status = new WaitingStatus();
      const follow = (): void => {
        const panel = tracker.currentWidget;
        status.follow(panel === null ? null : (views.get(panel) ?? null));
      };
      tracker.currentChanged.connect(follow);
      tracker.widgetAdded.connect(follow);
      statusBar.registerStatusItem('dsh-notebook:waiting', {
        item: status.item,
        align: 'left',
        rank: 100,
        isActive: () => status.isActive,
        activeStateChanged: status.activeStateChanged
      });
      follow();
    }
  }
};

export default [plugin, promptModePlugin];
