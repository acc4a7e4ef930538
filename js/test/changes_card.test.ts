// A card that runs code says what the code will change, above the code: the kernel's lines
// (`changes`), as text, in a section a screen reader reads with what the card asks to read
// first (aria-describedby). A card without lines has no section.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel, approval, mount, snap } from "./helpers";

const CHANGES = [
  { kind: "rebinds", text: "Rebinds sales (now DataFrame: 1,200 rows x 4 columns)" },
  { kind: "files", text: "Files: writes <img src=x onerror=alert(1)>.csv" },
  { kind: "unknown", text: "Cannot tell: calls clean(df): may change df" },
];

function asks(extra: Record<string, any>) {
  return snap({
    seq: 3,
    state: "waiting",
    items: [approval("i2", "a1", extra)],
    pending: [{ kind: "approval", id: "i2", request_id: "a1", session_id: "s1" }],
  });
}

describe("a card says what the code will change", () => {
  beforeEach(() => {
    document.body.textContent = "";
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the Changes above the code, as text, described to a screen reader", () => {
    const code = "sales = clean(sales)\nsales.to_csv('r.csv')";
    const { el, flush } = mount(new FakeModel(asks({ tool_name: "mcp__notebook__run_python", reason: code, proposed: code, changes: CHANGES })));
    vi.advanceTimersByTime(600);
    flush();
    const card = el.querySelector<HTMLElement>(".dsh-approval")!;
    const section = card.querySelector<HTMLElement>("section.dsh-changes")!;
    expect(section.querySelector(".dsh-changes-title")!.textContent).toBe("Changes");
    expect([...section.querySelectorAll("li")].map((li) => li.textContent)).toEqual(CHANGES.map((c) => c.text));
    expect(section.querySelector("img")).toBeNull();
    const read = card.querySelector<HTMLElement>("[data-dsh-read]")!;
    expect(section.compareDocumentPosition(read) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(read.getAttribute("aria-describedby")!.split(" ")).toContain(section.id);
  });

  it("heads each cell's lines on a run_cells card, and shows no section without lines", () => {
    const lines = [{ kind: "cell", text: "cell 2 · id 00000001" }, { kind: "mutates", text: "Changes in place items (now list: 2 items) by .append()" }];
    const { el, flush } = mount(new FakeModel(asks({ tool_name: "mcp__notebook__run_cells", reason: "Run 1 cell(s) in the notebook, in this order (up to 60 s):\ncell 2 · id 00000001 · never ran\n+items.append(1)", changes: lines })));
    vi.advanceTimersByTime(600);
    flush();
    const section = el.querySelector<HTMLElement>("section.dsh-changes")!;
    expect(section.querySelector("li.dsh-change-cell strong")!.textContent).toBe("cell 2 · id 00000001");
    document.body.textContent = "";
    const other = mount(new FakeModel(asks({ tool_name: "bash", reason: "ls" })));
    vi.advanceTimersByTime(600);
    other.flush();
    expect(other.el.querySelector(".dsh-approval")).not.toBeNull();
    expect(other.el.querySelector("section.dsh-changes")).toBeNull();
  });
});
