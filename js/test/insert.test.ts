import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FALLBACK_NOTICE, INSERT_CELL_EVENT, cellSource, insertable, resetNotice } from "../src/insert";
import { MarkdownView } from "../src/markdown";
import { RunView } from "../src/view";
import { FakeModel, mount, snap, text } from "./helpers";

const ANSWER = "Try this:\n\n```python\nimport pandas as pd\ndf = pd.DataFrame({'a': [1]})\n```\n\nOr in bash:\n\n```bash\nls -l\n```\n\nAnd:\n\n```\nplain\n```\n";
const CODE = "import pandas as pd\ndf = pd.DataFrame({'a': [1]})";

function settled(body: string) {
  return snap({ seq: 2, state: "settled", items: [text("t1", body)] });
}

describe("Insert below", () => {
  beforeEach(() => {
    document.body.textContent = "";
    delete document.body.dataset.dshNotebookExtension;
    resetNotice();
  });
  afterEach(() => {
    delete document.body.dataset.dshNotebookExtension;
  });

  it("knows Python by its usual fence names only", () => {
    for (const lang of ["python", "py", "Python3", "ipython", "ipython3"]) expect(insertable(lang)).toBe(true);
    for (const lang of ["", "bash", "text", "json", "pycon", "sql"]) expect(insertable(lang)).toBe(false);
    expect(cellSource("x = 1\n")).toBe("x = 1");
    expect(cellSource("x = 1\n\n")).toBe("x = 1\n");
  });

  it("with the extension: Python blocks get it, and a click dispatches a bubbling event with exactly the code", () => {
    document.body.dataset.dshNotebookExtension = "0.1.0";
    const { el, flush } = mount(new FakeModel(settled(ANSWER)));
    flush();
    const blocks = [...el.querySelectorAll(".dsh-text .dsh-code")];
    expect(blocks).toHaveLength(3);
    expect(blocks.map((b) => b.querySelector(".dsh-insert") !== null)).toEqual([true, false, false]);
    expect(el.querySelectorAll(".dsh-copy")).toHaveLength(3); // Copy stays on every block
    const seen: unknown[] = [];
    document.body.addEventListener(INSERT_CELL_EVENT, (event) => seen.push((event as CustomEvent).detail));
    el.querySelector<HTMLButtonElement>(".dsh-insert")!.click();
    expect(seen).toEqual([{ version: 1, code: CODE }]);
    expect(el.querySelector(".dsh-insert-notice")!.hasAttribute("hidden")).toBe(true);
  });

  it("without the extension: Copy only, and one notice on the page, however many views", () => {
    const first = mount(new FakeModel(settled(ANSWER)));
    const second = mount(new FakeModel(settled(ANSWER)));
    first.flush();
    second.flush();
    const root = document.body;
    expect(root.querySelectorAll(".dsh-insert")).toHaveLength(0);
    expect(root.querySelectorAll(".dsh-copy")).toHaveLength(6);
    const shown = [...root.querySelectorAll<HTMLElement>(".dsh-insert-notice")].filter((n) => !n.hidden);
    expect(shown.map((n) => n.textContent)).toEqual([FALLBACK_NOTICE]);
    expect(first.el.contains(shown[0])).toBe(true);
  });

  it("one notice even when each widget has its own copy of the bundle (anywidget loads one per model)", async () => {
    const first = await import("../src/insert");
    vi.resetModules();
    const second = await import("../src/insert");
    expect(second).not.toBe(first);
    const root = document.createElement("div");
    root.appendChild(document.createElement("div")).setAttribute(first.WANTS_INSERT, "");
    const a = new first.FallbackNotice();
    const b = new second.FallbackNotice();
    a.update(root);
    b.update(root);
    expect([a.el.hidden, b.el.hidden]).toEqual([false, true]);
    a.destroy(); // its view went away: the next one may say it
    b.update(root);
    expect(b.el.hidden).toBe(false);
  });

  function shownIn(): HTMLElement[] {
    return [...document.querySelectorAll<HTMLElement>(".dsh-insert-notice")].filter((n) => !n.hidden);
  }

  it("the notice goes to the first widget in the notebook's order, not to the first run that answered", () => {
    const earlier = document.body.appendChild(document.createElement("div"));
    const later = document.body.appendChild(document.createElement("div"));
    const third = mount(new FakeModel(settled(ANSWER)), later);
    third.flush();
    expect(shownIn().map((n) => third.el.contains(n))).toEqual([true]);
    const first = mount(new FakeModel(settled(ANSWER)), earlier);
    document.body.insertBefore(earlier, later); // mount appends: put the first cell's host back first
    first.flush();
    first.view.render();
    const shown = shownIn();
    expect(shown).toHaveLength(1);
    expect(first.el.contains(shown[0])).toBe(true);
    expect(shown[0].textContent).toBe(FALLBACK_NOTICE);
  });

  it("a view re-created for the first widget takes the notice back from a later one", () => {
    const hosts = [0, 1].map(() => document.body.appendChild(document.createElement("div")));
    const first = mount(new FakeModel(settled(ANSWER)), hosts[0]);
    const second = mount(new FakeModel(settled(ANSWER)), hosts[1]);
    first.flush();
    second.flush();
    first.view.destroy(); // the kernel replaced the first widget's output: its view is gone
    second.view.render();
    expect(shownIn().map((n) => second.el.contains(n))).toEqual([true]);
    const again = mount(new FakeModel(settled(ANSWER)), hosts[0]);
    document.body.insertBefore(hosts[0], hosts[1]);
    again.flush();
    again.view.render();
    expect(shownIn().map((n) => again.el.contains(n))).toEqual([true]);
  });

  it("a view rendered before its output is attached gets the notice once it is, without another render", () => {
    vi.useFakeTimers();
    try {
      const later = mount(new FakeModel(settled(ANSWER)));
      later.flush();
      const host = document.createElement("div"); // not in the document yet
      const queue: (() => void)[] = [];
      const early = new RunView(new FakeModel(settled(ANSWER)), host, { frame: (fn) => queue.push(fn) });
      while (queue.length) queue.shift()!();
      expect(shownIn().map((n) => later.el.contains(n))).toEqual([true]);
      document.body.insertBefore(host, later.el);
      vi.advanceTimersByTime(300);
      const shown = shownIn();
      expect(shown).toHaveLength(1);
      expect(early.el.contains(shown[0])).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("no notice for an answer without Python blocks", () => {
    const { el, flush } = mount(new FakeModel(settled("```bash\nls\n```\n")));
    flush();
    expect(el.querySelector<HTMLElement>(".dsh-insert-notice")!.hidden).toBe(true);
  });

  it("a block still being written has neither Copy nor Insert below", () => {
    document.body.dataset.dshNotebookExtension = "0.1.0";
    const view = new MarkdownView();
    view.update("```python\nimport pan", true);
    expect(view.el.querySelector(".dsh-insert")).toBeNull();
    view.update("```python\nimport pandas\n```\n", true);
    expect(view.el.querySelectorAll(".dsh-insert")).toHaveLength(1);
  });
});
