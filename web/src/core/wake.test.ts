import { wakeUps } from ".";

/** A form that moves on once it is woken at or after each of its deadlines. */
function formWithDeadlines(deadlines: number[]) {
  const ticks: number[] = [];
  return {
    ticks,
    tick(now: number) {
      const due = deadlines[0];
      if (due === undefined || now < due) return false;
      deadlines.shift();
      ticks.push(now);
      return true;
    },
    state: () => ({ wakeAt: deadlines[0] ?? null }),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("wakeUps (lathe-core/wake)", () => {
  it("wakes the form at each deadline, even when every timer fires early", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    // A clock that reads 1.5 ms behind the timers: each wake-up looks early.
    const now = () => Date.now() - start - 1.5;
    const start = Date.now();
    const form = formWithDeadlines([2000, 7000]);
    const changes: number[] = [];
    const wake = wakeUps(form, () => changes.push(form.ticks.length), { now });
    wake.rearm();
    await vi.advanceTimersByTimeAsync(2010);
    expect(form.ticks).toHaveLength(1);
    expect(form.ticks[0]).toBeGreaterThanOrEqual(2000);
    expect(form.ticks[0]).toBeLessThan(2010);
    await vi.advanceTimersByTimeAsync(5000);
    expect(form.ticks).toHaveLength(2);
    expect(changes).toEqual([1, 2]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sleeps in steps of at most maxSleepMs, and stop() ends it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const start = Date.now();
    const form = formWithDeadlines([1000]);
    const wake = wakeUps(form, () => undefined, { now: () => Date.now() - start, maxSleepMs: 100 });
    wake.rearm();
    await vi.advanceTimersByTimeAsync(950);
    expect(vi.getTimerCount()).toBe(1);
    wake.stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(form.ticks).toEqual([]);
  });

  it("never touches a form stopped in its own callback", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const start = Date.now();
    const form = formWithDeadlines([10, 20]);
    const state = vi.spyOn(form, "state");
    const wake = wakeUps(
      form,
      () => {
        wake.stop();
      },
      { now: () => Date.now() - start },
    );
    wake.rearm();
    await vi.advanceTimersByTimeAsync(10);
    const calls = state.mock.calls.length;
    await vi.advanceTimersByTimeAsync(100);
    expect(state.mock.calls.length).toBe(calls);
    expect(form.ticks).toHaveLength(1);
  });
});
