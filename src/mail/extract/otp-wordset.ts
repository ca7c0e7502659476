// A set of words in many scripts, looked for quickly in a text: the matcher behind the OTP detector's word lists.

const LETTER = /\p{L}/u;
// A letter of a script other than Latin, by ranges (a class of Script properties is several times slower): Greek
// to Mongolian, Greek extended, Georgian and Ethiopic supplements, CJK to Hangul, presentation forms, half-width
// kana and Hangul. Latin Extended Additional (Vietnamese) is left out.
const FOREIGN = /[\u0370-\u1DFF\u1F00-\u1FFF\u2C00-\u2DFF\u2E80-\uD7FF\uF900-\uFAFF\uFB1D-\uFDFF\uFE70-\uFEFF\uFF66-\uFFDC]/;

/** A text as the word sets read it, kept for the next set: the detector asks several sets about the same text. */
interface Read {
  text: string;
  lower: string;
  /** It holds a letter of a script other than Latin. */
  foreign: boolean;
}
let last: Read = { text: '', lower: '', foreign: false };
function read(text: string): Read {
  if (text !== last.text) {
    const lower = text.toLowerCase();
    const foreign = FOREIGN.test(lower);
    last = { text, lower: foreign ? fold(lower) : lower, foreign };
  }
  return last;
}

// Arabic and Persian write kaf and yeh with different letters, and Persian text in an Arabic charset (windows-1256)
// has the Arabic ones: both read as the Persian (one letter for one, so positions hold).
const ARABIC_FORMS = /[كيى]/g;
const fold = (text: string) => text.replace(ARABIC_FORMS, (c) => (c === 'ك' ? 'ک' : 'ی'));

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
export function words(...written: string[]): Words {
  const alternatives = written.map(fold);
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
      const r = read(text);
      const lower = r.lower;
      if (inside.some((g) => g.may(r) && g.one.test(lower))) return true;
      for (const g of starting) {
        if (!g.may(r)) continue;
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
      const r = read(text);
      const lower = r.lower;
      const found: [number, number][] = [];
      const scan = (groups: Group[], wordStart: boolean) => {
        for (const g of groups) {
          if (!g.may(r)) continue;
          g.all.lastIndex = 0; // matchAll starts where test() left the shared expression
          for (const m of lower.matchAll(g.all)) if (!wordStart || atWordStart(lower, m)) found.push([m.index, m.index + m[0].length]);
        }
      };
      scan(inside, false);
      scan(starting, true);
      return found;
    },
  };
}

interface Group {
  /** Whether the text may hold one of the words (a quick look at its scripts and first letters). */
  may(read: Read): boolean;
  one: RegExp;
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
    group(scripts, (r) => r.foreign && firsts.test(r.lower)),
  ].filter((g): g is Group => g !== undefined);
}

function group(alternatives: string[], may: (read: Read) => boolean): Group | undefined {
  if (alternatives.length === 0) return undefined;
  const one = new RegExp(alternatives.join('|'), 'u');
  return { may, one, all: new RegExp(one.source, 'gu') };
}
