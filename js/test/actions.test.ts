import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel, approval, mount, question, snap, tool } from "./helpers";

function waiting() {
  return snap({
    seq: 3,
    state: "waiting",
    items: [tool("i1", { approval: approval("i2", "a1"), state: "pending" }), question("i3", "q2")],
    pending: [
      { kind: "approval", id: "i2", request_id: "a1", session_id: "s1" },
      { kind: "question", id: "i3", request_id: "q2", session_id: "s1" },
    ],
  });
}

const decisions = (model: FakeModel) => model.sent.filter((m) => m.type !== "resync");

describe("clicks", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps approval buttons inert for half a second after they appear", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    const allow = () => el.querySelector<HTMLButtonElement>(".dsh-allow")!;
    expect(allow().disabled).toBe(true);
    allow().click();
    allow().dispatchEvent(new MouseEvent("click", { bubbles: true })); // even a synthetic one
    vi.advanceTimersByTime(300);
    flush();
    allow().click();
    expect(decisions(model)).toEqual([]);
    vi.advanceTimersByTime(250);
    flush();
    expect(allow().disabled).toBe(false);
    allow().click();
    expect(decisions(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once" }]);
  });

  it("sends exactly one message per decision, double clicks and other views included", () => {
    const model = new FakeModel(waiting());
    const a = mount(model);
    const b = mount(model);
    vi.advanceTimersByTime(600);
    a.flush();
    b.flush();
    const allowA = a.el.querySelector<HTMLButtonElement>(".dsh-allow")!;
    const rejectA = a.el.querySelector<HTMLButtonElement>(".dsh-reject")!;
    const rejectB = b.el.querySelector<HTMLButtonElement>(".dsh-reject")!;
    allowA.click();
    allowA.click();
    rejectA.click(); // the same card, before the re-render
    rejectB.click(); // another view of the same widget
    a.flush();
    b.flush();
    expect(decisions(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once" }]);
    // both views show the decision as sent, no buttons left
    for (const v of [a, b]) {
      expect(v.el.querySelector(".dsh-allow")).toBeNull();
      expect(v.el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Allow once — sent…");
    }
    model.custom({ type: "ack", action: "approval", request_id: "a1", ok: true, error: null });
    a.flush();
    expect(a.el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Allow once — sent, waiting for the agent");
    // the kernel records the decision: the card shows it, with who decided
    const decided = waiting();
    decided.seq = 4;
    (decided.items[0] as any).approval = approval("i2", "a1", { rev: 4, state: "decided", outcome: "allowed-once", decided_by: "you" });
    (decided.items[0] as any).rev = 4;
    decided.pending = decided.pending.filter((p) => p.kind !== "approval");
    model.sync(decided);
    a.flush();
    expect(a.el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Allowed once — by you");
    // decided: no longer "needed" (the heading says what the card is, the line what became of it)
    expect(a.el.querySelector(".dsh-approval .dsh-card-title")!.textContent).toMatch(/^Approval: /);
    expect(decisions(model)).toHaveLength(1);
  });

  it("shows the kernel's refusal on the card and does not resend", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    expect(el.querySelector(".dsh-approval .dsh-card-title")!.textContent).toMatch(/^Approval needed: /);
    el.querySelector<HTMLButtonElement>(".dsh-reject")!.click();
    model.custom({
      type: "ack", action: "approval", request_id: "a1", ok: false,
      error: "this request is no longer pending (run stopped, kernel restarted, notebook reopened)",
    });
    flush();
    const error = el.querySelector(".dsh-approval .dsh-card-error")!;
    expect(error.getAttribute("role")).toBe("alert");
    expect(error.textContent).toContain("no longer pending");
    expect(el.querySelector(".dsh-approval button:not(.dsh-copy)")).toBeNull();
    expect(error.textContent).toContain("Reject was not delivered");
    expect(decisions(model)).toEqual([{ type: "approval", request_id: "a1", decision: "rejected" }]);
  });

  it("offers no buttons for requests that are not pending, or when the run waits in the cell", () => {
    const gone = waiting();
    gone.pending = [];
    let { el } = mount(new FakeModel(gone));
    vi.advanceTimersByTime(600);
    expect(el.querySelector(".dsh-allow")).toBeNull();
    expect(el.querySelector(".dsh-submit")).toBeNull();
    document.body.textContent = "";
    ({ el } = mount(new FakeModel(waiting(), { interactive: false })));
    expect(el.querySelector(".dsh-allow")).toBeNull();
    expect(el.querySelector(".dsh-approval")!.textContent).toContain("prompt below the cell");
    expect(el.querySelector<HTMLButtonElement>(".dsh-stop")!.hidden).toBe(true);
    document.body.textContent = "";
    const over = waiting();
    over.header.state = "settled";
    ({ el } = mount(new FakeModel(over)));
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Not decided — the run was interrupted");
    expect(el.querySelector(".dsh-approval .dsh-card-title")!.textContent).toMatch(/^Approval: /);
    expect(el.querySelector(".dsh-question .dsh-outcome")!.textContent).toBe("Not decided — the run was interrupted");
  });

  it("answers questions: radios, checkboxes, free text; once", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    const card = el.querySelector<HTMLElement>(".dsh-question")!;
    card.querySelector<HTMLInputElement>('input[value="blue"]')!.click();
    card.querySelector<HTMLInputElement>('input[value="red"]')!.click();
    card.querySelector<HTMLInputElement>('input[value="legend"]')!.click();
    card.querySelector<HTMLInputElement>('input[value="grid"]')!.click();
    const custom = card.querySelectorAll<HTMLInputElement>('input[type="text"]')[1];
    custom.value = "  and a title ";
    custom.dispatchEvent(new Event("input"));
    card.querySelector<HTMLButtonElement>(".dsh-submit")!.click();
    card.querySelector<HTMLButtonElement>(".dsh-submit")?.click();
    flush();
    el.querySelector<HTMLButtonElement>(".dsh-question .dsh-dismiss")?.click();
    expect(decisions(model)).toEqual([
      {
        type: "answer", request_id: "q2",
        answers: [
          { id: "color", selected: ["red"] },
          { id: "extras", selected: ["grid", "legend"], custom: "and a title" },
        ],
      },
    ]);
    expect(el.querySelector(".dsh-question .dsh-outcome")!.textContent).toBe("Answers sent…");
    // the kernel records the answer: the card shows it
    const done = waiting();
    done.seq = 9;
    done.items[1] = question("i3", "q2", { rev: 9, state: "answered", answers: [
      { id: "color", selected: ["red"] }, { id: "extras", selected: ["grid", "legend"], custom: "and a title" }] });
    model.sync(done);
    flush();
    expect(el.querySelector(".dsh-question .dsh-outcome")!.textContent).toBe("Answered");
    expect([...el.querySelectorAll(".dsh-question .dsh-answer")].map((a) => a.textContent)).toEqual([
      "Answer: red", "Answer: grid, legend, “and a title”",
    ]);
  });

  it("Enter submits; Dismiss dismisses", () => {
    let model = new FakeModel(waiting());
    let { el } = mount(model);
    const input = el.querySelector<HTMLInputElement>('.dsh-question input[type="text"]')!;
    input.value = "green";
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    expect(decisions(model)).toEqual([
      { type: "answer", request_id: "q2", answers: [{ id: "color", selected: [], custom: "green" }, { id: "extras", selected: [] }] },
    ]);
    document.body.textContent = "";
    model = new FakeModel(waiting());
    ({ el } = mount(model));
    el.querySelector<HTMLButtonElement>(".dsh-question .dsh-dismiss")!.click();
    el.querySelector<HTMLButtonElement>(".dsh-question .dsh-dismiss")?.click();
    expect(decisions(model)).toEqual([{ type: "dismiss", request_id: "q2" }]);
  });

  it("keeps keystrokes inside the question card away from notebook shortcuts", () => {
    const model = new FakeModel(waiting());
    const { el } = mount(model);
    const seen: string[] = [];
    const spy = (e: Event) => seen.push(`${e.type}:${(e as KeyboardEvent).key}`);
    for (const type of ["keydown", "keypress", "keyup"]) {
      document.addEventListener(type, spy);
      window.addEventListener(type, spy);
    }
    const input = el.querySelector<HTMLInputElement>('.dsh-question input[type="text"]')!;
    const radio = el.querySelector<HTMLInputElement>('.dsh-question input[type="radio"]')!;
    for (const target of [input, radio]) {
      for (const key of ["a", "b", "d", "m", "Escape", "ArrowUp"]) {
        for (const type of ["keydown", "keypress", "keyup"]) {
          target.dispatchEvent(new KeyboardEvent(type, { key, bubbles: true, cancelable: true }));
        }
      }
    }
    // the control outside the card still bubbles (the test would pass vacuously otherwise)
    el.querySelector<HTMLButtonElement>(".dsh-stop")!.dispatchEvent(new KeyboardEvent("keydown", { key: "x", bubbles: true }));
    expect(seen).toEqual(["keydown:x", "keydown:x"]);
    expect(el.querySelector(".dsh-question")!.getAttribute("data-lm-suppress-shortcuts")).toBe("true");
    for (const type of ["keydown", "keypress", "keyup"]) {
      document.removeEventListener(type, spy);
      window.removeEventListener(type, spy);
    }
  });

  it("keeps what was typed and the focus when the card re-renders", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    const input = el.querySelector<HTMLInputElement>('.dsh-question input[type="text"]')!;
    input.focus();
    input.value = "half typed";
    input.dispatchEvent(new Event("input"));
    const next = waiting();
    next.seq = 4;
    (next.items[1] as any).rev = 4;
    model.sync(next);
    flush();
    const again = el.querySelector<HTMLInputElement>('.dsh-question input[type="text"]')!;
    expect(again).not.toBe(input);
    expect(again.value).toBe("half typed");
    expect(document.activeElement).toBe(again);
  });

  it("sends Stop once", () => {
    const model = new FakeModel(waiting());
    const { el, flush } = mount(model);
    const stop = el.querySelector<HTMLButtonElement>(".dsh-stop")!;
    stop.click();
    stop.click();
    flush();
    expect(stop.disabled).toBe(true);
    expect(stop.textContent).toBe("Stopping…");
    expect(decisions(model)).toEqual([{ type: "stop" }]);
    model.custom({ type: "ack", action: "stop", request_id: null, ok: false, error: "the run is over" });
    flush();
    expect(el.querySelector(".dsh-stop-note")!.textContent).toBe("Stop failed: the run is over");
  });
});
