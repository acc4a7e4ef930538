// What the components of one view share: the model's store, this view's UI state, a clock.
import type { Store } from "./store";
import type { Item, NodeBase } from "./types";

export interface FormState {
  selected: Record<string, string[]>;
  custom: Record<string, string>;
}

export class UiState {
  /** Expanded folds, open <details>, …: keys like "i7:result". */
  readonly open = new Set<string>();
  /** When an actionable card first appeared in this view (ms). */
  readonly appeared = new Map<string, number>();
  readonly forms = new Map<string, FormState>();
  private readonly versions = new Map<string, number>();
  /** Error texts shown on cards by this view (e.g. an incomplete answer). */
  readonly notes = new Map<string, string>();

  version(id: string): number {
    return this.versions.get(id) ?? 0;
  }

  bump(id: string): void {
    this.versions.set(id, this.version(id) + 1);
  }

  toggle(key: string, id: string): void {
    if (this.open.has(key)) this.open.delete(key);
    else this.open.add(key);
    this.bump(id);
  }

  form(id: string): FormState {
    let form = this.forms.get(id);
    if (!form) {
      form = { selected: {}, custom: {} };
      this.forms.set(id, form);
    }
    return form;
  }
}

export interface Ctx {
  store: Store;
  ui: UiState;
  /** A prefix unique to this view (radio group names must not be shared between views). */
  viewId: string;
  now(): number;
  /** Re-render soon (next animation frame). */
  schedule(): void;
  /** Call ``fn`` after ``ms`` (cleared when the view is removed). */
  later(ms: number, fn: () => void): void;
  /** The item list component factory (breaks the list ↔ subagent import cycle). */
  makeList(): ListComponent;
}

/** Shows one node; the list makes one per item, picked by the item's ``kind``. */
export interface Component<N = Item> {
  readonly el: HTMLElement;
  update(node: N, ctx: Ctx): void;
  destroy?(): void;
}

export interface ListComponent {
  readonly el: HTMLElement;
  update(items: Item[], omitted: number, ctx: Ctx): void;
  destroy(): void;
}

/** A component that re-renders only when its key (rev + local state) changes. */
export abstract class Keyed<N extends NodeBase = NodeBase> implements Component<N> {
  abstract readonly el: HTMLElement;
  private lastKey: string | null = null;

  protected key(node: N, ctx: Ctx): string {
    return `${node.rev}|${ctx.ui.version(node.id)}`;
  }

  protected abstract render(node: N, ctx: Ctx): void;

  update(node: N, ctx: Ctx): void {
    const key = this.key(node, ctx);
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.render(node, ctx);
  }
}
