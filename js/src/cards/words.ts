export const OUTCOME_WORDS: Record<string, string> = {
  "allowed-once": "Allowed once",
  rejected: "Rejected",
  cancelled: "Cancelled",
  unavailable: "Unavailable (no approval channel)",
};

export const DECIDED_BY_WORDS: Record<string, string> = {
  you: "by you",
  policy: "by the policy (no one could click)",
  timeout: "timed out",
  "connection-lost": "connection lost",
  runtime: "by the runtime",
  "cancelled-by-agent": "cancelled by the agent",
};

export const STATE_WORDS: Record<string, string> = {
  starting: "starting",
  running: "running",
  waiting: "waiting for you",
  settled: "settled",
  error: "error",
};

export function isOver(state: string): boolean {
  return state === "settled" || state === "error";
}
