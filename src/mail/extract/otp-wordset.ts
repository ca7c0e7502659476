// A set of words in many scripts, looked for quickly in a text: the matcher behind the OTP detector's word lists.

const LETTER = /\p{L}/u;

export interface Words {
  test(text: string): boolean;
  /** Where they occur in `text`: [start, end) pairs. */
  find(text: string): [number, number][];
}

/**
 * A set of words to look for, lower-case. Those in alphabetic scripts must start a word (pin, not spinning),
 * unless marked `~` (found inside compounds: Bestätigungscode, verifieringskod). The word start is checked
 * here rather than by a lookbehind, and the text is lower-cased first rather than matched case-insensitively:
 * both made the regular expression several times slower.
 */
export function words(...alternatives: string[]): Words {
  const isStarting = (a: string) => !a.startsWith('~') && /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]/u.test(a);
  // Words of scripts other than Latin are looked for only in a text that holds one of their first letters:
  // irregexp does not skip a long alternation of many scripts quickly, a class of letters it does, and most
  // mail holds none of them.
  const ofScript = (a: string) => /^[^\p{Script=Latin}\p{Script=Common}\\([]/u.test(a);
  const starting = byScript(alternatives.filter(isStarting), ofScript);
  const inside = byScript(
    alternatives.filter((a) => !isStarting(a)).map((a) => a.replace(/^~/, '')),
    ofScript,
  );
  const atWordStart = (lower: string, m: RegExpExecArray | RegExpMatchArray) => m.index === 0 || !LETTER.test(lower[m.index! - 1]!);
  return {
    test(text) {
      const lower = text.toLowerCase();
      if (inside.some((g) => g.test(lower))) return true;
      for (const g of starting) {
        if (!g.may(lower)) continue;
        const all = g.all;
        all.lastIndex = 0;
        for (let m = all.exec(lower); m; m = all.exec(lower)) {
          if (atWordStart(lower, m)) return true;
          all.lastIndex = m.index + 1;
        }
      }
      return false;
    },
    find(text) {
      const lower = text.toLowerCase();
      const found: [number, number][] = [];
      for (const g of [...inside, ...starting]) {
        if (!g.may(lower)) continue;
        g.all.lastIndex = 0; // matchAll starts where test() left the shared expression
        for (const m of lower.matchAll(g.all))
          if (!starting.includes(g) || atWordStart(lower, m)) found.push([m.index, m.index + m[0].length]);
      }
      return found;
    },
  };
}

interface Group {
  /** Whether the text may hold one of the words (a quick look at first letters). */
  may(text: string): boolean;
  test(text: string): boolean;
  /** The global twin, for scanning every match. */
  all: RegExp;
}

/** The alternatives as two expressions: those always looked for, and those of other scripts behind their first letters. */
function byScript(alternatives: string[], ofScript: (a: string) => boolean): Group[] {
  const scripts = alternatives.filter(ofScript);
  const firsts = new RegExp(`[${[...new Set(scripts.map((a) => String.fromCodePoint(a.codePointAt(0)!)))].join('')}]`, 'u');
  return [
    group(
      alternatives.filter((a) => !ofScript(a)),
      () => true,
    ),
    group(scripts, (text) => firsts.test(text)),
  ].filter((g): g is Group => g !== undefined);
}

function group(alternatives: string[], may: (text: string) => boolean): Group | undefined {
  if (alternatives.length === 0) return undefined;
  const one = new RegExp(alternatives.join('|'), 'u');
  return { may, test: (text) => may(text) && one.test(text), all: new RegExp(one.source, 'gu') };
}
