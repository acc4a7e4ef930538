/**
 * The command "dsh: Keep this cell private from the model" (palette, and a lock button on each
 * notebook's toolbar): toggles the `dsh-private` tag on the active cell (every selected cell).
 * A private cell is read as `private: true` with no source and no outputs (`cells.ts`): the
 * kernel lists it as "[private cell]" and its editing tools refuse it. The tag is ordinary cell
 * metadata, so it works the same when set another way (the property inspector, another editor),
 * and the button only reflects it.
 */

import type { JupyterFrontEnd } from '@jupyterlab/application';
import { CommandToolbarButton } from '@jupyterlab/apputils';
import type { INotebookTracker } from '@jupyterlab/notebook';

import { hasPrivateTag, withPrivateTag } from './privatetag';

export const TOGGLE_PRIVATE = 'dsh-notebook:toggle-private';
const LABEL = 'dsh: Keep this cell private from the model';

export function registerPrivateToggle(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  palette: { addItem(options: { command: string; category: string }): unknown } | null
): void {
  const active = (): boolean => hasPrivateTag(tracker.activeCell?.model.getMetadata('tags'));
  app.commands.addCommand(TOGGLE_PRIVATE, {
    label: LABEL,
    caption: 'Private cells are listed to the agent as "[private cell]": never their code or outputs',
    isEnabled: () => tracker.activeCell !== null,
    isToggled: active,
    execute: () => {
      const notebook = tracker.currentWidget?.content;
      if (notebook === undefined) {
        return;
      }
      const on = !active();
      for (const cell of notebook.widgets) {
        if (cell === notebook.activeCell || notebook.isSelected(cell)) {
          cell.model.setMetadata('tags', withPrivateTag(cell.model.getMetadata('tags'), on));
        }
      }
      app.commands.notifyCommandChanged(TOGGLE_PRIVATE);
    }
  });
  palette?.addItem({ command: TOGGLE_PRIVATE, category: 'dsh' });
  tracker.activeCellChanged.connect(() => app.commands.notifyCommandChanged(TOGGLE_PRIVATE));
  tracker.widgetAdded.connect((_, panel) => {
    const button = new CommandToolbarButton({ commands: app.commands, id: TOGGLE_PRIVATE, label: 'Private' });
    button.addClass('dsh-private-toggle');
    panel.toolbar.insertAfter('cellType', 'dsh-private', button);
  });
}
