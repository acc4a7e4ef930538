import { beforeEach, describe, expect, it, vi } from "vitest";
import widget from "../src/index";
import * as markdown from "../src/markdown";
import { RunView } from "../src/view";
import { resetWarm, warm } from "../src/warm";

describe("warm", () => {
  beforeEach(() => resetWarm());

  it("renders a sample run live and settled, off screen, in steps, and leaves the page as it was", () => {
    const before = document.body.innerHTML;
    const renders = vi.spyOn(RunView.prototype, "render");
    const destroys = vi.spyOn(RunView.prototype, "destroy");
    const updates = vi.spyOn(markdown.MarkdownView.prototype, "update");
    const parses = vi.spyOn(markdown.md, "parse");
    let steps = 1;
    expect(warm()).toBe(true); // the first step: the parser only
    expect(parses).toHaveBeenCalledTimes(1);
    expect(renders).not.toHaveBeenCalled();
    while (warm()) steps += 1;
    steps += 1; // the call that answered false ran the last step
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(renders.mock.calls.length).toBeGreaterThanOrEqual(2); // live, then settled
    // one view, live then settled: its paragraph goes through the final render of a live one
    expect(updates.mock.instances.every((v) => v === updates.mock.instances[0])).toBe(true);
    expect(updates.mock.calls.map((c) => c[1]).slice(0, 2)).toEqual([true, false]);
    expect(destroys).toHaveBeenCalledTimes(1); // the sample run, once it has ended
    expect(document.body.innerHTML).toBe(before);
    vi.restoreAllMocks();
  });

  it("does nothing more once every step has run", () => {
    while (warm());
    const renders = vi.spyOn(RunView.prototype, "render");
    expect(warm()).toBe(false);
    expect(renders).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it("never throws out of a step", () => {
    vi.spyOn(markdown.md, "parse").mockImplementation(() => {
      throw new Error("boom");
    });
    expect(() => warm()).not.toThrow();
    vi.restoreAllMocks();
  });

  it("is what the bundle offers the extension", () => {
    expect(widget.warm).toBe(warm);
  });
});
