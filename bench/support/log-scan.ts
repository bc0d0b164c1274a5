import { readFileSync, statSync } from 'node:fs';

/** What a process logged in a stretch of time: how much, how bunched, with how many stack traces, saying what. */
export interface LogStretch {
  lines: number;
  /** Lines carrying a stack trace (a pino `err` with `stack`, or a bare `    at …` frame). */
  withStack: number;
  /** The most lines at or above the scan's level (all, or warn: see scanLog) that fell in any one second. */
  maxPerSecond: number;
  /** Each distinct message (pino `msg`, else the raw line) with its count, most frequent first. */
  messages: [string, number][];
  /** The first line with a stack trace, cut short; undefined when none. */
  firstStack: string | undefined;
  /** Request lines of the run's own /readyz polls: counted here, in none of the figures above. */
  probeLines: number;
}

/** The size of a log file now (0 when it does not exist yet): where a stretch starts or ends. */
export function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const STACK_FRAME = /"stack":"|^\s+at \S+/;

/**
 * Reads the lines a process wrote between two offsets of its log and sums them up; the busiest
 * second counts lines at `floodLevel` or above (pino's numbers: 40 warn), all when 0.
 */
export function scanLog(file: string, from: number, to: number, floodLevel = 0): LogStretch {
  const text = readFileSync(file).subarray(from, to).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const perSecond = new Map<number, number>();
  const messages = new Map<string, number>();
  let withStack = 0;
  let lastSecond = 0;
  let firstStack: string | undefined;
  let probeLines = 0;
  const counted: string[] = [];
  for (const raw of lines) {
    const parsed = parse(raw);
    if (parsed?.probe) {
      probeLines++;
      continue;
    }
    counted.push(raw);
    // A line that is no pino record (a crash's output) counts in the second of the record before it.
    const second = parsed?.time !== undefined ? Math.floor(parsed.time / 1000) : lastSecond;
    lastSecond = second;
    if ((parsed?.level ?? 60) >= floodLevel) perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    if (STACK_FRAME.test(raw)) {
      withStack++;
      firstStack ??= raw.slice(0, 400);
    }
    const message = parsed?.msg ?? raw.trim().slice(0, 120);
    messages.set(message, (messages.get(message) ?? 0) + 1);
  }
  return {
    lines: counted.length,
    withStack,
    maxPerSecond: Math.max(0, ...perSecond.values()),
    messages: [...messages.entries()].sort((a, b) => b[1] - a[1]),
    firstStack,
    probeLines,
  };
}

function parse(raw: string): { time?: number; level?: number; msg?: string; probe: boolean } | undefined {
  if (!raw.startsWith('{')) return undefined;
  try {
    const record = JSON.parse(raw) as { time?: unknown; msg?: unknown; level?: unknown; path?: unknown };
    return {
      probe: record.msg === 'request' && record.path === '/readyz',
      time: typeof record.time === 'number' ? record.time : undefined,
      level: typeof record.level === 'number' ? record.level : undefined,
      msg: typeof record.msg === 'string' ? `${levelName(record.level)} ${record.msg}` : undefined,
    };
  } catch {
    return undefined;
  }
}

function levelName(level: unknown): string {
  const names: Record<number, string> = { 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  return typeof level === 'number' ? (names[level] ?? String(level)) : '?';
}
