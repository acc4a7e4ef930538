// The agent's plan (the runtime's todo_write): a checklist that updates in place, with its counts.
// Mirrors dsh_notebook/transcript/plan_render.py (the saved transcript says the same words).
// Pinned near the top of the run while it works (the stylesheet keeps it in view); the steps
// are untrusted text, shown as text.
import { h } from "./dom";
import type { Plan, Todo } from "./types";

/** `2 of 5 done · 1 in progress · 2 pending` (plan_render.plan_words). */
export function planWords(todos: Todo[], omitted = 0): string {
  const done = todos.filter((t) => t.status === "completed").length;
  const doing = todos.filter((t) => t.status === "in_progress").length;
  const waiting = todos.length - done - doing;
  const parts = [`${done} of ${todos.length + omitted} done`];
  if (doing) parts.push(`${doing} in progress`);
  if (waiting) parts.push(`${waiting} pending`);
  return parts.join(" · ");
}

const MARKS: Record<string, string> = { completed: "✓", in_progress: "▸", pending: "○" };
const WORDS: Record<string, string> = { completed: "done", in_progress: "in progress", pending: "pending" };

/** One plan's checklist; `update` re-renders only when the plan changed. */
export class PlanView {
  readonly el = h("section", { class: "dsh-plan", role: "group", "aria-label": "Plan" });
  private key = "";

  constructor(private readonly label = "Plan") {
    this.el.hidden = true;
  }

  update(plan: Plan | null | undefined, live: boolean): void {
    const key = JSON.stringify([plan ?? null, live]);
    if (key === this.key) return;
    this.key = key;
    this.el.hidden = !plan;
    this.el.classList.toggle("dsh-plan-live", live);
    this.el.textContent = "";
    if (!plan) return;
    const todos = Array.isArray(plan.todos) ? plan.todos : [];
    this.el.appendChild(h("div", { class: "dsh-plan-head" },
      h("span", { class: "dsh-plan-label" }, this.label),
      h("span", { class: "dsh-plan-counts" }, planWords(todos, plan.todos_omitted || 0))));
    const list = h("ul", { class: "dsh-plan-steps" });
    for (const todo of todos) {
      const status = String(todo.status);
      list.appendChild(h("li", { class: `dsh-todo dsh-todo-${status.replace(/[^a-z_]/g, "")}`, "data-status": status },
        h("span", { class: "dsh-todo-mark", "aria-hidden": "true" }, MARKS[status] ?? "○"),
        h("span", { class: "dsh-todo-text" }, String(todo.content ?? "")),
        h("span", { class: "dsh-sr-only" }, ` (${WORDS[status] ?? status})`)));
    }
    this.el.appendChild(list);
    const earlier = (plan.earlier?.length || 0) + (plan.earlier_omitted || 0);
    if (plan.todos_omitted) this.el.appendChild(h("div", { class: "dsh-muted" }, `${plan.todos_omitted} more steps not kept`));
    if (earlier) this.el.appendChild(h("div", { class: "dsh-muted dsh-plan-updates" }, `updated ${plan.writes} times`));
  }
}
