// The known word nearest to a mistyped one, for "did you mean" hints in the catalog's error messages.

/** Levenshtein distance: the fewest one-character insertions, deletions or substitutions from a to b. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidate nearest to `word` (case aside), when it is near enough to be a slip: at most a third of
 * the word's letters apart, so "strng" finds "string" and "String" finds it too, but "colour" finds
 * nothing among a param's fields.
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  // One or two letters resemble too many words for a guess to help.
  if (word.length < 3) return undefined;
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  const list = [...candidates];
  for (const c of list) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  if (best !== undefined && best !== word && bestDistance <= Math.max(1, Math.floor(word.length / 3))) return best;
  // A shortening ("int", "bool") names the one word it begins, when it begins only one.
  const longer = list.filter((c) => c.toLowerCase().startsWith(lower) && c !== word);
  return longer.length === 1 ? longer[0] : undefined;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = nearest(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
