// Issue 29: what approved code drew shows in the card of its call; runtime tool cards read in words.
import { beforeEach, describe, expect, it } from "vitest";
import { FakeModel, mount, snap, tool } from "./helpers";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("figures of an approved run_python call", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("show as images under the call, in order", () => {
    const item = tool("i1", { name: "mcp__notebook__run_python", state: "done", result: "1 figure(s) attached as PNG.", figures: [PNG, PNG] });
    const { el } = mount(new FakeModel(snap({ items: [item] })));
    const images = [...el.querySelectorAll<HTMLImageElement>(".dsh-tool .dsh-figures img.dsh-figure")];
    expect(images.map((img) => img.getAttribute("src"))).toEqual([`data:image/png;base64,${PNG}`, `data:image/png;base64,${PNG}`]);
    expect(images[1].alt).toBe("Figure 2 shown by the code");
  });

  it("never turn anything but base64 into an image source", () => {
    const item = tool("i1", { state: "done", figures: ['x" onerror="alert(1)', "javascript:alert(1)"] });
    const { el } = mount(new FakeModel(snap({ items: [item] })));
    expect(el.querySelector("img")).toBeNull();
  });
});

describe("tool names in words", () => {
  it("reads an MCP tool as its name and server, the wire name on hover", () => {
    const { el } = mount(new FakeModel(snap({ items: [tool("i1", { name: "mcp__notebook__run_python", state: "done" })] })));
    const name = el.querySelector<HTMLElement>(".dsh-tool-name")!;
    expect(name.textContent).toBe("run_python (notebook)");
    expect(name.title).toBe("mcp__notebook__run_python");
  });

  it("keeps a runtime tool's name as it is", () => {
    const { el } = mount(new FakeModel(snap({ items: [tool("i1", { name: "bash" })] })));
    expect(el.querySelector(".dsh-tool-name")!.textContent).toBe("bash");
  });
});
