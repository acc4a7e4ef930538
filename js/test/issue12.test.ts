// Issue 12: code shown as code, waiting/stopped states, Copy only when complete, usage hidden
// until known, hints with code, focus back to the notebook, wrapping rules of the stylesheet.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunView } from "../src/view";
import { FakeModel, approval, mount, snap, text, tool } from "./helpers";

const TWO_STATEMENTS = "totals = sales.groupby('region')['revenue'].sum()\ntotals";
const RUN_PYTHON = "mcp__notebook__run_python";

function runPython(extra: Record<string, any> = {}) {
  return tool("i1", { name: RUN_PYTHON, arguments: JSON.stringify({ code: TWO_STATEMENTS }), args: { code: TWO_STATEMENTS }, summary: null, ...extra });
}

/** run_python as the notebook server asks: a standalone approval whose reason is the code. */
function askingRunPython() {
  return snap({
    state: "waiting",
    items: [runPython(), approval("i2", "a1", { tool_name: "run_python", reason: TWO_STATEMENTS })],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}

describe("code on cards keeps its lines", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("shows run_python's code on its approval card as highlighted python, line breaks kept", () => {
    const { el } = mount(new FakeModel(askingRunPython()));
    const card = el.querySelector(".dsh-approval")!;
    const pre = card.querySelector(".dsh-code-pre")!;
    expect(pre.textContent).toBe(TWO_STATEMENTS);
    expect(pre.querySelector("code.hljs.language-python")).not.toBeNull();
    expect(pre.querySelector("[class^='hljs-']")).not.toBeNull();
    expect(card.querySelector(".dsh-code-lang")!.textContent).toBe("python");
    expect(card.querySelector(".dsh-reason")).toBeNull(); // not the flattened proportional line
  });

  it("keeps hostile code as text", () => {
    const s = askingRunPython();
    (s.items[1] as any).reason = "x = '<img src=x onerror=alert(1)>'\n</code></pre><script>alert(1)</script>";
    const { el } = mount(new FakeModel(s));
    expect(el.querySelector(".dsh-approval img, .dsh-approval script")).toBeNull();
    expect(el.querySelector(".dsh-approval .dsh-code-pre")!.textContent).toContain("<script>alert(1)</script>");
  });

  it("shows a bash approval's reason and its command as bash code", () => {
    const s = snap({
      state: "waiting",
      items: [tool("i1", { args: { command: "cd /tmp\nrm -rf build" }, state: "pending", approval: approval("i2", "a1") })],
      pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
    });
    const { el } = mount(new FakeModel(s));
    const card = el.querySelector(".dsh-approval")!;
    expect(card.querySelector(".dsh-reason")!.textContent).toBe("writes outside the workspace");
    expect(card.querySelector(".dsh-code-pre")!.textContent).toBe("cd /tmp\nrm -rf build");
    expect(card.querySelector(".dsh-code-lang")!.textContent).toBe("bash");
  });

  it("shows a run_python call's arguments as python code", () => {
    const { el, flush } = mount(new FakeModel(snap({ items: [runPython()] })));
    el.querySelector<HTMLButtonElement>(".dsh-args-toggle")!.click();
    flush();
    expect(el.querySelector('[data-id="i1"] .dsh-code-pre')!.textContent).toBe(TWO_STATEMENTS);
    expect(el.querySelector('[data-id="i1"] .dsh-json')).toBeNull(); // no other arguments
  });
});

describe("states a person reads", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("says a tool call waits for you while its own approval is open", () => {
    const s = snap({
      state: "waiting",
      items: [tool("i1", { state: "running", approval: approval("i2", "a1") })],
      pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
    });
    const { el } = mount(new FakeModel(s));
    const badge = el.querySelector('[data-id="i1"] .dsh-badge')!;
    expect(badge.textContent).toBe("waiting for you");
    expect(badge.classList.contains("dsh-badge-waiting")).toBe(true);
  });

  it("says run_python waits for you while its standalone approval is open, and runs after", () => {
    const model = new FakeModel(askingRunPython());
    const { el, flush } = mount(model);
    const badge = () => el.querySelector('[data-id="i1"] .dsh-badge')!.textContent;
    expect(badge()).toBe("waiting for you");
    const decided = askingRunPython();
    decided.seq = 2;
    decided.header.state = "running";
    (decided.items[1] as any) = approval("i2", "a1", { rev: 2, tool_name: "run_python", reason: TWO_STATEMENTS, state: "decided", outcome: "allowed-once", decided_by: "you" });
    decided.pending = [];
    model.sync(decided);
    flush();
    expect(badge()).toBe("running");
  });

  it("does not mark a call for another tool's approval", () => {
    const s = askingRunPython();
    (s.items[1] as any).tool_name = "write";
    const { el } = mount(new FakeModel(s));
    expect(el.querySelector('[data-id="i1"] .dsh-badge')!.textContent).toBe("running");
  });

  it("reads a stopped run as stopped by you, without error styling", () => {
    const s = snap({
      state: "settled",
      header: { stopped: true } as any,
      items: [text("i1", "slow0 slow1"), { kind: "note", id: "i2", rev: 1, note: "stopped", text: "Stopped by you.", count: 1 }],
    });
    const { el } = mount(new FakeModel(s));
    const state = el.querySelector(".dsh-state")!;
    expect(state.textContent).toBe("stopped by you");
    expect(state.className).toBe("dsh-state dsh-run-stopped");
    expect(el.querySelector(".dsh-note-stopped")!.textContent).toBe("Stopped by you.");
    expect(el.querySelector(".dsh-banner-error, .dsh-run-error")).toBeNull();
    expect(el.querySelector<HTMLButtonElement>(".dsh-stop")!.hidden).toBe(true);
  });

  it("hides the token count until usage is known", () => {
    const model = new FakeModel(snap({ items: [text("i1", "Hel", true)] }));
    const { el, flush } = mount(model);
    const tokens = el.querySelector<HTMLElement>(".dsh-tokens")!;
    expect(tokens.hidden).toBe(true);
    const later = snap({ seq: 2, items: [text("i1", "Hello", false)] });
    later.header.usage.total_tokens = 18;
    model.sync(later);
    flush();
    expect(tokens.hidden).toBe(false);
    expect(tokens.textContent).toBe("18 tokens");
  });

  it("keeps the whole title and model as a tooltip when the header cuts them", () => {
    const title = "A very long title ".repeat(10).trim();
    const { el } = mount(new FakeModel(snap({ header: { title, model: "deepseek-flash" } as any })));
    expect(el.querySelector<HTMLElement>(".dsh-title")!.title).toBe(title);
    expect(el.querySelector<HTMLElement>(".dsh-model")!.title).toBe("deepseek-flash");
  });

  it("renders a hint's code spans as code, the rest as text", () => {
    const s = snap({
      state: "error",
      items: [{ kind: "error", id: "i1", rev: 1, source: "client", message: "boom", code: null, status: null,
        hint: "run `%dsh restart`; <img src=x onerror=alert(1)> is text", detail: null }],
    });
    const { el } = mount(new FakeModel(s));
    const hint = el.querySelector(".dsh-hint")!;
    expect(hint.querySelector("code")!.textContent).toBe("%dsh restart");
    expect(hint.textContent).toBe("What to do: run %dsh restart; <img src=x onerror=alert(1)> is text");
    expect(hint.querySelector("img")).toBeNull();
  });
});

