// The final render of a run that just ended waits a moment: the kernel is about to replace the
// widget with the static transcript, which destroys the view, and that render would be wasted.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunView } from "../src/view";
import { FakeModel, snap } from "./helpers";

describe("settle delay", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function mountDelayed(model: FakeModel): { view: RunView; flush: () => void } {
    const el = document.createElement("div");
    document.body.appendChild(el);
    const queue: (() => void)[] = [];
    const view = new RunView(model, el, { frame: (fn) => queue.push(fn), settleDelay: 400 });
    return { view, flush: () => { while (queue.length) queue.shift()!(); } };
  }

  it("renders the ended run only after the delay", () => {
    const model = new FakeModel(snap({ seq: 1, state: "running" }));
    const { view, flush } = mountDelayed(model);
    expect(view.el.classList.contains("dsh-live")).toBe(true);
    model.sync(snap({ seq: 2, state: "settled" }));
    flush();
    expect(view.el.classList.contains("dsh-live")).toBe(true); // not yet
    vi.advanceTimersByTime(400);
    expect(view.el.classList.contains("dsh-live")).toBe(false);
    view.destroy();
  });

  it("skips it when the view was destroyed meanwhile (the static transcript replaced it)", () => {
    const model = new FakeModel(snap({ seq: 1, state: "running" }));
    const { view, flush } = mountDelayed(model);
    const renders = view.renders;
    model.sync(snap({ seq: 2, state: "settled" }));
    flush();
    view.destroy();
    vi.advanceTimersByTime(1000);
    expect(view.renders).toBe(renders);
  });

  it("renders live updates on the next frame as before", () => {
    const model = new FakeModel(snap({ seq: 1, state: "running" }));
    const { view, flush } = mountDelayed(model);
    const renders = view.renders;
    model.sync(snap({ seq: 2, state: "running" }));
    flush();
    expect(view.renders).toBe(renders + 1);
    view.destroy();
  });
});
