import { describe, expect, it, vi } from "vitest";
import widget from "../src/index";
import * as markdown from "../src/markdown";
import { RunView } from "../src/view";
import { warm } from "../src/warm";

describe("warm", () => {
  it("renders a sample run live and settled, off screen, and leaves the page as it was", () => {
    const before = document.body.innerHTML;
    const renders = vi.spyOn(RunView.prototype, "render");
    const destroys = vi.spyOn(RunView.prototype, "destroy");
    const updates = vi.spyOn(markdown.MarkdownView.prototype, "update");
    warm();
    expect(renders.mock.calls.length).toBeGreaterThanOrEqual(2); // live, then settled
    expect(updates.mock.calls.map((c) => c[1])).toEqual(expect.arrayContaining([true, false]));
    expect(destroys).toHaveBeenCalledTimes(1);
    expect(document.body.innerHTML).toBe(before);
    vi.restoreAllMocks();
  });

  it("is what the bundle offers the extension", () => {
    expect(widget.warm).toBe(warm);
  });
});
