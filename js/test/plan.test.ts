// The agent's plan (todo_write) as a checklist that updates in place, pinned near the top while
// the run works; a subagent's plan under its subagent; goal, read-only mode and cost in the header.
import { describe, expect, it } from "vitest";
import { FakeModel, mount, snap, tool } from "./helpers";
import type { Plan, Todo } from "../src/types";

const todos = (...pairs: [string, Todo["status"]][]): Todo[] => pairs.map(([content, status]) => ({ content, status }));
const plan = (steps: Todo[], earlier: Todo[][] = []): Plan =>
  ({ todos: steps, todos_omitted: 0, writes: earlier.length + 1, earlier, earlier_omitted: 0 });

const FIRST = todos(["Load sales.csv", "in_progress"], ["Plot monthly revenue", "pending"]);
const SECOND = todos(["Load sales.csv", "completed"], ["Plot monthly revenue", "in_progress"]);

describe("the plan", () => {
  it("is one checklist above the items that updates in place, with its counts", () => {
    const model = new FakeModel(snap({ state: "running", plan: plan(FIRST), seq: 1 }));
    const { el, flush } = mount(model);
    const section = el.querySelector(".dsh-plan") as HTMLElement;
    expect(section.hidden).toBe(false);
    expect(section.classList.contains("dsh-plan-live")).toBe(true);  // pinned while the run works
    // above the items: the prompt, then the plan, then the transcript
    expect(section.nextElementSibling?.classList.contains("dsh-items")).toBe(true);
    expect(section.querySelector(".dsh-plan-counts")?.textContent).toBe("0 of 2 done · 1 in progress · 1 pending");
    expect([...section.querySelectorAll("li")].map((li) => li.getAttribute("data-status"))).toEqual(["in_progress", "pending"]);

    model.sync(snap({ state: "running", plan: plan(SECOND, [FIRST]), seq: 2 }));
    flush();
    expect(el.querySelectorAll(".dsh-plan")).toHaveLength(1);
    expect(el.querySelector(".dsh-plan")).toBe(section);  // the same card, updated
    expect(section.querySelector(".dsh-plan-counts")?.textContent).toBe("1 of 2 done · 1 in progress");
    expect([...section.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "✓Load sales.csv (done)", "▸Plot monthly revenue (in progress)",
    ]);

    model.sync(snap({ state: "settled", plan: plan(SECOND, [FIRST]), seq: 3 }));
    flush();
    expect(section.classList.contains("dsh-plan-live")).toBe(false);  // no longer pinned
  });

  it("is hidden without a plan, and agent text stays text", () => {
    const { el } = mount(new FakeModel(snap({ state: "running" })));
    expect((el.querySelector(".dsh-plan") as HTMLElement).hidden).toBe(true);
    const hostile = mount(new FakeModel(snap({ state: "running", plan: plan(todos(["<img src=x onerror=alert(1)>", "pending"])) })));
    expect(hostile.el.querySelector(".dsh-plan img")).toBeNull();
    expect(hostile.el.querySelector(".dsh-todo-text")?.textContent).toBe("<img src=x onerror=alert(1)>");
  });

  it("of a subagent nests under its subagent, not at the top", () => {
    const child = {
      kind: "subagent", id: "i3", rev: 1, child_id: "c1", label: null, description: "planner", mode: null,
      prompt: null, state: "running", status: null, stop_reason: null, result: null, turns: 1,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
      plan: plan(todos(["Read the file", "completed"], ["Summarize", "pending"])), items: [], items_omitted: 0,
    };
    const { el } = mount(new FakeModel(snap({ state: "running", items: [tool("i2", { name: "subagent", subagent: child })] })));
    const plans = [...el.querySelectorAll(".dsh-plan")] as HTMLElement[];
    expect(plans.filter((p) => !p.hidden)).toHaveLength(1);
    const nested = el.querySelector(".dsh-subagent .dsh-plan") as HTMLElement;
    expect(nested.querySelector(".dsh-plan-label")?.textContent).toBe("Its plan");
    expect(nested.querySelector(".dsh-plan-counts")?.textContent).toBe("1 of 2 done · 1 pending");
  });

  it("a todo_write call reads as one line", () => {
    const call = tool("i2", { name: "todo_write", state: "done", args: { todos: SECOND }, result: "Updated todo list: 0 pending, 1 in progress, 1 completed." });
    const { el } = mount(new FakeModel(snap({ state: "running", items: [call] })));
    expect(el.querySelector(".dsh-tool")?.textContent).toContain("update the plan: 1 of 2 done · 1 in progress");
  });
});

describe("the header", () => {
  it("shows the goal, the read-only mode and the estimated cost", () => {
    const s = snap({ state: "running" });
    s.header.goal = { objective: "Plot revenue", phase: "active" };
    s.header.read_only = true;
    s.header.usage.total_tokens = 1500;
    s.header.cost = { usd: 0.0123, model: "deepseek-flash", as_of: "2025-09-05" };
    const { el } = mount(new FakeModel(s));
    expect(el.querySelector(".dsh-goal")?.textContent).toBe("Goal: Plot revenue (active)");
    expect(el.querySelector(".dsh-mode")?.textContent).toBe("read-only");
    expect(el.querySelector(".dsh-cost")?.textContent).toBe("~$0.012 est.");
    expect((el.querySelector(".dsh-cost") as HTMLElement).title).toContain("estimate");
  });
});
