import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childrenUnderParents } from './children-under-parents';

const row = (run_id: string, parent?: string) => ({ run_id, ...(parent !== undefined ? { parent: { run_id: parent } } : {}) });

describe('child runs listed under their parents (issue 29)', () => {
  it('newest first: a child listed above its parent moves right under it; other rows keep their order', () => {
    const rows = [row('c'), row('p:a', 'p'), row('p:b', 'p'), row('p'), row('q')];
    expect(childrenUnderParents(rows).map((r) => r.run_id)).toEqual(['c', 'p', 'p:a', 'p:b', 'q']);
  });

  it('grandchildren nest under their own parent; a child whose parent is not listed stays where it was', () => {
    const rows = [row('p:a:x', 'p:a'), row('p:a', 'p'), row('o:z', 'o'), row('p')];
    expect(childrenUnderParents(rows).map((r) => r.run_id)).toEqual(['o:z', 'p', 'p:a', 'p:a:x']);
  });

  it('never loses, duplicates or invents a row, whatever the parents say (cycles, self-parents, unknown ids)', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...ids), { minLength: 0, maxLength: 6 }).chain((chosen) => fc.tuple(fc.constant(chosen), fc.array(fc.option(fc.constantFrom(...ids, 'zz'), { nil: undefined }), { minLength: chosen.length, maxLength: chosen.length }))), ([chosen, parents]) => {
        const rows = chosen.map((id, i) => row(id, parents[i]));
        const out = childrenUnderParents(rows);
        expect([...out].map((r) => r.run_id).sort()).toEqual([...chosen].sort());
        // Every nested row comes after its parent.
        const at = new Map(out.map((r, i) => [r.run_id, i]));
        for (const r of out) {
          const p = r.parent?.run_id;
          if (p !== undefined && p !== r.run_id && at.has(p) && (at.get(p) ?? 0) > (at.get(r.run_id) ?? 0)) {
            // Only a cycle may leave a child above its parent.
            const seen = new Set<string>();
            let cur: string | undefined = r.run_id;
            while (cur !== undefined && !seen.has(cur)) {
              seen.add(cur);
              cur = rows.find((x) => x.run_id === cur)?.parent?.run_id;
            }
            expect(cur).toBeDefined();
          }
        }
      }),
    );
  });
});
