// A run queued behind an earlier run of its session (issue 48 item 5): its header reads "queued"
// (not "running"), its note shows `%dsh pending` as code and offers "Show" for the cell of the run
// ahead with the page extension (the event asks the page to bring that cell's waiting card on
// screen); without the extension the note's words say where (In [k]) and there is no button.
import { afterEach, describe, expect, it } from "vitest";
import { FakeModel, mount, snap } from "./helpers";

const NOTE = {
  kind: "note", id: "n1", rev: 1, note: "client", count: 1, cell: "c1-full-cell-id",
  text: "queued behind the run of cell In [3] on session 'shared': this prompt is sent when it ends. If that run waits for your decision, its card is in that cell (`%dsh pending` lists it).",
};

describe("a queued run", () => {
  afterEach(() => {
    delete document.body.dataset.dshNotebookExtension;
    document.body.textContent = "";
  });

  it("reads queued, not running, and keeps its Stop", () => {
    const { el } = mount(new FakeModel(snap({ state: "queued" })));
    expect(el.querySelector(".dsh-state")!.textContent).toBe("queued");
    expect(el.querySelector<HTMLButtonElement>(".dsh-stop")!.hidden).toBe(false);
  });

  it("offers Show for the cell ahead with the extension: the event asks for its waiting card", () => {
    document.body.dataset.dshNotebookExtension = "0.1.0";
    const { el } = mount(new FakeModel(snap({ state: "queued", seq: 2, items: [NOTE as any] })));
    const note = el.querySelector(".dsh-note")!;
    expect(note.querySelector("code")!.textContent).toBe("%dsh pending");
    expect(note.textContent).not.toContain("`");
    expect(note.textContent).toContain("In [3]");
    const show = note.querySelector<HTMLButtonElement>("button.dsh-show-cell")!;
    expect(show.textContent).toBe("Show");
    const seen: unknown[] = [];
    document.addEventListener("dsh-show-cell", (e) => seen.push((e as CustomEvent).detail), { once: true });
    show.click();
    expect(seen).toEqual([{ cellId: "c1-full-cell-id", waiting: true }]);
  });

  it("says where in words without the extension (no button)", () => {
    const { el } = mount(new FakeModel(snap({ state: "queued", seq: 2, items: [NOTE as any] })));
    const note = el.querySelector(".dsh-note")!;
    expect(note.querySelector("button")).toBeNull();
    expect(note.textContent).toContain("In [3]");
  });
});
