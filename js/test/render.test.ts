import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel, approval, mount, question, snap, text, tool } from "./helpers";
import type { RunState } from "../src/types";

function everything() {
  return snap({
    seq: 7,
    state: "running",
    header: {
      session_id: "nb-sales", title: null, model: "deepseek-flash", state: "running", turns: 2,
      finish_reason: null, tool_calls: 2, subagents: 1, errors: 1,
      usage: { input_tokens: 1000, output_tokens: 234, total_tokens: 1234, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 12 },
    },
    prompt: "Plot {df}\nwith the numbers 1, 2, 3",
    context: [{ token: "{df}", kind: "dataframe", summary: "DataFrame 3×2", chars: 120, truncated: false }],
    items: [
      text("i1", "thinking about **sales**", true, "reasoning"),
      text("i2", "# Result\n\nSome *text* and `code`.\n\n```python\nprint('hi')\n```\n", false),
      tool("i3", {
        description: "List files", state: "done",
        args: { command: "ls -la", long: "x".repeat(500) },
        result: Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n"),
        job: { job_id: "j1", kind: "bash", status: "running", detail: "pid 42" },
      }),
      tool("i4", {
        name: "subagent_spawn", state: "running",
        subagent: {
          kind: "subagent", id: "i5", rev: 3, child_id: "child-1", label: null, description: "Check the data",
          mode: "background", prompt: "check", state: "done", status: "ok", stop_reason: "end_turn",
          result: "All rows valid.", turns: 1,
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
          items: [text("i6", "child says *hello*")], items_omitted: 0,
        },
      }),
      { kind: "error", id: "i7", rev: 4, source: "client", message: "the runtime exited", code: "RUNTIME_EXITED", status: null,
        hint: "set DEEPSEEK_API_KEY and run `%dsh restart`", detail: "Traceback…\nstderr tail line" },
      { kind: "note", id: "i8", rev: 5, note: "retry", text: "retrying the model call", count: 2 },
      { kind: "user", id: "i9", rev: 6, text: "and also in euros" },
    ],
    unknown: { "plugin:thing": 3 },
  });
}

