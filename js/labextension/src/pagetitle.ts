/**
 * The browser tab's title shows how many approvals and questions wait in this page's notebooks:
 * `(2 waiting) a.ipynb - JupyterLab`. It is the signal seen from another browser tab, and the only
 * "tab" Notebook 7 has. JupyterLab and Notebook 7 rewrite `document.title` themselves (on every
 * current-widget or name change), so the prefix is re-applied whenever the title changes; with
 * a count of 0 the app's own title is left untouched.
 */

const PREFIX = /^\(\d+ waiting\) /;

export class PageTitleBadge {
  constructor(private readonly _document: Document = document) {}

  /** Show `count` (0 removes the prefix). */
  set(count: number): void {
    this._count = count;
    if (count > 0 && this._observer === null) {
      this._observer = new MutationObserver(() => this._apply());
      this._observer.observe(this._document.head, { childList: true, subtree: true, characterData: true });
    }
    this._apply();
  }

  private _apply(): void {
    const current = this._document.title;
    const base = current.replace(PREFIX, '');
    const wanted = this._count > 0 ? `(${this._count} waiting) ${base}` : base;
    if (wanted !== current) {
      this._document.title = wanted; // the observer sees this once, finds it right, stops
    }
  }

  private _count = 0;
  private _observer: MutationObserver | null = null;
}
