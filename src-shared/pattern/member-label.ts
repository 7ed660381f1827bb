/**
 * Where a workflow's question waits, as a person reads it (issue 12): the node, and for a pattern
 * node whose member agent asks, that member ("draft › member critic"). The CLI's `runs waiting`
 * and the app's Waiting for you name it the same way.
 */

/** The member a member output id belongs to (`critic#2`, `critic#2.1` → `critic`; member ids have no `#`). */
export function memberOfOutputId(outputId: string): string {
  return outputId.split('#')[0] || outputId;
}

/** "draft", or "draft › member critic". */
export function waitingAt(node: string, member?: string): string {
  return member === undefined ? node : `${node} › member ${member}`;
}
