// The live view says the cell tools in words, as the static transcript does
// (transcript/cell_lines.py): one line per call, the diff on its card, no JSON arguments, no
// result written for the model; run_python's note for the model is not shown.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel, approval, mount, snap, tool } from "./helpers";

const DIFF = [
  "--- cell 3 · id 00000003 · not run",
  "+++ cell 3 · id 00000003 · not run · edited by dsh",
  "@@ -1,2 +1,2 @@",
  "-y = x * 10",
  "+y = x * 20",
  " print(y)",
].join("\n");
const RUN = [
  "Run 2 cell(s) in the notebook, in this order (up to 60 s):",
  "cell 3 · id 00000003 · not run · every line is new",
  "+y = x * 20",
  "cell 4 · id 00000004 · not run · every line is new",
  "+print(y)",
].join("\n");

function allowed(id: string, toolName: string, reason: string): any {
  return approval(`${id}a`, `r${id}`, {
    tool_name: toolName, reason, state: "decided", outcome: "allowed-once", decided_by: "you",
  });
}

function edited(): any {
  return tool("t1", {
    name: "mcp__notebook__edit_cell", state: "done",
    args: { cell_id: "00000003", old_text: "y = x * 10", new_text: "y = x * 20" },
    arguments: '{"cell_id": "00000003", "old_text": "y = x * 10", "new_text": "y = x * 20"}',
    result: "Applied: Edited cell 3 · id 00000003 (approved; the page confirmed it; not run).",
    is_error: false, approval: allowed("1", "edit_cell", DIFF),
  });
}

function ran(): any {
  return tool("t2", {
    name: "mcp__notebook__run_cells", state: "done", args: { cell_ids: ["00000003", "00000004"] },
    arguments: '{"cell_ids": ["00000003", "00000004"]}',
    result: "Ran 2 cell(s) in the notebook (ok, ok).\n\n## cell 3 · id 00000003 · In [5] · ok\n\n## cell 4 · id 00000004 · In [6] · ok\nstdout: 200",
    is_error: false, approval: allowed("2", "run_cells", RUN),
  });
}

function python(): any {
  return tool("t3", {
    name: "mcp__notebook__run_python", state: "done", args: { code: "z = 41 + 1\nprint(z)" },
    arguments: '{"code": "z = 41 + 1\\nprint(z)"}',
    result: "This code is now a cell of the notebook: agent cell 1 of this run, below the user's %%dsh prompt cell, with its output. Do not repeat the code in your answer.\n\nstdout:\n42",
    is_error: false,
  });
}

describe("cell tools in words", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("reads each cell tool as one line, without its JSON or the result written for the model", () => {
    const { el } = mount(new FakeModel(snap({ seq: 2, state: "settled", items: [edited(), ran()] })));
    const lines = [...el.querySelectorAll(".dsh-cell-line")].map((s) => s.textContent);
    expect(lines).toEqual(["Edited cell 3 (y = x * 20) — applied by you", "Ran cells 3\u20134: 200 — allowed by you"]);
    const text = el.textContent ?? "";
    expect(text).not.toContain("Applied:");
    expect(text).not.toContain("approved; the page confirmed it");
    expect(el.querySelector(".dsh-args-toggle")).toBeNull(); // no JSON arguments
    expect(text).not.toContain('"old_text"');
    expect(text).toContain("+y = x * 20"); // the diff, on its card
    expect(text).toContain("## cell 4 · id 00000004 · In [6] · ok"); // what ran printed
  });

  it("shows a ran cell's value only when it fits on one line (a Series prints its header first)", () => {
    const head = "Ran 1 cell(s) in the notebook (ok).\n\n## cell 4 · id 00000004 · In [8] · ok\n";
    const line = (result: string): string | null | undefined => {
      const item = ran();
      item.result = result;
      document.body.textContent = "";
      const { el } = mount(new FakeModel(snap({ seq: 2, state: "settled", items: [item] })));
      return el.querySelector(".dsh-cell-line")?.textContent;
    };
    expect(line(head + "out: station\nDocks     10.0\nName: minutes")).toBe("Ran cells 3\u20134 — allowed by you");
    expect(line(head + "out: 10.5")).toBe("Ran cells 3\u20134: 10.5 — allowed by you");
    expect(line(head + "stream: x\nout: 42\n")).toBe("Ran cells 3\u20134: 42 — allowed by you");
    expect(line(head + "error: KeyError: 'staton'")).toBe("Ran cells 3\u20134: KeyError: 'staton' — allowed by you");
  });

  it("shows what run_python ran and printed, not the note for the model", () => {
    const { el } = mount(new FakeModel(snap({ seq: 2, state: "settled", items: [python()] })));
    const text = el.textContent ?? "";
    expect(text).not.toContain("Do not repeat the code");
    expect(text).not.toContain("This code is now a cell");
    expect(text).toContain("kept as agent cell 1, below the prompt");
    expect(text).toContain("42");
  });

  it("says a card nobody can decide any more is not decided", () => {
    const waiting = edited();
    waiting.state = "running";
    waiting.result = null;
    waiting.approval = approval("1a", "r1", { tool_name: "edit_cell", reason: DIFF, state: "pending" });
    const { el } = mount(new FakeModel(snap({ seq: 2, state: "settled", items: [waiting] })));
    expect(el.querySelector(".dsh-cell-line")!.textContent).toBe(
      "Edit cell 3 (y = x * 20) — not decided — the run was interrupted",
    );
    expect(el.textContent).not.toContain("waiting for you");
  });
});

describe("notes", () => {
  it("show a `command` as code, not with its backquotes (issue 48 item 5)", () => {
    document.body.textContent = "";
    const note = { kind: "note", id: "n1", rev: 1, note: "queued", text: "queued: `%dsh pending` lists it", count: 1 };
    const { el } = mount(new FakeModel(snap({ seq: 2, items: [note as any] })));
    const shown = el.querySelector(".dsh-note")!;
    expect(shown.querySelector("code")!.textContent).toBe("%dsh pending");
    expect(shown.textContent).toBe("queued: %dsh pending lists it");
  });
});
