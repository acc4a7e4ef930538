// A tool call: name, description, arguments (pretty JSON, long values folded), state, folded
// result, background job status, and the approval / question / subagent cards it started.
import { button, h } from "../dom";
import { Keyed, type Component, type Ctx } from "../context";
import { foldedText, prettyJson } from "../fold";
import { codeBlock, isTool, toolCode, toolLabel } from "../code";
import { namesOf, withNames } from "../names";
import type { Item, Snapshot, ToolItem } from "../types";
import { ApprovalCard } from "./approval";
import { describeTool } from "./runtime_tools";
import { agentCellOf, cellLine, ranOutputs, resultForReader, type CellLine } from "./cell_lines";
import { QuestionCard } from "./question";
import { SubagentCard } from "./subagent";
import { isOver } from "./words";

const STATE_LABEL: Record<string, string> = {
  streaming: "preparing",
  pending: "pending",
  running: "running",
  done: "done",
  failed: "failed",
  rejected: "rejected",
  waiting: "waiting for you",
};

const OPEN_STATES = new Set(["pending", "running"]);

/** Tool names of the approvals still open anywhere in ``items`` (subagents included). */
function pendingApprovalTools(items: Item[], out: string[] = []): string[] {
  for (const item of items) {
    if (item.kind === "approval" && item.state === "pending") out.push(item.tool_name);
    if (item.kind === "subagent") pendingApprovalTools(item.items, out);
    if (item.kind === "tool" && item.subagent) pendingApprovalTools(item.subagent.items, out);
  }
  return out;
}

/** An open call waits for the person when its approval or question is open, or when an open
 * approval of the same tool stands on its own (run_python's approval is a card of its own). */
export function waitsForYou(node: ToolItem, snapshot: Snapshot): boolean {
  if (!OPEN_STATES.has(node.state) || isOver(snapshot.header.state)) return false;
  if (node.approval?.state === "pending" || node.question?.state === "pending") return true;
  return pendingApprovalTools(snapshot.items).some((tool) => tool !== "" && isTool(node.name || "", tool));
}

