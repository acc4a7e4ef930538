// The question card: each question with its options (radios, or checkboxes for multi-select) and
// optional free text; Submit and Dismiss; Enter submits; keys never reach notebook shortcuts.
// The runtime's plan review (exit_plan_mode) shows as a plan card instead: plan_review.ts.
import { button, containKeys, h } from "../dom";
import { Keyed, type Ctx } from "../context";
import type { Answer, Question, QuestionItem } from "../types";
import { isActionable } from "./approval";
import { planActions, planBody, planReview } from "./plan_review";
import { isOver } from "./words";

function answerWords(question: Question, answer: Answer | undefined): string {
  if (!answer) return "(no answer)";
  const parts = [...answer.selected];
  if (answer.custom) parts.push(`“${answer.custom}”`);
  return parts.length ? parts.join(", ") : "(skipped)";
}

export class QuestionCard extends Keyed<QuestionItem> {
  readonly el = h("div", { class: "dsh-card dsh-question", role: "group" });

  private onEnter: (() => void) | null = null;

  constructor() {
    super();
    containKeys(this.el);
    this.el.addEventListener("keydown", (event: KeyboardEvent) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing || !this.onEnter) return;
      if (event.target instanceof HTMLInputElement) {
        event.preventDefault();
        this.onEnter();
      }
    });
  }

  protected key(node: QuestionItem, ctx: Ctx): string {
    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    return [
      node.rev,
      ctx.ui.version(node.id),
      local ? `${local.status}:${local.error ?? ""}` : "",
      isActionable(node, "question", ctx),
      ctx.store.snapshot.header.state,
    ].join("|");
  }

  protected render(node: QuestionItem, ctx: Ctx): void {
    const el = this.el;
    // keep the focus where the person was typing
    const active = document.activeElement as HTMLElement | null;
    const focusKey = active && el.contains(active) ? active.dataset.key : undefined;
    const caret = active instanceof HTMLInputElement && active.type === "text" ? active.selectionStart : null;

    el.textContent = "";
    this.onEnter = null;
    const plan = planReview(node);
    el.className = `dsh-card dsh-question dsh-state-${node.state}${plan ? " dsh-plan-review" : ""}`;
    el.setAttribute("aria-label", plan ? "The agent's plan, for your review" : "Questions from the agent");
    el.dataset.requestId = node.request_id ?? "";
    const local = node.request_id ? ctx.store.decisions.get(node.request_id) : undefined;
    const actionable = isActionable(node, "question", ctx) && !local;
    const form = ctx.ui.form(node.id);
    const group = `${ctx.viewId}-${node.id}`;

    el.appendChild(h("div", { class: "dsh-card-title" }, plan ? "The agent's plan" : node.questions.length > 1 ? "The agent asks you" : "The agent asks you a question"));
    node.questions.forEach((q, qi) => {
      const set = h("fieldset", { class: "dsh-q" });
      set.appendChild(h("legend", { class: "dsh-q-header" }, q.header || `Question ${qi + 1}`));
      set.appendChild(h("div", { class: "dsh-q-text" }, q.question));
      if (plan && q.detail) set.appendChild(planBody(q.detail));
      else if (q.detail) set.appendChild(h("div", { class: "dsh-q-detail" }, q.detail));
      if (node.state !== "pending" || !actionable) {
        if (node.state === "answered") {
          const answer = (node.answers ?? []).find((a) => a.id === q.id);
          set.appendChild(h("div", { class: "dsh-answer" }, "Answer: ", answerWords(q, answer)));
        }
        el.appendChild(set);
        return;
      }
      if (plan) {
        el.appendChild(set);
        return; // the answers are buttons, below
      }
      const chosen = new Set(form.selected[q.id] ?? []);
      q.options.forEach((opt, oi) => {
        const input = h("input", {
          type: q.multi_select ? "checkbox" : "radio",
          name: `${group}-${qi}`,
          value: opt.label,
          "aria-label": opt.label,
          "data-key": `${qi}:${oi}`,
        }) as HTMLInputElement;
        input.checked = chosen.has(opt.label);
        input.addEventListener("change", () => {
          const current = new Set(form.selected[q.id] ?? []);
          if (q.multi_select) {
            if (input.checked) current.add(opt.label);
            else current.delete(opt.label);
            form.selected[q.id] = q.options.map((o) => o.label).filter((l) => current.has(l));
          } else {
            form.selected[q.id] = input.checked ? [opt.label] : [];
          }
        });
        set.appendChild(
          h("label", { class: "dsh-option" }, input, h("span", { class: "dsh-option-label" }, opt.label),
            opt.description ? h("span", { class: "dsh-option-desc" }, opt.description) : null),
        );
      });
      const custom = h("input", {
        type: "text",
        class: "dsh-custom",
        placeholder: q.options.length ? "Other answer (optional)" : "Your answer",
        "aria-label": `Your own answer to: ${q.question}`,
        "data-key": `${qi}:custom`,
      }) as HTMLInputElement;
      custom.value = form.custom[q.id] ?? "";
      custom.addEventListener("input", () => {
        form.custom[q.id] = custom.value;
      });
      set.appendChild(custom);
      el.appendChild(set);
    });

    if (local && node.state === "pending") {
      const what = local.kind === "dismiss" ? "Dismissed" : "Answers";
      el.appendChild(
        local.status === "failed"
          ? h("div", { class: "dsh-card-error", role: "alert" }, `${what} not delivered: ${local.error}`)
          : h("div", { class: "dsh-outcome dsh-outcome-sent", role: "status" }, `${what} sent${local.status === "acknowledged" ? ", waiting for the agent" : "…"}`),
      );
      return;
    }
    const status: Record<string, string> = {
      answered: "Answered",
      dismissed: "Dismissed",
      cancelled: "Cancelled by the agent",
      failed: "The question failed",
    };
    if (node.state in status) {
      el.appendChild(h("div", { class: `dsh-outcome dsh-outcome-${node.state}`, role: "status" }, status[node.state]));
      return;
    }
    if (isOver(ctx.store.snapshot.header.state)) {
      el.appendChild(h("div", { class: "dsh-outcome", role: "status" }, "Not decided — the run was interrupted"));
      return;
    }
    if (!actionable) {
      el.appendChild(h("div", { class: "dsh-muted" }, ctx.store.interactive
        ? "Waiting for the question request…"
        : "Answer in the prompt below the cell (this run waits in the cell)."));
      return;
    }
    const requestId = node.request_id as string;
    const submit = () => {
      const answers = node.questions.map((q) => {
        const answer: Answer = { id: q.id, selected: [...(form.selected[q.id] ?? [])] };
        const text = (form.custom[q.id] ?? "").trim();
        if (text) answer.custom = text;
        return answer;
      });
      ctx.store.decide({ type: "answer", request_id: requestId, answers }, answers);
    };
    const dismiss = () => ctx.store.decide({ type: "dismiss", request_id: requestId }, null);
    if (plan) {
      const send = (answer: Answer) => ctx.store.decide({ type: "answer", request_id: requestId, answers: [answer] }, [answer]);
      const note = { value: form.custom[plan.id] ?? "", key: "0:custom", onInput: (v: string) => { form.custom[plan.id] = v; } };
      const parts = planActions(plan, note, send);
      el.appendChild(parts.note);
      el.appendChild(parts.actions);
      this.onEnter = parts.reject;
    } else el.appendChild(
      h("div", { class: "dsh-actions" },
        button("Submit", "Submit answers", submit, "dsh-btn dsh-submit"),
        button("Dismiss", "Dismiss the questions", dismiss, "dsh-btn dsh-dismiss")),
    );
    if (!plan) this.onEnter = submit;
    if (focusKey) {
      const again = el.querySelector<HTMLInputElement>(`[data-key="${focusKey}"]`);
      if (again) {
        again.focus();
        if (caret !== null && again.type === "text") again.setSelectionRange(caret, caret);
      }
    }
  }
}
