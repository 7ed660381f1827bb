import type { Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }>;
  samples?: number[];
  timeDeltas?: number[];
}

/** The page's V8 CPU profiler (CDP), started now; `stop` prints the functions that took most of the time between (self time), and writes the profile to BENCH_PROFILE_OUT if set. */
export async function profilePage(page: Page): Promise<{ stop(label: string): Promise<void> }> {
  const session = await page.context().newCDPSession(page);
  await session.send('Profiler.enable');
  await session.send('Profiler.start');
  return {
    async stop(label) {
      const { profile } = await session.send('Profiler.stop');
      // BENCH_PROFILE_OUT: the whole profile too, for DevTools' Performance panel or a script.
      if (process.env.BENCH_PROFILE_OUT) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
      printProfile(label, profile as CpuProfile);
    },
  };
}

/** Self time by function, the top 25 (a bundle's function by file, line and column). */
export function printProfile(label: string, profile: CpuProfile): void {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const frame = byNode.get(id)?.callFrame;
    const key = frame ? `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : '?';
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`  ${label} (self time, ${(total / 1000).toFixed(1)} s sampled):`);
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`    ${((100 * ms) / total).toFixed(1)}%  ${key}`);
}
