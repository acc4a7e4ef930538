// Issue 27 (the agent edits the person's cells: a card per change, with the diff) and issue 25
// (Reject with a note): the approval card of edit_cell / replace_cell / insert_cell /
// delete_cell / run_cells, and the note on every card.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel, approval, mount, snap, tool } from "./helpers";

const TARGET = "1a2b3c4d-0000-4000-8000-000000000007";

/** A unified diff as the kernel builds it (3 lines of context, two header lines naming the cell). */
function unifiedDiff(before: string[], after: string[], header = "cell 7 · id 1a2b3c4d · In [12]"): string {
  // one changed region is enough here: the common prefix and suffix are context
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  const from = Math.max(0, start - 3);
  const toB = Math.min(before.length, endB + 3);
  const toA = Math.min(after.length, endA + 3);
  const lines = [
    `--- ${header}`,
    `+++ ${header.replace(/ · In \[\d+\]$/, "")} · edited by dsh`,
    `@@ -${from + 1},${toB - from} +${from + 1},${toA - from} @@`,
    ...before.slice(from, start).map((l) => ` ${l}`),
    ...before.slice(start, endB).map((l) => `-${l}`),
    ...after.slice(start, endA).map((l) => `+${l}`),
    ...before.slice(endB, toB).map((l) => ` ${l}`),
  ];
  return lines.join("\n");
}

function cell(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `x${i} = ${i} * 2  # step ${i} of the cleaning`);
}

