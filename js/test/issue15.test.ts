// Issue 15: the session name, short, in the header; background jobs by name, not raw id.
import { beforeEach, describe, expect, it } from "vitest";
import { shortSession } from "../src/header";
import { FakeModel, mount, snap, tool } from "./helpers";

describe("the session name in the header", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("shows a chosen name whole, the full name on hover", () => {
    const { el } = mount(new FakeModel(snap({ header: { session_id: "sales-q3", title: "Revenue" } as any })));
    const session = el.querySelector<HTMLElement>(".dsh-header .dsh-session")!;
    expect(session.textContent).toBe("sales-q3");
    expect(session.title).toContain("session sales-q3");
    expect(el.querySelector<HTMLElement>(".dsh-title")!.textContent).toBe("Revenue");
  });

  it("shortens generated ids and long names, keeping what tells them apart", () => {
    expect(shortSession("nb-0123456789ab")).toBe("nb-0123…");
    expect(shortSession("nb-0123456789ab-a1b2c3")).toBe("nb-0123…-a1b2c3");
    const long = "a-very-long-session-name-for-the-quarterly-report";
    expect(shortSession(long)).toBe("a-very-long-se…y-report");
    const { el } = mount(new FakeModel(snap({ header: { session_id: "nb-0123456789ab-a1b2c3", title: null } as any })));
    const session = el.querySelector<HTMLElement>(".dsh-session")!;
    expect(session.textContent).toBe("nb-0123…-a1b2c3");
    expect(session.title).toContain("nb-0123456789ab-a1b2c3");
    expect(el.querySelector<HTMLElement>(".dsh-title")!.hidden).toBe(true); // no "session …" twice
  });

  it("keeps a hostile name as text", () => {
    const { el } = mount(new FakeModel(snap({ header: { session_id: "<img src=x onerror=alert(1)>" } as any })));
    expect(el.querySelector(".dsh-header img")).toBeNull();
  });
});

describe("background jobs", () => {
  it("name the job by its card, the raw id only on hover", () => {
    const job = { job_id: "bash-4f536804ba2a46ab", kind: "bash", status: "completed", detail: "exit code: 0" };
    const { el } = mount(new FakeModel(snap({ items: [tool("i1", { description: "Wait and say done", job, state: "done" })] })));
    const line = el.querySelector<HTMLElement>(".dsh-job")!;
    expect(line.textContent).toBe("Background job (bash): completed — exit code: 0");
    expect(line.title).toBe("job id bash-4f536804ba2a46ab");
    expect(el.querySelector(".dsh-tool-desc")!.textContent).toBe("Wait and say done");
  });
});

describe("tool results name jobs and subagents", () => {
  it("shows a job's description and a subagent's label instead of their ids", () => {
    const job = { job_id: "bash-4f536804ba2a46ab", kind: "bash", status: "running", detail: null };
    const child = "c4af6878-3138-4017-8be4-5c3249ea5cde";
    const subagent = {
      kind: "subagent", id: "i3", rev: 1, child_id: child, label: "child task", description: "child task",
      mode: null, prompt: "hi", state: "done", status: "ok", stop_reason: null, result: null, turns: 1,
      usage: null, items: [], items_omitted: 0,
    };
    const items = [
      tool("i1", { description: "Wait and say done", job, state: "done", result: "started background job bash-4f536804ba2a46ab" }),
      tool("i2", { name: "subagent", args: { description: "child task" }, summary: "child task", state: "done", result: `started subagent ${child}`, subagent }),
      tool("i4", { name: "job_output", args: { job_id: job.job_id }, summary: null, state: "done", result: "job bash-4f536804ba2a46abX other-bash-4f536804ba2a46ab" }),
    ];
    const { el } = mount(new FakeModel(snap({ items })));
    const results = [...el.querySelectorAll<HTMLElement>(".dsh-result")].map((r) => r.textContent);
    expect(results[0]).toContain("started background job “Wait and say done”");
    expect(results[1]).toContain("started subagent “child task”");
    expect(results[1]).not.toContain(child);
    expect(results[2]).toContain("bash-4f536804ba2a46abX other-bash-4f536804ba2a46ab"); // not inside a word
  });
});
