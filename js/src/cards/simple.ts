// Text, reasoning, later user messages, errors (banners), notes, and anything unknown.
import { h } from "../dom";
import { Keyed, type Ctx } from "../context";
import { foldedText } from "../fold";
import { MarkdownView } from "../markdown";
import type { ErrorItem, NoteItem, TextItem, UserItem } from "../types";
import { extensionPresent } from "../insert";
import { showWaitingCell } from "./celledit";

export class TextCard {
  readonly view = new MarkdownView("dsh-md dsh-text");
  readonly el = this.view.el;

  update(node: TextItem): void {
    this.view.update(node.text ?? "", Boolean(node.streaming));
    this.el.classList.toggle("dsh-truncated", Boolean(node.truncated));
  }
}

export class ReasoningCard {
  readonly view = new MarkdownView("dsh-md dsh-reasoning-body");
  readonly summary = h("summary", { class: "dsh-reasoning-summary" }, "Reasoning");
  readonly el = h("details", { class: "dsh-reasoning" }, this.summary, this.view.el) as HTMLDetailsElement;

  update(node: TextItem): void {
    this.view.update(node.text ?? "", Boolean(node.streaming));
    this.summary.textContent = node.streaming ? "Reasoning (live)" : "Reasoning";
    this.summary.setAttribute("aria-label", node.streaming ? "Reasoning, still being written; expand to read" : "Reasoning; expand to read");
  }
}

export class UserCard extends Keyed<UserItem> {
  readonly el = h("div", { class: "dsh-user" });

  protected render(node: UserItem, ctx: Ctx): void {
    this.el.textContent = "";
    this.el.appendChild(h("span", { class: "dsh-user-label" }, "You: "));
    this.el.appendChild(foldedText(node.text, `${node.id}:text`, node.id, ctx, { lines: 6, cls: "dsh-pre dsh-user-text", label: "your message" }));
  }
}

/** A hint is our own text: its `code` spans show as code (text nodes all the same). */
export function hintParts(hint: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  let last = 0;
  for (const match of hint.matchAll(/`([^`\n]+)`/g)) {
    parts.push(hint.slice(last, match.index));
    parts.push(h("code", { class: "dsh-hint-code" }, match[1]));
    last = (match.index ?? 0) + match[0].length;
  }
  parts.push(hint.slice(last));
  return parts.filter((p) => p !== "");
}

export class ErrorCard extends Keyed<ErrorItem> {
  readonly el = h("div", { class: "dsh-banner dsh-banner-error", role: "alert" });

  protected render(node: ErrorItem, ctx: Ctx): void {
    const el = this.el;
    el.textContent = "";
    el.appendChild(h("div", { class: "dsh-banner-title" }, node.source === "client" ? "Error: " : "The turn failed: ", node.message));
    const facts = [node.code ? `code ${node.code}` : "", node.status ? `HTTP ${node.status}` : ""].filter(Boolean);
    if (facts.length) el.appendChild(h("div", { class: "dsh-muted" }, facts.join(" · ")));
    if (node.hint) el.appendChild(h("div", { class: "dsh-hint" }, "What to do: ", hintParts(node.hint)));
    if (node.detail) {
      const details = h("details", { class: "dsh-error-detail" },
        h("summary", null, "Details"),
        foldedText(node.detail, `${node.id}:detail`, node.id, ctx, { lines: 20, chars: 8000, label: "the details" }),
      ) as HTMLDetailsElement;
      if (ctx.ui.open.has(`${node.id}:details`)) details.open = true;
      details.addEventListener("toggle", () => {
        if (details.open) ctx.ui.open.add(`${node.id}:details`);
        else ctx.ui.open.delete(`${node.id}:details`);
      });
      el.appendChild(details);
    }
  }
}

export class NoteCard extends Keyed<NoteItem> {
  readonly el = h("div", { class: "dsh-note" });

  protected render(node: NoteItem): void {
    this.el.className = `dsh-note dsh-note-${node.note}`;
    this.el.textContent = "";
    // a `command` in a note reads as code (the queued note's `%dsh pending`), as in the saved
    // transcript; text nodes only
    const text = node.count > 1 ? `${node.text} (×${node.count})` : node.text;
    text.split(/(`[^`\n]+`)/).forEach((part, i) => {
      this.el.appendChild(i % 2 ? h("code", {}, part.slice(1, -1)) : document.createTextNode(part));
    });    // the queued note's cell (the run ahead): "Show" with the page extension; without it the
    // note's words say where (its In [k])
    if (node.cell && extensionPresent()) {
      this.el.append(" ", showWaitingCell(this.el, node.cell));
    }
  }
}

export class UnknownCard extends Keyed {
  readonly el = h("div", { class: "dsh-note dsh-unknown" });

  protected render(node: { kind: string }): void {
    this.el.textContent = `[${String(node.kind)}]`;
  }
}
