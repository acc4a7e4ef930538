// An ordered list of items, reconciled by id: unchanged items keep their DOM (and its state).
import { h, plural } from "./dom";
import type { Component, Ctx, ListComponent } from "./context";
import type { Item } from "./types";
import { ApprovalCard } from "./cards/approval";
import { QuestionCard } from "./cards/question";
import { ErrorCard, NoteCard, ReasoningCard, TextCard, UnknownCard, UserCard } from "./cards/simple";
import { SubagentCard } from "./cards/subagent";
import { ToolCard } from "./cards/tool";

function create(kind: string): Component {
  switch (kind) {
    case "text":
      return new TextCard();
    case "reasoning":
      return new ReasoningCard();
    case "user":
      return new UserCard();
    case "tool":
      return new ToolCard();
    case "approval":
      return new ApprovalCard();
    case "question":
      return new QuestionCard();
    case "subagent":
      return new SubagentCard();
    case "error":
      return new ErrorCard();
    case "note":
      return new NoteCard();
    default:
      return new UnknownCard();
  }
}

export class ItemList implements ListComponent {
  readonly el = h("div", { class: "dsh-items" });
  private readonly omittedEl = h("div", { class: "dsh-note dsh-omitted" });
  private readonly cache = new Map<string, { kind: string; comp: Component }>();

  update(items: Item[], omitted: number, ctx: Ctx): void {
    const seen = new Set<string>();
    let prev: Node | null = null;
    if (omitted > 0) {
      this.omittedEl.textContent = `${plural(omitted, "earlier item")} not shown (the transcript keeps the newest)`;
      if (this.el.firstChild !== this.omittedEl) this.el.insertBefore(this.omittedEl, this.el.firstChild);
      prev = this.omittedEl;
    } else if (this.omittedEl.parentNode) {
      this.omittedEl.remove();
    }
    for (const item of items) {
      if (!item || typeof item !== "object" || typeof item.id !== "string" || seen.has(item.id)) continue;
      seen.add(item.id);
      let entry = this.cache.get(item.id);
      if (!entry || entry.kind !== item.kind) {
        entry?.comp.destroy?.();
        entry?.comp.el.remove();
        entry = { kind: item.kind, comp: create(item.kind) };
        this.cache.set(item.id, entry);
      }
      entry.comp.update(item, ctx);
      entry.comp.el.dataset.id = item.id;
      const expected: Node | null = prev ? prev.nextSibling : this.el.firstChild;
      if (expected !== entry.comp.el) this.el.insertBefore(entry.comp.el, expected);
      prev = entry.comp.el;
    }
    for (const [id, entry] of this.cache) {
      if (seen.has(id)) continue;
      entry.comp.destroy?.();
      entry.comp.el.remove();
      this.cache.delete(id);
    }
  }

  destroy(): void {
    for (const entry of this.cache.values()) entry.comp.destroy?.();
    this.cache.clear();
  }
}