function argumentsView(node: ToolItem, key: string, ctx: Ctx): HTMLElement {
  const code = toolCode(node);
  if (code) {
    const others = Object.keys(code.otherArgs).length ? prettyJson(code.otherArgs, key, node.id, ctx) : null;
    return h("div", { class: "dsh-args" }, codeBlock(code.code, code.language, `the ${code.argument}`), others);
  }
  return node.args !== null && node.args !== undefined
    ? prettyJson(node.args, key, node.id, ctx)
    : foldedText(node.arguments, `${key}:raw`, node.id, ctx, { label: "the arguments" });
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The figures the call's approved code showed, as images (base64 PNG data only). */
export function figuresView(node: ToolItem): HTMLElement | null {
  const pngs = (node.figures ?? []).filter((png) => typeof png === "string" && BASE64.test(png));
  if (!pngs.length) return null;
  return h("div", { class: "dsh-figures" }, ...pngs.map((png, i) =>
    h("img", { class: "dsh-figure", src: `data:image/png;base64,${png}`, alt: `Figure ${i + 1} shown by the code` })));
}

/** A cell tool call's line in words (transcript/cell_lines.py): the action, the new source's
 * first line as code, what ran printed, and who decided. */
function cellHeading(line: CellLine): HTMLElement {
  return h("span", { class: "dsh-tool-desc dsh-cell-line" },
    h("strong", {}, line.action),
    line.snippet ? h("span", {}, " (", h("code", {}, line.snippet), ")") : null,
    line.output ? h("span", {}, ": ", h("code", {}, line.output)) : null,
    line.outcome ? ` — ${line.outcome}` : null);
}

export class ToolCard extends Keyed<ToolItem> {
  readonly el = h("div", { class: "dsh-card dsh-tool" });
  private readonly nested: Record<string, { id: string; comp: Component } | undefined> = {};

  protected key(node: ToolItem, ctx: Ctx): string {
    // nested cards follow their own keys; the tool re-renders when it (or they) changed
    const local = [node.approval, node.question]
      .map((c) => (c?.request_id ? ctx.store.decisions.get(c.request_id)?.status ?? "" : ""))
      .join(",");
    return `${node.rev}|${ctx.ui.version(node.id)}|${local}|${ctx.store.snapshot.header.state}|${ctx.store.snapshot.pending.length}`;
  }

  private nestedCard<T extends Component>(slot: string, id: string, make: () => T): T {
    const current = this.nested[slot];
    if (current && current.id === id) return current.comp as T;
    current?.comp.destroy?.();
    const comp = make();
    this.nested[slot] = { id, comp };
    return comp;
  }

  protected render(node: ToolItem, ctx: Ctx): void {
    const el = this.el;
    el.textContent = "";
    const state = waitsForYou(node, ctx.store.snapshot) ? "waiting" : node.state;
    const view = node.question ? null : describeTool(node); // a runtime file tool, in words
    // a cell tool, in words: its card shows the diff; no JSON, no result written for the model
    const line = node.question || view ? null : cellLine(node, isOver(ctx.store.snapshot.header.state));
    const kept = agentCellOf(node);
    el.className = `dsh-card dsh-tool dsh-state-${state}`;
    el.setAttribute("aria-label", `Tool call ${toolLabel(node.name || "(unnamed)")}: ${STATE_LABEL[state] ?? state}`);
    const head = h("div", { class: "dsh-tool-head" },
      h("span", { class: `dsh-badge dsh-badge-${state}` }, STATE_LABEL[state] ?? state),
      // the name in words; the wire name (kept in exports) on hover
      h("code", { class: "dsh-tool-name", title: node.name || null }, toolLabel(node.name || "tool")),
      line ? cellHeading(line)
        : view ? h("span", { class: "dsh-tool-desc" }, view.heading)
        : node.description || node.summary ? h("span", { class: "dsh-tool-desc" }, node.description || node.summary || "") : null,
      kept !== null ? h("span", { class: "dsh-tool-desc" }, ` — kept as agent cell ${kept}, below the prompt`) : null,
    );
    el.appendChild(head);

    const argsKey = `${node.id}:args`;
    const argsOpen = ctx.ui.open.has(argsKey);
    const hasArgs = node.args !== null && node.args !== undefined
      ? !(typeof node.args === "object" && Object.keys(node.args as object).length === 0)
      : Boolean(node.arguments);
    if (hasArgs && !line) {
      el.appendChild(button(argsOpen ? "Hide arguments" : "Arguments", `${argsOpen ? "Hide" : "Show"} the arguments of ${node.name || "the tool call"}`, () => {
        ctx.ui.toggle(argsKey, node.id);
        ctx.schedule();
      }, "dsh-link dsh-args-toggle"));
      if (argsOpen) el.appendChild(argumentsView(node, argsKey, ctx));
    }
    if (view?.code) el.appendChild(codeBlock(view.code, view.language, view.language === "diff" ? "the edit" : "the file"));
    if (node.job) {
      const job = node.job;
      // the card's heading names the job (its description); the raw id stays on hover
      el.appendChild(h("div", { class: "dsh-job", role: "status", title: job.job_id ? `job id ${job.job_id}` : "" },
        `Background job${job.kind ? ` (${job.kind})` : ""}: ${job.status ?? "unknown"}${job.detail ? ` — ${job.detail}` : ""}`));
    }
    if (view && node.result !== null && node.result !== undefined) {
      if (view.outcome) el.appendChild(h("div", { class: "dsh-result-label dsh-outcome" }, `Result: ${view.outcome}`));
      const detail = (view.detail ?? "").replace(/^\n+|\n+$/g, "");
      if (detail.trim()) {
        el.appendChild(foldedText(detail, `${node.id}:result`, node.id, ctx, { lines: 6, cls: "dsh-pre dsh-result", label: "the output" }));
      }
    } else if (line) {
      const outputs = line.done ? ranOutputs(node) : null; // run_cells: what the cells printed
      if (outputs) {
        el.appendChild(foldedText(outputs, `${node.id}:result`, node.id, ctx, { lines: 6, cls: "dsh-pre dsh-result", label: "the outputs" }));
      }
    } else if (resultForReader(node)) {
      const result = resultForReader(node) as string;
      el.appendChild(h("div", { class: "dsh-result-label" }, node.is_error ? `Error${node.error_code ? ` (${node.error_code})` : ""}` : "Result"));
      // ids the snapshot can name (this call's job, its subagent) read as names
      const shown = withNames(result, namesOf(ctx.store.snapshot));
      el.appendChild(foldedText(shown, `${node.id}:result`, node.id, ctx, {
        lines: 6, cls: `dsh-pre dsh-result${node.is_error ? " dsh-result-error" : ""}`, label: "the result",
      }));
    }
    const figures = figuresView(node);
    if (figures) el.appendChild(figures);
    if (node.approval) {
      const card = this.nestedCard("approval", node.approval.id, () => new ApprovalCard());
      card.host = node;
      card.update(node.approval, ctx);
      el.appendChild(card.el);
    }
    if (node.question) {
      const card = this.nestedCard("question", node.question.id, () => new QuestionCard());
      card.update(node.question, ctx);
      el.appendChild(card.el);
    }
    if (node.subagent) {
      const card = this.nestedCard("subagent", node.subagent.id, () => new SubagentCard());
      card.update(node.subagent, ctx);
      el.appendChild(card.el);
    }
  }

  update(node: ToolItem, ctx: Ctx): void {
    super.update(node, ctx);
    // nested cards have their own keys (local state, the inert period): refresh them in any case
    if (node.approval) this.nested.approval?.comp.update(node.approval, ctx);
    if (node.question) this.nested.question?.comp.update(node.question, ctx);
    if (node.subagent) this.nested.subagent?.comp.update(node.subagent, ctx);
  }

  destroy(): void {
    for (const slot of Object.values(this.nested)) slot?.comp.destroy?.();
  }
}
