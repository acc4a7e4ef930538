// One view of a run widget: renders the model's store on animation frames.
import { h } from "./dom";
import { UiState, type Ctx } from "./context";
import { answersACard, returnFocusToNotebook } from "./focus";
import { HeaderView } from "./header";
import { FallbackNotice } from "./insert";
import { ItemList } from "./list";
import { PlanView } from "./plan";
import { PromptView } from "./prompt";
import { storeFor, type Store } from "./store";
import type { WidgetModel } from "./types";
import { isOver } from "./cards/words";

let views = 0;

export interface ViewOptions {
  now?: () => number;
  /** Schedule a render (default: requestAnimationFrame, else a 16 ms timeout). */
  frame?: (fn: () => void) => void;
  /**
   * Milliseconds to wait before rendering a run that has just ended (default 0). The kernel
   * replaces the widget's output with the static transcript at that moment, which destroys this
   * view; its own final render (a full markdown render of the whole answer) would be thrown
   * away, so it is left for later and skipped if the view is destroyed by then.
   */
  settleDelay?: number;
}

export class RunView {
  readonly el: HTMLElement;
  readonly store: Store;
  readonly ctx: Ctx;
  renders = 0;
  private readonly header: HeaderView;
  private readonly prompt: PromptView;
  private readonly items: ItemList;
  private readonly plan = new PlanView();
  private readonly footer = h("div", { class: "dsh-footer" });
  private readonly notice = new FallbackNotice();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private ticker: ReturnType<typeof setInterval> | null = null;
  private pending = false;
  /** A card was answered here: once it re-rendered, focus goes back to the notebook cell. */
  private returnFocus = false;
  private disposed = false;
  private readonly unsubscribe: () => void;
  private readonly frame: (fn: () => void) => void;
  private readonly settleDelay: number;

  constructor(model: WidgetModel, host: HTMLElement, options: ViewOptions = {}) {
    const now = options.now ?? Date.now;
    this.store = storeFor(model, now);
    this.frame =
      options.frame ??
      ((fn) => (typeof requestAnimationFrame === "function" ? requestAnimationFrame(() => fn()) : setTimeout(fn, 16)));
    this.settleDelay = options.settleDelay ?? 0;
    const ui = new UiState();
    const viewId = `dsh${++views}`;
    this.ctx = {
      store: this.store,
      ui,
      viewId,
      now,
      schedule: () => this.schedule(),
      later: (ms, fn) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (!this.disposed) fn();
        }, ms);
        this.timers.add(t);
      },
      makeList: () => new ItemList(),
    };
    this.header = new HeaderView(this.ctx);
    this.prompt = new PromptView(this.ctx);
    this.items = new ItemList();
    this.el = h("div", { class: "dsh-root", role: "region", "aria-label": "DeepSeek Harness run" },
      this.header.el, this.prompt.el, this.plan.el, this.items.el, this.notice.el, this.footer);
    host.appendChild(this.el);
    // capture: the buttons stop their clicks from bubbling
    for (const type of ["click", "keydown"]) {
      this.el.addEventListener(type, (event) => {
        if (answersACard(event)) this.returnFocus = true;
      }, true);
    }
    this.unsubscribe = this.store.subscribe(() => this.schedule());
    this.render();
  }

  schedule(): void {
    if (this.pending || this.disposed) return;
    this.pending = true;
    const ending = this.el.classList.contains("dsh-live") && isOver(this.store.snapshot.header.state);
    if (ending && this.settleDelay > 0) {
      this.ctx.later(this.settleDelay, () => {  // not called once the view is destroyed
        this.pending = false;
        this.render();
      });
      return;
    }
    this.frame(() => {
      this.pending = false;
      if (!this.disposed) this.render();
    });
  }

  /** Render now (the frame callback; tests call it directly). */
  render(): void {
    this.renders += 1;
    const snap = this.store.snapshot;
    this.header.update();
    this.prompt.update();
    this.plan.update(snap.plan, !isOver(snap.header.state));
    this.items.update(snap.items || [], snap.items_omitted || 0, this.ctx);
    const unknown = Object.entries(snap.unknown || {});
    this.footer.textContent = unknown.length
      ? `Not shown: ${unknown.map(([k, n]) => `${k} ×${n}`).join(", ")}`
      : "";
    this.footer.hidden = unknown.length === 0;
    this.notice.update(this.el);
    if (this.returnFocus) {
      this.returnFocus = false;
      returnFocusToNotebook(this.el);
    }
    this.el.classList.toggle("dsh-live", !isOver(snap.header.state));
    // the elapsed time ticks while the run is live
    if (!isOver(snap.header.state) && this.ticker === null) {
      this.ticker = setInterval(() => this.header.update(), 1000);
    } else if (isOver(snap.header.state) && this.ticker !== null) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  destroy(): void {
    this.disposed = true;
    this.unsubscribe();
    if (this.ticker !== null) clearInterval(this.ticker);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.items.destroy();
    this.notice.destroy();
    this.el.remove();
  }
}