describe("Copy on code blocks", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("is offered only once the block's closing fence has arrived", () => {
    const model = new FakeModel(snap({ items: [text("i1", "Here:\n\n```python\nx = 1\n", true)] }));
    const { el, flush } = mount(model);
    expect(el.querySelector(".dsh-code")).not.toBeNull();
    expect(el.querySelector(".dsh-copy")).toBeNull();
    model.sync(snap({ seq: 2, items: [text("i1", "Here:\n\n```python\nx = 1\ny = 2\n```\n\nDone", true)] }));
    flush();
    expect(el.querySelectorAll(".dsh-copy")).toHaveLength(1);
  });
});

describe("focus after answering a card", () => {
  let notebook: HTMLElement;
  let cell: HTMLElement;
  let queue: (() => void)[];
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
    notebook = document.createElement("div");
    notebook.className = "jp-Notebook";
    notebook.tabIndex = -1;
    cell = document.createElement("div");
    cell.className = "jp-Cell";
    cell.tabIndex = 0;
    notebook.appendChild(cell);
    document.body.appendChild(notebook);
    queue = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function mountInCell(model: FakeModel): { el: HTMLElement; flush: () => void } {
    const view = new RunView(model, cell, { frame: (fn) => queue.push(fn) });
    vi.advanceTimersByTime(600); // past the inert period
    const flush = () => {
      while (queue.length) queue.shift()!();
    };
    flush();
    return { el: view.el, flush };
  }

  it("returns to the notebook cell once the clicked button is gone", () => {
    const { el, flush } = mountInCell(new FakeModel(askingRunPython()));
    const allow = el.querySelector<HTMLButtonElement>(".dsh-allow")!;
    allow.focus();
    allow.click();
    flush();
    expect(el.querySelector(".dsh-allow")).toBeNull();
    expect(document.activeElement).toBe(cell);
  });

  it("does not steal focus when the person already moved on", () => {
    const other = document.createElement("input");
    document.body.appendChild(other);
    const { el, flush } = mountInCell(new FakeModel(askingRunPython()));
    const reject = el.querySelector<HTMLButtonElement>(".dsh-reject")!;
    reject.focus();
    reject.click();
    other.focus(); // before the card re-rendered
    flush();
    expect(document.activeElement).toBe(other);
  });
});

describe("the stylesheet", () => {
  const css = readFileSync("src/styles.css", "utf8"); // vitest runs in js/
  const rule = (selector: string) => {
    const match = new RegExp(`(^|\\n)${selector.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*\\{([^}]*)\\}`).exec(css);
    expect(match, selector).not.toBeNull();
    return match![2];
  };

  it("never breaks words inside code: code scrolls sideways instead", () => {
    expect(css).not.toMatch(/word-break:\s*break-(word|all)/);
    expect(rule(".dsh-code pre")).toMatch(/white-space:\s*pre;/);
    expect(rule(".dsh-code pre")).toMatch(/overflow-x:\s*auto/);
    expect(rule(".dsh-pre")).toMatch(/white-space:\s*pre;/);
  });

  it("wraps the header and cuts a long title with an ellipsis", () => {
    expect(rule(".dsh-header")).toMatch(/flex-wrap:\s*wrap/);
    expect(css).toMatch(/\.dsh-header > \.dsh-title, \.dsh-header > \.dsh-model \{[^}]*text-overflow:\s*ellipsis/);
  });
});