function asks(extra: Record<string, any>) {
  return snap({
    seq: 3,
    state: "waiting",
    items: [approval("i2", "a1", { tool_name: "edit_cell", target: TARGET, ...extra })],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}

function editAsks(before: string[], after: string[], extra: Record<string, any> = {}) {
  return asks({ reason: unifiedDiff(before, after), proposed: after.join("\n"), ...extra });
}

const sent = (model: FakeModel) => model.sent.filter((m) => m.type !== "resync");
const labels = (el: HTMLElement) =>
  [...el.querySelectorAll<HTMLButtonElement>(".dsh-approval .dsh-actions button")].map((b) => b.textContent);
const diffLines = (el: HTMLElement) =>
  [...el.querySelectorAll<HTMLElement>(".dsh-diff .dsh-diff-line")].map((s) => [s.className.replace("dsh-diff-line dsh-diff-", ""), s.textContent]);

function ready(model: FakeModel) {
  const mounted = mount(model);
  vi.advanceTimersByTime(600);
  mounted.flush();
  return mounted;
}

describe("cell edit cards", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("names the cell, shows its first line and the diff line by line", () => {
    const before = cell(10);
    const after = [...before];
    after[5] = "x5 = 5 * 3";
    const { el } = ready(new FakeModel(editAsks(before, after)));
    expect(el.querySelector(".dsh-cell-where")!.textContent).toBe("Edit cell 7 · id 1a2b3c4d · In [12]");
    // the hunk starts at line 3: the cell's first line comes from the proposed source
    expect(el.querySelector(".dsh-cell-first")!.textContent).toBe("x0 = 0 * 2  # step 0 of the cleaning");
    expect(diffLines(el)).toEqual([
      ["hunk", "@@ -3,7 +3,7 @@"],
      ["ctx", " x2 = 2 * 2  # step 2 of the cleaning"],
      ["ctx", " x3 = 3 * 2  # step 3 of the cleaning"],
      ["ctx", " x4 = 4 * 2  # step 4 of the cleaning"],
      ["del", "-x5 = 5 * 2  # step 5 of the cleaning"],
      ["add", "+x5 = 5 * 3"],
      ["ctx", " x6 = 6 * 2  # step 6 of the cleaning"],
      ["ctx", " x7 = 7 * 2  # step 7 of the cleaning"],
      ["ctx", " x8 = 8 * 2  # step 8 of the cleaning"],
    ]);
    expect(el.querySelector(".dsh-diff-more")).toBeNull();
    expect(labels(el)).toEqual(["Apply", "Apply edits for this run", "Edit, then apply", "Reject"]);
  });

  it("takes the first line from the diff when the change starts at line 1, and names an insert and a delete", () => {
    const { el } = ready(new FakeModel(editAsks(["import pandas as pd", "df = 1"], ["import polars as pl", "df = 1"], { tool_name: "mcp__notebook__replace_cell" })));
    expect(el.querySelector(".dsh-cell-where")!.textContent).toBe("Replace cell 7 · id 1a2b3c4d · In [12]");
    expect(el.querySelector(".dsh-cell-first")!.textContent).toBe("import pandas as pd");

    document.body.textContent = "";
    const insert = ["--- (new cell below cell 7 · id 1a2b3c4d)", "+++ new cell · edited by dsh", "@@ -0,0 +1,2 @@", "+# Notes", "+- the 2024 data"].join("\n");
    const inserted = ready(new FakeModel(asks({ tool_name: "insert_cell", reason: insert, proposed: "# Notes\n- the 2024 data" }))).el;
    expect(inserted.querySelector(".dsh-cell-where")!.textContent).toBe("Insert a new cell below cell 7 · id 1a2b3c4d");
    expect(inserted.querySelector(".dsh-cell-first")!.textContent).toBe("# Notes");
    expect(diffLines(inserted).map(([k]) => k)).toEqual(["hunk", "add", "add"]);

    document.body.textContent = "";
    const deleted = ready(new FakeModel(asks({ tool_name: "delete_cell", reason: unifiedDiff(["old = 1", "old"], []), proposed: null }))).el;
    expect(deleted.querySelector(".dsh-cell-where")!.textContent).toBe("Delete cell 7 · id 1a2b3c4d · In [12]");
    expect(deleted.querySelector(".dsh-cell-first")!.textContent).toBe("old = 1");
    // nothing to edit in a delete
    expect(labels(deleted)).toEqual(["Apply", "Apply edits for this run", "Reject"]);
  });

  it("folds a long diff after 40 lines, with show all N lines", () => {
    const before = cell(60);
    const { el, flush } = ready(new FakeModel(asks({ tool_name: "delete_cell", reason: unifiedDiff(before, []) })));
    expect(el.querySelectorAll(".dsh-diff-line").length).toBe(40);
    const more = el.querySelector<HTMLButtonElement>(".dsh-diff-more")!;
    expect(more.textContent).toBe("show all 61 lines"); // @@ + 60 removed lines
    more.click();
    flush();
    expect(el.querySelectorAll(".dsh-diff-line").length).toBe(61);
    expect(el.querySelector(".dsh-diff-more")!.textContent).toBe("show fewer lines");
  });

  it("Show in notebook dispatches dsh-show-cell with the target, bubbling out of the widget", () => {
    const { el } = ready(new FakeModel(editAsks(["a = 1"], ["a = 2"])));
    const seen: CustomEvent[] = [];
    const listener = (e: Event) => seen.push(e as CustomEvent);
    document.addEventListener("dsh-show-cell", listener);
    try {
      el.querySelector<HTMLButtonElement>(".dsh-show-cell")!.click();
    } finally {
      document.removeEventListener("dsh-show-cell", listener);
    }
    expect(seen).toHaveLength(1);
    expect(seen[0].detail).toEqual({ cellId: TARGET });
    expect(seen[0].bubbles && seen[0].composed).toBe(true);
    expect(el.querySelector(".dsh-approval")!.contains(seen[0].target as Node)).toBe(true);
  });

  it("Edit, then apply fills the editor with the proposed source and sends the edited whole source", () => {
    const before = ["df = load()", "df.plot()"];
    const after = ["df = load()", "df.plot(logy=True)"];
    const model = new FakeModel(editAsks(before, after));
    const { el, flush } = ready(model);
    el.querySelector<HTMLButtonElement>(".dsh-edit")!.click();
    flush();
    const editor = el.querySelector<HTMLTextAreaElement>("textarea.dsh-edit-code")!;
    expect(editor.value).toBe("df = load()\ndf.plot(logy=True)");
    expect(el.querySelector(".dsh-diff")).not.toBeNull(); // what the agent proposed stays visible
    expect(labels(el)).toEqual(["Apply edited source", "Cancel edit", "Reject"]);
    editor.value = "df = load()\ndf.plot(logy=True, grid=True)";
    el.querySelector<HTMLButtonElement>(".dsh-run-edited")!.click();
    el.querySelector<HTMLButtonElement>(".dsh-run-edited")?.click();
    flush();
    expect(sent(model)).toEqual([
      { type: "approval", request_id: "a1", decision: "allowed-once", code: "df = load()\ndf.plot(logy=True, grid=True)" },
    ]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Apply edited source — sent…");
  });

  it("shows the diff when the card is nested in its tool call's card", () => {
    const card = approval("i2", "a1", { tool_name: "edit_cell", reason: unifiedDiff(["a = 1"], ["a = 2"]), proposed: "a = 2", target: TARGET, call_id: "call-i1" });
    const model = new FakeModel(snap({
      seq: 3,
      state: "waiting",
      items: [tool("i1", { name: "mcp__notebook__edit_cell", arguments: '{"cell_id":"1a2b3c4d","old_text":"a = 1","new_text":"a = 2"}', args: { cell_id: "1a2b3c4d", old_text: "a = 1", new_text: "a = 2" }, summary: null, state: "pending", approval: card })],
      pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
    }));
    const { el } = ready(model);
    expect(diffLines(el).map(([k]) => k)).toEqual(["hunk", "del", "add"]);
    expect(labels(el)).toEqual(["Apply", "Apply edits for this run", "Edit, then apply", "Reject"]);
  });

  it("a card applied after the person's edit shows the source they applied", () => {
    const model = new FakeModel(snap({ seq: 5, items: [approval("i2", "a1", { tool_name: "edit_cell", reason: unifiedDiff(["a = 1"], ["a = 2"]), proposed: "a = 5", target: TARGET, state: "decided", outcome: "allowed-once", decided_by: "you-edited" })] }));
    const { el } = ready(model);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Allowed once — by you, after editing the code");
    expect(el.querySelector(".dsh-approval .dsh-pre")!.textContent).toBe("a = 5");
    expect(diffLines(el).map(([k]) => k)).toEqual(["hunk", "del", "add"]);
  });

  it("offers no editor when the proposed source is not there (too long to carry whole)", () => {
    const { el } = ready(new FakeModel(editAsks(["a = 1"], ["a = 2"], { proposed: null })));
    expect(labels(el)).toEqual(["Apply", "Apply edits for this run", "Reject"]);
  });

  it("Apply edits for this run sends the run scope", () => {
    const model = new FakeModel(editAsks(["a = 1"], ["a = 2"]));
    const { el, flush } = ready(model);
    el.querySelector<HTMLButtonElement>(".dsh-allow-run")!.click();
    flush();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once", scope: "run" }]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Apply edits for this run — sent…");
  });

  it("lists run_cells' cells with Run / Run cells for this run / Reject", () => {
    const reason = "cell 4 · id 1a2b3c4d · In [3] · df = load('2024.csv')\ncell 5 · id 9f8e7d6c · In [4] · df.describe()";
    const model = new FakeModel(asks({ tool_name: "mcp__notebook__run_cells", reason, target: null }));
    const { el, flush } = ready(model);
    expect([...el.querySelectorAll(".dsh-cell-list li")].map((li) => li.textContent)).toEqual(reason.split("\n"));
    expect(el.querySelector(".dsh-diff")).toBeNull();
    expect(labels(el)).toEqual(["Run", "Run cells for this run", "Reject"]);
    el.querySelector<HTMLButtonElement>(".dsh-allow")!.click();
    flush();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "allowed-once" }]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Run — sent…");
  });

  it("keeps a diff holding HTML as text", () => {
    const hostile = ["x = 1"];
    const after = ["x = '<img src=x onerror=alert(1)>'", "</pre><script>alert(2)</script>"];
    const { el } = ready(new FakeModel(editAsks(hostile, after, { reason: unifiedDiff(hostile, after, "cell 1 · id <b>bold</b> · In [1]") })));
    const card = el.querySelector(".dsh-approval")!;
    expect(card.querySelector("img, script, b")).toBeNull();
    expect(card.querySelector(".dsh-diff")!.textContent).toContain("+x = '<img src=x onerror=alert(1)>'");
    expect(card.querySelector(".dsh-cell-where")!.textContent).toBe("Edit cell 1 · id <b>bold</b> · In [1]");
    expect(card.querySelector(".dsh-cell-first")!.textContent).toBe("x = 1");
  });

  it("measures the card of a one-line change in a 200-line cell", () => {
    const before = cell(200);
    const after = [...before];
    after[100] = "x100 = 100 * 3  # step 100 of the cleaning";
    const { el } = ready(new FakeModel(editAsks(before, after)));
    const card = el.querySelector(".dsh-approval")!;
    const nodes = card.querySelectorAll("*").length;
    const text = card.textContent!.length;
    console.log(`diff card, 200-line cell, one-line change: ${nodes} elements, ${text} characters of text`);
    expect(card.querySelectorAll(".dsh-diff-line").length).toBe(9); // @@, 3 + 3 context, − and +
    expect(nodes).toBeLessThan(40);
    expect(text).toBeLessThan(1_000);
  });
});

