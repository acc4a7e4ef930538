// Issue 15 (approvals without fatigue) and 14 (run_python's card): Allow for this run, Edit, then
// run, and how the card records a decision a scope made.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TOO_LONG_TO_EDIT } from "../src/cards/approval";
import { FakeModel, approval, mount, snap, tool } from "./helpers";

const CODE = "totals = sales.groupby('region')['revenue'].sum()\ntotals";

function runPythonAsks(extra: Record<string, any> = {}) {
  return snap({
    seq: 3,
    state: "waiting",
    items: [approval("i2", "a1", { tool_name: "run_python", reason: CODE, proposed: CODE, ...extra })],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}

function bashAsks() {
  return snap({
    seq: 3,
    state: "waiting",
    items: [tool("i1", { approval: approval("i2", "a1"), state: "pending" })],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}

const sent = (model: FakeModel) => model.sent.filter((m) => m.type !== "resync");
const labels = (el: HTMLElement) =>
  [...el.querySelectorAll<HTMLButtonElement>(".dsh-approval .dsh-actions button")].map((b) => b.textContent);

describe("approval scopes and edits", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("offers Allow once, Allow for this run, Edit, then run and Reject for run_python", () => {
    const { el } = mount(new FakeModel(runPythonAsks()));
    expect(labels(el)).toEqual(["Allow once", "Allow for this run", "Edit, then run", "Reject"]);
    // the code is highlighted python (issue 14)
    expect(el.querySelector(".dsh-approval code.hljs.language-python [class^='hljs-']")).not.toBeNull();
  });

  it("offers no edit for other tools (the kernel could not run an edit)", () => {
    const { el } = mount(new FakeModel(bashAsks()));
    expect(labels(el)).toEqual(["Allow once", "Allow for this run", "Reject"]);
  });

  it("keeps every button inert for half a second", () => {
    const model = new FakeModel(runPythonAsks());
    const { el } = mount(model);
    for (const b of el.querySelectorAll<HTMLButtonElement>(".dsh-actions button")) {
      expect(b.disabled).toBe(true);
      b.click();
    }
    expect(sent(model)).toEqual([]);
    expect(el.querySelector(".dsh-edit-code")).toBeNull();
  });

  it("Allow for this run sends allowed-once with the run scope, once", () => {
    const model = new FakeModel(bashAsks());
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    const scope = el.querySelector<HTMLButtonElement>(".dsh-allow-run")!;
    scope.click();
    scope.click();
    flush();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once", scope: "run" }]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Allow for this run — sent…");
  });

  it("Edit, then run sends exactly the edited text, which stays text", () => {
    const model = new FakeModel(runPythonAsks());
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    el.querySelector<HTMLButtonElement>(".dsh-edit")!.click();
    flush();
    const editor = el.querySelector<HTMLTextAreaElement>("textarea.dsh-edit-code")!;
    expect(editor.value).toBe(CODE);
    expect(el.querySelector(".dsh-approval .dsh-code")).toBeNull(); // the editor replaced it
    expect(labels(el)).toEqual(["Run edited code", "Cancel edit", "Reject"]);
    const edited = "totals = sales.groupby('region')['units'].sum()\n'<img src=x onerror=alert(1)>'";
    editor.value = edited;
    // a re-render of the card (its node changed in a new snapshot) keeps what was typed
    const renders = el.querySelector(".dsh-approval")!;
    model.sync({ ...runPythonAsks({ rev: 2 }), seq: 4 });
    flush();
    expect(el.querySelector(".dsh-approval")).toBe(renders);
    expect(el.querySelector<HTMLTextAreaElement>("textarea.dsh-edit-code")!.value).toBe(edited);
    expect(el.querySelector(".dsh-approval img")).toBeNull();
    el.querySelector<HTMLButtonElement>(".dsh-run-edited")!.click();
    flush();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once", code: edited }]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Run edited code — sent…");
  });

  it("Edit, then run opens on the whole code, not the card's capped reason", () => {
    // the kernel caps a reason at 2,000 characters (marked); `proposed` holds the code whole
    const long = Array.from({ length: 120 }, (_, i) => `row_${i} = compute(${i})  # step ${i}`).join("\n");
    const cut = `${long.slice(0, 1000)} … [cut: ${long.length - 1000} more chars]`;
    const model = new FakeModel(runPythonAsks({ reason: cut, proposed: long }));
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    expect(el.querySelector(".dsh-approval .dsh-code-pre")!.textContent).toBe(long); // shown whole
    el.querySelector<HTMLButtonElement>(".dsh-edit")!.click();
    flush();
    const editor = el.querySelector<HTMLTextAreaElement>("textarea.dsh-edit-code")!;
    expect(editor.value).toBe(long);
    expect(editor.value).not.toContain("[cut:");
  });

  it("offers no edit of code too long to come whole, and says so", () => {
    const cut = `${"x = 1\n".repeat(300)} … [cut: 200000 more chars]`;
    const model = new FakeModel(runPythonAsks({ reason: cut, proposed: null }));
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    expect(labels(el)).toEqual(["Allow once", "Allow for this run", "Reject"]);
    expect(el.querySelector(".dsh-approval .dsh-edit-unavailable")!.textContent).toBe(TOO_LONG_TO_EDIT);
  });

  it("does not send an empty edit; Cancel edit brings the agent's code back", () => {
    const model = new FakeModel(runPythonAsks());
    const { el, flush } = mount(model);
    vi.advanceTimersByTime(600);
    flush();
    el.querySelector<HTMLButtonElement>(".dsh-edit")!.click();
    flush();
    el.querySelector<HTMLTextAreaElement>("textarea.dsh-edit-code")!.value = "   \n";
    el.querySelector<HTMLButtonElement>(".dsh-run-edited")!.click();
    flush();
    expect(sent(model)).toEqual([]);
    el.querySelector<HTMLButtonElement>(".dsh-edit-cancel")!.click();
    flush();
    expect(el.querySelector("textarea.dsh-edit-code")).toBeNull();
    expect(el.querySelector(".dsh-approval .dsh-code-pre")!.textContent).toBe(CODE);
    el.querySelector<HTMLButtonElement>(".dsh-allow")!.click();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once" }]);
  });

  it("shows an auto-answered card as allowed (for this run), and who decided the others", () => {
    const words = (decided_by: string) => {
      document.body.textContent = "";
      const s = snap({
        state: "running",
        items: [approval("i2", "a2", { state: "decided", outcome: "allowed-once", decided_by })],
      });
      return mount(new FakeModel(s)).el.querySelector(".dsh-approval .dsh-outcome")!.textContent;
    };
    expect(words("scope")).toBe("Allowed (for this run)");
    expect(words("you-for-run")).toBe("Allowed once — by you, for the rest of this run");
    expect(words("you-edited")).toBe("Allowed once — by you, after editing the code");
  });
});
