// Issue 29: what approved code drew shows in the card of its call; runtime tool cards read in words.
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import { describeTool, languageOf } from "../src/cards/runtime_tools";
import { FakeModel, mount, snap, tool } from "./helpers";

/** The real runtime's write/edit/read/glob/grep calls (tests/captures/runtime_tools.jsonl), as
 * tool items: the arguments parsed, the result's text joined, keyed by tool name. */
function captured(): Record<string, any> {
  const path = "../tests/captures/runtime_tools.jsonl"; // vitest runs in js/
  const items: Record<string, any> = {};
  const byCall: Record<string, any> = {};
  readFileSync(path, "utf8").split("\n").filter(Boolean).forEach((line, i) => {
    const { type, data } = JSON.parse(line);
    if (type === "tool/call") {
      const item = tool(`i${i}`, { name: data.name, call_id: data.callId, arguments: data.arguments, args: JSON.parse(data.arguments), summary: null, state: "running" });
      items[data.name] = byCall[data.callId] = item;
    } else {
      const item = byCall[data.message.toolCallId];
      item.result = data.message.content.map((b: any) => b.text ?? "").join("\n");
      item.state = "done";
      item.is_error = data.message.isError;
    }
  });
  return items;
}

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

describe("runtime file tools, from the real runtime's calls", () => {
  const calls = captured();
  const card = (name: string) => mount(new FakeModel(snap({ items: [calls[name]] }))).el;

  it("write: the path, the file highlighted as Python, the result in words", () => {
    const el = card("write");
    expect(el.querySelector(".dsh-tool-desc")!.textContent).toBe("write report.py");
    const code = el.querySelector("code.language-python")!;
    expect(code.textContent).toContain('"""Total amount per product in orders.csv."""\n\nimport csv\n');
    expect(code.querySelector(".hljs-keyword")).not.toBeNull();
    expect(el.querySelector(".dsh-outcome")!.textContent).toBe("Result: created report.py, 12 lines");
    expect(el.textContent).not.toContain("<path>");
    expect(el.textContent).not.toContain('\\"\\"\\"');
  });

  it("edit: a diff", () => {
    const el = card("edit");
    expect(el.querySelector("code.language-diff")!.textContent).toBe(
      "-    print(f'{label}: {total:,.0f}')\n+    print(f'{label:>10}: {total:,.2f}')");
    expect(el.querySelector(".dsh-outcome")!.textContent).toBe("Result: edited report.py: 1 line replaced by 1 line");
  });

  it("read: the path and the range, the lines it read", () => {
    const el = card("read");
    expect(el.querySelector(".dsh-tool-desc")!.textContent).toBe("read report.py, lines 3 to 8");
    expect(el.querySelector(".dsh-outcome")!.textContent).toBe("Result: read report.py: 6 lines");
    expect(el.querySelector(".dsh-result")!.textContent).toContain("6: totals = defaultdict(float)");
  });

  it("glob and grep: the pattern and the matches", () => {
    expect(card("glob").querySelector(".dsh-outcome")!.textContent).toBe("Result: 1 file found");
    const el = card("grep");
    expect(el.querySelector(".dsh-tool-desc")!.textContent).toBe("grep “totals” in *.py");
    expect(el.querySelector(".dsh-outcome")!.textContent).toBe("Result: 3 matches");
    expect(el.querySelector(".dsh-result")!.textContent).toContain("Line 6: totals = defaultdict(float)");
  });

  it("agrees with the transcript's Python description of each tool", () => {
    expect(Object.keys(calls).sort()).toEqual(["edit", "glob", "grep", "read", "write"]);
    expect(describeTool(calls.write)!.outcome).toBe("created report.py, 12 lines");
    expect(languageOf("a/B.TS")).toBe("typescript");
  });

  it("keeps the generic card for other tools, odd arguments and failures", () => {
    expect(describeTool({ ...calls.write, name: "web_fetch" })).toBeNull();
    expect(describeTool({ ...calls.write, name: "constructor" })).toBeNull();
    expect(describeTool({ ...calls.write, args: { file_path: 3 } })).toBeNull();
    expect(describeTool({ ...calls.write, is_error: true })).toBeNull();
  });
});