describe("Reject with a note (every approval card)", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const bashAsks = (extra: Record<string, any> = {}) =>
    snap({
      seq: 3,
      state: "waiting",
      items: [approval("i2", "a1", extra)],
      pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
    });

  it("is inert for half a second, like the other buttons", () => {
    const model = new FakeModel(bashAsks());
    const { el } = mount(model);
    const open = el.querySelector<HTMLButtonElement>(".dsh-reject-note-open")!;
    expect(open.disabled).toBe(true);
    open.click();
    expect(el.querySelector(".dsh-reject-note-field")).toBeNull();
  });

  it("opens a one-line field; Enter sends the note once, and the card shows it", () => {
    const model = new FakeModel(bashAsks());
    const { el, flush } = ready(model);
    el.querySelector<HTMLButtonElement>(".dsh-reject-note-open")!.click();
    flush();
    const field = el.querySelector<HTMLInputElement>("input.dsh-reject-note-field")!;
    expect(field.maxLength).toBe(500);
    field.value = "  use the 2024 data <img src=x onerror=alert(1)>  ";
    // a re-render (a new snapshot of the same card) keeps what was typed
    model.sync({ ...bashAsks({ rev: 2 }), seq: 4 });
    flush();
    expect(el.querySelector<HTMLInputElement>("input.dsh-reject-note-field")!.value).toBe(field.value);
    field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    flush();
    const note = "use the 2024 data <img src=x onerror=alert(1)>";
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "rejected", note }]);
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Reject with a note — sent…");
    expect(el.querySelector(".dsh-reject-note-shown")!.textContent).toBe(`Your note: ${note}`);
    expect(el.querySelector(".dsh-approval img")).toBeNull();
    // the kernel's record carries the note: the decided card shows it
    model.sync(snap({ seq: 5, state: "running", items: [approval("i2", "a1", { rev: 3, state: "decided", outcome: "rejected", decided_by: "you", note })] }));
    flush();
    expect(el.querySelector(".dsh-approval .dsh-outcome")!.textContent).toBe("Rejected — by you");
    expect(el.querySelector(".dsh-reject-note-shown")!.textContent).toBe(`Your note: ${note}`);
  });

  it("the Reject button next to the field sends; an empty note is a plain Reject; Cancel closes it", () => {
    const model = new FakeModel(asksEdit());
    const { el, flush } = ready(model);
    el.querySelector<HTMLButtonElement>(".dsh-reject-note-open")!.click();
    flush();
    el.querySelector<HTMLButtonElement>(".dsh-reject-note-cancel")!.click();
    flush();
    expect(el.querySelector(".dsh-reject-note-field")).toBeNull();
    el.querySelector<HTMLButtonElement>(".dsh-reject-note-open")!.click();
    flush();
    el.querySelector<HTMLInputElement>(".dsh-reject-note-field")!.value = "   ";
    el.querySelector<HTMLButtonElement>(".dsh-reject-note-send")!.click();
    flush();
    expect(sent(model)).toEqual([{ type: "approval", request_id: "a1", decision: "rejected" }]);
    expect(el.querySelector(".dsh-reject-note-shown")).toBeNull();
  });

  it("shows the note of a card decided elsewhere (a reload, another view)", () => {
    const model = new FakeModel(snap({ seq: 5, items: [approval("i2", "a1", { state: "decided", outcome: "rejected", decided_by: "you", note: "not on prod" })] }));
    const { el } = ready(model);
    expect(el.querySelector(".dsh-reject-note-shown")!.textContent).toBe("Your note: not on prod");
  });
});

function asksEdit() {
  return snap({
    seq: 3,
    state: "waiting",
    items: [approval("i2", "a1", { tool_name: "edit_cell", reason: unifiedDiff(["a = 1"], ["a = 2"]), proposed: "a = 2", target: TARGET })],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}
