// The plan card (issue 46 item 2): the runtime's plan review (exit_plan_mode, question id
// "plan-review") shows the plan as sanitized markdown and answers with buttons.
import { beforeEach, describe, expect, it } from "vitest";
import { FakeModel, mount, question, snap, tool } from "./helpers";

const PLAN = "# Plot the sales\n\n1. Read **sales.csv**\n2. Plot revenue by month\n\n<img src=x onerror=alert(1)> [x](javascript:alert(1))";

function review(extra: Record<string, any> = {}): any {
  return question("i3", "q2", {
    call_id: "call-i1",
    questions: [{
      id: "plan-review", header: "Plan review", question: "Approve this plan and leave plan mode?", detail: PLAN,
      multi_select: false,
      options: [
        { label: "Approve", description: "Leave plan mode; the plan is carried out from the next step." },
        { label: "Keep planning", description: "Stay in plan mode; feedback goes back to the model." },
      ],
    }],
    ...extra,
  });
}

function waiting(node: any = review()) {
  return snap({
    seq: 3,
    state: "waiting",
    items: [tool("i1", { name: "exit_plan_mode", state: "running", question: node })],
    pending: [{ kind: "question", id: "i3", request_id: "q2", session_id: "s1" }],
  });
}

const decisions = (model: FakeModel) => model.sent.filter((m) => m.type !== "resync");

describe("the plan card", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("shows the plan as rendered, sanitized markdown under the review question", () => {
    const { el } = mount(new FakeModel(waiting()));
    const card = el.querySelector<HTMLElement>(".dsh-question.dsh-plan-review")!;
    expect(card.querySelector(".dsh-card-title")!.textContent).toBe("The agent's plan");
    const body = card.querySelector(".dsh-plan-review-body")!;
    expect(body.querySelector("h1")!.textContent).toBe("Plot the sales");
    expect([...body.querySelectorAll("ol li")].map((li) => li.textContent)).toEqual([
      "Read sales.csv", "Plot revenue by month",
    ]);
    expect(body.querySelector("strong")!.textContent).toBe("sales.csv");
    expect(body.querySelector("img, script, [onerror]")).toBeNull();
    expect(body.querySelector('a[href^="javascript"]')).toBeNull();
    expect(card.querySelector(".dsh-q-detail")).toBeNull(); // not the plain-text detail
    expect(card.querySelector('input[type="radio"]')).toBeNull();
    expect([...card.querySelectorAll(".dsh-actions button")].map((b) => b.textContent)).toEqual([
      "Approve", "Keep planning", "Reject with a note",
    ]);
  });

  it("Approve answers the review with its approve option", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    el.querySelector<HTMLButtonElement>(".dsh-plan-approve")!.click();
    flush();
    el.querySelector<HTMLButtonElement>(".dsh-plan-approve")?.click();
    expect(decisions(model)).toEqual([
      { type: "answer", request_id: "q2", answers: [{ id: "plan-review", selected: ["Approve"] }] },
    ]);
    expect(el.querySelector(".dsh-plan-review .dsh-outcome")!.textContent).toBe("Answers sent…");
    const done = waiting(review({ rev: 9, state: "answered", answers: [{ id: "plan-review", selected: ["Approve"] }] }));
    done.seq = 9;
    model.sync(done);
    flush();
    const card = el.querySelector(".dsh-plan-review")!;
    expect(card.querySelector(".dsh-answer")!.textContent).toBe("Answer: Approve");
    expect(card.querySelector(".dsh-plan-review-body h1")!.textContent).toBe("Plot the sales"); // the plan stays
  });

  it("Keep planning and Reject with a note send the note as the feedback", () => {
    let model = new FakeModel(waiting());
    let { el } = mount(model);
    el.querySelector<HTMLButtonElement>(".dsh-plan-keep")!.click();
    expect(decisions(model)).toEqual([
      { type: "answer", request_id: "q2", answers: [{ id: "plan-review", selected: ["Keep planning"] }] },
    ]);

    document.body.textContent = "";
    model = new FakeModel(waiting());
    ({ el } = mount(model));
    el.querySelector<HTMLButtonElement>(".dsh-plan-reject")!.click(); // no note yet: nothing sent
    expect(decisions(model)).toEqual([]);
    expect((el.querySelector(".dsh-plan-review .dsh-card-error") as HTMLElement).hidden).toBe(false);
    const note = el.querySelector<HTMLInputElement>(".dsh-plan-note")!;
    note.value = "  plot profit too ";
    note.dispatchEvent(new Event("input"));
    note.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true })); // Enter rejects with it
    expect(decisions(model)).toEqual([
      {
        type: "answer", request_id: "q2",
        answers: [{ id: "plan-review", selected: ["Keep planning"], custom: "plot profit too" }],
      },
    ]);
    // an ordinary question with a detail stays a question card
    document.body.textContent = "";
    const other = mount(new FakeModel(waiting(question("i3", "q2")))).el;
    expect(other.querySelector(".dsh-plan-review")).toBeNull();
    expect(other.querySelector(".dsh-q-detail")!.textContent).toBe("for the plot");
  });
});
