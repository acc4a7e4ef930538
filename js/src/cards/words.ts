export const OUTCOME_WORDS: Record<string, string> = {
  "allowed-once": "Allowed once",
  rejected: "Rejected",
  cancelled: "Cancelled",
  unavailable: "Unavailable (no approval channel)",
};

export const DECIDED_BY_WORDS: Record<string, string> = {
  you: "by you",
  "you-for-run": "by you, for the rest of this run",
  "you-edited": "by you, after editing the code",
  scope: "for this run",
  policy: "by the policy (no one could click)",
  timeout: "timed out",
  "connection-lost": "connection lost",
  runtime: "by the runtime",
  "cancelled-by-agent": "cancelled by the agent",
};

export const STATE_WORDS: Record<string, string> = {
  starting: "starting",
  queued: "queued",
  running: "running",
  waiting: "waiting for you",
  settled: "settled",
  error: "error",
  stopped: "stopped by you",
};

/** The state a person reads: "stopped" (by you) for a run that was stopped, else the state. */
export function runState(header: { state: string; stopped?: boolean }): string {
  return header.stopped ? "stopped" : header.state || "starting";
}

export function isOver(state: string): boolean {
  return state === "settled" || state === "error";
}
