// The approval card: tool, reason, command; Allow once / Reject, inert for a moment after it
// appears, sent once; the decision (and who made it) recorded on the card.
import { button, containKeys, h } from "../dom";
import { Keyed, type Ctx } from "../context";
import { approvalCode, codeBlock, toolCode } from "../code";
import type { ApprovalItem, ToolItem } from "../types";
import { DECIDED_BY_WORDS, OUTCOME_WORDS, isOver } from "./words";

export const INERT_MS = 500;

export function isActionable(card: { request_id: string | null; state: string }, kind: string, ctx: Ctx): boolean {
  const snap = ctx.store.snapshot;
  if (!card.request_id || card.state !== "pending" || isOver(snap.header.state)) return false;
  if (!ctx.store.interactive) return false;
  return snap.pending.some((p) => p.kind === kind && p.request_id === card.request_id);
}

function commandOf(host: ToolItem | null): string | null {
  if (!host) return null;
  const args = host.args as Record<string, unknown> | null;
  if (args && typeof args === "object" && typeof args.command === "string") return args.command;
  if (host.arguments && host.arguments.length <= 2000) return host.arguments;
  return host.summary;
}

/** What is to be approved: the reason, and the code or command (as code, lines kept). */
function subjectOf(node: ApprovalItem, host: ToolItem | null): HTMLElement[] {
  const code = approvalCode(node);
  if (code !== null) return [codeBlock(code, "python", "the code to run")];
  const parts: HTMLElement[] = [];
  if (node.reason) parts.push(h("div", { class: "dsh-reason" }, node.reason));
  const hostCode = host ? toolCode(host) : null;
  if (hostCode) {
    parts.push(codeBlock(hostCode.code, hostCode.language, `the ${hostCode.argument} to run`));
    return parts;
  }
  const command = commandOf(host);
  if (command) parts.push(h("pre", { class: "dsh-pre dsh-command", "aria-label": "Command or arguments" }, command));
  return parts;
}

export class ApprovalCard extends Keyed {
  readonly el = h("div", { class: "dsh-card dsh-approval", role: "group" });
  host: ToolItem | null = null;

  constructor() {
    super();
    containKeys(this.el);
  }

  protected key(node: ApprovalItem, ctx: Ctx): string {
    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    return [
      node.rev,
      ctx.ui.version(node.id),
      local ? `${local.status}:${local.error ?? ""}` : "",
      isActionable(node, "approval", ctx),
      ctx.store.snapshot.header.state,
      this.host?.rev ?? "",
    ].join("|");
  }

  protected render(node: ApprovalItem, ctx: Ctx): void {
    const el = this.el;
    el.textContent = "";
    el.className = `dsh-card dsh-approval dsh-state-${node.state}`;
    el.setAttribute("aria-label", `Approval request for ${node.tool_name || "a tool"}`);
    el.dataset.requestId = node.request_id ?? "";
    el.appendChild(
      h("div", { class: "dsh-card-title" }, "Approval needed: ", h("code", { class: "dsh-tool-name" }, node.tool_name || "tool")),
    );
    for (const part of subjectOf(node, this.host)) el.appendChild(part);

    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    if (node.state === "decided" || node.outcome) {
      const outcome = OUTCOME_WORDS[node.outcome ?? ""] ?? node.outcome ?? "Decided";
      const by = node.decided_by ? DECIDED_BY_WORDS[node.decided_by] ?? node.decided_by : "";
      el.appendChild(
        h("div", { class: `dsh-outcome dsh-outcome-${node.outcome ?? "unknown"}`, role: "status" }, by ? `${outcome} — ${by}` : outcome),
      );
      return;
    }
    if (local) {
      const verb = local.value === "allowed-once" ? "Allow once" : "Reject";
      if (local.status === "failed") {
        el.appendChild(h("div", { class: "dsh-card-error", role: "alert" }, `${verb} was not delivered: ${local.error}`));
      } else {
        el.appendChild(
          h("div", { class: "dsh-outcome dsh-outcome-sent", role: "status" }, `${verb} — sent${local.status === "acknowledged" ? ", waiting for the agent" : "…"}`),
        );
      }
      return;
    }
    if (isOver(ctx.store.snapshot.header.state)) {
      el.appendChild(h("div", { class: "dsh-outcome", role: "status" }, "Undecided — the run ended"));
      return;
    }
    if (!isActionable(node, "approval", ctx)) {
      const why = !ctx.store.interactive
        ? "Answer in the prompt below the cell (this run waits in the cell)."
        : "Waiting for the approval request…";
      el.appendChild(h("div", { class: "dsh-muted" }, why));
      return;
    }
    const requestId = node.request_id as string;
    const appeared = ctx.ui.appeared.get(node.id) ?? ctx.now();
    ctx.ui.appeared.set(node.id, appeared);
    const inert = ctx.now() - appeared < INERT_MS;
    // the protocol's outcomes (ApprovalOutcome), as the runtime receives them
    const decide = (decision: "allowed-once" | "rejected") => {
      if (ctx.now() - appeared < INERT_MS) return; // too soon: a stray double click
      ctx.store.decide(requestId, "approval", decision, { type: "approval", request_id: requestId, decision });
    };
    const tool = node.tool_name || "tool";
    const allow = button("Allow once", `Allow once: ${tool}`, () => decide("allowed-once"), "dsh-btn dsh-allow");
    const reject = button("Reject", `Reject: ${tool}`, () => decide("rejected"), "dsh-btn dsh-reject");
    if (inert) {
      for (const b of [allow, reject]) b.disabled = true;
      ctx.later(INERT_MS - (ctx.now() - appeared) + 1, () => {
        ctx.ui.bump(node.id);
        ctx.schedule();
      });
    }
    el.appendChild(h("div", { class: "dsh-actions" }, allow, reject));
  }
}
