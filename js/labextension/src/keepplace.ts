/**
 * Settling keeps the person's place (one notebook panel).
 *
 * When a run settles, the kernel's `update_display_data` replaces the live widget with the static
 * transcript: JupyterLab disposes the widget's output and renders the markdown asynchronously,
 * and the notebook's scroll position would land wherever the new heights put it. Instead:
 *
 * - the moment the widget's output is disposed (its `disposed` signal, while its DOM is still on
 *   the page), the element the person was looking at is measured: the card they last pressed in
 *   that widget if it is on screen, else the answer if it is on screen, else the output itself if
 *   it is on screen (nothing when the run is off screen);
 * - when the same output index shows that run's static transcript, the notebook is scrolled so
 *   that the element's counterpart (`place.ts`) is at the same screen height, and kept there for
 *   `HOLD_MS` while the markdown and its decorations render;
 * - a wheel, touch, key press or pointer press of the person's own in that time ends the holding
 *   at once (the page never moves under a press: a click whose release lands elsewhere is lost);
 *   an output that turned into something else (cleared, re-run) is left alone.
 *
 * Nothing here changes the notebook's content; failures are logged, never thrown into JupyterLab.
 */

import { CodeCell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { isRunWidget, widgetModelId, type IOutputJSON } from './runoutput';
import { answerOf, cardKey, findPlace, onScreen, scrollerOf, type PlaceKey } from './place';

/** How long the place is held after the transcript first shows (ms). */
export const HOLD_MS = 1500;
/** How long to wait for the transcript to replace the widget at all (ms). */
const REPLACE_WITHIN_MS = 5000;
/** The person's own scrolling (or a key that may scroll). */
const MOVES = ['wheel', 'touchmove', 'keydown'];
/** What ends a hold: the person's own scrolling, or a press (they act where things are now). */
const ENDS_HOLD = [...MOVES, 'pointerdown'];

interface IPlace {
  key: PlaceKey;
  top: number;
  scroller: Element;
}

export class PlaceKeeper {
  constructor(private readonly _panel: NotebookPanel) {
    const node = _panel.content.node;
    node.addEventListener('pointerdown', this._onPointer, true);
    node.addEventListener('keydown', this._onPointer, true);
    // on the window, capturing: before the press listener on the notebook for the same key
    for (const type of MOVES) {
      window.addEventListener(type, this._onMove, { capture: true, passive: true });
    }
    _panel.disposed.connect(() => {
      node.removeEventListener('pointerdown', this._onPointer, true);
      node.removeEventListener('keydown', this._onPointer, true);
      for (const type of MOVES) {
        window.removeEventListener(type, this._onMove, { capture: true });
      }
    });
    void _panel.context.ready.then(() => {
      this._watchCells();
      _panel.content.model?.cells.changed.connect(this._onCells);
    });
  }

  /**
   * The card a press inside a live run widget went to (Enter or Space on a button too), and where
   * it was then: a decision re-renders the card and what is above it, so the card may move before
   * the run settles; the place the person pressed is the one kept, until they scroll themselves.
   */
  private readonly _onPointer = (event: Event): void => {
    const target = event.target instanceof Element ? event.target : null;
    const root = target?.closest('.dsh-root');
    if (target && root) {
      const card = target.closest('.dsh-card');
      this._pressed = { root, card, top: card?.getBoundingClientRect().top ?? null };
    }
  };

  /** The person scrolls (or may: any key): the place of the last press is no longer theirs. */
  private readonly _onMove = (): void => {
    if (this._pressed !== null) {
      this._pressed.top = null;
    }
  };

  private readonly _onCells = (_: unknown, change: { type: string }): void => {
    if (change.type === 'add' || change.type === 'set') {
      this._watchCells();
    }
  };

  private _watchCells(): void {
    for (const cell of this._panel.content.widgets) {
      if (!(cell instanceof CodeCell) || this._cells.has(cell)) {
        continue;
      }
      this._cells.add(cell);
      const area = cell.outputArea;
      area.model.changed.connect(() => this._watchOutputs(cell));
      this._watchOutputs(cell);
    }
  }

  /** Hook the disposal of every run widget output of `cell` not hooked yet. */
  private _watchOutputs(cell: CodeCell): void {
    const area = cell.outputArea;
    for (let i = 0; i < area.model.length && i < area.widgets.length; i++) {
      const output = area.model.get(i).toJSON() as unknown as IOutputJSON;
      const widget = area.widgets[i]!;
      const modelId = widgetModelId(output);
      if (modelId === null || !isRunWidget(output) || this._hooked.has(widget)) {
        continue;
      }
      this._hooked.add(widget);
      widget.disposed.connect(() => {
        try {
          this._settling(cell, i, modelId, widget.node);
        } catch (error) {
          console.debug('dsh-notebook: could not keep the place', error);
        }
      });
    }
  }

  /** The widget's output is being disposed (still on the page): measure, then restore. */
  private _settling(cell: CodeCell, index: number, modelId: string, node: HTMLElement): void {
    const root = node.querySelector('.dsh-root');
    if (root === null || !root.isConnected) {
      return;
    }
    const place = this._measure(root, node);
    if (place !== null) {
      this._restore(cell, index, modelId, place);
    }
  }

  private _measure(root: Element, output: Element): IPlace | null {
    const scroller = scrollerOf(root);
    if (scroller === null) {
      return null;
    }
    const pressed = this._pressed?.root === root ? this._pressed : null;
    const candidates: Array<{ element: Element; key: PlaceKey; top?: number } | null> = [];
    if (pressed?.card) {
      const key = cardKey(root, pressed.card);
      candidates.push(key === null ? null : { element: pressed.card, key, top: pressed.top ?? undefined });
    }
    candidates.push(answerOf(root), { element: output, key: { kind: 'output' } });
    for (const candidate of candidates) {
      if (candidate !== null && onScreen(candidate.element, scroller)) {
        const top = candidate.top ?? candidate.element.getBoundingClientRect().top;
        return { key: candidate.key, top, scroller };
      }
    }
    return null;
  }

  /** Scroll so that the place's counterpart in the transcript at `index` is where it was. */
  private _restore(cell: CodeCell, index: number, modelId: string, place: IPlace): void {
    const started = performance.now();
    let shown: number | null = null;
    let stop = false;
    const yours = (): void => {
      stop = true;
    };
    const events = ENDS_HOLD;
    for (const type of events) {
      window.addEventListener(type, yours, { capture: true, passive: true });
    }
    const end = (): void => {
      for (const type of events) {
        window.removeEventListener(type, yours, { capture: true });
      }
    };
    const step = (): void => {
      const now = performance.now();
      if (stop || cell.isDisposed || (shown === null ? now - started > REPLACE_WITHIN_MS : now - shown > HOLD_MS)) {
        end();
        return;
      }
      const target = this._counterpart(cell, index, modelId, place.key);
      if (target !== null) {
        shown = shown ?? now;
        const delta = target.getBoundingClientRect().top - place.top;
        if (Math.abs(delta) >= 1) {
          place.scroller.scrollTop += delta;
        }
      }
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  /** The element `key` names in the transcript of run `modelId` at output `index`, once rendered. */
  private _counterpart(cell: CodeCell, index: number, modelId: string, key: PlaceKey): Element | null {
    const area = cell.outputArea;
    if (index >= area.model.length || index >= area.widgets.length) {
      return null;
    }
    const output = area.model.get(index).toJSON() as unknown as IOutputJSON;
    const meta = output.metadata?.dsh_notebook as Record<string, unknown> | undefined;
    if (widgetModelId(output) !== null || meta?.model_id !== modelId) {
      return null;
    }
    const rendered = area.widgets[index]!.node.querySelector('.jp-RenderedMarkdown');
    if (rendered === null || rendered.childElementCount === 0) {
      return null;
    }
    const found = findPlace(key.kind === 'output' ? area.widgets[index]!.node : rendered, key);
    return found !== null && found.getBoundingClientRect().height > 0 ? found : null;
  }

  private _pressed: { root: Element; card: Element | null; top: number | null } | null = null;
  private readonly _cells = new WeakSet<CodeCell>();
  private readonly _hooked = new WeakSet<object>();
}
