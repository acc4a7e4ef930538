// The approval card: tool, reason, command (code highlighted); Allow once / Allow for this run /
// (run_python) Edit, then run / Reject, inert for a moment after it appears, sent once; the
// decision (and who made it) recorded on the card. "Allow for this run" asks the kernel to answer
// the same tool's later requests of this run itself (each card then says "Allowed (for this
// run)"); "Edit, then run" turns the code into a text field, and what is sent is the edited text
// (the kernel runs it instead, for this call only). The edited text is plain text in a
// <textarea>: never parsed as HTML.
import { button, containKeys, h } from "../dom";
import { Keyed, type Ctx } from "../context";
import { approvalCode, codeBlock, isTool, toolCode } from "../code";
import type { ApprovalItem, ToolItem } from "../types";
import { DECIDED_BY_WORDS, OUTCOME_WORDS, isOver } from "./words";

export const INERT_MS = 500;

/** What a click sent, as the card says it until the kernel's record arrives. */
const SENT_WORDS: Record<string, string> = {
  "allowed-once": "Allow once",
  "allowed-for-run": "Allow for this run",
  edited: "Run edited code",
  rejected: "Reject",
};

/** The recorded decision, in words ("Allowed (for this run)" when a scope answered it). */
export function decisionWords(outcome: string | null, decidedBy: string | null): string {
  if (outcome === "allowed-once" && decidedBy === "scope") return "Allowed (for this run)";
  const words = OUTCOME_WORDS[outcome ?? ""] ?? outcome ?? "Decided";
  const by = decidedBy ? DECIDED_BY_WORDS[decidedBy] ?? decidedBy : "";
  return by ? `${words} — ${by}` : words;
}

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
  /** The code editor while "Edit, then run" is open (kept across renders: its text survives). */
  private editor: HTMLTextAreaElement | null = null;

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
      this.editor = null;
      el.appendChild(
        h("div", { class: `dsh-outcome dsh-outcome-${node.outcome ?? "unknown"}`, role: "status" }, decisionWords(node.outcome, node.decided_by)),
      );
      return;
    }
    if (local) {
      const verb = SENT_WORDS[String(local.value)] ?? "Reject";
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
    // the protocol's outcomes (ApprovalOutcome), as the runtime receives them; a scope or an
    // edit rides along and is the kernel's business (the wire only ever says allowed-once)
    const send = (shown: string, message: Record<string, unknown>) => {
      if (ctx.now() - appeared < INERT_MS) return; // too soon: a stray double click
      ctx.store.decide(requestId, "approval", shown, { type: "approval", request_id: requestId, ...message });
    };
    const decide = (decision: "allowed-once" | "rejected") => send(decision, { decision });
    const tool = node.tool_name || "tool";
    const code = approvalCode(node);
    const editable = code !== null && isTool(tool, "run_python");
    const buttons: HTMLButtonElement[] = [];
    if (this.editor !== null && editable) {
      const editor = this.editor;
      // the editor replaces the highlighted code: what is in it is what will run
      el.querySelector(".dsh-code")?.remove();
      el.appendChild(h("label", { class: "dsh-edit-label" }, "Edit the code; what you run is what the agent is told ran:"));
      el.appendChild(editor);
      const run = button("Run edited code", `Run the edited code: ${tool}`, () => {
        if (!editor.value.trim()) return; // nothing to run: Reject instead
        send("edited", { decision: "allowed-once", code: editor.value });
      }, "dsh-btn dsh-allow dsh-run-edited");
      const cancel = button("Cancel edit", "Cancel the edit (back to the agent's code)", () => {
        this.editor = null;
        ctx.ui.bump(node.id);
        ctx.schedule();
      }, "dsh-btn dsh-edit-cancel");
      buttons.push(run, cancel);
    } else {
      this.editor = null;
      buttons.push(button("Allow once", `Allow once: ${tool}`, () => decide("allowed-once"), "dsh-btn dsh-allow"));
      buttons.push(button("Allow for this run", `Allow ${tool} for the rest of this run`, () => send("allowed-for-run", { decision: "allowed-once", scope: "run" }), "dsh-btn dsh-allow-run"));
      if (editable) {
        buttons.push(button("Edit, then run", `Edit the code, then run it: ${tool}`, () => {
          if (ctx.now() - appeared < INERT_MS) return;
          const editor = h("textarea", { class: "dsh-edit-code", spellcheck: "false", rows: String(Math.min(20, Math.max(3, (code ?? "").split("\n").length + 1))), "aria-label": "The code to run (editable)" }) as HTMLTextAreaElement;
          editor.value = code ?? "";
          // the field grows with the code (up to 30 lines, then it scrolls)
          editor.addEventListener("input", () => {
            editor.rows = Math.min(30, Math.max(3, editor.value.split("\n").length + 1));
          });
          this.editor = editor;
          ctx.ui.bump(node.id);
          ctx.schedule();
          ctx.later(0, () => editor.focus());
        }, "dsh-btn dsh-edit"));
      }
    }
    buttons.push(button("Reject", `Reject: ${tool}`, () => decide("rejected"), "dsh-btn dsh-reject"));
    if (inert) {
      for (const b of buttons) b.disabled = true;
      ctx.later(INERT_MS - (ctx.now() - appeared) + 1, () => {
        ctx.ui.bump(node.id);
        ctx.schedule();
      });
    }
    el.appendChild(h("div", { class: "dsh-actions" }, ...buttons));
  }
}