describe("rendering a snapshot", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the header: session, model, state, elapsed, turns, tokens, Stop", () => {
    const model = new FakeModel(everything(), { elapsed: 75 });
    const { el } = mount(model);
    expect(el.querySelector(".dsh-session")!.textContent).toBe("nb-sales");
    expect(el.querySelector(".dsh-model")!.textContent).toBe("deepseek-flash");
    expect(el.querySelector(".dsh-state")!.textContent).toBe("running");
    expect(el.querySelector(".dsh-elapsed")!.textContent).toBe("1 min 15 s");
    expect(el.querySelector(".dsh-turns")!.textContent).toBe("2 turns");
    expect(el.querySelector(".dsh-tokens")!.textContent).toBe("1.2k tokens");
    const stop = el.querySelector<HTMLButtonElement>(".dsh-stop")!;
    expect(stop.hidden).toBe(false);
    expect(stop.getAttribute("aria-label")).toBe("Stop the run");
  });

  it("names every state in words", () => {
    const states: [RunState, string][] = [["starting", "starting"], ["running", "running"], ["waiting", "waiting for you"], ["settled", "settled"], ["error", "error"]];
    for (const [state, words] of states) {
      document.body.textContent = "";
      const { el } = mount(new FakeModel(snap({ state })));
      expect(el.querySelector(".dsh-state")!.textContent).toBe(words);
      expect(el.querySelector<HTMLButtonElement>(".dsh-stop")!.hidden).toBe(state === "settled" || state === "error");
    }
  });

  it("keeps the elapsed time ticking while running, and frozen once settled", () => {
    vi.useFakeTimers();
    const model = new FakeModel(snap({ state: "running" }), { elapsed: 10 });
    const { el, flush } = mount(model);
    expect(el.querySelector(".dsh-elapsed")!.textContent).toBe("10 s");
    vi.advanceTimersByTime(5000);
    expect(el.querySelector(".dsh-elapsed")!.textContent).toBe("15 s");
    model.sync(snap({ state: "settled", seq: 2 }), 16.5);
    flush();
    vi.advanceTimersByTime(5000);
    expect(el.querySelector(".dsh-elapsed")!.textContent).toBe("16 s");
  });

  it("shows the prompt with context chips, expandable to exactly what was sent", () => {
    const { el, flush } = mount(new FakeModel(everything()));
    const chip = el.querySelector(".dsh-chip")!;
    expect(chip.textContent).toContain("{df}");
    expect(chip.textContent).toContain("DataFrame 3×2");
    expect(el.querySelector(".dsh-prompt-full")).toBeNull();
    el.querySelector<HTMLButtonElement>(".dsh-prompt-toggle")!.click();
    flush();
    expect(el.querySelector(".dsh-prompt-full")!.textContent).toBe("Plot {df}\nwith the numbers 1, 2, 3");
  });

  it("renders markdown with highlighted code blocks and a Copy button", () => {
    const { el } = mount(new FakeModel(everything()));
    const md = el.querySelector('[data-id="i2"]')!;
    expect(md.querySelector("h1")!.textContent).toBe("Result");
    expect(md.querySelector("em")!.textContent).toBe("text");
    const code = md.querySelector(".dsh-code pre code")!;
    expect(code.classList.contains("hljs")).toBe(true);
    expect(code.querySelector("span.hljs-built_in, span[class^=hljs]")).not.toBeNull();
    expect(code.textContent).toBe("print('hi')\n");
    const copy = md.querySelector<HTMLButtonElement>(".dsh-copy")!;
    expect(copy.getAttribute("aria-label")).toBe("Copy code (python)");
  });

  it("copies the code block's text", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { el } = mount(new FakeModel(everything()));
    el.querySelector<HTMLButtonElement>(".dsh-copy")!.click();
    expect(writeText).toHaveBeenCalledWith("print('hi')\n");
    await Promise.resolve();
    await Promise.resolve();
    expect(el.querySelector(".dsh-copy")!.textContent).toBe("Copied");
  });

  it("puts reasoning in a collapsed, live section", () => {
    const { el } = mount(new FakeModel(everything()));
    const details = el.querySelector<HTMLDetailsElement>("details.dsh-reasoning")!;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")!.textContent).toBe("Reasoning (live)");
    expect(details.querySelector("strong")!.textContent).toBe("sales");
  });

  it("shows tool calls as cards: name, description, arguments, state, folded result, job", () => {
    const { el, flush } = mount(new FakeModel(everything()));
    const card = el.querySelector('[data-id="i3"]')!;
    expect(card.querySelector(".dsh-tool-name")!.textContent).toBe("bash");
    expect(card.querySelector(".dsh-tool-desc")!.textContent).toBe("List files");
    expect(card.querySelector(".dsh-badge")!.textContent).toBe("done");
    expect(card.classList.contains("dsh-state-done")).toBe(true);
    expect(card.querySelector(".dsh-job")!.textContent).toBe("Background job (bash): running — pid 42");
    // arguments: collapsed behind a button, then the command as code and the other arguments as
    // pretty JSON with the long value folded
    expect(card.querySelector(".dsh-json")).toBeNull();
    card.querySelector<HTMLButtonElement>(".dsh-args-toggle")!.click();
    flush();
    expect(el.querySelector('[data-id="i3"] .dsh-code-pre')!.textContent).toBe("ls -la");
    const json = el.querySelector('[data-id="i3"] .dsh-json')!;
    expect(json.textContent).not.toContain('"command"');
    expect(json.textContent).not.toContain("x".repeat(200));
    json.querySelector<HTMLButtonElement>("button")!.click();
    flush();
    expect(el.querySelector('[data-id="i3"] .dsh-json')!.textContent).toContain("x".repeat(500));
    // result: 6 lines, then "show more"
    const result = () => el.querySelector('[data-id="i3"] .dsh-result')!.textContent!;
    expect(result().split("\n")).toHaveLength(6);
    const more = el.querySelector<HTMLButtonElement>('[data-id="i3"] .dsh-fold .dsh-more')!;
    expect(more.textContent).toBe("show more (24 more lines)");
    more.click();
    flush();
    expect(result().split("\n")).toHaveLength(30);
  });

  it("nests a subagent under its tool call, with its own transcript on demand", () => {
    const { el, flush } = mount(new FakeModel(everything()));
    const sub = el.querySelector('[data-id="i4"] .dsh-subagent')!;
    expect(sub.querySelector(".dsh-tool-desc")!.textContent).toBe("Check the data");
    expect(sub.querySelector(".dsh-badge")!.textContent).toBe("done");
    expect(sub.textContent).toContain("stopped: end_turn");
    expect(sub.textContent).toContain("All rows valid.");
    expect(sub.querySelector(".dsh-children")).toBeNull();
    sub.querySelector<HTMLButtonElement>(".dsh-children-toggle")!.click();
    flush();
    const child = el.querySelector('[data-id="i4"] .dsh-children [data-id="i6"]')!;
    expect(child.querySelector("em")!.textContent).toBe("hello");
  });

  it("shows errors as a banner: what happened, what to do, and the details", () => {
    const { el } = mount(new FakeModel(everything()));
    const banner = el.querySelector('[data-id="i7"]')!;
    expect(banner.getAttribute("role")).toBe("alert");
    expect(banner.textContent).toContain("the runtime exited");
    expect(banner.querySelector(".dsh-hint")!.textContent).toContain("set DEEPSEEK_API_KEY");
    const details = banner.querySelector<HTMLDetailsElement>("details")!;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain("stderr tail line");
  });

  it("shows notes, later user messages, and what it did not understand", () => {
    const { el } = mount(new FakeModel(everything()));
    expect(el.querySelector('[data-id="i8"]')!.textContent).toBe("retrying the model call (×2)");
    expect(el.querySelector('[data-id="i9"]')!.textContent).toContain("and also in euros");
    expect(el.querySelector(".dsh-footer")!.textContent).toContain("plugin:thing ×3");
  });

  it("renders approval and question cards with their controls", () => {
    const s = snap({
      state: "waiting",
      items: [tool("i1", { approval: approval("i2", "a1"), state: "pending" }), question("i3", "q2")],
      pending: [
        { kind: "approval", id: "i2", request_id: "a1", session_id: "s1" },
        { kind: "question", id: "i3", request_id: "q2", session_id: "s1" },
      ],
    });
    const { el } = mount(new FakeModel(s));
    const card = el.querySelector(".dsh-approval")!;
    expect(card.textContent).toContain("writes outside the workspace");
    expect(card.querySelector(".dsh-code-pre")!.textContent).toBe("ls");
    expect(card.querySelector(".dsh-allow")!.getAttribute("aria-label")).toBe("Allow once: bash");
    expect(card.querySelector(".dsh-reject")!.getAttribute("aria-label")).toBe("Reject: bash");
    const q = el.querySelector(".dsh-question")!;
    expect(q.querySelectorAll('input[type="radio"]')).toHaveLength(2);
    expect(q.querySelectorAll('input[type="checkbox"]')).toHaveLength(2);
    expect(q.querySelectorAll('input[type="text"]')).toHaveLength(2);
    expect(q.querySelector("legend")!.textContent).toBe("Color");
    expect(q.textContent).toContain("for the plot");
    expect(q.querySelector(".dsh-submit")).not.toBeNull();
    expect(q.querySelector(".dsh-dismiss")).not.toBeNull();
  });

  it("records decisions on the cards, with who decided", () => {
    const cases: [string, string, string][] = [
      ["allowed-once", "you", "Allowed once — by you"],
      ["rejected", "policy", "Rejected — by the policy (no one could click)"],
      ["rejected", "timeout", "Rejected — timed out"],
      ["rejected", "connection-lost", "Rejected — connection lost"],
    ];
    for (const [outcome, by, words] of cases) {
      document.body.textContent = "";
      const s = snap({ items: [approval("i1", "a1", { state: "decided", outcome, decided_by: by })] });
      const { el } = mount(new FakeModel(s));
      expect(el.querySelector(".dsh-outcome")!.textContent).toBe(words);
      expect(el.querySelector(".dsh-allow")).toBeNull();
    }
  });

  it("shows answers afterwards, or that the agent cancelled", () => {
    const answered = snap({
      items: [question("i1", "q1", { state: "answered", answers: [{ id: "color", selected: ["red"] }, { id: "extras", selected: [], custom: "none" }] })],
    });
    let { el } = mount(new FakeModel(answered));
    expect(el.querySelectorAll(".dsh-answer")[0].textContent).toBe("Answer: red");
    expect(el.querySelectorAll(".dsh-answer")[1].textContent).toBe("Answer: “none”");
    expect(el.querySelector("input")).toBeNull();
    document.body.textContent = "";
    ({ el } = mount(new FakeModel(snap({ items: [question("i1", "q1", { state: "cancelled" })] }))));
    expect(el.querySelector(".dsh-outcome")!.textContent).toBe("Cancelled by the agent");
  });

  it("prefixes its classes with dsh- and labels every control", () => {
    const s = everything();
    s.items.push(tool("i20", { approval: approval("i21", "a1") }), question("i22", "q2"));
    s.pending = [
      { kind: "approval", id: "i21", request_id: "a1", session_id: "s1" },
      { kind: "question", id: "i22", request_id: "q2", session_id: "s1" },
    ];
    const { el } = mount(new FakeModel(s));
    for (const node of el.querySelectorAll("[class]")) {
      for (const cls of node.classList) expect(cls).toMatch(/^(dsh-|hljs|language-)/);
    }
    const controls = el.querySelectorAll("button, input, select, textarea");
    expect(controls.length).toBeGreaterThan(10);
    for (const control of controls) expect(control.getAttribute("aria-label"), control.outerHTML).toBeTruthy();
  });

  it("marks omitted items", () => {
    const { el } = mount(new FakeModel(snap({ items: [text("i9", "x")], items_omitted: 3 })));
    expect(el.querySelector(".dsh-omitted")!.textContent).toContain("3 earlier items");
  });
});
