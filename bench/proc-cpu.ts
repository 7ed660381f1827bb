import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) used so far by the processes whose command name matches `name`, by Chromium's
 * process type (`--type=renderer`, …; "browser" without one). Linux /proc; empty elsewhere. With
 * `process.cpuUsage()` for the bench's own process: where a pipeline's CPU went on a machine of few cores.
 */
export function processesCpuByType(name: RegExp): Record<string, number> {
  const out: Record<string, number> = {};
  if (process.platform !== 'linux') return out;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!name.test(statComm(stat))) continue;
      const type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
      out[type] = (out[type] ?? 0) + statCpuMs(stat) / 1000;
    } catch {
      // The process ended while listed.
    }
  }
  return out;
}

/** A /proc stat line's command name ("pid (comm) state …": comm may hold spaces and parentheses). */
const statComm = (stat: string) => stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));

/** A /proc stat line's CPU so far in ms: utime and stime (fields 14 and 15, counted after comm's closing parenthesis), in USER_HZ ticks (100 on Linux). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** This process's CPU ms so far: its main thread (the event loop) and its other threads together. Linux /proc; undefined elsewhere. */
export function threadsCpuMs(): { main: number; others: number } | undefined {
  if (process.platform !== 'linux') return undefined;
  let main = 0;
  let others = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const ms = statCpuMs(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
      if (tid === String(process.pid)) main += ms;
      else others += ms;
    } catch {
      // The thread ended while listed.
    }
  }
  return { main, others };
}

/** The whole machine's busy CPU ms so far (user, nice, system, irq, softirq, steal; every CPU). Linux /proc; undefined elsewhere. */
export function machineCpuMs(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / 100;
}
