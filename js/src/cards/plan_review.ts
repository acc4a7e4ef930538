// The plan card: the runtime's plan review (exit_plan_mode asks it through the question path) shown
// as the plan itself, rendered as sanitized markdown (agent text is untrusted: markdown.ts), with
// the review's answers as buttons: Approve, Keep planning, and Reject with a note (the runtime reads
// a free-text answer as the person's feedback and keeps planning).
import { button, h } from "../dom";
import { renderMarkdown } from "../markdown";
import type { Answer, Question, QuestionItem } from "../types";

/** The runtime's plan-review question id and its two option labels (dsh-plan-mode). */
export const PLAN_REVIEW_ID = "plan-review";
export const APPROVE = "Approve";
export const KEEP_PLANNING = "Keep planning";

/** The plan-review question of ``node``: its only question, id ``plan-review``, with the plan in
 * ``detail`` and an Approve and a Keep planning option; otherwise null (an ordinary question). */
export function planReview(node: QuestionItem): Question | null {
  if (node.questions.length !== 1) return null;
  const q = node.questions[0];
  const labels = q.options.map((o) => o.label);
  if (q.id !== PLAN_REVIEW_ID || !q.detail || !labels.includes(APPROVE) || !labels.includes(KEEP_PLANNING)) return null;
  return q;
}

/** The plan as rendered (sanitized) markdown. */
export function planBody(plan: string): HTMLElement {
  const body = h("div", { class: "dsh-md dsh-plan-review-body", "aria-label": "The agent's plan" });
  body.appendChild(renderMarkdown(plan));
  return body;
}

/** The note box and the three answers of a pending plan review; ``answer`` sends one answer. */
export function planActions(
  q: Question,
  note: { value: string; key: string; onInput: (value: string) => void },
  answer: (a: Answer) => void,
): { note: HTMLInputElement; actions: HTMLElement; reject: () => void } {
  const box = h("input", {
    type: "text",
    class: "dsh-custom dsh-plan-note",
    placeholder: "A note for the agent (to reject the plan)",
    "aria-label": "A note for the agent: why the plan should change",
    "data-key": note.key,
  }) as HTMLInputElement;
  box.value = note.value;
  const error = h("div", { class: "dsh-card-error", role: "alert", hidden: "" }, "Write a note first.");
  box.addEventListener("input", () => {
    note.onInput(box.value);
    error.hidden = true;
  });
  const reject = () => {
    const text = box.value.trim();
    if (!text) {
      error.hidden = false;
      box.focus();
      return;
    }
    answer({ id: q.id, selected: [KEEP_PLANNING], custom: text });
  };
  const actions = h("div", { class: "dsh-actions" },
    button(APPROVE, "Approve the plan and leave plan mode", () => answer({ id: q.id, selected: [APPROVE] }), "dsh-btn dsh-submit dsh-plan-approve"),
    button(KEEP_PLANNING, "Keep planning", () => answer({ id: q.id, selected: [KEEP_PLANNING] }), "dsh-btn dsh-plan-keep"),
    button("Reject with a note", "Reject the plan with the note", reject, "dsh-btn dsh-plan-reject"),
    error);
  return { note: box, actions, reject };
}
