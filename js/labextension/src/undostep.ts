/**
 * One undo step of a notebook's shared model, never merged with its neighbours.
 *
 * The notebook's Yjs `UndoManager` merges every change made within its capture timeout (500 ms)
 * of the previous one into the same undo step. Left alone, an agent change that lands just after
 * another one — or "Undo this run" clicked just after the agent's last change — would share a
 * step with it, and one `z` would undo both. `oneUndoStep` closes the current step before `f`
 * and again after it, so the changes `f` makes (synchronously) are exactly one step: one `z`
 * undoes all of them and nothing else. A model without an undo manager just runs `f`.
 *
 * No JupyterLab imports: the shared model is typed by what is used (tested with `@jupyter/ydoc`'s
 * `YNotebook` in node).
 */

/** The part of a `YNotebook` (`INotebookModel.sharedModel`) this uses. */
interface IUndoManaged {
  readonly undoManager?: { stopCapturing(): void } | null;
}

/** Run `f`; its changes to `model` are one undo step of their own. */
export function oneUndoStep(model: object, f: () => void): void {
  const manager = (model as IUndoManaged).undoManager;
  const stop = (): void => {
    if (manager !== null && manager !== undefined && typeof manager.stopCapturing === 'function') {
      manager.stopCapturing();
    }
  };
  stop();
  try {
    f();
  } finally {
    stop();
  }
}
