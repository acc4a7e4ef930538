// The prompt: context chips (interpolated variables, images), expandable to exactly what was sent.
import { button, h } from "./dom";
import type { Ctx } from "./context";
import type { ContextChip } from "./types";

const KEY = "prompt:open";

export class PromptView {
  readonly el = h("div", { class: "dsh-prompt" });
  private lastKey = "";

  constructor(private readonly ctx: Ctx) {}

  update(): void {
    const snap = this.ctx.store.snapshot;
    const open = this.ctx.ui.open.has(KEY);
    const key = JSON.stringify([snap.prompt, snap.context, open]);
    if (key === this.lastKey) return;
    this.lastKey = key;
    const el = this.el;
    el.textContent = "";
    el.hidden = !snap.prompt && !(snap.context || []).length;
    if (el.hidden) return;
    const chips = (snap.context || []).map((chip: ContextChip) => {
      const label = String(chip.token ?? chip.kind ?? "context");
      const facts = [chip.summary, chip.chars ? `${chip.chars} chars` : "", chip.truncated ? "truncated" : ""]
        .filter(Boolean)
        .join(" · ");
      return h("span", { class: `dsh-chip dsh-chip-${String(chip.kind ?? "value").replace(/[^\w-]/g, "")}`, title: facts, "aria-label": `${label}: ${facts}` },
        h("span", { class: "dsh-chip-token" }, label),
        chip.summary ? h("span", { class: "dsh-chip-summary" }, String(chip.summary)) : null);
    });
    const firstLine = snap.prompt.split("\n", 1)[0];
    const short = firstLine.length > 200 ? `${firstLine.slice(0, 200)}…` : firstLine;
    const more = snap.prompt.length > short.length;
    el.appendChild(h("div", { class: "dsh-prompt-head" },
      h("span", { class: "dsh-prompt-label" }, "Prompt"),
      open ? null : h("span", { class: "dsh-prompt-short" }, short),
      more || chips.length ? button(open ? "hide what was sent" : "show what was sent",
        open ? "Hide the prompt that was sent" : "Show exactly what was sent", () => {
          this.ctx.ui.toggle(KEY, "prompt");
          this.ctx.schedule();
        }, "dsh-link dsh-prompt-toggle") : null));
    if (chips.length) el.appendChild(h("div", { class: "dsh-chips" }, chips));
    if (open) el.appendChild(h("pre", { class: "dsh-pre dsh-prompt-full", "aria-label": "The prompt as sent" }, snap.prompt));
  }
}
