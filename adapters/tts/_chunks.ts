// Splits text into pieces of at most `max` characters: whole sentences where they fit, packed together;
// a longer sentence at word boundaries; a longer word (a URL, a run of Thai) cut hard. Intl.Segmenter
// knows sentence ends of every script we speak (。, ।, ။…), which a regex on ". " would not.
const sentences = new Intl.Segmenter('und', { granularity: 'sentence' });
const words = new Intl.Segmenter('und', { granularity: 'word' });

function pieces(segmenter: Intl.Segmenter, text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Greedily joins parts into chunks of at most `max` characters, splitting a part that is too long with `split`. */
function pack(parts: string[], max: number, split: (part: string) => string[]): string[] {
  const out: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) out.push(current.trim());
    current = '';
  };
  for (const part of parts) {
    if (current.length + part.length <= max) {
      current += part;
      continue;
    }
    flush();
    if (part.length <= max) {
      current = part;
      continue;
    }
    const subs = split(part);
    out.push(
      ...subs
        .slice(0, -1)
        .map((s) => s.trim())
        .filter(Boolean),
    );
    // The tail may share a chunk with what follows; split() trimmed the space that parted them.
    current = `${subs.at(-1) ?? ''} `;
  }
  flush();
  return out;
}

function hardCut(word: string, max: number): string[] {
  const out: string[] = [];
  // Code points, not UTF-16 units: never split a surrogate pair.
  const chars = Array.from(word);
  for (let i = 0; i < chars.length; i += max) out.push(chars.slice(i, i + max).join(''));
  return out;
}

export function splitText(text: string, max: number): string[] {
  const normalised = text.replace(/\s+/g, ' ').trim();
  return pack(pieces(sentences, normalised), max, (sentence) => pack(pieces(words, sentence), max, (word) => hardCut(word, max)));
}
