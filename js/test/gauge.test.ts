// Issue 29 item 10: the header shows how full the session's context is, from what the runtime
// reported (header.context_use), with a warning and the way to a fresh conversation when high.
import { describe, expect, it } from "vitest";
import { gaugeWords } from "../src/gauge";
import { FakeModel, mount, snap } from "./helpers";

function withUse(seq: number, use: any) {
  const s = snap({ seq });
  (s.header as any).context_use = use;
  return s;
}

describe("the context gauge in the header", () => {
  it("is absent until the runtime reported the session's tokens", () => {
    const model = new FakeModel(withUse(1, null));
    const { el, flush } = mount(model);
    const gauge = el.querySelector<HTMLElement>(".dsh-header .dsh-gauge")!;
    expect(gauge).not.toBeNull();
    expect(gauge.hidden).toBe(true);
    model.sync(withUse(2, { tokens: null, window: 1_000_000, fraction: null })); // request/context only
    flush();
    expect(gauge.hidden).toBe(true);
    model.sync(withUse(3, { tokens: 120_000, window: 1_000_000, fraction: 0.12 }));
    flush();
    expect(gauge.hidden).toBe(false);
    expect(el.querySelector(".dsh-gauge-text")!.textContent).toBe("context 12% · 120k / 1M tokens");
    expect(gauge.getAttribute("role")).toBe("meter");
    expect(gauge.getAttribute("aria-valuenow")).toBe("120000");
    expect(gauge.getAttribute("aria-valuemax")).toBe("1000000");
    expect(gauge.title).toContain("120,000 tokens in the session's context");
    const bar = el.querySelector<HTMLElement>("meter.dsh-gauge-bar")!;
    expect([bar.getAttribute("value"), bar.getAttribute("max"), bar.getAttribute("low")]).toEqual(["120000", "1000000", "800000"]);
    expect(gauge.classList.contains("dsh-gauge-high")).toBe(false);
    expect(el.querySelector<HTMLElement>(".dsh-gauge-hint")!.hidden).toBe(true);
  });

  it("warns from 80% on and names the cell option that starts afresh", () => {
    const { el } = mount(new FakeModel(withUse(1, { tokens: 850_000, window: 1_000_000, fraction: 0.85 })));
    const gauge = el.querySelector<HTMLElement>(".dsh-gauge")!;
    expect(gauge.classList.contains("dsh-gauge-high")).toBe(true);
    const hint = el.querySelector<HTMLElement>(".dsh-gauge-hint")!;
    expect(hint.hidden).toBe(false);
    expect(hint.textContent).toContain("%%dsh --new");
    expect(gauge.title).toContain("start a fresh conversation with %%dsh --new");
    expect(el.querySelector(".dsh-gauge-text")!.textContent).toBe("context 85% · 850k / 1M tokens");
  });

  it("never guesses a window: tokens alone, no bar, no percentage, no meter", () => {
    const { el } = mount(new FakeModel(withUse(1, { tokens: 18, window: null, fraction: null })));
    const gauge = el.querySelector<HTMLElement>(".dsh-gauge")!;
    expect(gauge.hidden).toBe(false);
    expect(el.querySelector(".dsh-gauge-text")!.textContent).toBe("context 18 tokens");
    expect(el.querySelector(".dsh-gauge-text")!.textContent).not.toContain("%");
    expect(el.querySelector<HTMLElement>(".dsh-gauge-bar")!.hidden).toBe(true);
    expect(gauge.getAttribute("role")).toBeNull();
    expect(gauge.title).toContain("did not report the model's window");
  });

  it("shows a small use of a large window as <1%, and a snapshot without the field as nothing", () => {
    expect(gaugeWords({ tokens: 18, window: 1_000_000, fraction: 0.000018 })).toBe("context <1% · 18 / 1M tokens");
    expect(gaugeWords(undefined)).toBe("");
    const { el } = mount(new FakeModel(snap())); // an older kernel's snapshot: no context_use
    expect(el.querySelector<HTMLElement>(".dsh-gauge")!.hidden).toBe(true);
  });
});
