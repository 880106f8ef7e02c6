/** Durations as people write them in config and on the command line: "90s", "30m", "2h", "7d". */
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** "2h" → 7200; undefined when it is not a duration. */
export function durationSeconds(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  return m ? Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS] : undefined;
}
