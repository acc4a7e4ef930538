// A subagent: description, state, stop reason, last message; its own transcript on demand.
import { button, formatTokens, h, plural } from "../dom";
import { Keyed, type Ctx, type ListComponent } from "../context";
import { foldedText } from "../fold";
import { PlanView } from "../plan";
import type { SubagentItem } from "../types";

export class SubagentCard extends Keyed<SubagentItem> {
  readonly el = h("div", { class: "dsh-card dsh-subagent" });
  private list: ListComponent | null = null;
  private readonly plan = new PlanView("Its plan");

  protected render(node: SubagentItem, ctx: Ctx): void {
    const el = this.el;
    const listEl = this.list?.el;
    el.textContent = "";
    el.className = `dsh-card dsh-subagent dsh-state-${node.state}`;
    const name = node.description || node.label || node.child_id;
    el.setAttribute("aria-label", `Subagent ${name}: ${node.state}`);
    el.appendChild(h("div", { class: "dsh-tool-head" },
      h("span", { class: `dsh-badge dsh-badge-${node.state}` }, node.state),
      h("span", { class: "dsh-subagent-label" }, "Subagent"),
      h("span", { class: "dsh-tool-desc" }, name),
      node.mode ? h("span", { class: "dsh-muted" }, node.mode) : null,
    ));
    const facts = [
      node.turns ? plural(node.turns, "turn") : "",
      node.usage?.total_tokens ? `${formatTokens(node.usage.total_tokens)} tokens` : "",
      node.stop_reason ? `stopped: ${node.stop_reason}` : "",
    ].filter(Boolean);
    if (facts.length) el.appendChild(h("div", { class: "dsh-muted" }, facts.join(" · ")));
    this.plan.update(node.plan, node.state === "running");
    if (node.plan) el.appendChild(this.plan.el);
    if (node.result) {
      el.appendChild(h("div", { class: "dsh-result-label" }, "Last message"));
      el.appendChild(foldedText(node.result, `${node.id}:last`, node.id, ctx, { lines: 4, label: "the last message" }));
    }
    const key = `${node.id}:children`;
    const open = ctx.ui.open.has(key);
    const count = node.items.length + (node.items_omitted || 0);
    el.appendChild(button(open ? "Hide its transcript" : `Show its transcript (${plural(count, "item")})`,
      `${open ? "Hide" : "Show"} the transcript of subagent ${name}`, () => {
        ctx.ui.toggle(key, node.id);
        ctx.schedule();
      }, "dsh-link dsh-children-toggle"));
    if (open) {
      if (!this.list) this.list = ctx.makeList();
      this.list.update(node.items, node.items_omitted || 0, ctx);
      this.list.el.classList.add("dsh-children");
      el.appendChild(this.list.el);
    } else if (listEl && this.list) {
      this.list.destroy();
      this.list = null;
    }
  }

  destroy(): void {
    this.list?.destroy();
  }
}
